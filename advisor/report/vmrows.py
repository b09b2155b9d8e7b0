"""One row per VM: the overview of a running estate (VMware's Compute Optimizer gives one per VM;
RVTools users ask for it as CSV). The rows are data; advisor.output.table, csv, xlsx and html lay
them out."""

from __future__ import annotations

from typing import Any

from advisor.report.findings import Finding, Run, VmResult
from advisor.vocab import SEVERITY_RANK

COLUMNS = ("vm", "host", "cluster", "vcpus", "cores_per_socket", "memory_mib", "vnuma", "verdict", "top_finding",
           "recommended", "assumptions")
# Column titles for the formats a person reads (table, xlsx, html); csv keeps the keys above.
TITLES = {"vm": "VM", "host": "host", "cluster": "cluster", "vcpus": "vCPUs", "cores_per_socket": "cores per socket",
          "memory_mib": "memory MiB", "vnuma": "predicted vNUMA layout", "verdict": "verdict",
          "top_finding": "top finding", "recommended": "recommended shape", "assumptions": "assumptions"}


def _worst(run: Run) -> dict[tuple[str, str | None, int | None], Finding]:
    """Each VM's worst shown finding, keyed twice: by (VM, file, line), which is how a VM of an
    estate's spec is found (its findings point at its sheet and row), and by (VM, file, None)."""
    out: dict[tuple[str, str | None, int | None], Finding] = {}
    for f in run.findings:
        if f.suppressed is not None or f.vm is None:
            continue
        rank = (SEVERITY_RANK[f.severity], f.rule)
        for key in ((f.vm, f.file, f.line), (f.vm, f.file, None)):
            held = out.get(key)
            if held is None or rank > (SEVERITY_RANK[held.severity], held.rule):
                out[key] = f
    return out


def _shape(vm: VmResult, topo: dict[str, Any], memory: int) -> str:
    """The recommended vCPUs, cores per socket and memory, where they differ from the VM's."""
    rec = vm.recommendation
    shape = []
    if rec.vcpus and rec.vcpus != topo.get("vcpus"):
        shape.append(f"{rec.vcpus} vCPUs")
    if rec.cores_per_socket and rec.cores_per_socket != topo.get("cores_per_socket"):
        shape.append(f"{rec.cores_per_socket} cores per socket")
    if rec.memory and memory and rec.memory != memory:
        shape.append(f"{rec.memory} MiB")
    return ", ".join(shape)


def worst_findings(run: Run) -> list[Finding | None]:
    """Each VM's worst shown finding (None for a VM without one), in the run's VM order."""
    worst = _worst(run)
    out = []
    for vm in run.vms:
        source = run.sources.get((vm.file, vm.name))
        out.append(worst.get((vm.name, source.file, source.line) if source else (vm.name, vm.file, None)))
    return out


def rows(run: Run) -> list[dict[str, Any]]:
    """One dict per VM of the run, keyed by COLUMNS, in the run's VM order (one pass over the findings)."""
    hosts = {(h.name, h.file): h for h in run.hosts}
    out = []
    for vm, top in zip(run.vms, worst_findings(run), strict=True):
        topo = vm.topology or {}
        source = run.sources.get((vm.file, vm.name))
        memory = (topo.get("memory_local_mib") or 0) + (topo.get("memory_remote_mib") or 0)
        host_result = hosts.get((vm.host or "", vm.file))
        out.append({
            "vm": vm.name, "host": vm.host or "", "cluster": source.cluster if source else "",
            "vcpus": topo.get("vcpus", ""), "cores_per_socket": topo.get("cores_per_socket", ""),
            "memory_mib": memory or "", "vnuma": topo.get("summary", "no host given"),
            "verdict": top.severity if top else "ok",
            "top_finding": f"{top.rule} {top.message}" if top else "",
            "recommended": _shape(vm, topo, memory),
            "assumptions": "; ".join(host_result.capacity.get("assumptions", ())) if host_result else "",
        })
    return out


def verdicts(table: list[dict[str, Any]]) -> dict[str, int]:
    """VMs per verdict, worst first (the estate summary of the HTML report)."""
    counts = {name: 0 for name in ("error", "warning", "info", "ok")}
    for row in table:
        counts[row["verdict"]] += 1
    return counts

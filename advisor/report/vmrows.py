"""One row per VM: the overview of a running estate (VMware's Compute Optimizer gives one per VM;
RVTools users ask for it as CSV). The rows are data; advisor.output.table and advisor.output.csv
lay them out."""

from __future__ import annotations

from typing import Any

from advisor.report.findings import Run
from advisor.vocab import SEVERITY_RANK

COLUMNS = ("vm", "host", "vcpus", "cores_per_socket", "memory_mib", "vnuma", "verdict", "top_finding",
           "recommended", "assumptions")


def rows(run: Run) -> list[dict[str, Any]]:
    by_vm: dict[tuple[str, str | None], list[Any]] = {}
    for f in run.findings:
        if f.suppressed is None and f.vm is not None:
            by_vm.setdefault((f.vm, f.file), []).append(f)
    hosts = {(h.name, h.file): h for h in run.hosts}
    out = []
    for vm in run.vms:
        topo = vm.topology or {}
        found = [f for (name, _), fs in by_vm.items() if name == vm.name for f in fs]
        worst = max(found, key=lambda f: (SEVERITY_RANK[f.severity], f.rule), default=None)
        memory = (topo.get("memory_local_mib") or 0) + (topo.get("memory_remote_mib") or 0)
        rec = vm.recommendation
        shape = []
        if rec.vcpus and rec.vcpus != topo.get("vcpus"):
            shape.append(f"{rec.vcpus} vCPUs")
        if rec.cores_per_socket and rec.cores_per_socket != topo.get("cores_per_socket"):
            shape.append(f"{rec.cores_per_socket} cores per socket")
        if rec.memory and memory and rec.memory != memory:
            shape.append(f"{rec.memory} MiB")
        host_result = hosts.get((vm.host or "", vm.file))
        out.append({
            "vm": vm.name, "host": vm.host or "", "vcpus": topo.get("vcpus", ""),
            "cores_per_socket": topo.get("cores_per_socket", ""), "memory_mib": memory or "",
            "vnuma": topo.get("summary", "no host given"),
            "verdict": worst.severity if worst else "ok",
            "top_finding": f"{worst.rule} {worst.message}" if worst else "",
            "recommended": ", ".join(shape),
            "assumptions": "; ".join(host_result.capacity.get("assumptions", ())) if host_result else "",
        })
    return out

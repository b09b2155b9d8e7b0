"""`advisor size` output: a Rich table of ranked shapes (text), a versioned JSON document, and the
spec file `--emit-spec` writes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from advisor.model.units import format_mib
from advisor.sizing.sizing import Proposal, Sizing

if TYPE_CHECKING:
    from rich.console import Console

SCHEMA = "advisor-size/v1"
SHOWN = 8  # rows of the text table; JSON lists them all


def as_dict(s: Sizing) -> dict[str, Any]:
    req = s.request
    return {
        "schema": SCHEMA,
        "request": {"workload": req.workload, "vcpus": req.vcpus, "vms": req.vms, "total_vcpus": req.total_vcpus,
                    "memory_mib": req.memory_mib, "headroom_pct": req.headroom_pct},
        "vsphere": str(s.version),
        "hardware_version": s.hardware_version,
        "sized_for": s.host.name,
        "hosts": [h.name for h in s.hosts],
        "capacity": s.capacity,
        "why": " ".join(s.workload.why.split()),
        "references": [r.text() for r in s.workload.references],
        "proposals": [_proposal(p, rank, s.host.cores) for rank, p in enumerate(s.proposals, 1)],
        "rejected": [{"shape": r.label, "reasons": r.reasons} for r in s.rejected],
        "notes": s.notes,
    }


def _proposal(p: Proposal, rank: int, cores: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "kind": p.kind,
        "vms": p.count,
        "vcpus": p.vcpus,
        "cores_per_socket": p.cores_per_socket,
        "memory_mib": p.memory_mib,
        "prefer_ht": p.prefer_ht,
        "vcpu_per_core": round(p.count * p.vcpus / cores, 3),
        "uses_hyperthreads": p.count * p.vcpus > cores,
        "balanced": p.balanced,
        "node_load": p.node_load,
        "vms_per_node": p.clients_per_node,
        "topology": p.topology.as_dict(),
        "explanation": p.explanation,
        "host_changes": {k: {"from": a, "to": b} for k, (a, b) in p.host_changes.items()},
        "recommended_vmx": p.recommended_vmx,
        "recommended_guest": p.recommended_guest,
        "info": p.info,
        "other_hosts": p.other_hosts,
        "spec": p.spec,
    }


def render_json(s: Sizing) -> str:
    return json.dumps(as_dict(s), indent=2, ensure_ascii=False) + "\n"


def spec_text(s: Sizing, p: Proposal, rank: int) -> str:
    """The YAML spec of one proposal, with a header saying where it came from."""
    import yaml

    from advisor.emit.recommended import comment_safe

    lines = [
        f"# advisor size --workload {s.request.workload}: proposal {rank} of {len(s.proposals)}, "
        f"sized for {comment_safe(s.host.name)} on vSphere {s.version}",
    ]
    lines += [f"# {comment_safe(text)}" for text in p.explanation]
    if p.host_changes:
        changed = ", ".join(f"{k}: {a} -> {b}" for k, (a, b) in p.host_changes.items())
        lines.append(f"# host settings this proposal assumes (changed from the profile): {comment_safe(changed)}")
    lines.append("# Check it with: advisor check <this file>")
    body = yaml.safe_dump(p.spec, sort_keys=False, default_flow_style=False, allow_unicode=True, width=100)
    return "\n".join(lines) + "\n" + body


def render_text(s: Sizing, color: bool, width: int | None = None) -> str:
    """The sizing as text `width` columns wide (default: advisor.output.text's); lines wrap at
    spaces only, so an address is never cut in two (a longer one runs past the width)."""
    from rich.text import Text

    from advisor.output.text import report_console

    console = report_console(color, width)
    _print_request(console, s)
    if not s.proposals:
        console.print(Text("No shape fits this request without a warning from the rules.", style="bold red"))
    else:
        _print_proposals(console, s)
        _print_recommended(console, s.proposals[0])
    if s.rejected:
        _print_rejected(console, s)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in out.splitlines()) + "\n"


def _print_request(console: Console, s: Sizing) -> None:
    """The host, the workload, why it is sized this way and the evidence."""
    import textwrap

    from rich.text import Text

    from advisor.output.describe import visible

    host = s.host
    cap = s.capacity
    head = Text()
    head.append(f"{visible(s.request.workload)}", style="bold")
    head.append(f" on {visible(host.name)}: {host.sockets} × {host.cores_per_socket} cores"
                f"{f' × {host.threads_per_core} threads' if host.threads_per_core > 1 else ''}, "
                f"{host.nodes} NUMA nodes of {host.cores_per_node} cores / {format_mib(host.memory_per_node)}, "
                f"vSphere {s.version} (hardware version {s.hardware_version}); "
                f"up to {cap['vcpus_per_node']} vCPUs and {format_mib(cap['memory_per_node_mib'])} per node for VMs")
    console.print(head)
    console.print(Text(" ".join(s.workload.why.split()), style="dim"))
    console.print(Text("evidence:", style="dim"))
    for reference in s.workload.references:
        # Wrapped here, at spaces only: Rich folds a word longer than the width (an address).
        console.print(Text(textwrap.fill(reference.text(), console.width, initial_indent="  ",
                                         subsequent_indent="    ", break_long_words=False,
                                         break_on_hyphens=False), style="dim"), soft_wrap=True)
    for note in s.notes:
        console.print(Text(f"note: {visible(note)}", style="dim"))


def _print_proposals(console: Console, s: Sizing) -> None:
    """The table of the first SHOWN proposals."""
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for name, justify in (("#", "right"), ("VMs × vCPU", "left"), ("cps", "right"), ("memory", "right"),
                          ("layout", "left"), ("vCPU:core", "right"), ("per node", "left")):
        table.add_column(name, justify=justify, no_wrap=name != "layout")  # type: ignore[arg-type]
    for rank, p in enumerate(s.proposals[:SHOWN], 1):
        used = p.count * p.vcpus
        layout = (f"vNUMA {'+'.join(map(str, p.topology.vnuma_nodes))}" if p.topology.vnuma_exposed
                  else "one node")
        if p.prefer_ht:
            layout += ", preferHT"
        per_node = sorted(set(p.clients_per_node))
        table.add_row(str(rank), Text(p.label.replace(" (preferHT)", ""), style="bold green" if rank == 1 else ""),
                      str(p.cores_per_socket), format_mib(p.memory_mib), layout,
                      f"{used / s.host.cores:.2f}:1", "–".join(map(str, (per_node[0], per_node[-1])))
                      if len(per_node) > 1 else str(per_node[0]))
    console.print()
    console.print(table)
    if len(s.proposals) > SHOWN:
        console.print(Text(f"... {len(s.proposals) - SHOWN} more (--format json lists them all)", style="dim"))


def _print_recommended(console: Console, best: Proposal) -> None:
    """The first proposal: why, what it assumes, and its .vmx settings."""
    from rich.padding import Padding
    from rich.text import Text

    from advisor.emit import render as render_settings
    from advisor.output.describe import visible

    console.print()
    console.print(Text(f"Recommended: {best.label}", style="bold"))

    def indented(text: str, style: str = "", depth: int = 2) -> None:
        console.print(Padding(Text(visible(text), style=style), (0, 0, 0, depth)))

    for line in best.explanation:
        indented(line)
    if best.host_changes:
        indented("host settings assumed: " + ", ".join(f"{k} {a} → {b}" for k, (a, b) in best.host_changes.items()),
                 "yellow")
    for other in best.other_hosts:
        indented(f"on {other['host']}: {other['count']} of these VMs, "
                 f"{'balanced' if other['balanced'] else 'NOT balanced'}; {other['topology']}")
    for info in best.info:
        indented(f"info {info}", "blue")
    indented(".vmx settings (as `advisor vmx` prints them):", "dim")
    fragment = render_settings("vmx", best.recommendation)
    for line in fragment.rstrip("\n").splitlines():
        indented(line, depth=4)


def _print_rejected(console: Console, s: Sizing) -> None:
    from rich.padding import Padding
    from rich.text import Text

    from advisor.output.describe import visible

    console.print()
    console.print(Text(f"Not proposed ({len(s.rejected)}):", style="dim"))
    for r in s.rejected[:SHOWN]:
        more = f" (+{len(r.reasons) - 1} more)" if len(r.reasons) > 1 else ""
        console.print(Padding(Text(visible(f"{r.label}: {r.reasons[0]}{more}"), style="dim"), (0, 0, 0, 2)))

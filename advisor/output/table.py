"""`--format table`: one line per VM, aligned, for a terminal (names escaped like every text output)."""

from __future__ import annotations

from advisor.errors import printable
from advisor.output.escape import command_safe
from advisor.report.findings import Run
from advisor.report.vmrows import rows

_SHOWN = (("vm", "VM"), ("host", "HOST"), ("cluster", "CLUSTER"), ("vcpus", "vCPU"), ("cores_per_socket", "CPS"),
          ("memory_mib", "MiB"), ("verdict", "VERDICT"), ("top_finding", "TOP FINDING"), ("recommended", "RECOMMENDED"))
_CUT = 60  # characters of a free-text cell; the full text is in --format csv or json


def render(run: Run) -> str:
    table = [[printable(str(r[key]))[:_CUT] for key, _ in _SHOWN] for r in rows(run)]
    head = [title for _, title in _SHOWN]
    widths = [max(len(c) for c in column) for column in zip(head, *table, strict=True)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in [head, *table]]
    return "\n".join(map(command_safe, lines)) + f"\n{len(table)} VM(s)\n"  # a VM named `::error::` leads its line

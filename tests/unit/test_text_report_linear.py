"""The text report's own work grows linearly with the findings (issue 20).

No clock: the report is rendered for 1,000 and for 10,000 VMs (one finding each, one file, as
a large spec gives) and what it touches is counted: every read of a finding's or VM's fields
and every line handed to the console. Ten times the VMs must cost about ten times the work;
looking each VM's findings up in the whole list (the old report) cost a hundred times more.
"""

from __future__ import annotations

import io

import pytest

from advisor.output import Display, text
from advisor.report.findings import Finding, Run, VmResult

_COUNTED = frozenset({"vm", "subject", "file", "suppressed", "name"})


class _Reads:
    n = 0


def _counted(base: type) -> type:
    """`base` with every read of a _COUNTED field added to _Reads.n."""

    def __getattribute__(self: object, name: str) -> object:
        if name in _COUNTED:
            _Reads.n += 1
        return object.__getattribute__(self, name)

    return type(f"Counted{base.__name__}", (base,), {"__slots__": (), "__getattribute__": __getattribute__})


_CountedFinding = _counted(Finding)
_CountedVm = _counted(VmResult)


class _Console:
    """Stands in for Rich's console: counts what the report prints, renders nothing."""

    def __init__(self) -> None:
        self.file = io.StringIO()
        self.printed = 0

    def print(self, *objects: object, **_: object) -> None:
        self.printed += 1


def _run(vms: int) -> Run:
    run = Run(files=["estate.yaml"])
    for i in range(vms):
        name = f"vm-{i:06d}"
        run.vms.append(_CountedVm(name, "estate.yaml", "esx01", 1, i + 3, None))
        run.findings.append(_CountedFinding(rule="NUMA001", name="wide", severity="warning", subject=f"vm {name}",
                                            message="spans nodes", vm=name, file="estate.yaml", line=i + 3))
    return run


def _work(vms: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    consoles: list[_Console] = []
    monkeypatch.setattr(text, "report_console", lambda color, width=None: consoles.append(_Console()) or consoles[-1])
    run = _run(vms)
    _Reads.n = 0
    # In colour every line goes through print(), where it is counted: a VM line and a finding each.
    text.render(run, color=True, display=Display(topology=True))
    return _Reads.n, consoles[0].printed


def test_text_report_work_is_linear_in_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    reads_1k, printed_1k = _work(1_000, monkeypatch)
    reads_10k, printed_10k = _work(10_000, monkeypatch)
    assert reads_1k >= 2_000 and printed_1k >= 2_000  # every VM and its finding were visited
    # Linear: x10 VMs -> about x10 work (a constant per run aside); quadratic would be ~x100.
    assert reads_10k <= 10.5 * reads_1k, (reads_1k, reads_10k)
    assert printed_10k <= 10.5 * printed_1k, (printed_1k, printed_10k)

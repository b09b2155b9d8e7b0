"""The text report without colour is written without Rich's console for most lines
(advisor.output.text._Out): it must be, byte for byte, the coloured report (which Rich lays out
in full) with its colour codes taken out, whatever the names hold. The run below carries what
could tell the two apart: tabs (Rich expands them, so those lines still go through Rich), wide
and combining characters, control characters and bidi marks, a word longer than the line,
`::` at the start of a line, a line break inside a "not evaluated" line, an input error.
"""

from __future__ import annotations

import random
import re

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from advisor.output import Display, text
from advisor.report.findings import Finding, HostResult, InputProblem, Run, VmResult

_CODE = re.compile(r"\x1b\[[0-9;]*m")
def _run(t: str = "\t") -> Run:
    """The run; `t` stands wherever a tab goes."""
    names = ["plain-vm", f"tab{t}here", "漢字の仮想マシン" * 6, "e\u0301\u200b zero-width and combining",
             "esc\x1b[31m red \u202e bidi \x07 bell \r cr", "::error::looks like a workflow command", "x" * 150]
    run = Run(files=["estate.yaml", f"other{t}file.yaml"])
    run.errors.append(InputProblem(f"other{t}file.yaml", 3, "vms", f"bad \x1b value{t}with a tab"))
    run.hosts.append(HostResult(f"esx{t}01", "estate.yaml", f"esx{t}01: 2 × 12 cores, " + "wide " * 30))
    run.findings.append(Finding(rule="PWR001", name="power", severity="warning", subject=f"host esx{t}01",
                                message="host power policy " * 8, file="estate.yaml"))
    for i, name in enumerate(names):
        vm = VmResult(name, "estate.yaml", f"esx{t}01", 1 + i % 2, i + 3, {"summary": f"{name} → 2 nodes " * 3})
        vm.skipped = (f"NUMA00{i} needs\na fact{t}that is unknown " * 3,)
        vm.suggested_vmx = [{"rule": "NUMA004", "condition": f"the workload{t}is memory-bound",
                             "vmx": {"numa.vcpu.preferHT": "TRUE"}}]
        run.vms.append(vm)
        run.findings.append(Finding(
            rule="NUMA001" if i % 3 else f"R{t}X001", name="wide", severity=("error", "warning", "info")[i % 3],
            subject=f"vm {name}", message=f"{name} spans nodes " * 4, vm=name, file="estate.yaml", line=i + 3,
            fix={"vmx": {"numa.nodeAffinity": f"0{t}{name}"}, "text": "Resize it https://example.com/" + "p" * 120},
            references=[f"A paper about {name} <https://example.com/{'q' * 90}>"]))
    run.notes.append(f"note with a{t}tab and " + "words " * 30)
    return run


EVERYTHING = Display(sources=True, skipped=True, topology=True, verbose=True)  # -v


@pytest.mark.parametrize("display", [Display(), EVERYTHING], ids=["default", "verbose"])
@pytest.mark.parametrize("quiet", [False, True])
@pytest.mark.parametrize("width", [100, 40])
def test_plain_report_is_the_coloured_one_without_its_codes(quiet: bool, width: int, display: Display) -> None:
    run = _run()
    plain = text.render(run, color=False, quiet=quiet, width=width, display=display)
    coloured = text.render(run, color=True, quiet=quiet, width=width, display=display)
    assert "\x1b[" in coloured and "\x1b[" not in plain  # both ways were taken
    assert "\t" not in plain  # Rich expanded the tabs on the lines it was given
    assert _CODE.sub("", coloured) == plain


def test_plain_lines_skip_the_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without colour and without tabs, no line reaches Rich's print(); a text holding a tab goes
    through it whole."""
    printed: list[str] = []
    console_print = Console.print

    def counting(self: Console, *objects: object, **kwargs: object) -> None:
        printed.append("".join(o.plain if isinstance(o, Text) else str(o) for o in objects))
        console_print(self, *objects, **kwargs)

    monkeypatch.setattr(Console, "print", counting)
    report = text.render(_run(" "), color=False, display=EVERYTHING)
    assert len(report.splitlines()) > 60 and printed == []
    text.render(_run(), color=False, display=EVERYTHING)
    assert any("\t" in line for line in printed)


def _word_by_word(plain: str, room: int) -> list[int]:
    """The greedy breaker a word at a time, measuring each word in cells (what _line_starts
    does for text that is not printable ASCII and advisor's symbols)."""
    starts: list[int] = []
    used = 0
    for match in re.finditer(r"\s*(\S+)\s*", plain):
        if used and used + cell_len(match.group(0).rstrip()) > room and match.start():
            starts.append(match.start())
            used = 0
        used += cell_len(match.group(0))
    return starts


@pytest.mark.self_compare
def test_one_cell_breaks_match_the_word_by_word_breaker() -> None:
    """Printable ASCII and advisor's one-cell symbols are broken by looking at the character
    past each line's room; that must start every line where the word-by-word walk in cells
    does, leading spaces, long words and all."""
    assert all(cell_len(symbol * 3) == 3 for symbol in text.ONE_CELL_SYMBOLS)
    pick = random.Random(20).choice
    pieces = ["a", "bb", " ", "  ", "https://example.com/" + "p" * 30, "-", "x" * 12, "→", "×4", "…)", "a–b", "漢字"]
    for _ in range(5000):
        plain = "".join(pick(pieces) for _ in range(pick(range(30))))
        if pick((False, True)):
            plain = " " * pick(range(1, 30)) + plain
        room = pick(range(1, 40))
        assert text._line_starts(plain, room) == _word_by_word(plain, room), (plain, room)

"""Terminal conventions: a finding is one line; what the text report lists in detail fits the
terminal's width without breaking a word or a URL; colour follows --color, FORCE_COLOR and
NO_COLOR (empty values ignored); -q prints one line per finding sorted by file and line with the
rule and severity in columns."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from advisor.engine.catalog import load_catalog
from advisor.engine.engine import Policy
from advisor.engine.specs import check_files
from advisor.output import Display, render
from advisor.report.findings import Finding, Run

EXAMPLES = sorted(str(p) for p in (REPO / "examples").glob("*.yaml"))
LONG_URL = ("https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-resource-management/GUID-"
            "BD4A462D-5CDC-4483-968B-1DCF103C4208.html?hWord=N4IghgNiBcIMYFMB2ATArgSwC4A9UCdMA")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def run() -> Run:
    run = check_files(EXAMPLES, load_catalog(), Policy())
    # A rule of the user's own (no page in the rules reference): its link is its reference's address.
    run.findings.append(Finding("ORG004", "passthrough-for-lowest-latency", "info", "vm x", "a finding whose "
                                "reference is one long URL", vm=None, file="x.yaml", line=3,
                                fix={"text": "see the guide"}, references=[f"VMware guide <{LONG_URL}>"]))
    return run


def _words(run: Run) -> set[str]:
    """Every word the report must show whole: messages, fixes and links."""
    from advisor.output.describe import fix_summary, rule_link

    words: set[str] = set()
    for f in run.findings:
        if f.suppressed is None:
            for text in (f.message, fix_summary(f.fix) or "", rule_link(run, f) or ""):
                words.update(text.split())
    return words


def test_a_finding_is_one_line_and_no_word_or_url_is_broken(run):
    """A finding, a VM's topology and each summary line are one line whatever the width (as
    ruff's and hadolint's diagnostics: a terminal wraps them, `grep` and editors read them
    whole); the fix and the link follow on a line each."""
    text = render("text", run, width=60)
    lines = text.splitlines()
    shown = [f for f in run.findings if f.suppressed is None]
    starts = [line for line in lines if re.match(r"\S+\.yaml(:\d+)*  [A-Z]+\d+ ", line)]
    assert len(starts) == len(shown)
    tokens = set(text.split())
    missing = sorted(w for w in _words(run) if w not in tokens)
    assert not missing, missing[:10]
    assert LONG_URL in tokens
    assert all(line.startswith("    ") for line in lines if line not in starts and line and ".yaml:" not in line
               and not re.match(r"\d+ errors?,|note: |not evaluated: ", line))


@pytest.mark.parametrize("width", [60, 100, 200])
def test_listed_details_fit_the_width_and_break_no_word(width):
    """What --show-skipped lists under a VM is laid out for the width, broken between words
    only: a word longer than the line (a fact name, a URL) is printed whole on its own line."""
    from advisor.engine.lint import LintJob, lint

    vmx = REPO / "tests" / "fixtures" / "templates" / "vmx"
    files = sorted(str(p) for p in vmx.glob("*.vmx"))
    run = lint(files, LintJob(rule_dirs=[], policy=Policy(), host_ref=None, vsphere=None), 1)
    assert any(vm.skipped for vm in run.vms)
    text = render("text", run, width=width, display=Display(skipped=True))
    detail = [line for line in text.splitlines() if line.startswith("    ")
              and not line.startswith(("    fix: ", "    see: "))]
    assert detail
    too_long = [line for line in detail if len(line) > width and " " in line.strip()]
    assert not too_long, too_long[:3]
    words = {w for vm in run.vms for line in vm.skipped for w in line.split()}
    assert words <= set(text.split())
    if width == 200:
        assert max(len(line) for line in detail) > 100


def test_default_width_follows_columns_and_non_terminals_get_100():
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "FORCE_COLOR")}
    sample = sorted(str(p) for p in (REPO / "tests" / "fixtures" / "templates" / "vmx").glob("*.vmx"))
    out = {}
    for columns in (None, "60", "200"):
        extra = {"COLUMNS": columns} if columns else {}
        result = subprocess.run([sys.executable, "-m", "advisor", "lint", "--show-skipped", *sample],
                                capture_output=True, text=True, env={**env, **extra})
        out[columns] = max(len(line) for line in result.stdout.splitlines()
                           if line.startswith("    ") and not line.startswith(("    fix: ", "    see: "))
                           and " " in line.strip())
    assert out["60"] <= 60 < out[None] <= 100 < out["200"] <= 200


@pytest.mark.parametrize("env,flag,colored", [
    ({}, None, False),                              # not a terminal
    ({"NO_COLOR": ""}, None, False),
    ({"FORCE_COLOR": "1"}, None, True),
    ({"FORCE_COLOR": ""}, None, False),             # empty: not set
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, None, True),
    ({"FORCE_COLOR": "1"}, "--no-color", False),    # the flag as typed wins
    ({"NO_COLOR": "1"}, "--color", True),
])
def test_colour_follows_flags_force_color_and_no_color(env, flag, colored):
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    argv = [sys.executable, "-m", "advisor", "check", str(REPO / "examples" / "sql-server-64vcpu.yaml")]
    result = subprocess.run(argv + ([flag] if flag else []), capture_output=True, text=True, env={**base, **env})
    assert bool(ANSI.search(result.stdout)) is colored


def test_empty_no_color_does_not_disable_colour_on_a_terminal():
    from advisor.output.terminal import use_color

    class Tty:
        def isatty(self) -> bool:
            return True

    saved = {k: os.environ.pop(k) for k in ("NO_COLOR", "FORCE_COLOR", "TERM") if k in os.environ}
    try:
        os.environ["NO_COLOR"] = ""
        assert use_color(None, Tty()) is True
        os.environ["NO_COLOR"] = "1"
        assert use_color(None, Tty()) is False
    finally:
        os.environ.pop("NO_COLOR", None)
        os.environ.update(saved)


def test_quiet_lines_are_sorted_by_file_and_line_in_columns():
    run = Run(findings=[
        Finding("NUMA001", "n", "warning", "vm b", "second", vm="b", file="b.yaml", line=9),
        Finding("NET001", "n", "info", "vm a", "third", vm="a", file="b.yaml", line=12),
        Finding("HOST002", "n", "error", "host h", "first", file="a.yaml", line=30),
    ])
    lines = render("text", run, quiet=True).splitlines()
    assert lines == [
        "a.yaml:30: HOST002 error   host h: first",
        "b.yaml:9: NUMA001 warning vm b: second",
        "b.yaml:12: NET001  info    vm a: third",
    ]


def test_word_breaker_counts_cells_and_never_splits_a_word():
    """Our breaker (not Rich's private one): wide characters take two cells, a word wider than
    the line starts a line of its own and is left whole."""
    from advisor.output.text import _line_starts

    assert _line_starts("aaaa bbbb cccc", 9) == [10]  # "aaaa bbbb" is exactly 9 cells
    assert _line_starts("虚拟机 虚拟机", 8) == [4]  # 6 + 1 + 6 cells do not fit in 8
    assert _line_starts("see " + LONG_URL + " end", 40) == [4, 5 + len(LONG_URL)]
    assert _line_starts("one", 1) == []
    import advisor.output.text as text

    source = Path(text.__file__).read_text(encoding="utf-8").splitlines()
    assert not [line for line in source if "rich._" in line and "import" in line]

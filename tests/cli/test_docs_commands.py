"""Every command output the README and docs/ show is the tool's own: each fenced `console` or
`text` block whose lines start with `$ advisor …` is run from the repository's root and its
output compared with the block, line for line. A line holding only `...` stands for any number
of lines the page leaves out. A page showing output it no longer produces fails here, naming
the page, the block's line and the first line that differs."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest
from conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_FENCE = re.compile(r"^(`{3,})(console|text)[ \t]*\n(.*?)^\1[ \t]*$", re.M | re.S)


def _blocks() -> list[tuple[str, int, str, list[str]]]:
    """(page, line, command, expected output lines) of every shown command."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            command: str | None = None
            expected: list[str] = []
            start = line
            for offset, row in enumerate(match.group(3).splitlines()):
                if row.startswith("$ "):
                    if command is not None:
                        found.append((page.name, start, command, expected))
                    command, expected, start = row[2:], [], line + offset
                elif command is not None:
                    expected.append(row)
            if command is not None:
                found.append((page.name, start, command, expected))
    return found


BLOCKS = _blocks()


def _matches(expected: list[str], actual: list[str]) -> int | None:
    """None when `actual` is `expected` with each `...` standing for any run of lines; else the
    index in `expected` of the first line that does not match."""
    def walk(e: int, a: int) -> int | None:
        while e < len(expected):
            if expected[e] == "...":
                if e + 1 == len(expected):
                    return None
                misses = [walk(e + 1, start) for start in range(a, len(actual) + 1)]
                return None if None in misses else max(m for m in misses if m is not None)
            if a >= len(actual) or actual[a] != expected[e]:
                return e
            e, a = e + 1, a + 1
        return None if a == len(actual) else e
    return walk(0, 0)


def test_the_pages_show_commands():
    """The walkthrough and the sizing example are among the blocks (a broken fence pattern would
    otherwise test nothing)."""
    commands = [command for _, _, command, _ in BLOCKS]
    assert "advisor check examples/sql-server-64vcpu.yaml" in commands
    assert any(command.startswith("advisor size ") for command in commands)


@pytest.mark.parametrize(("page", "line", "command", "expected"), BLOCKS,
                         ids=[f"{page}:{line}" for page, line, _, _ in BLOCKS])
def test_shown_output_is_what_the_command_prints(page, line, command, expected):
    argv = shlex.split(command)
    assert argv[0] == "advisor", f"{page}:{line}: only advisor's own commands are run"
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "FORCE_COLOR", "CI",
                                                            "GITHUB_STEP_SUMMARY")}
    result = subprocess.run([sys.executable, "-m", "advisor", *argv[1:]], capture_output=True, text=True,
                            cwd=REPO, env=env)
    assert result.returncode in (0, 1), f"{page}:{line}: {command}: exit {result.returncode}: {result.stderr}"
    actual = result.stdout.splitlines()
    first = _matches(expected, actual)
    assert first is None, (f"{page}:{line}: `{command}` no longer prints what the page shows; first difference at "
                           f"shown line {first + 1}: {expected[first] if first < len(expected) else '(end)'!r}\n"
                           + "\n".join(actual))


def test_elision_matching():
    assert _matches(["a", "...", "d"], ["a", "b", "c", "d"]) is None
    assert _matches(["a", "..."], ["a", "b"]) is None
    assert _matches(["a", "d"], ["a", "b"]) == 1
    assert _matches(["a"], ["a", "b"]) == 1
    assert _matches(["a", "...", "x"], ["a", "b"]) == 2


def test_the_readme_layout_names_every_package_and_no_other():
    """The README's layout paragraph names each package under advisor/ and nothing that is gone."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("Layout, in the order data flows"):]
    named = set(re.findall(r"`advisor/(\w+)/`", layout))
    packages = {p.parent.name for p in (REPO / "advisor").glob("*/__init__.py")}
    assert named == packages
    for folder in re.findall(r"`(\w+)/`", layout):
        assert (REPO / folder).is_dir(), folder

"""The byte check that spares parsing a pyproject.toml without [tool.advisor]
(advisor.load.config.may_hold_advisor) never skips a file that defines the table, however its
keys are spelled: checked against tomllib itself on generated documents."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.load.config import may_hold_advisor

REPO = Path(__file__).resolve().parents[2]


def _defines_advisor(text: str) -> bool:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    tool = data.get("tool")
    return isinstance(tool, dict) and "advisor" in tool


def _spellings(word: str) -> list[str]:
    escaped = "".join(f"\\u{ord(c):04x}" if i == 0 else c for i, c in enumerate(word))
    return [word, f'"{word}"', f"'{word}'", f'"{escaped}"']


_WORDS = ["tool", "advisor", "x", "select", "project"]
_key = st.lists(st.sampled_from(_WORDS).flatmap(lambda w: st.sampled_from(_spellings(w))), min_size=1, max_size=3)
_dot = st.sampled_from([".", " . ", "\t.", ". "])
_pad = st.sampled_from(["", " ", "\t"])


@st.composite
def _path(draw) -> str:
    keys = draw(_key)
    out = keys[0]
    for key in keys[1:]:
        out += draw(_dot) + key
    return out


@st.composite
def _line(draw) -> str:
    kind = draw(st.sampled_from(["header", "array", "pair", "inline", "string"]))
    pad = draw(_pad)
    if kind == "header":
        return f"[{pad}{draw(_path())}{pad}]"
    if kind == "array":
        return f"[[{pad}{draw(_path())}{pad}]]"
    if kind == "pair":
        return f"{draw(_path())}{pad}={pad}1"
    if kind == "inline":
        return f"{draw(_path())} = {{{pad}{draw(_path())} = 2{pad}}}"
    return f"{draw(_path())} = \"{draw(st.sampled_from(_WORDS))}\""


@settings(max_examples=3000, deadline=None)
@given(st.lists(_line(), min_size=1, max_size=5))
def test_a_file_defining_tool_advisor_is_never_skipped(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    if _defines_advisor(text):
        assert may_hold_advisor(text.encode())


@pytest.mark.parametrize("text", [
    "[tool.advisor]\n", "[ tool . advisor ]\n", '["tool".\'advisor\']\n', "[tool.advisor.severity]\nA = 'error'\n",
    "[tool]\nadvisor = {select = ['NUMA']}\n", "[tool]\nadvisor.select = ['NUMA']\n", "[[tool]]\nadvisor = {}\n",
    "tool = {advisor = {}}\n", "tool.advisor.select = []\n", '[tool."\\u0061dvisor"]\n', "[tool.'advisor']\n",
])
def test_every_spelling_of_the_table_is_parsed(text: str) -> None:
    assert may_hold_advisor(text.encode())


def test_a_project_that_only_names_advisor_is_not_parsed() -> None:
    # advisor's own pyproject.toml: a script, package names and a version attribute, no table.
    raw = (REPO / "pyproject.toml").read_bytes()
    assert b"advisor" in raw and not _defines_advisor(raw.decode())
    assert not may_hold_advisor(raw)
    assert not may_hold_advisor(b'[project]\nname = "x"\ndependencies = ["vsphere-advisor"]\n[tool.ruff]\nx = 1\n')

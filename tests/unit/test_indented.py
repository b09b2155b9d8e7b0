"""advisor.output.indented writes what json.dumps(indent=2, ensure_ascii=True) writes, byte for
byte, for every document json accepts - including the odd values user rules can put in evidence."""

from __future__ import annotations

import enum
import json
import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.output.indented import dumps


class Level(enum.IntEnum):
    LOW = 1


class Tag(str):
    pass


class Opaque:
    def __str__(self) -> str:
        return "opaque \u00e9\U0001f600"


def _reference(obj: object) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=True, default=str)


scalars = (
    st.none() | st.booleans() | st.integers() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text()
    | st.sampled_from([Level.LOW, Tag("tag"), Opaque(), Decimal("1.50"), 0.1, -0.0, 1e16, 1e-7])
)
keys = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(keys, inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=600, deadline=None)
@given(documents)
def test_same_bytes_as_json(doc):
    assert dumps(doc, default=str) == _reference(doc)


@pytest.mark.parametrize("doc", [
    {}, [], {"a": {}, "b": [], "c": [[]], "d": [{}]}, "\u00e9\U0001f600\x00\n\"\\",
    {3: "int key", 2.5: "float key", True: "bool key", False: "bool key", None: "none key"},
    {"nan": math.nan, "inf": [math.inf, -math.inf]},
])
def test_edge_cases(doc):
    assert dumps(doc, default=str) == _reference(doc)


def test_errors_are_json_s():
    with pytest.raises(TypeError, match="keys must be str, int, float, bool or None, not tuple"):
        dumps({(1, 2): 0}, default=str)
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps(loop, default=str)


def test_a_sarif_log_is_written_as_json_would():
    from advisor.output import sarif
    from advisor.report.findings import Finding, InputProblem, Run, Suppressed

    run = Run(command="lint")
    run.files = ["t/a b#1.vmx", "C:\\t\\w.vmx", "/abs/\u00e9.vmx"]
    run.findings = [Finding(rule="NUMA001", name="n", severity="warning", message="m \u00e9", subject="vm:x", vm="x",
                            file=f, line=3, column=2, fix={"vmx": {"a": "1"}, "kind": "suggest", "condition": "c"},
                            references=["https://example.com/x"], evidence={"vcpus": 64},
                            suppressed=Suppressed("inline", "why", None, f, 3) if i else None)
                    for i, f in enumerate(run.files)]
    run.errors = [InputProblem("t/a b#1.vmx", 4, "numvcpus", "bad")]
    run.notes = ["a note"]
    assert sarif.render(run) == _reference(sarif.document(run)) + "\n"

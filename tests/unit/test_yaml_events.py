"""The spec loader builds its tree from the parser's events (advisor/load/yamltree.py): the same
tree, lines and errors as PyYAML's node-based loader, without holding the node graph (issue 20)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor import collector
from advisor.errors import InputError
from advisor.load import yamlfile, yamlnodes, yamltree

REPO = Path(__file__).resolve().parents[2]

EDGE_CASES = [
    "a: 1\nb: [1, 2, {c: d}]\n",
    "",
    "---\n",
    "a: &x {b: 1, c: 2}\nd:\n  <<: *x\n  c: 3\n",
    "a:\n  - &v {name: a}\n  - *v\n  - {<<: *v, name: b}\n",
    "m:\n  <<: *nope\n",
    "a: &x 1\nb: &x 2\n",
    "a: &x [*x]\n",
    "x: &a {<<: *a}\n",
    "<<: 5\n",
    "? [1]\n: 2\n",
    "a: 1\na: 2\n",
    "a: !!str 5\nb: !!int '7'\nc: !!float 1\n",
    "a: !foo x\n",
    "a: !!set {x, y}\n",
    "a: !!omap [{x: 1}]\n",
    "a: 2020-13-45\n",
    "a: 2020-01-02\nb: 1e3\nc: .inf\nd: ~\ne: yes\nf: 0x1F\ng: 0o17\nh: '1'\n",
    "a: " + "[" * 70 + "]" * 70 + "\n",
    "a: b\n---\nc: d\n",
    "'<<': 1\n",
    "=: 1\n",
    "a: =\n",
    "a: 1\n b: 2\n",
    "a: [1, 2\n",
    "a: " + "9" * 5000 + "\n",
    "1: a\n2.5: b\nnull: c\ntrue: d\n",
    "a: &s shared\nb: *s\nc: [*s, *s]\n",
    "vms:\n  - name: a\n    advanced: {x.y: 'TRUE'}\n",
]


def _node_load(text: str) -> Any:
    with collector.gc_paused():
        return yaml.load(text, Loader=yamlnodes.Loader)  # a SafeLoader subclass


def _outcome(load, text: str) -> tuple[Any, ...]:
    try:
        return ("ok", _shape(load(text)))
    except yamltree.NeedsNodes:
        return _outcome(_node_load, text)
    except InputError as exc:
        return ("input error", str(exc))
    except yaml.YAMLError as exc:
        return (type(exc).__name__, str(exc))


def _shape(value: Any) -> Any:
    """Values with their types, and every line the tree records."""
    if isinstance(value, dict):
        lines = getattr(value, "lines", {})
        return ("map", getattr(value, "line", None), [(k, lines.get(k), _shape(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return ("seq", getattr(value, "line", None), list(getattr(value, "lines", [])), [_shape(v) for v in value])
    return (type(value).__name__, value)


def _texts() -> list[str]:
    found = [p for folder in ("rules", "hosts", "examples") for p in sorted((REPO / folder).rglob("*.yaml"))]
    return EDGE_CASES + [p.read_text(encoding="utf-8") for p in found]


@pytest.mark.self_compare
@pytest.mark.parametrize("text", _texts())
def test_event_builder_gives_the_node_loaders_tree_lines_and_errors(text: str) -> None:
    assert _outcome(yamltree.build, text) == _outcome(_node_load, text)


# Merges of several mappings: PyYAML 6.0.4 changed its node loader's order (it drops a merged
# pair by the identity of its key's string), so advisor's own rule is written out here
# (yamltree._merge): the first mapping of a list wins, a later `<<` wins over an earlier one, a
# key keeps the place of its first appearance with the last mapping's pairs placed first.
MERGES = [
    ("base: &b {x: 1, y: 2}\nother: &o {y: 3, z: 4}\nm:\n  <<: [*b, *o]\n  w: 5\n",
     ("map", 4, [("y", 1, ("int", 2)), ("z", 2, ("int", 4)), ("x", 1, ("int", 1)), ("w", 5, ("int", 5))])),
    ("a: &b\n  c: 1\nd:\n  <<: [*b]\n  <<: {c: 9, e: 2}\n",
     ("map", 4, [("c", 5, ("int", 9)), ("e", 5, ("int", 2))])),
]


@pytest.mark.parametrize(("text", "merged"), MERGES)
def test_merges_of_several_mappings_follow_advisors_rule(text: str, merged: Any) -> None:
    outcome = _outcome(yamltree.build, text)
    assert outcome[0] == "ok"
    assert outcome[1][2][-1][2] == merged  # the last key's mapping: the one with the merges


def test_loads_words_errors_as_before() -> None:
    with pytest.raises(InputError, match=r"x\.yaml:2: a: duplicate key 'a' \(first on line 1\)"):
        yamlfile.loads("a: 1\na: 2\n", "x.yaml")
    with pytest.raises(InputError, match="nesting deeper than 64 levels"):
        yamlfile.loads("a: " + "[" * 10_000 + "]" * 10_000, "x.yaml")


def _estate(vms: int) -> str:
    rows = [f"  - {{name: vm-{i:06d}, vcpus: {2 + i % 30}, memory: {4 + i % 60}GB, workload: web, "
            f"disks: [{{size: 60GB, controller: pvscsi, role: os}}], nics: [{{adapter: vmxnet3}}]}}"
            for i in range(vms)]
    return "host: amd-epyc-9654-2s-nps4\nvms:\n" + "\n".join(rows) + "\n"


def _peak_and_kept(load, text: str) -> tuple[int, int]:
    tracemalloc.start()
    try:
        tree = load(text)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert tree["vms"][-1]["name"].startswith("vm-")
    return peak, kept


def test_loading_a_large_spec_holds_little_beyond_its_tree() -> None:
    """No node graph beside the tree: the peak stays near what is kept (it was ~4x)."""
    text = _estate(5_000)
    peak, kept = _peak_and_kept(lambda t: yamlfile.loads(t, "estate.yaml"), text)
    node_peak, _ = _peak_and_kept(_node_load, text)
    assert peak <= 1.5 * kept, (peak, kept)
    assert peak * 2 < node_peak, (peak, node_peak)

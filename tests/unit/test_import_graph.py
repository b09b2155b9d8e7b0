"""advisor/ has no import circle (issue 36, item 3): the graph of which module imports which,
read from the source with `ast`, has no cycle.

An edge is any import that can run, wherever it is written: at the top, inside a function (a lazy
import holding a cycle up is still a cycle), `import advisor.x as y`, `from pkg import sub` (an
edge to `pkg`, whose __init__ runs, and to `pkg.sub`), relative imports, and the names a module
hands to importlib: a literal module name (`"advisor.emit.vmxfrag"`) and an f-string with a literal
package prefix (`f"advisor.readers.{name}"`, counted as every module of that package, since the
name can be any of them). Imports under `if TYPE_CHECKING:` count as well: they never run, but the
module is still written against the other one (mapping's functions take the spec's VM), which is
the circle issue 36 asks to remove, not only the one the interpreter would trip over.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ADVISOR = Path(__file__).resolve().parents[2] / "advisor"

# Cycles other helpers of this session are breaking, each with its owner. The test fails on any
# cycle not listed here and on an entry that is no longer a cycle, so the list only shrinks:
# whoever breaks one removes its entry. A cycle is written from its smallest module name.
_BEING_BROKEN: dict[tuple[str, ...], str] = {
}

# Enough cycles to name what is wrong; past this the graph is tangled and the first ones say so.
_MAX_CYCLES = 200

_IMPORTERS = frozenset({"import_module", "__import__"})


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root``, by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of `from <level dots><name> import ...` written in ``module``."""
    if not level:
        return name or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, name] if name else parts)


def _imported(module: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import written in ``module``."""
    nodes = list(ast.walk(ast.parse(path.read_bytes(), filename=str(path))))
    is_package = path.name == "__init__.py"
    dynamic = any((isinstance(n, ast.Name) and n.id in _IMPORTERS)
                  or (isinstance(n, ast.Attribute) and n.attr in _IMPORTERS) for n in nodes)
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            yield base, node.lineno
            for alias in node.names:
                yield f"{base}.{alias.name}", node.lineno
        elif dynamic and isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
            yield node.value, node.lineno
        elif dynamic and isinstance(node, ast.JoinedStr) and node.values:
            head = node.values[0]
            if isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.endswith("."):
                package = head.value[:-1]
                for other in known:
                    if other.startswith(head.value) and "." not in other[len(head.value):]:
                        yield other, node.lineno
                yield package, node.lineno


def import_graph(root: Path) -> dict[str, dict[str, tuple[Path, int]]]:
    """module -> {imported module of the same package -> (file, line) of its first import}."""
    known = modules(root)
    graph: dict[str, dict[str, tuple[Path, int]]] = {}
    for module, path in known.items():
        edges = graph.setdefault(module, {})
        for target, line in _imported(module, path, known):
            if target in known and target != module:
                edges.setdefault(target, (path, line))
    return graph


def _components(graph: dict[str, dict[str, tuple[Path, int]]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def cycles(graph: dict[str, dict[str, tuple[Path, int]]]) -> list[tuple[str, ...]]:
    """Every elementary cycle (up to _MAX_CYCLES), each from its smallest module name: in each
    component, the paths from a module back to it through larger names only."""
    found: list[tuple[str, ...]] = []
    for component in _components(graph):
        for start in sorted(component):
            path = [start]
            work = [iter(sorted(n for n in graph[start] if n in component and n >= start))]
            while work and len(found) < _MAX_CYCLES:
                step = next(work[-1], None)
                if step is None:
                    work.pop()
                    path.pop()
                elif step == start:
                    found.append(tuple(path))
                elif step not in path:
                    path.append(step)
                    work.append(iter(sorted(n for n in graph[step] if n in component and n >= start)))
    return sorted(found)


def describe(cycle: tuple[str, ...], graph: dict[str, dict[str, tuple[Path, int]]], root: Path) -> str:
    """A cycle as its imports: `a (a.py:3) -> b (b.py:7) -> a`."""
    hops = []
    for here, there in zip(cycle, (*cycle[1:], cycle[0]), strict=True):
        path, line = graph[here][there]
        hops.append(f"{here} ({path.relative_to(root.parent)}:{line})")
    return " -> ".join([*hops, cycle[0]])


def problems(root: Path, being_broken: dict[tuple[str, ...], str]) -> list[str]:
    """A line for each cycle not in ``being_broken`` and each entry of it that is no cycle."""
    graph = import_graph(root)
    found = cycles(graph)
    new = [f"import cycle: {describe(c, graph, root)}" for c in found if c not in being_broken]
    gone = [f"no longer a cycle, remove it from _BEING_BROKEN: {' -> '.join(c)} ({owner})"
            for c, owner in being_broken.items() if c not in found]
    return new + gone


def test_advisor_has_no_import_cycle_but_those_being_broken() -> None:
    found = problems(ADVISOR, _BEING_BROKEN)
    assert not found, "break each cycle (a lazy import does not):\n" + "\n".join(found)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_graph_counts_every_kind_of_import_that_runs(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "import pkg.b as bee\n",
        "b.py": "def f():\n    from . import c\n",
        "c.py": "from .sub import d\n",
        "sub/__init__.py": "",
        "sub/d.py": "from ..e import x\n",
        "e.py": "from importlib import import_module\nimport_module('pkg.f')\n",
        "f.py": "import importlib\ndef g(n):\n    return importlib.import_module(f'pkg.sub.{n}')\n",
        "g.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\nelse:\n    import pkg.h\n",
        "h.py": "x = 'pkg.a'\n",  # a string, not an import: h calls no importer
    })
    graph = import_graph(root)
    assert set(graph["pkg.a"]) == {"pkg.b"}
    assert set(graph["pkg.b"]) == {"pkg", "pkg.c"}
    assert set(graph["pkg.c"]) == {"pkg.sub", "pkg.sub.d"}
    assert set(graph["pkg.sub.d"]) == {"pkg.e"}
    assert set(graph["pkg.e"]) == {"pkg.f"}
    assert set(graph["pkg.f"]) == {"pkg.sub", "pkg.sub.d"}
    assert set(graph["pkg.g"]) == {"pkg.a", "pkg.h"}
    assert graph["pkg.h"] == {}


def test_the_test_names_each_cycle_even_through_a_lazy_import(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "from . import a\n",
        "a.py": "import pkg.b\n",
        "b.py": "def late():\n    from pkg.a import thing\n",
        "c.py": "import pkg.d\n",
        "d.py": "import pkg.e\n",
        "e.py": "import pkg.c\nimport pkg.d\n",
        "free.py": "import pkg.e\n",
    })
    graph = import_graph(root)
    found = cycles(graph)
    assert found == [("pkg.a", "pkg.b"), ("pkg.c", "pkg.d", "pkg.e"), ("pkg.d", "pkg.e")]
    assert describe(("pkg.a", "pkg.b"), graph, root) == "pkg.a (pkg/a.py:1) -> pkg.b (pkg/b.py:2) -> pkg.a"


def test_a_graph_without_cycles_has_none(tmp_path: Path) -> None:
    root = _package(tmp_path, {"__init__.py": "", "a.py": "from . import b\n", "b.py": "import os\n"})
    assert cycles(import_graph(root)) == []


def test_a_new_cycle_and_a_broken_entry_are_both_named(tmp_path: Path) -> None:
    root = _package(tmp_path, {"__init__.py": "", "a.py": "from . import b\n", "b.py": "from pkg.a import x\n"})
    assert problems(root, {("pkg.a", "pkg.b"): "someone"}) == []
    assert problems(root, {}) == ["import cycle: pkg.a (pkg/a.py:1) -> pkg.b (pkg/b.py:1) -> pkg.a"]
    assert problems(root, {("pkg.a", "pkg.b"): "someone", ("pkg", "pkg.a"): "other"}) == [
        "no longer a cycle, remove it from _BEING_BROKEN: pkg -> pkg.a (other)"]

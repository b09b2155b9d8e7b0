"""Modules and functions of advisor/ stay small enough to read (issue 36, item 3): no module over
400 lines but the byte-preserving .vmx editor, no function over 60 lines unless a comment says why
(`# long: <reason>` in the comments right above its `def` or its decorators, or as its first comment).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ADVISOR = Path(__file__).resolve().parents[2] / "advisor"

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
# The .vmx editor keeps every byte of a file it does not change (issue 36 names it as the exception).
_LONG_MODULES = frozenset({"vmx/document.py"})

# Modules and functions other helpers of this session are shrinking, each with its owner: the test
# fails on anything too long not listed here and on an entry that is no longer too long, so the
# list only shrinks. A module is its path under advisor/, a function `path:name`.
_BEING_SHRUNK: dict[str, str] = {
}

_REASON = re.compile(r"#\s*long:\s*\S")


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _says_why(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> bool:
    """A `# long: <reason>` line in the comment block right above the def (or its decorators), or
    as the first comment inside the function."""
    above = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 2
    while above >= 0 and lines[above].strip().startswith("#"):  # the comment block right above
        if _REASON.match(lines[above].strip()):
            return True
        above -= 1
    body = lines[node.lineno:node.end_lineno]
    comment = next((line.strip() for line in body if line.strip().startswith("#")), "")
    return bool(_REASON.match(comment))


def too_long(root: Path) -> dict[str, int]:
    """Every module over MAX_MODULE_LINES (but _LONG_MODULES) and every function over
    MAX_FUNCTION_LINES without a reason, by name (see _BEING_SHRUNK), with its length."""
    found: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        if len(lines) > MAX_MODULE_LINES and name not in _LONG_MODULES:
            found[name] = len(lines)
        for node in _functions(ast.parse(text, filename=str(path))):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES and not _says_why(node, lines):
                found[f"{name}:{node.name}"] = length
    return found


def problems(root: Path, being_shrunk: dict[str, str]) -> list[str]:
    found = too_long(root)
    new = [f"{name}: {length} lines (limit {MAX_FUNCTION_LINES if ':' in name else MAX_MODULE_LINES})"
           for name, length in found.items() if name not in being_shrunk]
    gone = [f"no longer too long, remove it from _BEING_SHRUNK: {name} ({owner})"
            for name, owner in being_shrunk.items() if name not in found]
    return new + gone


def test_no_module_or_function_of_advisor_is_too_long_but_those_being_shrunk() -> None:
    found = problems(ADVISOR, _BEING_SHRUNK)
    assert not found, ("split these, or say why a function is long with `# long: <reason>`:\n"
                       + "\n".join(found))


def _body(lines: int) -> str:
    return "".join(f"    x{i} = {i}\n" for i in range(lines))


def test_the_limits_are_counted_and_a_reason_lets_a_function_be_long(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "vmx").mkdir(parents=True)
    (root / "fits.py").write_text("def f():\n" + _body(59) + "\n" * 339)  # 60 + 339 = 399 lines
    (root / "big.py").write_text("x = 1\n" * 401)
    (root / "vmx" / "document.py").write_text("x = 1\n" * 401)  # the editor, excepted by name
    (root / "long.py").write_text(
        "def plain():\n" + _body(60)
        + "# long: one table, read top to bottom\n# (a second line of the reason)\ndef said_before():\n" + _body(60)
        + "# long: a reason above a blank line is not this function's\n\ndef apart():\n" + _body(60)
        + "@staticmethod\ndef decorated():\n    # long: the steps share twenty locals\n" + _body(60)
        + "def unreasoned():\n    # just a comment\n" + _body(60)
        + "class C:\n    def method(self):\n" + _body(61).replace("    ", "        "))
    assert too_long(root) == {"big.py": 401, "long.py:plain": 61, "long.py:apart": 61, "long.py:unreasoned": 62,
                              "long.py:method": 62}
    assert problems(root, {"big.py": "someone", "long.py:plain": "a", "long.py:unreasoned": "b",
                           "long.py:method": "c", "long.py:apart": "e", "fits.py:f": "d"}) == [
        "no longer too long, remove it from _BEING_SHRUNK: fits.py:f (d)"]
    assert problems(root, {"big.py": "someone", "long.py:plain": "a", "long.py:unreasoned": "b",
                           "long.py:apart": "e"}) == [
        "long.py:method: 62 lines (limit 60)"]

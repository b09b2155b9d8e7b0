"""HCL2 native syntax (`.tf`, `.pkr.hcl`, `.tfvars`, `.pkrvars.hcl`) as the shared view, parsed once.

The parser is tree-sitter with the tree-sitter-hcl grammar: chosen by measurement over
HashiCorp's own library (pygohcl, which reports no positions) and python-hcl2 (about a hundred
times slower on the corpus). Every node carries its (row, column), so each block and value keeps
the exact line and column of its source. The tree is a concrete syntax tree: a syntax error
appears as an ERROR or MISSING node, reported at its position.

Values: literals, tuples and objects of literals, arithmetic and negation on literal numbers, and
a bare `var.x` (with `.key` / `["key"]` / `[0]` steps) are read; everything else is unknown and
keeps its source text.
"""

from __future__ import annotations

import gc
import re
import textwrap
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from advisor.errors import InputError
from advisor.readers.hclview import MAX_DEPTH, Block, Expr, collection, literal, unknown

_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_ARITHMETIC = {"+", "-", "*", "/", "%"}
_EXPONENT = re.compile(rb"[eE][-+]?[0-9]")


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_hcl

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language()))


@lru_cache(maxsize=1)
def _window_parser() -> Any:
    import tree_sitter
    import tree_sitter_hcl

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language()))


# Parsed files of this run: a folder's files are read as templates and as their siblings'
# variable definitions, and each must be parsed once (the blocks are never modified after).
_PARSED: dict[tuple[str, str], Block] = {}
_MAX_PARSED = 256
_MAX_CACHED_CHARS = 1 << 20


def parse_hcl(text: str, path: Path) -> Block:
    """The file as a Block tree; a syntax error is an InputError at its line and column."""
    key = (str(path), text)
    hit = _PARSED.get(key)
    if hit is None:
        # The tree holds no reference cycles, yet building a large one set off a full collection
        # again and again (over half the reading time of a 5 MB file): collection waits until done.
        paused = gc.isenabled()
        gc.disable()
        try:
            hit = _parse(text, path)
        finally:
            if paused:
                gc.enable()
        if len(text) <= _MAX_CACHED_CHARS:  # bounded memory: a huge file is simply parsed again
            if len(_PARSED) >= _MAX_PARSED:
                _PARSED.clear()
            _PARSED[key] = hit
    return hit


def _parse(text: str, path: Path) -> Block:
    source = text.encode("utf-8")
    block = Block(type="", labels=[], line=1, end_line=text.count("\n") + 1, column=1)
    if len(source) > _WINDOW:
        try:
            reader = _Reader(source, path)
            for items in _windows(source):
                reader.fill_items(block, items, 0)
            return block
        except _Unsplit:
            block = Block(type="", labels=[], line=1, end_line=text.count("\n") + 1, column=1)
    root = _parser().parse(source).root_node
    inserted: list[int] = []
    if root.has_error:
        source, inserted = _with_fractions(root, source)
        if inserted:
            root = _parser().parse(source).root_node
    reader = _Reader(source, path, inserted)
    if root.has_error:
        raise reader.syntax_error(root)
    body = next((c for c in root.children if c.type == "body"), None)
    if body is not None:
        reader.fill(block, body, 0)
    return block


# A large file is parsed a window of top-level items at a time: one tree for 14 MB of HCL took a
# gigabyte in tree-sitter and as much again in Python node objects, all alive at once.
_WINDOW = 1 << 18


class _Unsplit(Exception):
    """A window held a syntax error: the whole file is parsed at once, for the exact same report."""


def _windows(source: bytes) -> Iterator[list[Any]]:
    """The top-level items of `source` in order, in batches parsed from windows of the file.

    Each window is parsed with an included range, so every node keeps its position in the whole
    file. Only complete, error-free items that are followed by another item are taken (the cut
    can fall inside the last one); the next window starts after them. A window with no such item
    is doubled, so a file is parsed at most about twice over.
    """
    import tree_sitter

    parser = _window_parser()
    start, row, size = 0, 0, _WINDOW
    while start < len(source):
        cut = source.find(b"\n", start + size) + 1
        end = cut if 0 < cut < len(source) else len(source)
        parser.included_ranges = [tree_sitter.Range(
            (row, start - source.rfind(b"\n", 0, start) - 1),
            (row + source.count(b"\n", start, end), end - source.rfind(b"\n", 0, end) - 1), start, end)]
        root = parser.parse(source).root_node
        body = next((c for c in root.children if c.type == "body"), None)
        items = body.children if body is not None else []
        if end == len(source):
            if root.has_error:
                raise _Unsplit
            yield items
            return
        taken = 0
        while taken < len(items) - 1 and not items[taken].has_error:
            taken += 1
        if taken < len(items) - 1 or any(c.has_error and c.start_byte < items[taken - 1].end_byte
                                         for c in root.children if c is not body and taken):
            raise _Unsplit  # an error before the cut: a real one
        if taken == 0:
            size *= 2
            continue
        yield items[:taken]
        row += source.count(b"\n", start, items[taken - 1].end_byte)
        start, size = items[taken - 1].end_byte, _WINDOW
    parser.included_ranges = []


def _with_fractions(root: Any, source: bytes) -> tuple[bytes, list[int]]:
    """`1e3` is an HCL number, but the grammar wants a fraction before an exponent: such numbers
    get `.0` (same value) and the file is parsed again; `inserted` lets columns be given back."""
    points: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "numeric_lit":
            if _EXPONENT.match(source, node.end_byte) and b"." not in source[node.start_byte:node.end_byte]:
                points.append(node.end_byte)
        else:
            stack.extend(node.children)
    patched = bytearray(source)
    inserted = []
    for point in sorted(points, reverse=True):
        patched[point:point] = b".0"
    for shift, point in enumerate(sorted(points)):
        inserted.append(point + 2 * shift)
    return bytes(patched), inserted


class _Reader:
    def __init__(self, source: bytes, path: Path, inserted: list[int] | None = None) -> None:
        self.source = source
        self.path = path
        self.inserted = inserted or []

    # ---- positions ------------------------------------------------------------------------

    def text(self, node: Any) -> str:
        return self.source[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def column(self, node: Any) -> int:
        """1-based column in characters (tree-sitter counts bytes)."""
        row_start = self.source.rfind(b"\n", 0, node.start_byte) + 1
        shifted = sum(2 for point in self.inserted if row_start <= point < node.start_byte)
        return len(self.source[row_start:node.start_byte].decode("utf-8", "replace")) + 1 - shifted

    def error(self, message: str, node: Any) -> InputError:
        return InputError(f"{message} (column {self.column(node)})", file=str(self.path),
                          line=node.start_point[0] + 1)

    def syntax_error(self, root: Any) -> InputError:
        node = _first_error(root)
        if node is None:
            return InputError("HCL syntax error", file=str(self.path))
        if node.is_missing:
            at_end = not self.source[node.start_byte:].strip()
            what = "unexpected end of file" if at_end else "missing"
            return self.error(f"HCL syntax error: {what} (expected {node.type!r})", node)
        shown = self.text(node).strip().splitlines()
        what = f"unexpected {shown[0][:40]!r}" if shown else "unexpected end of file"
        return self.error(f"HCL syntax error: {what}", node)

    # ---- blocks ---------------------------------------------------------------------------

    def fill(self, block: Block, body: Any, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise self.error("HCL is nested too deeply to read", body)
        self.fill_items(block, body.children, depth)

    def fill_items(self, block: Block, items: list[Any], depth: int) -> None:
        for child in items:
            if child.type == "attribute":
                name_node = child.children[0]
                name = self.text(name_node)
                if name in block.attrs:
                    # HCL refuses this ("Attribute redefined"); taking either value would be a guess.
                    raise self.error(f"argument '{name}' is set twice (first on line {block.attrs[name].line})",
                                     name_node)
                block.attrs[name] = self.expr(child.children[-1], 0)
            elif child.type == "block":
                names = [self.label(c) for c in child.children if c.type in ("identifier", "string_lit")]
                sub = Block(type=names[0], labels=names[1:], line=child.start_point[0] + 1,
                            end_line=child.end_point[0] + 1, column=self.column(child))
                inner = next((c for c in child.children if c.type == "body"), None)
                if inner is not None:
                    self.fill(sub, inner, depth + 1)
                block.blocks.append(sub)

    def label(self, node: Any) -> str:
        if node.type == "identifier":
            return self.text(node)
        return "".join(self.text(c) for c in node.children if c.type == "template_literal")

    # ---- expressions ----------------------------------------------------------------------

    def expr(self, node: Any, depth: int) -> Expr:
        if depth > MAX_DEPTH:
            raise self.error("HCL is nested too deeply to read", node)
        raw = self.text(node)
        line, column = node.start_point[0] + 1, self.column(node)
        kids = node.children
        if node.type == "expression":
            if len(kids) == 3 and kids[0].type == "(":
                inner = self.expr(kids[1], depth + 1)  # parentheses do not change a value
                inner.raw, inner.line, inner.column = raw, line, column
                return inner
            if kids and kids[0].type == "variable_expr":
                return self.reference(kids, raw, line, column)
            if len(kids) == 1:
                inner = self.expr(kids[0], depth + 1)
                inner.raw = raw
                return inner
            return unknown(raw, line, column=column)
        if node.type == "literal_value":
            return self.literal(kids[0], raw, line, column)
        if node.type == "template_expr":
            return self.template(kids[0], raw, line, column, depth)
        if node.type == "collection_value":
            return self.collection(kids[0], raw, line, column, depth)
        if node.type == "operation":
            return self.operation(kids[0], raw, line, column, depth)
        return unknown(raw, line, column=column)  # calls, conditionals, for, splats, references

    def literal(self, node: Any, raw: str, line: int, column: int) -> Expr:
        if node.type == "numeric_lit":
            number = _number(raw)
            return literal(number, raw, line, column) if number is not None else unknown(raw, line, column=column)
        if node.type == "bool_lit":
            return literal(raw == "true", raw, line, column)
        if node.type == "null_lit":
            return Expr(value=None, known=True, raw=raw, line=line, column=column)
        return self.quoted(node, raw, line, column)

    def quoted(self, node: Any, raw: str, line: int, column: int) -> Expr:
        parts = [c for c in node.children if c.type not in ("quoted_template_start", "quoted_template_end")]
        if any(p.type != "template_literal" for p in parts):
            return unknown(raw, line, column=column)
        return literal(_unescape("".join(self.text(p) for p in parts)), raw, line, column)

    def template(self, node: Any, raw: str, line: int, column: int, depth: int) -> Expr:
        if node.type == "heredoc_template":
            return self.heredoc(node, raw, line, column)
        parts = [c for c in node.children if c.type not in ("quoted_template_start", "quoted_template_end")]
        if len(parts) == 1 and parts[0].type == "template_interpolation":
            # "${var.x}" is the reference itself (HCL unwraps a lone interpolation).
            inner = next((c for c in parts[0].children if c.type == "expression"), None)
            if inner is not None:
                value = self.expr(inner, depth + 1)
                if value.var is not None or not value.known:
                    value.raw, value.line, value.column = raw, line, column
                    return value
        return self.quoted(node, raw, line, column)

    def heredoc(self, node: Any, raw: str, line: int, column: int) -> Expr:
        if any(c.type in ("template_interpolation", "template_directive") for c in node.children):
            return unknown(raw, line, column=column)
        idents = [c for c in node.children if c.type == "heredoc_identifier"]
        if len(idents) < 2:
            return literal("", raw, line, column)
        start = self.source.find(b"\n", idents[0].end_byte) + 1
        end = self.source.rfind(b"\n", 0, idents[-1].start_byte) + 1
        content = self.source[start:end].decode("utf-8", "replace") if 0 < start <= end else ""
        if node.children[0].type == "heredoc_start" and self.text(node.children[0]).startswith("<<-"):
            content = textwrap.dedent(content)
        return literal(content, raw, line, column)

    def collection(self, node: Any, raw: str, line: int, column: int, depth: int) -> Expr:
        if node.type == "tuple":
            elems = [self.expr(c, depth + 1) for c in node.children if c.type == "expression"]
            return collection(raw, line, elems=elems, column=column)
        items: dict[str, Expr] = {}
        dynamic: list[str] = []
        for elem in (c for c in node.children if c.type == "object_elem"):
            key_node, value_node = elem.children[0], elem.children[-1]
            key = self.key(key_node, depth)
            if key is None:
                dynamic.append(self.text(key_node))
                continue
            if key in items:
                # HCL refuses this too ("Duplicate object attribute").
                raise self.error(f"key '{key}' appears twice in one object (first on line {items[key].line})",
                                 key_node)
            items[key] = self.expr(value_node, depth + 1)
        expr = collection(raw, line, items=items, column=column)
        expr.dynamic_keys = dynamic
        if dynamic:
            expr.known, expr.value = False, None
        return expr

    def key(self, node: Any, depth: int) -> str | None:
        """An object key: a bare name means itself, otherwise it must be a literal string or number."""
        kids = node.children
        if len(kids) == 1 and kids[0].type == "variable_expr":
            return self.text(kids[0])
        value = self.expr(node, depth + 1)
        if value.known and isinstance(value.value, str | int | float) and not isinstance(value.value, bool):
            return str(value.value)
        return None

    def reference(self, kids: list[Any], raw: str, line: int, column: int) -> Expr:
        """`var.NAME` (or `local.NAME`) with literal steps names the value; any other reference is unknown."""
        root = self.text(kids[0])
        if root not in ("var", "local") or len(kids) < 2 or kids[1].type != "get_attr":
            return unknown(raw, line, column=column)
        steps: list[str | int] = []
        for step in kids[1:]:
            value = self.step(step)
            if value is None:
                return unknown(raw, line, column=column)
            steps.append(value)
        name = str(steps[0]) if root == "var" else f"local.{steps[0]}"
        return unknown(raw, line, var=name, var_path=tuple(steps[1:]), column=column)

    def step(self, node: Any) -> str | int | None:
        if node.type == "get_attr":
            return self.text(node.children[-1])
        if node.type != "index" or not node.children:
            return None
        index = node.children[0]
        if index.type == "legacy_index":
            digits = self.text(index).lstrip(".")
            return int(digits) if digits.isdigit() else None
        inner = next((c for c in index.children if c.type == "expression"), None)
        value = self.expr(inner, 0) if inner is not None else None
        if value is None or not value.known or isinstance(value.value, bool):
            return None
        return value.value if isinstance(value.value, int | str) else None

    def operation(self, node: Any, raw: str, line: int, column: int, depth: int) -> Expr:
        """Arithmetic on literal numbers (`4 * 1024`, `-1`); anything else is unknown."""
        kids = node.children
        operands = [self.expr(k, depth + 1) for k in kids if k.type not in _ARITHMETIC | {"!", "(", ")"}]
        operators = [self.text(k) for k in kids if k.type in _ARITHMETIC | {"!"}]
        if len(operators) != 1 or not all(_is_number(o) for o in operands):
            return unknown(raw, line, column=column)
        result = _arithmetic(operators[0], [o.value for o in operands])
        return literal(result, raw, line, column) if result is not None else unknown(raw, line, column=column)


def _first_error(node: Any) -> Any:
    """The first ERROR or MISSING node in document order (iterative: trees can be deep)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "ERROR" or current.is_missing:
            return current
        if current.has_error:
            stack.extend(reversed(current.children))
    return None


def _is_number(expr: Expr) -> bool:
    return expr.known and isinstance(expr.value, int | float) and not isinstance(expr.value, bool)


def _arithmetic(operator: str, values: list[int | float]) -> int | float | None:
    if len(values) == 1:
        return -values[0] if operator == "-" else None
    left, right = values
    if abs(left) > 10**15 or abs(right) > 10**15:
        return None  # no setting is that large, and the product could grow without bound
    if operator == "+":
        return left + right
    if operator == "-":
        return left - right
    if operator == "*":
        return left * right
    if right == 0:
        return None  # HCL refuses division by zero; the value is not knowable
    if operator == "/":
        result = left / right  # HCL numbers are arbitrary-precision decimals: 7 / 2 is 3.5
        return int(result) if result.is_integer() else result
    return left % right


def _number(text: str) -> int | float | None:
    if re.fullmatch(r"\d{1,18}", text):
        return int(text)
    if re.fullmatch(r"\d{1,18}(?:\.\d+)?(?:[eE][-+]?\d{1,3})?", text):
        return float(text)
    return None


def _unescape(text: str) -> str:
    """HCL's string escapes (\\n, \\", \\uNNNN, ...) and the `$${` / `%%{` literal forms."""
    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        if code:
            try:
                return chr(int(code, 16))
            except ValueError:
                return match.group(0)
        return _SIMPLE_ESCAPES.get(match.group(3), match.group(0))

    return _ESCAPE.sub(one, text).replace("$${", "${").replace("%%{", "%{")

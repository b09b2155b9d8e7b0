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
from bisect import bisect_left
from pathlib import Path
from typing import Any

import advisor.readers.hclwindows as hclwindows
from advisor.errors import InputError
from advisor.readers.hclliterals import ARITHMETIC, arithmetic, is_number, number, unescape
from advisor.readers.hclview import MAX_DEPTH, READ_BLOCKS, Block, Expr, Span, collection, literal, unknown

_NOT_OPERANDS = ARITHMETIC | {"!", "(", ")"}
_LABELS = ("identifier", "string_lit")
_QUOTES = ("quoted_template_start", "quoted_template_end")
# The common values, read from their bytes without walking their nodes: a decimal number, a
# string with no escape or template sequence, true/false/null, `var.NAME` and `local.NAME`.
_SIMPLE = re.compile(rb'(-?[0-9]{1,18}(?:\.[0-9]{1,18})?)|"([^"\\$%\n]*)"|(true|false|null)'
                     rb"|(var|local)\.([A-Za-z_][A-Za-z0-9_-]*)")
_CONSTANTS = {b"true": True, b"false": False, b"null": None}

# What one file may cost. HCL files are read up to 4 MiB, not the 16 MiB of other inputs:
# tree-sitter alone spends about half a second per MiB, and the largest real file in the corpus
# is 29 KB (a 4 MiB file of VM resources holds about 16,000 of them). A tuple or object has at
# most MAX_MEMBERS members (no VM setting is a list that long; a longer one is unknown and its
# members are never walked), and a file at most MAX_VALUES values: a value costs about 250 bytes
# and 10 microseconds of Python, and `[1,1,1,...]` packs one into two bytes of file.
MAX_HCL_BYTES = 4 << 20
MAX_MEMBERS = 4096
MAX_VALUES = 250_000


def parse_hcl(text: str, path: Path) -> Block:
    """The file as a Block tree; a syntax error is an InputError at its line and column.

    Only the top-level blocks some reader reads (hclview.READ_BLOCKS) and top-level attributes
    are walked; the rest of the file is checked for syntax by tree-sitter and skipped.
    """
    # The tree holds no reference cycles, yet building a large one set off a full collection
    # again and again (over half the reading time of a 5 MB file): collection waits until done.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, path)
    finally:
        if paused:
            gc.enable()


def _root(text: str) -> Block:
    return Block(type="", labels=[], line=1, end_line=text.count("\n") + 1, column=1)


def _parse(text: str, path: Path) -> Block:
    source = text.encode("utf-8")
    if len(source) > MAX_HCL_BYTES:
        raise InputError(f"file is {len(source) / (1 << 20):.1f} MiB; HCL files are read up to "
                         f"{MAX_HCL_BYTES >> 20} MiB", file=str(path))
    block = _root(text)
    if len(source) > hclwindows.WINDOW:
        reader = _Reader(source, path)
        try:
            for items in hclwindows.windows(source):
                reader.fill_items(block, items, 0)
            return block
        except hclwindows.WindowError as exc:
            raise reader.syntax_error(exc.root) from None
        except hclwindows.TooLarge as exc:
            limit = hclwindows.MAX_PARSE >> 10
            raise InputError(f"a top-level block or argument larger than {limit} KiB (or never closed); "
                             f"advisor reads at most {limit} KiB at once", file=str(path), line=exc.row + 1) from None
        except hclwindows.Unsplit:
            block = _root(text)
    parser = hclwindows.parser("whole")
    root = parser.parse(source).root_node
    inserted: list[int] = []
    if root.has_error:
        source, inserted = hclwindows.with_fractions(root, source)
        if inserted:
            root = parser.parse(source).root_node
    reader = _Reader(source, path, inserted)
    if root.has_error:
        raise reader.syntax_error(root)
    body = next((c for c in root.children if c.type == "body"), None)
    if body is not None:
        reader.fill(block, body, 0)
    return block


class _Reader:
    def __init__(self, source: bytes, path: Path, inserted: list[int] | None = None) -> None:
        self.source = source
        self.path = path
        self.inserted = inserted or []
        self.ascii = source.isascii()
        # Characters counted so far on one row: columns of a non-ASCII file are found in one pass
        # over each row (nodes come in document order), not by decoding the row for every node.
        self._row = self._at = self._chars = 0
        self.values = 0  # Exprs built, against MAX_VALUES

    # ---- positions ------------------------------------------------------------------------

    def text(self, node: Any) -> str:
        return self.source[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def column(self, node: Any) -> int:
        """1-based column in characters (tree-sitter counts bytes)."""
        start = node.start_byte
        row = start - node.start_point[1]
        if self.ascii:
            column = start - row + 1
        else:
            if row != self._row or start < self._at:
                self._row = self._at = row
                self._chars = 0
            self._chars += len(self.source[self._at:start].decode("utf-8", "replace"))
            self._at = start
            column = self._chars + 1
        if self.inserted:
            column -= 2 * (bisect_left(self.inserted, start) - bisect_left(self.inserted, row))
        return column

    def error(self, message: str, node: Any) -> InputError:
        return InputError(f"{message} (column {self.column(node)})", file=str(self.path),
                          line=node.start_point[0] + 1)

    def syntax_error(self, root: Any) -> InputError:
        node = hclwindows.first_error(root)
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
            kind = child.type
            if kind == "attribute":
                kids = child.children
                name_node = kids[0]
                name = self.text(name_node)
                if name in block.attrs:
                    # HCL refuses this ("Attribute redefined"); taking either value would be a guess.
                    raise self.error(f"argument '{name}' is set twice (first on line {block.attrs[name].line})",
                                     name_node)
                block.attrs[name] = self.expr(kids[-1], 0)
            elif kind == "block":
                kids = child.children
                names = [self.label(c) for c in kids if c.type in _LABELS]
                if depth == 0 and not _read(names):
                    continue
                sub = Block(type=names[0], labels=names[1:], line=child.start_point[0] + 1,
                            end_line=child.end_point[0] + 1, column=self.column(child))
                inner = next((c for c in kids if c.type == "body"), None)
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
        self.values += 1
        if self.values > MAX_VALUES:
            raise self.error(f"more than {MAX_VALUES:,} values in one file; advisor reads at most that many", node)
        start, end = node.start_byte, node.end_byte
        raw = Span(self.source, start, end)
        line, column = node.start_point[0] + 1, self.column(node)
        simple = _SIMPLE.fullmatch(self.source, start, end)
        if simple is not None:
            return self.simple(simple, raw, line, column)
        kind = node.type
        kids = node.children
        if kind == "expression":
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
        if kind == "literal_value":
            return self.literal(kids[0], raw, line, column)
        if kind == "template_expr":
            return self.template(kids[0], raw, line, column, depth)
        if kind == "collection_value":
            return self.collection(kids[0], raw, line, column, depth)
        if kind == "operation":
            return self.operation(kids[0], raw, line, column, depth)
        return unknown(raw, line, column=column)  # calls, conditionals, for, splats, references

    def simple(self, match: re.Match[bytes], raw: Span, line: int, column: int) -> Expr:
        digits, string, constant, root, name = match.groups()
        if digits is not None:
            value = number(digits.lstrip(b"-").decode())
            if value is None:
                return unknown(raw, line, column=column)
            return literal(-value if digits.startswith(b"-") else value, raw, line, column)
        if string is not None:
            return literal(string.decode("utf-8", "replace"), raw, line, column)
        if constant is not None:
            value = _CONSTANTS[constant]
            return Expr(value=None, known=True, raw=raw, line=line, column=column) if value is None else \
                literal(value, raw, line, column)
        var = name.decode() if root == b"var" else f"local.{name.decode()}"
        return unknown(raw, line, var=var, column=column)

    def literal(self, node: Any, raw: Span, line: int, column: int) -> Expr:
        if node.type == "numeric_lit":
            value = number(self.text(node))
            return literal(value, raw, line, column) if value is not None else unknown(raw, line, column=column)
        if node.type == "bool_lit":
            return literal(self.text(node) == "true", raw, line, column)
        if node.type == "null_lit":
            return Expr(value=None, known=True, raw=raw, line=line, column=column)
        return self.quoted(node, raw, line, column)

    def quoted(self, node: Any, raw: Span, line: int, column: int) -> Expr:
        parts = [c for c in node.children if c.type not in _QUOTES]
        if any(p.type != "template_literal" for p in parts):
            return unknown(raw, line, column=column)
        return literal(unescape("".join(self.text(p) for p in parts)), raw, line, column)

    def template(self, node: Any, raw: Span, line: int, column: int, depth: int) -> Expr:
        if node.type == "heredoc_template":
            return self.heredoc(node, raw, line, column)
        parts = [c for c in node.children if c.type not in _QUOTES]
        if len(parts) == 1 and parts[0].type == "template_interpolation":
            # "${var.x}" is the reference itself (HCL unwraps a lone interpolation).
            inner = next((c for c in parts[0].children if c.type == "expression"), None)
            if inner is not None:
                value = self.expr(inner, depth + 1)
                if value.var is not None or not value.known:
                    value.raw, value.line, value.column = raw, line, column
                    return value
        return self.quoted(node, raw, line, column)

    def heredoc(self, node: Any, raw: Span, line: int, column: int) -> Expr:
        kids = node.children
        if any(c.type in ("template_interpolation", "template_directive") for c in kids):
            return unknown(raw, line, column=column)
        idents = [c for c in kids if c.type == "heredoc_identifier"]
        if len(idents) < 2:
            return literal("", raw, line, column)
        start = self.source.find(b"\n", idents[0].end_byte) + 1
        end = self.source.rfind(b"\n", 0, idents[-1].start_byte) + 1
        content = self.source[start:end].decode("utf-8", "replace") if 0 < start <= end else ""
        if kids[0].type == "heredoc_start" and self.source.startswith(b"<<-", kids[0].start_byte):
            content = textwrap.dedent(content)
        return literal(content, raw, line, column)

    def collection(self, node: Any, raw: Span, line: int, column: int, depth: int) -> Expr:
        if node.child_count > 2 * MAX_MEMBERS + 2:  # each member comes with a separator at most
            return unknown(raw, line, column=column)
        if node.type == "tuple":
            elems = [self.expr(c, depth + 1) for c in node.children if c.type == "expression"]
            return collection(raw, line, elems=elems, column=column)
        items: dict[str, Expr] = {}
        dynamic: list[str] = []
        for elem in (c for c in node.children if c.type == "object_elem"):
            kids = elem.children
            key_node, value_node = kids[0], kids[-1]
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
        if dynamic:
            expr.dynamic_keys = dynamic
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

    def reference(self, kids: list[Any], raw: Span, line: int, column: int) -> Expr:
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
            return int(digits) if digits.isdigit() and len(digits) <= 18 else None
        inner = next((c for c in index.children if c.type == "expression"), None)
        value = self.expr(inner, 0) if inner is not None else None
        if value is None or not value.known or isinstance(value.value, bool):
            return None
        return value.value if isinstance(value.value, int | str) else None

    def operation(self, node: Any, raw: Span, line: int, column: int, depth: int) -> Expr:
        """Arithmetic on literal numbers (`4 * 1024`, `-1`); anything else is unknown."""
        kids = node.children
        operands = [self.expr(k, depth + 1) for k in kids if k.type not in _NOT_OPERANDS]
        operators = [self.text(k) for k in kids if k.type in ARITHMETIC or k.type == "!"]
        if len(operators) != 1 or not all(is_number(o) for o in operands):
            return unknown(raw, line, column=column)
        result = arithmetic(operators[0], [o.value for o in operands])
        return literal(result, raw, line, column) if result is not None else unknown(raw, line, column=column)


def _read(names: list[str]) -> bool:
    """Whether some reader reads a top-level block with these type and label names."""
    if not names or names[0] not in READ_BLOCKS:
        return False
    labels = READ_BLOCKS[names[0]]
    return labels is None or (len(names) > 1 and names[1] in labels)

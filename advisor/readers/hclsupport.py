"""What the Packer and Terraform readers share: HCL and JSON parsed into blocks with line numbers.

Both tools write configuration as HCL2 native syntax or its JSON form (plus Packer's older JSON
templates). The readers only need a small view of that: blocks (type, labels, line span),
attributes, and for each attribute either a literal value or "unknown, here is its source text".
This module builds that view, so the readers can map fields to `.vmx` keys without caring which
syntax a file used.

Values are deliberately never evaluated beyond literals and a bare reference to an input variable
(`var.x`, or Packer's `{{user `x`}}`) whose default is a literal: anything else (locals, function
calls, arithmetic, data sources) is reported as unknown, because guessing would put invented
numbers in front of the user.

It also holds the inline-suppression comment syntax (`advisor: ignore RULE -- reason`), which the
OVF reader uses for XML comments too.
"""

from __future__ import annotations

import bisect
import json
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.errors import InputError
from advisor.readers.base import TemplateVM

# A template deeper than this is not a VM definition anyone wrote by hand; refusing it keeps the
# recursive walkers below far from Python's recursion limit.
MAX_DEPTH = 100


# --------------------------------------------------------------------------------------------
# The shared view: expressions and blocks
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Expr:
    """An attribute value: literal when `known`, otherwise only its source text.

    `var` names the input variable when the whole expression is a reference to one (`var_path`
    holds any `["key"]` / `.key` / `[0]` steps into it), so a reader can substitute a literal
    default. Object and tuple literals keep their members as Exprs (with
    their own lines) in `items` / `elems`; `dynamic_keys` lists object keys that are expressions.
    """

    value: Any = None
    known: bool = True
    raw: str = ""
    line: int | None = None
    var: str | None = None
    var_path: tuple[str | int, ...] = ()
    items: dict[str, Expr] | None = None
    elems: list[Expr] | None = None
    dynamic_keys: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Block:
    """A block (`resource "a" "b" { ... }`), or the whole file body when `type` is empty."""

    type: str
    labels: list[str]
    line: int | None = None
    end_line: int | None = None
    attrs: dict[str, Expr] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)

    def children(self, block_type: str) -> list[Block]:
        return [b for b in self.blocks if b.type == block_type]


def unknown(raw: str, line: int | None, var: str | None = None, var_path: tuple = ()) -> Expr:
    return Expr(value=None, known=False, raw=raw, line=line, var=var, var_path=var_path)


def literal(value: Any, raw: str, line: int | None) -> Expr:
    return Expr(value=value, known=True, raw=raw, line=line)


# --------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------


def decode_text(data: bytes, path: Path) -> str:
    """UTF-8 text (HCL and JSON are UTF-8 by definition) with CRLF folded to LF.

    The lark grammar only knows LF; folding CRLF keeps every line number the same.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("file is not UTF-8 text", file=str(path), line=line) from None
    return text.replace("\r\n", "\n")


# --------------------------------------------------------------------------------------------
# HCL2 native syntax
# --------------------------------------------------------------------------------------------

_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
# var.NAME, optionally followed by steps into it: .key, .0, ["key"], [0]
_VAR_REF = re.compile(rf'var\.({_NAME})((?:\.{_NAME}|\.\d+|\[\s*(?:"[^"\\$%]*"|\d+)\s*\])*)')
_VAR_STEP = re.compile(rf'\.({_NAME})|\.(\d+)|\[\s*"([^"]*)"\s*\]|\[\s*(\d+)\s*\]')
_HEREDOC = re.compile(r"<<(-?)([A-Za-z][A-Za-z0-9._-]*)\n(.*?)\n?[ \t]*\2\s*$", re.S)


def parse_hcl(text: str, path: Path) -> Block:
    """Parse HCL2 native syntax; syntax errors become InputError at the parser's line."""
    import hcl2  # python-hcl2 v8: its LarkElement tree keeps lark's positions (meta)

    try:
        tree = hcl2.parses(text)
    except RecursionError:
        raise InputError("HCL is nested too deeply to read", file=str(path)) from None
    except Exception as exc:  # lark raises several unrelated classes; all mean "bad syntax"
        raise _hcl_syntax_error(exc, path) from None
    root = Block(type="", labels=[], line=1, end_line=text.count("\n") + 1)
    try:
        _fill_body(root, tree.body, text, path, depth=0)
    except InputError as exc:
        raise exc.located(str(path)) from None
    except RecursionError:  # an absurdly nested expression, accepted by the (iterative) parser
        raise InputError("HCL is nested too deeply to read", file=str(path)) from None
    return root


def _hcl_syntax_error(exc: Exception, path: Path) -> InputError:
    """A one-line message for a lark error (its own text lists every expected token)."""
    line = getattr(exc, "line", None)
    line = line if isinstance(line, int) and line > 0 else None
    token = getattr(exc, "token", None)
    if token is not None:
        shown = str(token).strip().splitlines()[0][:40] if str(token).strip() else ""
        what = "unexpected end of file" if token.type == "$END" else f"unexpected {shown!r}"
    elif getattr(exc, "char", None) is not None:
        what = f"unexpected character {getattr(exc, 'char', None)!r}"
    else:
        what = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
    column = getattr(exc, "column", None)
    where = f" (column {column})" if isinstance(column, int) and column > 0 else ""
    return InputError(f"HCL syntax error: {what}{where}", file=str(path), line=line)


def _fill_body(block: Block, body: Any, text: str, path: Path, depth: int) -> None:
    from hcl2.rules.base import AttributeRule, BlockRule

    if depth > MAX_DEPTH:
        raise InputError("HCL is nested too deeply to read", file=str(path), line=block.line)
    for child in body.children:
        if isinstance(child, AttributeRule):
            name = _label_text(child.identifier)
            line = _meta_line(child)
            if name in block.attrs:
                # HCL refuses this ("Attribute redefined"); taking either value would be a guess.
                raise InputError(f"argument '{name}' is set twice (first on line {block.attrs[name].line})",
                                 file=str(path), line=line)
            block.attrs[name] = _expr_from_rule(child.expression, text, line)
        elif isinstance(child, BlockRule):
            labels = [_label_text(label) for label in child.labels]
            meta = child._meta  # positions: python-hcl2 exposes them only on the private field
            sub = Block(
                type=labels[0],
                labels=labels[1:],
                line=_meta_line(child),
                end_line=getattr(meta, "end_line", None),
            )
            _fill_body(sub, child.body, text, path, depth + 1)
            block.blocks.append(sub)


def _meta_line(rule: Any) -> int | None:
    meta = getattr(rule, "_meta", None)
    if meta is None or getattr(meta, "empty", True):
        return None
    return getattr(meta, "line", None)


def _source(rule: Any, text: str) -> str:
    meta = getattr(rule, "_meta", None)
    if meta is None or getattr(meta, "empty", True):
        return ""
    return text[meta.start_pos : meta.end_pos].strip()


def _label_text(rule: Any) -> str:
    """A block label or attribute name: identifiers as-is, quoted labels unquoted."""
    text = str(rule.serialize())
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def _expr_from_rule(rule: Any, text: str, line: int | None) -> Expr:
    from hcl2.rules.containers import ObjectRule, TupleRule
    from hcl2.rules.expressions import ExprTermRule
    from hcl2.rules.literal_rules import FloatLitRule, IdentifierRule, IntLitRule

    raw = _source(rule, text)
    inner = rule
    while isinstance(inner, ExprTermRule):  # parentheses do not change a value
        inner = inner.expression
    if isinstance(inner, IdentifierRule):
        return unknown(raw, line)  # a bare name in value position is a reference (each.key...)
    if isinstance(inner, IntLitRule | FloatLitRule):
        # python-hcl2 prints exponent forms (1e3) as an interpolation; the source text is exact.
        number = _number(_source(inner, text), line)
        if number is not None:
            return literal(number, raw, line)
    if isinstance(inner, ObjectRule):
        return _object_from_rule(inner, text, raw, line)
    if isinstance(inner, TupleRule):
        elems = [_expr_from_rule(e, text, _meta_line(e) or line) for e in inner.elements]
        return _collection(raw, line, elems=elems)
    try:
        serialized = inner.serialize()
    except Exception:  # a construct the library cannot print back: certainly not a literal
        return unknown(raw, line)
    return _from_serialized(serialized, raw or str(serialized), line)


def _number(text: str, line: int | None = None) -> int | float | None:
    if re.fullmatch(r"-?\d+", text):
        try:
            return int(text)
        except ValueError:  # more than the 4300 digits int() converts
            raise InputError(f"number {text[:12]}... has more digits than advisor reads", line=line) from None
    if re.fullmatch(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text):
        return float(text)
    return None


def _object_from_rule(rule: Any, text: str, raw: str, line: int | None) -> Expr:
    from hcl2.rules.containers import ObjectElemKeyExpressionRule

    items: dict[str, Expr] = {}
    dynamic: list[str] = []
    for elem in rule.elements:
        elem_line = _meta_line(elem) or line
        key_rule = elem.key
        if isinstance(key_rule, ObjectElemKeyExpressionRule):
            dynamic.append(_source(key_rule, text) or "?")
            continue
        key = _key_text(key_rule.value)
        if key is None:
            dynamic.append(_source(key_rule, text) or "?")
            continue
        if key in items:
            # HCL refuses this too ("Duplicate object attribute").
            raise InputError(f"key '{key}' appears twice in one object (first on line {items[key].line})",
                             line=elem_line)
        items[key] = _expr_from_rule(elem.expression, text, elem_line)
    expr = _collection(raw, line, items=items)
    expr.dynamic_keys = dynamic
    if dynamic:
        expr.known = False
        expr.value = None
    return expr


def _key_text(rule: Any) -> str | None:
    """An object key as text: a bare name or number means itself, a string must be literal."""
    from hcl2.rules.literal_rules import FloatLitRule, IdentifierRule, IntLitRule

    if isinstance(rule, IdentifierRule | IntLitRule | FloatLitRule):
        return str(rule.serialize())
    serialized = rule.serialize()
    if isinstance(serialized, str) and len(serialized) >= 2 and serialized[0] == serialized[-1] == '"':
        key = _hcl_template(serialized[1:-1], "", None)
        return key.value if key.known else None
    return None


def _collection(raw: str, line: int | None, *, items=None, elems=None) -> Expr:
    """An object or tuple literal: known only when every member is."""
    members = list(items.values()) if items is not None else list(elems or [])
    known = all(m.known for m in members)
    value: dict[Any, Any] | list[Any] | None
    if not known:
        value = None
    elif items is not None:
        value = {k: v.value for k, v in items.items()}
    else:
        value = [e.value for e in members]
    return Expr(value=value, known=known, raw=raw, line=line, items=items, elems=elems)


def _from_serialized(value: Any, raw: str, line: int | None) -> Expr:
    """Interpret python-hcl2's serialized form of a non-collection expression.

    Literals serialize as Python scalars, quoted strings keep their quotes, and anything computed
    comes back wrapped in `${...}`.
    """
    if value is None or isinstance(value, bool | int | float):
        return literal(value, raw, line)
    if not isinstance(value, str):
        return unknown(raw, line)
    if value.startswith('"<<'):
        return _heredoc(value[1:-1], raw, line)
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return _hcl_template(value[1:-1], raw, line)
    match = re.fullmatch(r"\$\{\s*(.*?)\s*\}", value, re.S)
    return variable_reference(match.group(1), raw, line) if match else unknown(raw, line)


def variable_reference(text: str, raw: str, line: int | None) -> Expr:
    """An unknown Expr, naming the variable (and steps into it) when `text` is just a reference."""
    match = _VAR_REF.fullmatch(text.strip())
    if not match:
        return unknown(raw, line)
    steps: list[str | int] = []
    for step in _VAR_STEP.finditer(match.group(2)):
        name, dotted_index, key, index = step.groups()
        steps.append(name if name is not None else key if key is not None else int(dotted_index or index))
    return unknown(raw, line, var=match.group(1), var_path=tuple(steps))


def _hcl_template(inner: str, raw: str, line: int | None) -> Expr:
    """A quoted HCL string: literal unless it interpolates (`${`) or has a directive (`%{`)."""
    from hcl2.utils import process_escape_sequences

    match = re.fullmatch(r"\$\{(.*)\}", inner, re.S)
    if match and "${" not in match.group(1):
        reference = variable_reference(match.group(1), raw, line)
        if reference.var is not None:
            return reference
    stripped = inner.replace("$${", "").replace("%%{", "")
    if "${" in stripped or "%{" in stripped:
        return unknown(raw, line)
    text = process_escape_sequences(inner).replace("$${", "${").replace("%%{", "%{")
    return literal(text, raw, line)


def _heredoc(body: str, raw: str, line: int | None) -> Expr:
    match = _HEREDOC.fullmatch(body)
    if not match:
        return unknown(raw, line)
    content = match.group(3)
    if "${" in content.replace("$${", "") or "%{" in content.replace("%%{", ""):
        return unknown(raw, line)
    if match.group(1):
        content = textwrap.dedent(content)
    return literal(content, raw, line)


# --------------------------------------------------------------------------------------------
# JSON with line numbers (Packer legacy templates, *.pkr.json, *.tf.json)
# --------------------------------------------------------------------------------------------


class LinedDict(dict):
    """A JSON object that remembers where it starts and the line of each of its keys."""

    line: int | None = None
    lines: dict[str, int]


class LinedList(list):
    """A JSON array that remembers where it starts and the line of each element."""

    line: int | None = None
    lines: list[int]


def parse_json(text: str, path: Path) -> Any:
    """Parse JSON, keeping the line of every object key and array element.

    The standard library validates first, so syntax errors carry its familiar messages and
    positions; a small second pass then records lines, which `json` cannot report.
    """
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"JSON syntax error: {exc.msg} (column {exc.colno})", file=str(path), line=exc.lineno
        ) from None
    except RecursionError:
        raise InputError("JSON is nested too deeply to read", file=str(path)) from None
    except ValueError:  # json's int() refuses integers of more than 4300 digits
        from advisor.load.yamlfile import long_number_line

        raise InputError(
            "JSON number has more digits than advisor reads", file=str(path), line=long_number_line(text)
        ) from None
    return _LineJSON(text, path).document()


class _LineJSON:
    """A recursive-descent reader over text json.loads has already accepted."""

    _WS = re.compile(r"[ \t\n\r]*")
    _NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")

    def __init__(self, text: str, path: Path) -> None:
        self.text = text
        self.path = path
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_at(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)

    def document(self) -> Any:
        value, _ = self.value(self._skip(0), 0)
        return value

    def _skip(self, pos: int) -> int:
        return self._WS.match(self.text, pos).end()  # type: ignore[union-attr]  # matches the empty string

    def value(self, pos: int, depth: int) -> tuple[Any, int]:
        if depth > MAX_DEPTH:
            raise InputError("JSON is nested too deeply to read", file=str(self.path), line=self.line_at(pos))
        char = self.text[pos]
        if char == "{":
            return self.obj(pos, depth)
        if char == "[":
            return self.array(pos, depth)
        if char == '"':
            return json.decoder.scanstring(self.text, pos + 1)  # type: ignore[attr-defined]  # untyped in typeshed
        # json.loads also accepts NaN and the infinities, so this pass must too.
        for word, result in (("true", True), ("false", False), ("null", None), ("NaN", float("nan")),
                             ("Infinity", float("inf")), ("-Infinity", float("-inf"))):
            if self.text.startswith(word, pos):
                return result, pos + len(word)
        match = self._NUMBER.match(self.text, pos)
        if match is None:  # json.loads accepted the text, so a value starts here
            raise ValueError(f"no JSON value at {pos}")
        number = match.group(0)
        if match.group(1) or match.group(2):
            return float(number), match.end()
        return int(number), match.end()

    def obj(self, pos: int, depth: int) -> tuple[LinedDict, int]:
        result = LinedDict()
        result.line, result.lines = self.line_at(pos), {}
        pos = self._skip(pos + 1)
        if self.text[pos] == "}":
            return result, pos + 1
        while True:
            key_line = self.line_at(pos)
            key, pos = json.decoder.scanstring(self.text, pos + 1)  # type: ignore[attr-defined]  # untyped in typeshed
            pos = self._skip(self._skip(pos) + 1)  # past the colon
            result[key], pos = self.value(pos, depth + 1)
            result.lines[key] = key_line
            pos = self._skip(pos)
            if self.text[pos] == "}":
                return result, pos + 1
            pos = self._skip(pos + 1)  # past the comma

    def array(self, pos: int, depth: int) -> tuple[LinedList, int]:
        result = LinedList()
        result.line, result.lines = self.line_at(pos), []
        pos = self._skip(pos + 1)
        if self.text[pos] == "]":
            return result, pos + 1
        while True:
            result.lines.append(self.line_at(pos))
            item, pos = self.value(pos, depth + 1)
            result.append(item)
            pos = self._skip(pos)
            if self.text[pos] == "]":
                return result, pos + 1
            pos = self._skip(pos + 1)


def json_line(container: Any, key: Any, default: int | None = None) -> int | None:
    """The line of `container[key]` as recorded by parse_json (or `default`)."""
    lines = getattr(container, "lines", None)
    if isinstance(container, LinedDict) and isinstance(lines, dict):
        return lines.get(key, default)
    if isinstance(container, LinedList) and isinstance(lines, list) and isinstance(key, int):
        return lines[key] if 0 <= key < len(lines) else default
    return default


def json_start(container: Any, default: int | None = None) -> int | None:
    return getattr(container, "line", None) or default


# Packer legacy templates write `{{user `name`}}`; HCL's JSON form writes `${var.name}`.
_PACKER_USER = re.compile(r"\{\{\s*user\s+`([^`]+)`\s*\}\}")


def expr_from_json(value: Any, line: int | None, syntax: str) -> Expr:
    """Build an Expr from a JSON value; `syntax` is "hcl" (HCL JSON form) or "packer" (legacy)."""
    raw = value if isinstance(value, str) else json.dumps(value)
    if isinstance(value, dict):
        items = {str(k): expr_from_json(v, json_line(value, k, line), syntax) for k, v in value.items()}
        return _collection(raw, line, items=items)
    if isinstance(value, list):
        elems = [expr_from_json(v, json_line(value, i, line), syntax) for i, v in enumerate(value)]
        return _collection(raw, line, elems=elems)
    if not isinstance(value, str):
        return literal(value, raw, line)
    if syntax == "packer":
        return _packer_string(value, line)
    return _hcl_template(value, value, line)


def _packer_string(value: str, line: int | None) -> Expr:
    """A legacy-template string: a `{{user}}` reference, another template, or a literal.

    `${...}` means nothing to Packer's legacy engine, so it only appears as a placeholder for a
    tool run before Packer (envsubst and the like): equally unknown.
    """
    match = _PACKER_USER.fullmatch(value.strip())
    if match:
        return unknown(value, line, var=match.group(1))
    if "{{" in value or "${" in value:
        return unknown(value, line)
    return literal(value, value, line)


def json_block(obj: Any, block_type: str, labels: list[str], block_keys: dict[str, int], syntax: str,
               line: int | None = None) -> Block:
    """View a JSON object as a block; keys in `block_keys` are nested blocks with N labels.

    In HCL's JSON form a nested block is an object (or an array of objects) under its type name,
    with one extra object level per label (`"dynamic": {"disk": {...}}`).
    """
    block = Block(type=block_type, labels=labels, line=json_start(obj, line))
    if not isinstance(obj, dict):
        return block
    for key, value in obj.items():
        key_line = json_line(obj, key, block.line)
        if key in block_keys:
            block.blocks.extend(json_blocks(value, key, block_keys[key], block_keys, syntax, key_line))
        else:
            block.attrs[key] = expr_from_json(value, key_line, syntax)
    block.end_line = _json_end_line(obj, block.line)
    return block


def json_blocks(value: Any, block_type: str, label_count: int, block_keys: dict[str, int], syntax: str,
                line: int | None, labels: list[str] | None = None) -> list[Block]:
    """The blocks of one type written under `value`: `label_count` object levels, then bodies.

    Nested keys named in `block_keys` are blocks again at any depth (a dynamic block's content).
    """
    labels = labels or []
    if isinstance(value, list):
        found: list[Block] = []
        for index, item in enumerate(value):
            found.extend(json_blocks(item, block_type, label_count, block_keys, syntax,
                                     json_line(value, index, line), labels))
        return found
    if not isinstance(value, dict):
        return []
    if label_count > 0:
        found = []
        for label, inner in value.items():
            found.extend(json_blocks(inner, block_type, label_count - 1, block_keys, syntax,
                                     json_line(value, label, line), [*labels, str(label)]))
        return found
    return [json_block(value, block_type, labels, block_keys, syntax, line)]


def _json_end_line(obj: Any, default: int | None) -> int | None:
    """The last line holding one of the object's keys or members: good enough for comments."""
    best = default
    for key, value in obj.items() if isinstance(obj, dict) else []:
        for line in (json_line(obj, key), _json_end_line(value, None) if isinstance(value, dict) else None):
            if line is not None and (best is None or line > best):
                best = line
    return best


# --------------------------------------------------------------------------------------------
# Variables
# --------------------------------------------------------------------------------------------

# name -> (literal value, where it came from, for notes: "the variable's default", "terraform.tfvars")
Variables = dict[str, tuple[Expr, str]]


def variable_defaults(root: Block) -> Variables:
    """`variable "x" { default = <literal> }` blocks of one file, by name (known defaults only)."""
    found: Variables = {}
    for block in root.children("variable"):
        default = block.attrs.get("default")
        if block.labels and default is not None and default.known and default.value is not None:
            found[block.labels[0]] = (default, "the variable's default")
    return found


def assigned_values(root: Block, origin: str) -> Variables:
    """Top-level `x = <literal>` assignments of a variable-values file (terraform.tfvars)."""
    return {name: (e, origin) for name, e in root.attrs.items() if e.known and e.value is not None}


def resolve(expr: Expr, variables: Variables) -> tuple[Expr, str | None]:
    """Substitute a known variable value for a bare variable reference.

    Returns the (possibly substituted) expression and, when substituted, where the value came
    from, so the caller can say so in a note: a default is what the file says, not necessarily
    what gets deployed. The line stays the reference's line, in the file being read.
    """
    if expr.known or expr.var is None or expr.var not in variables:
        return expr, None
    value, origin = variables[expr.var]
    for step in expr.var_path:
        stepped = _step_into(value, step)
        if stepped is None:
            return expr, None
        value = stepped
    resolved = Expr(value=value.value, known=True, raw=expr.raw, line=expr.line, var=expr.var,
                    var_path=expr.var_path, items=value.items, elems=value.elems)
    return resolved, origin


def _step_into(value: Expr, step: str | int) -> Expr | None:
    """One `["key"]` / `[0]` step into a known object or tuple value; None if it is not there."""
    if value.items is not None and str(step) in value.items:
        member = value.items[str(step)]
    elif value.elems is not None and isinstance(step, int) and 0 <= step < len(value.elems):
        member = value.elems[step]
    else:
        return None
    return member if member.known else None


# --------------------------------------------------------------------------------------------
# Values as .vmx strings
# --------------------------------------------------------------------------------------------


def as_int(value: Any) -> int | None:
    """An integer from an int, an integral float or a decimal string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        # As many digits as the string form allows: no setting is larger, and arithmetic on a
        # 4000-digit literal (a disk size times 1024) would make a number str() refuses.
        return value if abs(value) < 10**18 else None
    if isinstance(value, float) and value.is_integer():
        return int(value) if abs(value) < 1e18 else None
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,18}\s*", value):
        return int(value)
    return None


def as_bool(value: Any) -> bool | None:
    """A boolean from a bool or the strings Packer and Terraform accept for one."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def vmx_value(value: Any, kind: str) -> str | None:
    """Format a literal for a .vmx key: "int", "bool" (TRUE/FALSE), "lower" or "str".

    A literal of the wrong shape is passed through as text so the model can report it with its
    line, rather than being silently dropped; lists and objects are never a scalar's value.
    """
    if isinstance(value, list | dict) or value is None:
        return None
    if kind == "int" and as_int(value) is not None:
        return str(as_int(value))
    if kind == "bool" and as_bool(value) is not None:
        return "TRUE" if as_bool(value) else "FALSE"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value)
    return text.lower() if kind == "lower" else text


def set_from_expr(vm: TemplateVM, key: str, field_name: str, expr: Expr, kind: str,
                  variables: Variables) -> Any:
    """Record one field on `vm` as `key`: the literal, a resolved variable, or unknown with a note.

    Returns the literal value used (None when unknown) so callers can derive further keys.
    """
    expr, origin = resolve(expr, variables)
    if expr.known and expr.value is None:
        return None  # an explicit null means "argument not set": the default applies
    value = vmx_value(expr.value, kind) if expr.known else None
    if value is None:
        vm.set(key, None, expr.line, raw=expr.raw)
        vm.notes.append(f"{field_name} = {short(expr.raw)}: unknown")
        return None
    vm.set(key, value, expr.line, raw=expr.raw if origin else None)
    if origin:
        vm.notes.append(f"{field_name} = {short(expr.raw)}: using {value} from {origin}")
    return expr.value


def resolved_value(vm: TemplateVM, field_name: str, expr: Expr, variables: Variables) -> Expr:
    """Resolve `expr` for a caller that derives keys itself; notes an unknown or a substitution."""
    expr, origin = resolve(expr, variables)
    if not expr.known:
        vm.notes.append(f"{field_name} = {short(expr.raw)}: unknown")
    elif origin:
        vm.notes.append(f"{field_name} = {short(expr.raw)}: using {short(str(expr.value), 40)} from {origin}")
    return expr


def short(raw: str, limit: int = 80) -> str:
    """Source text shortened to one line for a note."""
    flat = " ".join(raw.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


# --------------------------------------------------------------------------------------------
# Inline suppressions
# --------------------------------------------------------------------------------------------

_SUPPRESS = re.compile(r"advisor:\s*ignore\b(.*)", re.S)
_RULE_IDS = re.compile(r"\s*([A-Za-z][\w.]*(?:-[\w.]+)*(?:\s*,\s*[A-Za-z][\w.]*(?:-[\w.]+)*)*)\s*(.*)", re.S)
_COMMENT = re.compile(r"(?:#|//)\s*(advisor:\s*ignore\b.*)$")


def parse_suppression(comment: str) -> list[tuple[str, str]]:
    """Rule ids and reason from a comment body like `advisor: ignore NET001, CPU002 -- reason`.

    The reason may follow `--`, `-`, `:` or an em dash (XML comments cannot contain `--`).
    """
    match = _SUPPRESS.search(comment)
    if not match:
        return []
    ids = _RULE_IDS.match(match.group(1))
    if not ids:
        return []
    reason = re.sub(r"^(?:--|—|-|:)\s*", "", ids.group(2).strip()).strip()
    return [(rule, reason) for rule in re.split(r"\s*,\s*", ids.group(1)) if rule]


def comment_suppressions(text: str) -> list[tuple[str, str, int | None]]:
    """Every `# advisor: ignore ...` / `// advisor: ignore ...` line comment, with its line."""
    found: list[tuple[str, str, int | None]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if "advisor" not in line:
            continue
        match = _COMMENT.search(line)
        if match:
            found.extend((rule, reason, number) for rule, reason in parse_suppression(match.group(1)))
    return found


def json_suppressions(value: Any, keys: tuple[str, ...] = ("//",), line: int | None = None,
                      depth: int = 0) -> list[tuple[str, str, int | None]]:
    """Suppressions written as JSON comment properties (`"//": "advisor: ignore X -- why"`).

    JSON has no comments, so HCL's JSON form reserves the "//" property for them (Packer's legacy
    templates use keys starting with "_comment").
    """
    found: list[tuple[str, str, int | None]] = []
    if depth > MAX_DEPTH:
        return found
    if isinstance(value, dict):
        for key, item in value.items():
            item_line = json_line(value, key, line)
            if isinstance(item, str) and any(key == k or key.startswith(k) for k in keys):
                found.extend((rule, reason, item_line) for rule, reason in parse_suppression(item))
            else:
                found.extend(json_suppressions(item, keys, item_line, depth + 1))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(json_suppressions(item, keys, json_line(value, index, line), depth + 1))
    return found


def attach_suppressions(vms: Iterable[tuple[TemplateVM, int | None, int | None]],
                        suppressions: Iterable[tuple[str, str, int | None]]) -> None:
    """Give each suppression to the VM whose block spans its line, or to every VM if none does."""
    spans = list(vms)
    for rule, reason, line in suppressions:
        owners = [vm for vm, start, end in spans
                  if line is not None and start is not None and end is not None and start <= line <= end]
        for vm in owners or [vm for vm, _, _ in spans]:
            vm.suppressions.append((rule, reason, line))

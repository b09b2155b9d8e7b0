"""JSON with line numbers (Packer legacy templates, `*.pkr.json`, `*.tf.json`) as the shared view.

The standard library cannot say where a key is, so a small recursive-descent pass over text that
json.loads has accepted records the line of every key and array element.
"""

from __future__ import annotations

import bisect
import json
import re
from pathlib import Path
from typing import Any

from advisor.errors import InputError
from advisor.readers.hclview import MAX_DEPTH, Block, Expr, collection, literal, template_string, unknown


class LinedDict(dict):
    """A JSON object that remembers where it starts, the line of each of its keys and the
    (line, column) where each value starts."""

    line: int | None = None
    lines: dict[str, int]
    at: dict[str, tuple[int, int]]


class LinedList(list):
    """A JSON array that remembers where it starts and the (line, column) of each element."""

    line: int | None = None
    lines: list[int]
    at: list[tuple[int, int]]


def parse_json(text: str, path: Path) -> Any:
    """Parse JSON, keeping the line of every object key and array element.

    The standard library validates first, so syntax errors carry its familiar messages and
    positions; a small second pass then records lines and columns, which `json` cannot report.
    Columns count characters (code points), as SARIF's columnKind says.
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

        raise InputError("JSON number has more digits than advisor reads", file=str(path),
                         line=long_number_line(text)) from None
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

    def position(self, pos: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, pos)
        return line, pos - self.starts[line - 1] + 1

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
        result.line, result.lines, result.at = self.line_at(pos), {}, {}
        pos = self._skip(pos + 1)
        if self.text[pos] == "}":
            return result, pos + 1
        while True:
            key_line = self.line_at(pos)
            key, pos = json.decoder.scanstring(self.text, pos + 1)  # type: ignore[attr-defined]  # untyped in typeshed
            pos = self._skip(self._skip(pos) + 1)  # past the colon
            result.at[key] = self.position(pos)
            result[key], pos = self.value(pos, depth + 1)
            result.lines[key] = key_line
            pos = self._skip(pos)
            if self.text[pos] == "}":
                return result, pos + 1
            pos = self._skip(pos + 1)  # past the comma

    def array(self, pos: int, depth: int) -> tuple[LinedList, int]:
        result = LinedList()
        result.line, result.lines, result.at = self.line_at(pos), [], []
        pos = self._skip(pos + 1)
        if self.text[pos] == "]":
            return result, pos + 1
        while True:
            result.at.append(self.position(pos))
            result.lines.append(result.at[-1][0])
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


def json_at(container: Any, key: Any, default: int | None = None) -> tuple[int | None, int | None]:
    """Where the value `container[key]` starts, (line, column), as recorded by parse_json."""
    at = getattr(container, "at", None)
    if isinstance(container, LinedDict) and isinstance(at, dict) and key in at:
        return at[key]
    if isinstance(container, LinedList) and isinstance(at, list) and isinstance(key, int) and 0 <= key < len(at):
        return at[key]
    return default, None


def json_start(container: Any, default: int | None = None) -> int | None:
    return getattr(container, "line", None) or default


# Packer legacy templates write `{{user `name`}}`; HCL's JSON form writes `${var.name}`.
_PACKER_USER = re.compile(r"\{\{\s*user\s+`([^`]+)`\s*\}\}")


def expr_from_json(value: Any, line: int | None, syntax: str, column: int | None = None) -> Expr:
    """Build an Expr from a JSON value; `syntax` is "hcl" (HCL JSON form) or "packer" (legacy)."""
    raw = value if isinstance(value, str) else json.dumps(value)
    if isinstance(value, dict):
        items = {str(k): _member(value, k, v, line, syntax) for k, v in value.items()}
        return collection(raw, line, items=items, column=column)
    if isinstance(value, list):
        elems = [_member(value, i, v, line, syntax) for i, v in enumerate(value)]
        return collection(raw, line, elems=elems, column=column)
    if not isinstance(value, str):
        return literal(value, raw, line, column)
    if syntax == "packer":
        expr = _packer_string(value, line)
        expr.column = column
        return expr
    return template_string(value, value, line, column)


def _member(container: Any, key: Any, value: Any, line: int | None, syntax: str) -> Expr:
    member_line, column = json_at(container, key, line)
    return expr_from_json(value, member_line, syntax, column)


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
            value_line, column = json_at(obj, key, key_line)
            block.attrs[key] = expr_from_json(value, value_line, syntax, column)
    block.end_line = _json_end_line(obj, block.line)
    return block


def json_blocks(value: Any, block_type: str, label_count: int, block_keys: dict[str, int], syntax: str,
                line: int | None, labels: list[str] | None = None) -> list[Block]:
    """The blocks of one type written under `value`: `label_count` object levels, then bodies.

    Nested keys named in `block_keys` are blocks again at any depth (a dynamic block's content).
    """
    labels = labels or []
    if isinstance(value, list):
        found = []
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


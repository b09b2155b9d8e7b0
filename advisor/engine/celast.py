"""The checked expression cel-cpp compiles a condition to, read back as a small tree.

`Expression.serialize()` of cel-expr-python gives a `google.protobuf.Any` holding a
`cel.expr.CheckedExpr` (cel-spec, proto/cel/expr/checked.proto and syntax.proto): the very tree the
runtime evaluates, after parsing, macro expansion and type checking, with comments and spacing
gone. advisor reads it to bound a user's condition by its structure rather than its text. The
`protobuf` package is not a dependency and ships no `cel.expr` descriptors, so the few messages
needed are read here from the wire format, by the field numbers cel-spec fixes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

# cel.expr.Expr's oneof `expr_kind` (syntax.proto), with the fields read of each.
IDENT, SELECT, CALL, LIST, STRUCT, COMPREHENSION = 4, 5, 6, 7, 8, 9
_KINDS = {3: "const", IDENT: "ident", SELECT: "select", CALL: "call", LIST: "list", STRUCT: "struct",
          COMPREHENSION: "comprehension"}


class Node(NamedTuple):
    """One `cel.expr.Expr`: its kind, its name (an identifier, a selected field, a called
    function, a comprehension's accumulator variable) and its sub-expressions by role."""
    kind: str
    name: str
    parts: tuple[tuple[str, Node], ...]

    def walk(self) -> Iterator[Node]:
        """This node and every node below it (an explicit stack: CEL's parser bounds nesting, but
        a walk need not rely on it)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(child for _, child in reversed(node.parts))

    def part(self, role: str) -> Node | None:
        return next((child for name, child in self.parts if name == role), None)


def _fields(buf: bytes) -> Iterator[tuple[int, Any]]:
    """(field number, value) of each field of a protobuf message: an int for a varint, bytes
    for a length-delimited field or a fixed 32/64-bit one."""
    i, end = 0, len(buf)

    def varint() -> int:
        nonlocal i
        value = shift = 0
        while True:
            if i >= end or shift > 63:
                raise ValueError("truncated or overlong varint")
            byte = buf[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while i < end:
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            yield number, varint()
        elif wire in (1, 2, 5):
            size = varint() if wire == 2 else 8 if wire == 1 else 4
            if i + size > end:
                raise ValueError("truncated field")
            yield number, buf[i:i + size]
            i += size
        else:
            raise ValueError(f"wire type {wire}")


# The sub-expression fields of each kind: field number -> role (syntax.proto).
_CHILDREN = {
    SELECT: {1: "operand"},
    CALL: {1: "target", 3: "arg"},
    LIST: {1: "element"},
    COMPREHENSION: {2: "iter_range", 4: "accu_init", 5: "loop_condition", 6: "loop_step", 7: "result"},
}
# Fields holding a name: Ident.name, Select.field, Call.function, Comprehension.accu_var.
_NAME = {IDENT: 1, SELECT: 2, CALL: 2, COMPREHENSION: 3}


def _expr(buf: bytes) -> Node:
    for number, value in _fields(buf):
        if number in _KINDS:
            return _node(number, value)
    return Node("none", "", ())


def _node(kind: int, buf: bytes) -> Node:
    name, parts = "", []
    children = _CHILDREN.get(kind, {})
    for number, value in _fields(buf):
        if number == _NAME.get(kind):
            name = bytes(value).decode("utf-8", "replace")
        elif number in children:
            parts.append((children[number], _expr(value)))
        elif kind == STRUCT and number == 2:  # CreateStruct.Entry: map_key = 3, value = 4
            parts.extend(("entry", _expr(v)) for n, v in _fields(value) if n in (3, 4))
    return Node(_KINDS[kind], name, tuple(parts))


def checked_tree(program: Any) -> tuple[Node, frozenset[str]]:
    """The expression tree of a compiled condition and the names its references resolve to (the
    checker's reference map: declared variables, that is facts, and overload ids)."""
    wrapper = dict(_fields(program.serialize()))  # google.protobuf.Any: type_url = 1, value = 2
    root, names = Node("none", "", ()), set[str]()
    for number, value in _fields(wrapper[2]):
        if number == 4:  # CheckedExpr.expr
            root = _expr(value)
        elif number == 2:  # CheckedExpr.reference_map entry: key = 1, value = 2 (Reference: name = 1)
            for key, ref in _fields(value):
                if key == 2:
                    names.update(bytes(v).decode("utf-8", "replace") for n, v in _fields(ref) if n == 1)
    return root, frozenset(names)

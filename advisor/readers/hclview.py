"""The view the Packer and Terraform readers share: blocks, expressions, variables, .vmx values.

Both tools write configuration as HCL2 native syntax (advisor.readers.hcl), its JSON form or
Packer's legacy JSON (advisor.readers.jsonlines). Every syntax becomes the same small view:
blocks (type, labels, line span), attributes, and for each attribute either a literal value or
"unknown, here is its source text", so the readers map fields to `.vmx` keys without caring
which syntax a file used.

Values are evaluated only as far as the language makes them certain: literals, arithmetic on
literals (`4 * 1024`), and a bare reference to an input variable (`var.x`, `{{user `x`}}`) whose
value is a literal. Anything else (locals, function calls, data sources) is unknown, because
guessing would put invented numbers in front of the user; an empty string is unknown too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.errors import InputError
from advisor.readers.base import TemplateVM

# A template deeper than this is not a VM definition anyone wrote by hand; refusing it keeps the
# recursive walkers far from Python's recursion limit.
MAX_DEPTH = 100

# Top-level blocks some reader reads, with the first labels it reads (None: any). The others
# (provider, output, data, build, ...) are never walked: a file's cost in Python is what is read.
READ_BLOCKS: dict[str, frozenset[str] | None] = {
    "resource": frozenset({"vsphere_virtual_machine"}),  # the only Terraform resource read
    "module": None, "source": None, "variable": None, "locals": None,
}

# --------------------------------------------------------------------------------------------
# The shared view: expressions and blocks
# --------------------------------------------------------------------------------------------


class Span:
    """Source text not yet decoded: bytes `start:end` of a file's source.

    An expression keeps its source text for notes, and a nested one is a piece of its parent's:
    decoding each at parse time made memory the file's size times its nesting depth. A Span costs
    the same whatever it covers; the text is decoded only when a note asks for it.
    """

    __slots__ = ("end", "source", "start")

    def __init__(self, source: bytes, start: int, end: int) -> None:
        self.source, self.start, self.end = source, start, end

    def __str__(self) -> str:
        return self.source[self.start:self.end].decode("utf-8", "replace")


class Expr:
    """An attribute value: literal when `known`, otherwise only its source text (`raw`).

    `var` names the input variable when the whole expression is a reference to one (`var_path`
    holds any `["key"]` / `.key` / `[0]` steps into it), so a reader can substitute a literal
    default. Object and tuple literals keep their members as Exprs (with
    their own lines) in `items` / `elems`; `dynamic_keys` lists object keys that are expressions.
    """

    __slots__ = ("_raw", "column", "dynamic_keys", "elems", "items", "known", "line", "value", "var", "var_path")
    _FIELDS = ("value", "known", "raw", "line", "var", "var_path", "items", "elems", "dynamic_keys", "column")

    def __init__(self, value: Any = None, known: bool = True, raw: str | Span = "", line: int | None = None,
                 var: str | None = None, var_path: tuple[str | int, ...] = (), items: dict[str, Expr] | None = None,
                 elems: list[Expr] | None = None, dynamic_keys: list[str] | tuple[str, ...] = (),
                 column: int | None = None) -> None:
        self.value, self.known, self._raw, self.line = value, known, raw, line
        self.var, self.var_path, self.items, self.elems = var, var_path, items, elems
        self.dynamic_keys, self.column = dynamic_keys, column

    @property
    def raw(self) -> str:
        raw = self._raw
        return raw if isinstance(raw, str) else str(raw)

    @raw.setter
    def raw(self, raw: str | Span) -> None:
        self._raw = raw

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expr):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it replaces

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"Expr({shown})"


@dataclass(slots=True)
class Block:
    """A block (`resource "a" "b" { ... }`), or the whole file body when `type` is empty."""

    type: str
    labels: list[str]
    line: int | None = None
    end_line: int | None = None
    column: int | None = None
    attrs: dict[str, Expr] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)

    def children(self, block_type: str) -> list[Block]:
        return [b for b in self.blocks if b.type == block_type]


def unknown(raw: str | Span, line: int | None, var: str | None = None, var_path: tuple = (),
            column: int | None = None) -> Expr:
    return Expr(value=None, known=False, raw=raw, line=line, var=var, var_path=var_path, column=column)


def literal(value: Any, raw: str | Span, line: int | None, column: int | None = None) -> Expr:
    """A known value; an empty string is not one (a placeholder someone fills in later)."""
    if isinstance(value, str) and not value.strip():
        return unknown(raw, line, column=column)
    return Expr(value=value, known=True, raw=raw, line=line, column=column)


# --------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------


def decode_text(data: bytes, path: Path) -> str:
    """UTF-8 text (HCL and JSON are UTF-8 by definition) with CRLF folded to LF.

    Folding CRLF keeps every line number the same and the columns those of the visible text.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("file is not UTF-8 text", file=str(path), line=line) from None
    return text.replace("\r\n", "\n")



def collection(raw: str | Span, line: int | None, *, items=None, elems=None, column: int | None = None) -> Expr:
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
    return Expr(value=value, known=known, raw=raw, line=line, items=items, elems=elems, column=column)


_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
# var.NAME or local.NAME, optionally followed by steps into it: .key, .0, ["key"], [0]
_VAR_REF = re.compile(rf'(var|local)\.({_NAME})((?:\.{_NAME}|\.\d+|\[\s*(?:"[^"\\$%]*"|\d+)\s*\])*)')
_VAR_STEP = re.compile(rf'\.({_NAME})|\.(\d+)|\[\s*"([^"]*)"\s*\]|\[\s*(\d+)\s*\]')


def variable_reference(text: str, raw: str, line: int | None) -> Expr:
    """An unknown Expr, naming the variable or local (and steps into it) when `text` is just a
    reference; a local is named `local.NAME`, as variable_defaults keeps it."""
    match = _VAR_REF.fullmatch(text.strip())
    if not match:
        return unknown(raw, line)
    steps: list[str | int] = []
    for step in _VAR_STEP.finditer(match.group(3)):
        name, dotted_index, key, index = step.groups()
        steps.append(name if name is not None else key if key is not None else int(dotted_index or index))
    name = match.group(2) if match.group(1) == "var" else f"local.{match.group(2)}"
    return unknown(raw, line, var=name, var_path=tuple(steps))


def template_string(text: str, raw: str, line: int | None, column: int | None = None) -> Expr:
    """An HCL template already unescaped (a JSON string in HCL's JSON form, a quoted HCL
    literal): a bare `${var.x}` is a reference, any other interpolation or directive unknown."""
    match = re.fullmatch(r"\$\{(.*)\}", text, re.S)
    if match and "${" not in match.group(1):
        reference = variable_reference(match.group(1), raw, line)
        if reference.var is not None:
            reference.column = column
            return reference
    stripped = text.replace("$${", "").replace("%%{", "")
    if "${" in stripped or "%{" in stripped:
        return unknown(raw, line, column=column)
    return literal(text.replace("$${", "${").replace("%%{", "%{"), raw, line, column)


# --------------------------------------------------------------------------------------------
# Variables
# --------------------------------------------------------------------------------------------

# name -> (literal value, where it came from, for notes: "the variable's default", "terraform.tfvars")
Variables = dict[str, tuple[Expr, str]]


# What stands for the value of a variable declared sensitive (Terraform and Packer HCL
# `sensitive = true`, Packer JSON `sensitive-variables`): advisor never reads such a value, so no
# message, report or annotation can show it; the field it sets is unknown.
SENSITIVE = "(sensitive)"


def variable_defaults(root: Block) -> Variables:
    """`variable "x" { default = <literal> }` blocks of one file, by name (known defaults only);
    a variable declared sensitive is recorded as SENSITIVE, its default left unread."""
    found: Variables = {}
    for block in root.children("variable"):
        if block.labels and _declared_sensitive(block):
            found[block.labels[0]] = (Expr(None, known=False, raw=SENSITIVE, line=block.line), SENSITIVE)
            continue
        default = block.attrs.get("default")
        if block.labels and default is not None and default.known and default.value is not None:
            found[block.labels[0]] = (default, "the variable's default")
    # `locals { x = <literal> }`: referenced as local.x, kept under that name (never a variable's).
    for block in root.children("locals"):
        for name, expr in block.attrs.items():
            if expr.known and expr.value is not None:
                found[f"local.{name}"] = (expr, f"local.{name}")
    return found


def _declared_sensitive(block: Block) -> bool:
    flag = block.attrs.get("sensitive")
    return flag is not None and flag.known and flag.value is True


def sensitive(variables: Variables) -> frozenset[str]:
    """The names `variables` records as sensitive."""
    return frozenset(name for name, (_, origin) in variables.items() if origin == SENSITIVE)


def masked(variables: Variables, names: Iterable[str]) -> Variables:
    """`variables` with `names` masked as sensitive again: an assignment in a variable file
    must not bring back a value its declaration hides."""
    for name in names:
        variables[name] = (Expr(None, known=False, raw=SENSITIVE), SENSITIVE)
    return variables


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
    value: Expr | None
    value, origin = variables[expr.var]
    if origin == SENSITIVE:  # unknown, and shown as (sensitive), never as its value
        return Expr(None, known=False, raw=SENSITIVE, line=expr.line, column=expr.column), None
    for step in expr.var_path:
        value = _step_into(value, step) if value is not None else None
        if value is None:
            return expr, None
    assert value is not None
    resolved = Expr(value=value.value, known=True, raw=expr.raw, line=expr.line, var=expr.var,
                    var_path=expr.var_path, items=value.items, elems=value.elems, column=expr.column)
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
        vm.set(key, None, expr.line, raw=expr.raw, column=expr.column)
        vm.notes.append(f"{field_name} = {short(expr.raw)}: unknown")
        return None
    vm.set(key, value, expr.line, raw=expr.raw if origin else None, column=expr.column)
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


def set_nic_type(vm: TemplateVM, number: int, expr: Expr, variables: Variables, option: str,
                 types: dict[str, str]) -> None:
    """`ethernetN.virtualDev` from an adapter-type option, in the builder's names (`types`)."""
    expr = resolved_value(vm, option, expr, variables)
    if expr.known and expr.value is None:
        return  # null: the builder's default applies
    name = vmx_value(expr.value, "lower") if expr.known else None
    if name is None:
        vm.set(f"ethernet{number}.virtualDev", None, expr.line, raw=expr.raw, column=expr.column)
        if expr.known:  # a list or map where one type name belongs
            vm.notes.append(f"{option} = {short(expr.raw)}: not a single adapter type, unknown")
        return
    vm.set(f"ethernet{number}.virtualDev", types.get(name, name), expr.line, column=expr.column)


def unknown_adapter(vm: TemplateVM, number: int, line: int | None, what: str) -> None:
    """Adapters a `dynamic` block makes: they exist, but their number and types are unknown."""
    vm.set(f"ethernet{number}.present", "TRUE", line)
    vm.set(f"ethernet{number}.virtualDev", None, line, raw=f"({what})")

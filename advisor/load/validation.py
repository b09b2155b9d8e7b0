"""Turn a Pydantic ValidationError into InputErrors that name the file, line and field.

Also suggests the field the user probably meant when a key is unknown ("did you mean ...?").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ValidationError

from advisor.errors import InputError
from advisor.load.yamlloc import line_of


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class that owns the last element of loc, following nested fields."""
    import typing

    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int) or not (isinstance(current, type) and issubclass(current, BaseModel)):
            continue
        field = current.model_fields.get(part)
        if field is None:
            return None
        current = _inner_model(field.annotation, typing)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _inner_model(annotation: Any, typing: Any) -> Any:
    stack = [annotation]
    while stack:
        item = stack.pop()
        if isinstance(item, type) and issubclass(item, BaseModel):
            return item
        stack.extend(typing.get_args(item))
    return None


_KIND = {"Host": "a host profile", "Spec": "an advisor spec", "Config": "an advisor configuration",
         "RuleFile": "an advisor rule file"}
MAX_ECHO = 80  # characters of a user's key or value quoted in a message
MAX_MESSAGE = 1000


def clip(text: str, limit: int = MAX_ECHO) -> str:
    """A value quoted in a message, cut to `limit` characters (an 8 MB value is not echoed whole)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def path_text(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def to_input_errors(
    exc: ValidationError, model: type[BaseModel], root: Any, file: str, prefix: tuple[Any, ...] = ()
) -> list[InputError]:
    stranger = _not_this_kind(model, root, file, prefix)
    if stranger is not None:
        return [stranger]
    errors: list[InputError] = []
    meant_for: dict[tuple[Any, ...], int] = {}  # a field an unknown key was taken for -> that error
    missing: list[tuple[tuple[Any, ...], int]] = []
    for err in exc.errors(include_url=False):
        loc = _location(err)
        message, close = _message(err, loc, model)
        if close:
            meant_for[prefix + loc[:-1] + (close,)] = len(errors)
        elif err["type"] == "missing":
            missing.append((prefix + loc, len(errors)))
        full = prefix + loc
        errors.append(
            InputError(clip(message, MAX_MESSAGE), file=file, line=line_of(root, full),
                       field=clip(path_text(full)) or None)
        )
    # A required field that an unknown key was taken for ('cores' for cores_per_socket) is one
    # mistake: said once, on the unknown key's line.
    merged = set()
    for full, index in missing:
        if full in meant_for:
            merged.add(index)
            errors[meant_for[full]].message += " (it is required)"
    errors = [e for i, e in enumerate(errors) if i not in merged]
    # One line per problem, in file order: a user fixes them top to bottom.
    # An unknown key usually explains a "missing" one (a typo), so it comes first.
    errors.sort(key=lambda e: (not e.message.startswith("unknown key"), e.line or 0, e.field or ""))
    return errors


def _not_this_kind(model: type[BaseModel], root: Any, file: str, prefix: tuple[Any, ...]) -> InputError | None:
    """The one error for a document none of whose keys the model knows."""
    node = root
    for part in prefix:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict) and node and not any(
            isinstance(k, str) and (k in model.model_fields or close_matches(k, model.model_fields, n=1))
            for k in node):
        # Not one key advisor knows: most likely some other file named by mistake (or on
        # purpose: `host: /etc/shadow`). Its content is not echoed.
        return InputError(f"not {_KIND.get(model.__name__, 'an advisor document')}: none of its keys is one advisor "
                          f"reads (expected {', '.join(list(model.model_fields)[:6])}, ...); its content is not shown",
                          file=file, line=getattr(node, "line", None))
    return None


def _location(err: Any) -> tuple[Any, ...]:
    """The path of a Pydantic error in the document, without Pydantic's own parts."""
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith(("function-", "lax-", "json-"))))
    # Union members show up as extra path parts ('str', 'Host', 'int', 'literal[...]').
    loc = tuple(
        p
        for p in loc
        if not (
            isinstance(p, str)
            and (p[:1].isupper() or p in {"str", "int", "bool", "float"} or p.startswith("literal["))
        )
    )
    original = (err.get("ctx") or {}).get("error")
    extra = getattr(original, "path", None)
    if extra:
        loc = loc + tuple(extra)
    if err["type"] == "extra_forbidden" and err["loc"] and loc[-1:] != tuple(err["loc"][-1:]):
        loc = loc + tuple(err["loc"][-1:])  # the unknown key itself, even one spelled like a union tag ('Host')
    return loc


def _message(err: Any, loc: tuple[Any, ...], model: type[BaseModel]) -> tuple[str, str | None]:
    """What to say about one error, and the field an unknown key most likely stands for."""
    message = err["msg"]
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    if err["type"] == "extra_forbidden":
        owner = _model_at(model, loc)
        known = list(owner.model_fields) if owner else []
        close = meant(str(loc[-1]), owner) if owner else []
        message = f"unknown key '{clip(str(loc[-1]))}'" + (f"; did you mean '{close[0]}'?" if close else "")
        if not close and known:
            message += f" (allowed: {', '.join(known)})"
        return message, close[0] if close else None
    if err["type"] == "string_unicode":  # a byte the file's encoding could not decode
        value = str(err.get("input", ""))
        bad = next((ord(ch) - 0xDC00 for ch in value if "\udc80" <= ch <= "\udcff"), None)
        byte = f"byte 0x{bad:02X}" if bad is not None else "a byte"
        return (f"{byte} is not valid in the file's encoding (UTF-8 unless the file declares "
                "another, e.g. .encoding = \"windows-1252\")"), None
    if err["type"] == "missing":
        return "required field is missing", None
    if err["type"] == "literal_error":
        return f"'{clip(str(err.get('input')))}' is not allowed; " + message.replace("Input should be", "use"), None
    return message, None


def meant(word: str, model: type[BaseModel]) -> list[str]:
    """The field an unknown key most likely stands for: by meaning first (the model's
    `also_called` words: host `cores` is `cores_per_socket`), then by spelling."""
    words: dict[str, str] = getattr(model, "also_called", {})
    key = word.strip().lower().replace("-", "_").replace(" ", "_")
    if key in model.model_fields and key != word:
        return [key]  # written in another case or with dashes
    if key in words:
        return [words[key]]
    return close_matches(word, model.model_fields, n=1)


def close_matches(word: str, possibilities: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """difflib's suggestions, imported only when there is a mistake to suggest for."""
    import difflib

    return difflib.get_close_matches(word, possibilities, n=n, cutoff=cutoff)

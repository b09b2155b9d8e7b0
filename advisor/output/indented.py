"""`json.dumps(obj, indent=2, ensure_ascii=True, default=...)`, byte for byte, at C-encoder speed
for the strings.

Why hand-written: on Python 3.11-3.13 the standard library's C encoder ignores `indent`, so any
indented document falls back to json's pure-Python encoder, a chain of generators per node. A
SARIF log of 10,000 templates (128 MB, ten million nodes) took about 3.4 s that way and 1 s
here: one recursive walk appending to a list, with json's own C string escaper. The walk tests
types in json's order (str, None, True, False, int, float, list/tuple, dict, then `default`) and
formats numbers and keys as json does, so the output is the same for every input json accepts
(tests/unit/test_indented.py compares the two on generated documents). Python 3.14's C encoder
supports indent; this module can go when advisor requires it.
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring_ascii
from typing import Any

_INF = float("inf")


def _float(o: float) -> str:
    # json's floatstr with allow_nan=True.
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


def _key(k: object) -> str:
    # json's key coercion (skipkeys=False): str as is, then float, True, False, None, int.
    if isinstance(k, str):
        return k
    if isinstance(k, float):
        return _float(k)
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, int):
        return int.__repr__(k)
    raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")


# long: one writer for every kind of container, written out in place; split into helpers it
# wrote a 128 MB log a quarter slower (the comment inside says which splits were measured).
def dumps(obj: Any, default: Callable[[Any], Any]) -> str:
    """The document as `json.dumps(obj, indent=2, ensure_ascii=True, default=default)` writes it.

    Containers are followed recursively (our documents are a few levels deep); a container that
    holds itself raises ValueError as json does, instead of recursing without end.
    """
    out: list[str] = []
    put = out.append
    esc = encode_basestring_ascii
    open_ids: set[int] = set()  # the containers being written, as json's check_circular keeps them
    add, discard = open_ids.add, open_ids.discard

    # Lists and dicts have a loop each, and the circular check is written out in place: one
    # shared loop over (prefix, value) pairs, or a helper for the check, made a 128 MB log a
    # quarter slower to write.
    def value(o: Any, indent: str) -> None:
        if isinstance(o, str):
            put(esc(o))
        elif o is None:
            put("null")
        elif o is True:
            put("true")
        elif o is False:
            put("false")
        elif isinstance(o, int):
            put(int.__repr__(o))
        elif isinstance(o, float):
            put(_float(o))
        elif isinstance(o, (list, tuple)):
            if not o:
                put("[]")
                return
            inner = indent + "  "
            marker = id(o)
            if marker in open_ids:
                raise ValueError("Circular reference detected")
            add(marker)
            put("[\n" + inner)
            first = True
            for item in o:
                if not first:
                    put(",\n" + inner)
                first = False
                if isinstance(item, str):
                    put(esc(item))
                else:
                    value(item, inner)
            put("\n" + indent + "]")
            discard(marker)
        elif isinstance(o, dict):
            if not o:
                put("{}")
                return
            inner = indent + "  "
            marker = id(o)
            if marker in open_ids:
                raise ValueError("Circular reference detected")
            add(marker)
            first = True
            for k, v in o.items():
                put(("{\n" if first else ",\n") + inner + esc(_key(k)) + ": ")
                first = False
                if isinstance(v, str):
                    put(esc(v))
                else:
                    value(v, inner)
            put("\n" + indent + "}")
            discard(marker)
        else:
            marker = id(o)
            if marker in open_ids:
                raise ValueError("Circular reference detected")
            add(marker)
            value(default(o), indent)
            discard(marker)

    value(obj, "")
    return "".join(out)


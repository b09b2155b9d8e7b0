"""Writing HCL2 native syntax safely: quoted strings, block labels and identifiers.

Terraform and Packer read the same HCL2 language
(https://github.com/hashicorp/hcl/blob/main/hclsyntax/spec.md). Inside a quoted template string,
a backslash, a double quote and a newline need escapes, and ``${`` / ``%{`` would start an
interpolation or directive. The spec's own escape, doubling (``$${``), is ambiguous next to
another ``$`` (``"$$${"``: tree-sitter-hcl, which advisor's readers use, refuses it, and
python-hcl2 refuses ``"$${"`` unless a ``}`` follows), so the ``$`` / ``%`` is written as the
escape ``\\u0024`` / ``\\u0025`` instead: the scanner sees no ``${`` and the string decodes to
the literal text in every HCL parser. Every
other character that does not print (controls, line and paragraph separators, bidi and format
characters) is written as a ``\\uNNNN`` / ``\\UNNNNNNNN`` escape, so a name never reaches the file,
a terminal or a diff as a raw control (issue 39).
"""

from __future__ import annotations

import re

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NOT_IDENT = re.compile(r"[^A-Za-z0-9_-]")


def string(value: str) -> str:
    """``value`` as an HCL quoted string literal."""
    text = "".join(_ESCAPES.get(ch) or (ch if ch.isprintable() else _unicode_escape(ch)) for ch in value)
    return '"' + text.replace("${", "\\u0024{").replace("%{", "\\u0025{") + '"'


def _unicode_escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def identifier(name: str, prefix: str = "vm_") -> str:
    """A Terraform/Packer name (letters, digits, ``_``, ``-``; not starting with a digit or ``-``)."""
    ident = _NOT_IDENT.sub("_", name.strip()) or "vm"
    return ident if re.match(r"[A-Za-z_]", ident) else prefix + ident


def boolean(value: bool) -> str:
    return "true" if value else "false"


def comment(text: str, indent: str) -> str:
    return f"{indent}# {text}\n"

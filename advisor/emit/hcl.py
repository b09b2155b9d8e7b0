"""Writing HCL2 native syntax safely: quoted strings, block labels and identifiers.

Terraform and Packer read the same HCL2 language
(https://github.com/hashicorp/hcl/blob/main/hclsyntax/spec.md). Inside a quoted template string,
a backslash, a double quote and a newline need escapes, and ``${`` / ``%{`` would start an
interpolation or directive, so they are doubled to ``$${`` / ``%%{`` to stay literal.
"""

from __future__ import annotations

import re

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NOT_IDENT = re.compile(r"[^A-Za-z0-9_-]")


def string(value: str) -> str:
    """``value`` as an HCL quoted string literal."""
    text = "".join(_ESCAPES.get(ch, ch) for ch in value)
    text = _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return '"' + text.replace("${", "$${").replace("%{", "%%{") + '"'


def identifier(name: str, prefix: str = "vm_") -> str:
    """A Terraform/Packer name (letters, digits, ``_``, ``-``; not starting with a digit or ``-``)."""
    ident = _NOT_IDENT.sub("_", name.strip()) or "vm"
    return ident if re.match(r"[A-Za-z_]", ident) else prefix + ident


def boolean(value: bool) -> str:
    return "true" if value else "false"


def comment(text: str, indent: str) -> str:
    return f"{indent}# {text}\n"

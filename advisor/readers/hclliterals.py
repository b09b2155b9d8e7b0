"""HCL literal values: numbers, arithmetic on literal numbers, and string escapes."""

from __future__ import annotations

import re

from advisor.readers.hclview import Expr

ARITHMETIC = {"+", "-", "*", "/", "%"}
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def is_number(expr: Expr) -> bool:
    return expr.known and isinstance(expr.value, int | float) and not isinstance(expr.value, bool)


def arithmetic(operator: str, values: list[int | float]) -> int | float | None:
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


def number(text: str) -> int | float | None:
    if re.fullmatch(r"\d{1,18}", text):
        return int(text)
    if re.fullmatch(r"\d{1,18}(?:\.\d+)?(?:[eE][-+]?\d{1,3})?", text):
        return float(text)
    return None


def unescape(text: str) -> str:
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

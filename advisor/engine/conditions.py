"""Rule conditions: the CEL environment, the facts a condition reads, compiling a condition, and
the checks a user's condition must pass before it may run (a bound on the values it can build)."""

from __future__ import annotations

import re
from typing import Any

from advisor.errors import InputError
from advisor.facts.facts import BOOL, DOUBLE, FACTS, INT, LIST_INT, LIST_STRING, STRING

# Patterns as text: they are compiled (and kept by `re`) when a condition is first read, which
# a run with the cached built-in catalog and no rule folder of its own never does.
_FACT_TOKEN = r"\b([a-z_]+(?:\.[a-z_0-9]+)+)\b"
_STRING_LITERAL = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""

_ENV = None


def cel_env() -> Any:
    """One CEL environment declaring every fact with its type (shared by all rules)."""
    global _ENV
    if _ENV is None:
        from cel_expr_python import cel

        types = {INT: cel.Type.INT, DOUBLE: cel.Type.DOUBLE, BOOL: cel.Type.BOOL, STRING: cel.Type.STRING,
                 LIST_STRING: cel.Type.List(cel.Type.STRING), LIST_INT: cel.Type.List(cel.Type.INT)}
        _ENV = cel.NewEnv(variables={name: types[f.type] for name, f in FACTS.items()})
    return _ENV


def referenced_facts(expression: str) -> set[str]:
    """The facts a condition reads. A dotted token may run on into a method call
    (`vm.name.size()`): the fact is its longest prefix that names one."""
    bare = re.sub(_STRING_LITERAL, "''", expression)
    found = set()
    for token in re.findall(_FACT_TOKEN, bare):
        parts = token.split(".")
        for end in range(len(parts), 1, -1):
            name = ".".join(parts[:end])
            if name in FACTS:
                found.add(name)
                break
    return found


# A user condition's comprehensions can copy a value into every element they build
# (`[vm.name].map(x, x + x + x)` triples it, and chaining multiplies): before it runs, the
# growth each macro allows (uses of its variable + 1) is multiplied over all macros and must
# stay within MAX_GROWTH; with facts capped at engine.MAX_CEL_STRING characters this bounds the
# largest value a condition can build. CEL's own iteration budget bounds the number of steps.
MAX_GROWTH = 64
_MACRO = r"\.\s*(?:map|filter|all|exists|exists_one)\s*\(\s*([A-Za-z_][A-Za-z_0-9]*)\s*,"


def condition_growth(expression: str) -> int:
    bare = re.sub(_STRING_LITERAL, "''", expression)
    product = 1
    for match in re.finditer(_MACRO, bare):
        depth, end = 1, match.end()
        while end < len(bare) and depth:  # the macro's own arguments, up to its closing parenthesis
            depth += {"(": 1, ")": -1}.get(bare[end], 0)
            end += 1
        uses = len(re.findall(rf"(?<![\w.]){re.escape(match.group(1))}\b", bare[match.end():end]))
        product *= max(1, uses) + 1
        if product > MAX_GROWTH:
            break
    return product


def compile_condition(rule_id: str, when: str, file: str, line: int | None) -> Any:
    """The CEL program of a rule's condition, or an InputError naming the rule's file and line."""
    env = cel_env()
    try:
        program = env.compile(when)
    except Exception as exc:  # the binding raises a plain RuntimeError/ValueError with CEL's text
        text = " ".join(str(exc).split())
        undeclared = re.search(r"undeclared reference to '([^']+)'", text)
        if undeclared:
            import difflib

            name = undeclared.group(1)
            close = difflib.get_close_matches(name, FACTS, n=1)
            text = f"unknown fact '{name}'" + (f"; did you mean '{close[0]}'?" if close else "")
        raise InputError(f"{rule_id}: condition does not compile: {text}", file=file, line=line, field="when") from None
    from cel_expr_python import cel

    kind = program.return_type()
    if kind != cel.Type.BOOL:  # an int or a dyn() would only fail when evaluated, as a crash
        raise InputError(f"{rule_id}: the condition gives {str(kind).lower()}, not true/false", file=file, line=line,
                         field="when")
    return program


def check_user_condition(rule_id: str, when: str, scope: str, facts: frozenset[str], file: str,
                         line: int | None) -> None:
    """Refuse a user condition that could build a huge value or that can never fire."""
    growth = condition_growth(when)
    if growth > MAX_GROWTH:
        raise InputError(f"{rule_id}: the condition's comprehensions could copy a value more than {MAX_GROWTH} times "
                         "(each macro multiplies by the uses of its variable + 1); simplify it",
                         file=file, line=line, field="when")
    if scope == "host":
        vm_facts = sorted(n for n in facts if n.split(".")[0] not in ("host", "place", "version"))
        if vm_facts:
            raise InputError(f"{rule_id}: a host-scope rule sees only host, place and version facts; "
                             f"it reads {', '.join(vm_facts)}, so it could never fire (use scope: vm)",
                             file=file, line=line, field="when")

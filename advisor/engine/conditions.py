"""Rule conditions: the CEL environment, the facts a condition reads, compiling a condition, and
the checks a user's condition must pass before it may run (a bound on what it can allocate)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from advisor.errors import InputError
from advisor.facts.facts import BOOL, DOUBLE, FACTS, INT, LIST_INT, LIST_STRING, STRING

if TYPE_CHECKING:
    from advisor.engine.celast import Node

# Patterns as text: they are compiled (and kept by `re`) when a condition is first read, which
# a run with the cached built-in catalog and no rule folder of its own never does.
_FACT_TOKEN = r"\b([a-z_]+(?:\.[a-z_0-9]+)+)\b"
_STRING_LITERAL = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""

_ENV = None


def cel_env() -> Any:
    """One CEL environment declaring every fact with its type (shared by all rules)."""
    global _ENV
    if _ENV is None:
        _ENV = _env_of(FACTS)
    return _ENV


def _env_of(names: Iterable[str]) -> Any:
    """A CEL environment declaring the facts `names` with their types."""
    from cel_expr_python import cel

    types = {INT: cel.Type.INT, DOUBLE: cel.Type.DOUBLE, BOOL: cel.Type.BOOL, STRING: cel.Type.STRING,
             LIST_STRING: cel.Type.List(cel.Type.STRING), LIST_INT: cel.Type.List(cel.Type.INT)}
    return cel.NewEnv(variables={name: types[FACTS[name].type] for name in names})


def reads_only(when: str, facts: Iterable[str]) -> bool:
    """Whether the condition `when` reads no fact outside `facts`, proved by the CEL checker: it
    compiles in an environment that declares only those. (A name resolves to the longest declared
    prefix, and no fact's type has fields to select, so it cannot mean another fact there.)
    About a millisecond: the engine asks only of rules it evaluates one by one many times."""
    try:
        _env_of(facts).compile(when)
    except Exception:  # the binding raises a plain RuntimeError/ValueError with CEL's text
        return False
    return True


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


# cel-expr-python sets no cost limit or memory cap (Env.compile and Expression.eval take none), and
# cel-cpp keeps every intermediate value of an evaluation in its arena until the end, so what a
# user's condition may allocate is bounded before it runs, by the shape of the expression the
# runtime compiled (its checked tree, engine.celast: comments, spacing and parentheses are gone,
# macros are the comprehensions they expand to):
# - at most MAX_USER_CONDITION characters (the built-in conditions are at most 156);
# - no comprehension inside another's body, and none over a computed list: its range is a list or
#   map literal written in the condition (at most MAX_USER_CONDITION / 2 elements) or a fact, so
#   each body runs once per element of a bounded list;
# - no value-building operation in a body: `+` (string or list concatenation), a list or map
#   literal, bytes() or string(). The macro's own accumulation (`@result + [element]`) is the
#   only `+` and list a body keeps. A body then only reads values and yields bools, numbers or a
#   reference, whatever the number of iterations.
# Outside the macros every node runs once, and CEL's parser refuses nesting past 32 levels, so a
# chain of `+` copies each leaf (a fact of at most MAX_CEL_STRING characters, a literal, a
# macro's result) at most 32 times: at most 32 × (125 facts × 4 KiB + 500 × 4 KiB) ≈ 80 MB.
MAX_USER_CONDITION = 1000
_BUILDS_VALUES = frozenset({"_+_", "bytes", "string"})


def _plain_range(node: Node) -> bool:
    """A literal list or map, or a fact (an identifier, perhaps with fields selected)."""
    while node.kind == "select":
        operand = node.part("operand")
        if operand is None:
            return False
        node = operand
    return node.kind in ("list", "struct", "ident")


def _builds_values(body: Node, accumulator: str) -> bool:
    """Whether a comprehension's body (as expanded) builds a value per element, its own
    accumulation `accumulator + [element]` (or `+ 1`) aside."""
    stack = [body]
    while stack:
        node = stack.pop()
        parts = [child for _, child in node.parts]
        if node.kind == "call" and node.name == "_+_" and parts and parts[0].kind == "ident" \
                and parts[0].name == accumulator:  # the macro's step: look inside what it adds
            added = parts[1:]
            if len(added) == 1 and added[0].kind == "list" and len(added[0].parts) == 1:
                added = [added[0].parts[0][1]]
            stack.extend(added)
            continue
        if node.kind in ("list", "struct") or (node.kind == "call" and node.name in _BUILDS_VALUES):
            return True
        stack.extend(parts)
    return False


def user_condition_problem(expression: str, program: Any = None) -> str | None:
    """Why a user's condition could allocate without bound (see above), or None. `program` is
    its compiled form (compiled here when not given; a condition that does not compile raises)."""
    if len(expression) > MAX_USER_CONDITION:
        return f"the condition has {len(expression):,} characters; a rule file's condition may have at most " \
               f"{MAX_USER_CONDITION:,}"
    from advisor.engine.celast import checked_tree

    root, _ = checked_tree(cel_env().compile(expression) if program is None else program)
    for node in root.walk():
        if node.kind != "comprehension":
            continue
        bodies = [child for role, child in node.parts if role in ("loop_condition", "loop_step", "result")]
        if any(inner.kind == "comprehension" for body in bodies for inner in body.walk()):
            return "a comprehension macro inside another one's arguments; write them one after the other"
        if not _plain_range(node.part("iter_range") or node):
            return "a comprehension macro over a computed list; give it a list or map literal"
        if any(_builds_values(body, node.name) for body in bodies):
            return "inside a comprehension macro, `+`, list or map literals, bytes() and string() are not " \
                   "allowed (they would build a value per element)"
    return None


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


def check_user_condition(rule_id: str, when: str, scope: str, program: Any, file: str,
                         line: int | None) -> frozenset[str]:
    """Refuse a user condition that could build a huge value or that can never fire; give the
    facts it reads, as CEL's checker resolved them (a fact named in a comment is not read)."""
    problem = user_condition_problem(when, program)
    if problem is not None:
        raise InputError(f"{rule_id}: {problem}", file=file, line=line, field="when")
    from advisor.engine.celast import checked_tree

    facts = frozenset(checked_tree(program)[1] & FACTS.keys())
    if scope == "host":
        vm_facts = sorted(n for n in facts if n.split(".")[0] not in ("host", "place", "version"))
        if vm_facts:
            raise InputError(f"{rule_id}: a host-scope rule sees only host, place and version facts; "
                             f"it reads {', '.join(vm_facts)}, so it could never fire (use scope: vm)",
                             file=file, line=line, field="when")
    return facts


def activation_of(facts: dict[str, Any]) -> dict[str, Any]:
    """Every fact that may go into CEL."""
    return known_values(facts, facts)


# Bounds on what a fact may carry into CEL (docs/hardening.md): CEL's int is 64-bit (a larger
# value fails inside the evaluator), and a rule condition may copy a string or list several
# times, so a value beyond these is treated as unknown and the rules reading it are skipped.
MAX_CEL_STRING = 4096
MAX_CEL_LIST = 4096
_INT64 = (-(1 << 63), (1 << 63) - 1)


def known_values(facts: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """The facts among `names` that may go into CEL (cel_value_fits), in one pass: the common
    values (booleans, floats, ints and strings within bounds) are checked inline, the rest
    (lists, subclasses) by cel_value_fits. The activation of every VM is built from it."""
    get = facts.get
    low, high = _INT64
    return {n: v for n in names if (v := get(n)) is not None and (
        (t := v.__class__) is bool or t is float
        or (low <= v <= high if t is int else len(v) <= MAX_CEL_STRING if t is str else cel_value_fits(v)))}


def cel_value_fits(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        return _INT64[0] <= value <= _INT64[1]
    if isinstance(value, str):
        return len(value) <= MAX_CEL_STRING
    if isinstance(value, (list, tuple)):
        return len(value) <= MAX_CEL_LIST and all(cel_value_fits(v) for v in value)
    return True


def combined_program(env: Any, conditions: Iterable[str], text: Callable[[str], str] = str) -> Any:
    """One CEL program giving every condition (as `text` writes it) as a list of booleans, or
    False."""
    # One condition per line: a `//` comment in a condition ends at its line.
    source = "[\n" + ",\n".join(f"({text(when)}\n)" for when in conditions) + "\n]"
    try:
        return env.compile(source)
    except Exception:  # each condition compiled alone at load; keep evaluating them one by one
        return False

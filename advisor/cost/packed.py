"""A group's combined CEL program with its known facts bound as a few typed lists.

The CEL binding converts every variable bound on its own, ~0.2 us each, ~80 per VM: more than
evaluating the group's conditions. A list converts at about the cost of one variable whatever
its length. So the combined program is compiled with each fact its VMs know written as an item
of the list of its type (`vm.vcpus` -> `_int[12]`), and each VM binds those lists alone. The
checker gives an item the fact's declared type, and the binding converts an item as it converts
a variable of that type (a bool bound to an int fact is an int either way), so every condition
sees the values it saw as names. A fact the group's VMs do not know stays a name and stays
unbound: a condition reading it fails as before, and so does the combined list.

A condition is rewritten only where its text is plain enough for the fact tokens to be found
for sure (no comment, escape, raw, bytes or triple-quoted string; no macro variable named like a
fact's family); otherwise the group's program binds every fact by name, as it did before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from advisor.engine.conditions import _FACT_TOKEN, _STRING_LITERAL, cel_env, combined_program
from advisor.facts.names import BOOL, DOUBLE, FACTS, INT, LIST_INT, LIST_STRING, STRING

if TYPE_CHECKING:
    from advisor.engine.rule import Rule

# A fact's type -> the list its values are bound in.
_LISTS = {INT: "_int", DOUBLE: "_double", BOOL: "_bool", STRING: "_string", LIST_STRING: "_strings", LIST_INT: "_ints"}
# Text in which a fact token could be other than a fact: comments, escapes, raw, bytes and
# triple-quoted strings (the string pattern reads none of these).
_NOT_PLAIN = r"//|\\|'''|\"\"\"|(?<![\w'\"])[rRbB]{1,2}['\"]"

_ENV = None


def packed_env() -> Any:
    """cel_env's facts, and one list variable per fact type."""
    global _ENV
    if _ENV is None:
        from cel_expr_python import cel

        types = {INT: cel.Type.INT, DOUBLE: cel.Type.DOUBLE, BOOL: cel.Type.BOOL, STRING: cel.Type.STRING,
                 LIST_STRING: cel.Type.List(cel.Type.STRING), LIST_INT: cel.Type.List(cel.Type.INT)}
        variables = {name: types[fact.type] for name, fact in FACTS.items()}
        variables.update({name: cel.Type.List(types[kind]) for kind, name in _LISTS.items()})
        _ENV = cel.NewEnv(variables=variables)
    return _ENV


class Combined:
    """A compiled combined program and how a VM's known facts are bound for it."""

    __slots__ = ("_lists", "env", "layout", "program")

    def __init__(self, program: Any, env: Any, layout: tuple[tuple[str, tuple[str, ...]], ...] | None) -> None:
        self.program, self.env = program, env
        # (list variable, the facts it holds in order) per list; None: every fact bound by name.
        self.layout = layout
        # Per list: its name, a getter of its values (one value alone when it holds one fact).
        self._lists = [(name, itemgetter(*names), len(names) == 1) for name, names in layout or ()]

    def activation(self, known: dict[str, Any]) -> Any:
        """`known` must hold every fact of the layout (a group's VMs know the same facts)."""
        if self.layout is None:
            return self.env.Activation(known)
        return self.env.Activation({name: [get(known)] if alone else [*get(known)] for name, get, alone in self._lists})


def combined(rules: list[Rule], knows: Iterable[str], packed: bool = True) -> Combined | bool:
    """The rules' combined program for VMs that know the facts `knows` (packed: with those
    bound as lists where the conditions allow it), or False."""
    if packed and all(_plain(r.d.when) for r in rules):
        names = sorted({n for r in rules for n in r.facts}.intersection(knows))
        layout = tuple((name, tuple(n for n in names if FACTS[n].type == kind)) for kind, name in _LISTS.items())
        layout = tuple((name, held) for name, held in layout if held)
        index = {n: f"{name}[{position}]" for name, held in layout for position, n in enumerate(held)}
        program = combined_program(packed_env(), [r.d.when for r in rules], lambda when: _rewritten(when, index))
        if program:
            return Combined(program, packed_env(), layout)
    program = combined_program(cel_env(), [r.d.when for r in rules])
    return Combined(program, cel_env(), None) if program else False


@lru_cache(maxsize=1024)  # a catalog's conditions, asked again for each group they are in
def _plain(when: str) -> bool:
    """Whether every fact token of `when` outside its string literals is a fact: no text the
    string pattern misreads, no name of a fact's family standing alone (a macro's variable
    would make `vm.vcpus` a field of it) or after a dot (a field of another value)."""
    if re.search(_NOT_PLAIN, when):
        return False
    return _family_name().search(re.sub(_STRING_LITERAL, "''", when)) is None


@lru_cache(maxsize=1)  # the fact families' pattern, built once rather than for each condition
def _family_name() -> re.Pattern[str]:
    """A fact family's name standing alone or after a dot (see _plain)."""
    families = "|".join(sorted({name.split(".")[0] for name in FACTS}))
    return re.compile(rf"\b(?:{families})\b(?!\s*\.)|\.\s*(?:{families})\b")


def _rewritten(when: str, index: dict[str, str]) -> str:
    """`when` with each fact of `index` written as its list item (string literals left alone)."""
    def fact(match: re.Match[str]) -> str:
        token = match.group(1)
        parts = token.split(".")
        for end in range(len(parts), 1, -1):  # the longest prefix naming a fact (referenced_facts)
            name = ".".join(parts[:end])
            if name in FACTS:
                return index[name] + token[len(name):] if name in index else token
        return token

    out, start = [], 0
    for literal in re.finditer(_STRING_LITERAL, when):
        out += [re.sub(_FACT_TOKEN, fact, when[start:literal.start()]), literal.group(0)]
        start = literal.end()
    out.append(re.sub(_FACT_TOKEN, fact, when[start:]))
    return "".join(out)

"""Rules the known facts cannot settle: how CEL reports them and how advisor says so.

cel-expr-python (the repo's CEL binding) evaluates a declared variable missing from the
activation to an error value, `UNKNOWN: No value with name "host.core_mhz" found in Activation`,
and its `&&`, `||` and `?:` ignore that error where the other operand decides (measured on
0.1.3; cel-spec langdef.md, "Logical Operators"). An error of that kind left at the top means
the condition depends on an unknown fact: the rule is "not evaluated", with the facts it needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

_MISSING = "No value with name"
# Facts computed from another fact: unknown exactly when that one is, which is what the user
# can supply (advisor.facts.facts.topology_facts derives these from the host's clock).
DERIVED_FROM = {
    "vm.full_cpu_reservation": "host.core_mhz",
    "vm.full_cpu_reservation_mhz": "host.core_mhz",
}
# Fact families that exist only where the spec describes them: `cluster.*` needs a `cluster:`
# list. A rule whose unknown facts are all of such a family does not apply (it is neither
# evaluated nor listed as "not evaluated"): LIM012 says nothing of a host with no cluster.
_DESCRIBED_FAMILIES = ("cluster",)
# Fact families that only a host (or its vSphere version) can give.
_HOST_FAMILIES = ("host", "topo", "place", "version")


def is_missing_fact(value: Any) -> bool:
    """Whether a CEL result is the error of a fact left out of the activation."""
    return isinstance(value, str) and _MISSING in value


@lru_cache(maxsize=1024)  # a fact's words, asked for each finding that shows it unknown (a fact name: ~200)
def _noun(name: str) -> str:
    from advisor.facts.facts import FACTS

    definition = FACTS.get(name)
    # "nominal core clock (MHz)" -> "nominal core clock": the fact's name follows in brackets.
    doc = re.sub(r"\s*\([^)]*\)$", "", definition.doc) if definition else name
    owner = {"host": "the host's ", "vm": "the VM's ", "topo": "the predicted topology: ",
             "place": "the host's placement: ", "version": "the vSphere version's "}.get(name.split(".")[0], "")
    return f"{owner}{doc} ({name})"


def applies_without(names: Iterable[str]) -> bool:
    """Whether a rule whose facts `names` are unknown still applies (False: every one of them
    belongs to a part of the spec that is not described, such as `cluster:`)."""
    return not all(n.split(".")[0] in _DESCRIBED_FAMILIES for n in names)


def needed_noun(name: str) -> str:
    """What a missing fact needs, in words: a derived fact names the fact it comes from."""
    return _noun(DERIVED_FROM.get(name, name))


def needs_text(rule: str, names: Iterable[str], hosted: bool = False) -> str:
    """`SCHED004 needs the host's nominal core clock (MHz) (host.core_mhz)`; `hosted`: a host was
    given, so a missing host fact is not for want of one."""
    names = sorted({DERIVED_FROM.get(n, n) for n in names})
    if not hosted and len(names) > 3 and all(n.split(".")[0] in _HOST_FAMILIES for n in names):
        return f"{rule} needs a host: no host given ({', '.join(names[:3])}, …)"
    return f"{rule} needs " + ", ".join(_noun(n) for n in names)


# A "not evaluated" line names the facts it needs in brackets (`(host.cores)`), or says it
# needs a host outright: either way, facts of the families only a host gives.
_NEEDS_HOST = re.compile(r"needs a host: |\((?:" + "|".join(_HOST_FAMILIES) + r")\.")


def skipped_rule(line: str) -> str:
    """The rule id a "not evaluated" line (needs_text) is about: its first word."""
    return line.split(" ", 1)[0]


def needs_host(line: str) -> bool:
    """Whether a "not evaluated" line (needs_text) names a fact only a host (or its vSphere
    version) can give: for a VM with no host, giving one is what settles the rule."""
    return _NEEDS_HOST.search(line) is not None

"""The rules one group of VMs is evaluated on (same workload, vSphere version and unknown facts),
what the group's combined CEL program gives, and what one rule's condition gives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor.engine.rule import Rule
from advisor.engine.undecided import is_missing_fact, needs_text


@dataclass(slots=True)
class Group:
    """The rules evaluated on VMs that share a workload, a version and a set of unknown facts."""

    rules: list[Rule]  # every rule that applies
    ids: tuple[str, ...]
    unknown: frozenset[str]  # the facts its VMs do not know
    known: list[Rule]  # the rules that read no unknown fact: evaluated as usual (batched)
    partial: list[Rule]  # the rules that read one: decided if the known facts settle them
    hosted: bool = False  # a host was given: an unknown host fact is not for want of one
    knows: frozenset[str] = frozenset()  # the facts its rules read less `unknown`: what its VMs know
    seen: int = 0
    batch: Any = None  # the combined program once compiled (packed.Combined); False when it cannot be
    # The partial rules the known facts of every VM so far settled (all of them at first): they
    # join the known rules in the combined program (compiled for `batched`, a rule once left
    # undecided is one CEL call of its own from then on: its error would fail the whole list),
    # so the program is compiled at most once more than there are partial rules.
    likely: tuple[Rule, ...] = ()
    batched: tuple[Rule, ...] = ()
    # The partial rules left out of `likely` (decided one by one alongside the combined
    # program), and the `likely` they were taken from.
    solo: tuple[Rule, ...] = ()
    solo_of: tuple[Rule, ...] | None = None
    # (how the likely rules settled, how the solo ones did) -> the partial rules that hold and
    # the "not evaluated" lines: at most OUTCOMES, emptied when `solo` changes.
    outcomes: dict[tuple[tuple[bool, ...], tuple[bool | None, ...]],
                   tuple[tuple[Rule, ...], tuple[str, ...]]] = field(default_factory=dict)
    # The "not evaluated" lines of its VMs, one shared tuple per distinct set of undecided rules
    # (a run may hold ten thousand VMs of a few shapes).
    undecided: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)

    def undecided_lines(self, undecided: list[Rule]) -> tuple[str, ...]:
        """The "not evaluated" lines of the rules `undecided` (in order), one tuple per set."""
        ids = tuple(r.id for r in undecided)
        lines = self.undecided.get(ids)
        if lines is None:
            lines = self.undecided[ids] = tuple(
                needs_text(r.id, r.facts & self.unknown, self.hosted) for r in undecided
            )
        return lines


# Outcomes of a group's partial rules kept per group: VMs of a group mostly share a few.
OUTCOMES = 1 << 10


def all_bools(program: Any, activation: Any, count: int) -> list[bool] | None:
    """The combined program's list of `count` results, or None when it fails or any result is
    not true/false (a rule failing at run time, or reading a fact left out)."""
    try:
        results = program.eval(activation).plain_value()
    except RuntimeError:  # e.g. CEL's comprehension iteration budget
        return None
    # bool has no subclasses: its type is bool exactly when a result is True or False.
    if not isinstance(results, list) or len(results) != count or (results and set(map(type, results)) != {bool}):
        return None
    return results


class Bound:
    """One VM's known facts as a CEL activation (every fact by name), built when a rule is
    first decided on its own: a VM whose rules the combined program settles needs none."""

    __slots__ = ("_activation", "_env", "_known")

    def __init__(self, env: Any, known: dict[str, Any]) -> None:
        self._env, self._known, self._activation = env, known, None

    def __call__(self) -> Any:
        if self._activation is None:
            self._activation = self._env.Activation(self._known)
        return self._activation


def decide(rule: Rule, activation: Any, unknown: frozenset[str]) -> bool | None:
    """True or False when the known facts settle the rule's condition; None when it reads an
    unknown fact that decides it."""
    try:
        result = rule.compiled().eval(activation)
    except RuntimeError as exc:  # e.g. CEL's comprehension iteration budget
        result = " ".join(str(exc).split())
    value = result.plain_value() if hasattr(result, "plain_value") else result
    if not isinstance(value, bool) and unknown and is_missing_fact(value):
        return None
    if not isinstance(value, bool):
        if rule.builtin:
            raise TypeError(f"{rule.id}: condition gave {value!r}, not true/false")
        # A user's rule failing at run time (a division by zero, a comprehension over the
        # iteration budget) is an input error of their rule file, not a crash of advisor.
        from advisor.errors import InputError

        raise InputError(f"{rule.id}: the condition failed: {value}", file=rule.file, line=rule.line, field="when")
    return value

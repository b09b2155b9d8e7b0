"""Which of a group's rules fire on a VM's known facts, at the least cost: the evaluation side of
the cost layer (advisor.cost).

The plain way is one CEL call per rule. Three savings sit on top, each keyed and bounded:
- batching: once a group (advisor.engine.group) has seen _BATCH_AFTER VMs, its rules are
  compiled into one combined program, one CEL call per VM (kept per group: the group's rules
  are its key; compiled again when a partial rule leaves `likely`);
- packing: that program binds the known facts as a few typed lists (advisor.cost.packed), once
  the group has seen _PACK_AFTER VMs or the call evaluates _PACK_RUN;
- memoised decisions (advisor.cost.memo): a rule decided on its own is remembered by the values
  of the facts it reads.
Each gives the answer the plain way gives; a combined call that cannot say (a rule failing at
run time, an unknown fact) falls back to the plain way.
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING, Any

from advisor.cost import off
from advisor.cost.memo import Decisions
from advisor.engine.group import OUTCOMES, Bound, Group, all_bools

if TYPE_CHECKING:
    from advisor.engine.rule import Rule

# VMs of one group before its rules are combined into one CEL program: compiling costs about
# as much as evaluating the rules one by one on a few dozen VMs, so small runs skip it.
_BATCH_AFTER = 8
# A group's combined program binding its facts as lists (advisor.cost.packed) costs ~2 ms more
# to compile (2.8 against 0.85 ms) and saves ~25 us per VM (the by-name binding converts ~80
# variables): it is compiled at once when one call evaluates at least _PACK_RUN VMs (a few dozen
# groups of a hundred VMs or more), else once a group has seen _PACK_AFTER: a lint worker's chunks
# of 500 would otherwise bind ~500 VMs by name before packing. Not lower: the 1,000-VM spec's groups
# of 32-60 VMs would each pay the compile (at 32, `check` of it took 12% more instructions).
_PACK_RUN = 4096
_PACK_AFTER = 128


class Decider:
    """The rules that fire, per VM, for one evaluator (a run): its groups' combined programs and
    its memo of decisions live as long as it does."""

    __slots__ = ("batching", "decisions", "env", "many", "packing")

    def __init__(self, env: Any) -> None:
        self.env = env
        self.decisions = Decisions()  # rules decided one by one, by the values they read
        self.many = False  # the current call evaluates _PACK_RUN VMs or more
        self.batching, self.packing = not off("batch"), not off("packed")

    def start(self, count: int) -> None:
        """A call of the engine on `count` VMs begins: a large one packs its groups at once."""
        self.many = count >= _PACK_RUN

    def fired(self, group: Group, known: dict[str, Any]) -> tuple[list[Rule], tuple[str, ...]]:
        """The group's rules whose condition holds on the `known` facts, and the "not evaluated"
        lines of those the known facts cannot settle."""
        activation, decide = Bound(self.env, known), self.decisions.decide
        batched = self._batched(group, known)
        if batched is not None:
            fired, likely = batched
            if group.partial:
                partial, lines = self._partial(group, likely, known, activation)
                fired.extend(partial)
                return fired, lines
            return fired, ()
        # A condition that fails at run time fails the combined list (so does a likely rule left
        # undecided): each rule on its own reports which one and why.
        fired = [r for r in group.known if decide(r, known, activation, frozenset())]
        if not group.partial:
            return fired, ()
        undecided = []
        for rule in group.partial:
            holds = decide(rule, known, activation, group.unknown)
            if holds is None:
                undecided.append(rule)
            elif holds:
                fired.append(rule)
        if undecided:  # never grows: a rule once undecided stays a call of its own
            left = {id(r) for r in undecided}
            likely_left = tuple(r for r in group.likely if id(r) not in left)
            if len(likely_left) < len(group.likely):
                group.likely = likely_left
        return fired, group.undecided_lines(undecided)

    def _partial(self, group: Group, likely: tuple[bool, ...], known: dict[str, Any],
                         activation: Bound) -> tuple[tuple[Rule, ...], tuple[str, ...]]:
        """The partial rules that hold, in order, and the "not evaluated" lines of those left
        undecided, given how the combined program settled the likely ones: the rest (`solo`) are
        decided together, and each distinct outcome is sorted out once per group."""
        if group.solo_of is not group.likely:
            left = set(map(id, group.likely))
            group.solo_of, group.solo = group.likely, tuple(r for r in group.partial if id(r) not in left)
            group.outcomes = {}
        solo = self.decisions.decide_each(group.solo, known, activation, group.unknown)
        hit = group.outcomes.get((likely, solo))
        if hit is None:
            holds: dict[int, bool | None] = dict(zip(map(id, group.likely), likely, strict=True))
            holds.update(zip(map(id, group.solo), solo, strict=True))
            hit = (tuple(r for r in group.partial if holds[id(r)]),
                   group.undecided_lines([r for r in group.partial if holds[id(r)] is None]))
            if len(group.outcomes) < OUTCOMES:
                group.outcomes[(likely, solo)] = hit
        return hit

    @staticmethod
    def _combined(group: Group, packed: bool) -> Any:
        from advisor.cost.packed import combined  # imported once a group is common enough (not at start-up)

        return combined([*group.known, *group.likely], group.knows, packed)

    def _batched(self, group: Group, known: dict[str, Any]) -> tuple[list[Rule], tuple[bool, ...]] | None:
        """The known rules that hold and how the likely partial rules settle (in the order of
        `group.likely`), from one CEL call once the group is common enough to repay compiling the
        combined program; None when that call cannot say."""
        group.seen += 1
        if not self.batching or group.seen < _BATCH_AFTER or not (group.known or group.likely):
            return None
        if group.batch is None or group.batched is not group.likely:  # compiled again as `likely` shrinks
            group.batch, group.batched = self._combined(
                group, self.packing and (self.many or group.seen >= _PACK_AFTER)), group.likely
        elif self.packing and group.seen == _PACK_AFTER and group.batch and group.batch.layout is None:
            group.batch = self._combined(group, True)  # a group larger than foreseen
        if not group.batch:
            return None
        count = len(group.known)
        results = all_bools(group.batch.program, group.batch.activation(known), count + len(group.likely))
        if results is None:
            return None
        fired = list(compress(group.known, results))  # the known rules come first in the list
        return fired, tuple(results[count:])


"""Memoised decisions: what a rule decided on its own, remembered by the values of the facts it
reads (a saving of the cost layer, advisor.cost: kept per evaluator, keyed by the rule and the
values and types of its facts, bounded in entries and key size; nothing outlives the run)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.cost import off
from advisor.engine.group import Bound, decide

if TYPE_CHECKING:
    from advisor.engine.rule import Rule

# Decisions kept per evaluator (a run), whatever the number of groups and rules: at most this
# many, and none whose key's strings and lists hold more than MEMO_SIZE characters and items
# (evaluated as before): with at most ~125 facts per condition, a few megabytes in all.
MEMO_ENTRIES = 1 << 13
MEMO_SIZE = 256
# Individual calls of a rule before it is checked for the memo (reads_only costs a user's rule
# about a millisecond, as much as a hundred calls); a rule that holds the answer already (a
# built-in rule from the cache) sooner, so most of a run's first VMs are keyed too. Not at once:
# a check of a few VMs would build keys it never looks up again.
MEMO_AFTER = 32
MEMO_AFTER_HELD = 12
_ABSENT = object()


class Decisions:
    """What rules decided one by one (`decide`), by the values of the facts they read.

    Rules decided on their own are mostly partial ones the known facts of some VM left
    undecided (`Group.likely`): without a host, ~20 calls per template. A rule's answer depends
    only on its program, on which of its facts the activation holds and their values (its
    program provably reads no other fact: conditions.reads_only), and on whether unknown facts
    may leave it undecided: all of that is the key. Values are keyed with their type (1, 1.0 and
    True are equal in Python, not in CEL)."""

    __slots__ = ("calls", "names", "on", "sets", "table", "together")

    def __init__(self) -> None:
        self.table: dict[tuple[Any, ...], bool | None] = {}
        # id(rule) -> (its number and boolean facts, its string and list facts); None: not memoized
        self.names: dict[int, tuple[tuple[str, ...], tuple[str, ...]] | None] = {}
        self.calls: dict[int, int] = {}
        # The same for a tuple of rules decided together (`decide_each`) with a set of unknown
        # facts, by the union of their facts less those: (id(rules), id(unknown)) -> (the tuple and
        # the set themselves, so that their ids are not reused; the union as in `names`, None: not
        # memoized; the rules split into parts that share no fact, each with its key's name, its
        # rules' positions and the union of their facts).
        self.sets: dict[tuple[int, int], tuple[tuple[Rule, ...], frozenset[str],
                                               tuple[tuple[str, ...], tuple[str, ...]] | None, tuple[_Part, ...]]] = {}
        self.together: dict[tuple[Any, ...], tuple[bool | None, ...]] = {}
        self.on = not off("memo")  # off: every rule is decided anew (no key is built)

    def decide(self, rule: Rule, known: dict[str, Any], activation: Bound, unknown: frozenset[str]) -> bool | None:
        key = self._key(rule, known, unknown) if self.on else None
        try:
            value = self.table.get(key, _ABSENT) if key is not None else _ABSENT
        except TypeError:  # a value that does not hash: not kept
            key, value = None, _ABSENT
        if value is _ABSENT:
            value = decide(rule, activation(), unknown)  # an error raises: nothing kept
            if key is not None and len(self.table) < MEMO_ENTRIES:
                self.table[key] = value
        return value  # type: ignore[return-value]

    def decide_each(self, rules: tuple[Rule, ...], known: dict[str, Any], activation: Bound,
                    unknown: frozenset[str]) -> tuple[bool | None, ...]:
        """`decide` for each of `rules`, with one key for them all: a group's partial rules left
        out of its combined program (~20 per template without a host) are mostly decided on
        the same values, and building one key per rule cost more than deciding them. `known`
        holds none of the `unknown` facts (the group's), so they are left out of the key."""
        key = self._set_key(rules, known, unknown) if self.on else None
        try:
            values = self.together.get(key) if key is not None else None
        except TypeError:  # a value that does not hash: not kept
            key, values = None, None
        if values is None:
            hit = self.sets.get((id(rules), id(unknown))) if key is not None else None
            if hit is not None and len(hit[3]) > 1:
                values = self._by_parts(rules, hit[3], known, activation, unknown)
            else:
                values = tuple(self.decide(rule, known, activation, unknown) for rule in rules)  # errors raise
            if key is not None and len(self.together) < MEMO_ENTRIES:
                self.together[key] = values
        return values

    def _by_parts(self, rules: tuple[Rule, ...], parts: tuple[_Part, ...], known: dict[str, Any], activation: Bound,
                  unknown: frozenset[str]) -> tuple[bool | None, ...]:
        """`decide` for each of `rules` when their values together are new, part by part: the
        union of many rules' facts takes many more values than the facts of rules that share
        some (each a few), so most parts were decided before on the same values. The rules of
        the parts not seen are decided in their order, so an error is the one the rules decided
        one by one would raise first."""
        values: list[bool | None] = [None] * len(rules)
        left: list[tuple[_Part, tuple[Any, ...] | None]] = []
        for part in parts:
            ident, positions, entry = part
            key = self._values_key(ident, entry, known, unknown)
            try:
                got = self.together.get(key) if key is not None else None
            except TypeError:  # a value that does not hash: not kept
                key, got = None, None
            if got is None:
                left.append((part, key))
                continue
            for position, value in zip(positions, got, strict=True):
                values[position] = value
        if left:
            for position in sorted(p for part, _ in left for p in part[1]):
                values[position] = self.decide(rules[position], known, activation, unknown)  # errors raise
            for (_, positions, _), key in left:
                if key is not None and len(self.together) < MEMO_ENTRIES:
                    self.together[key] = tuple(values[p] for p in positions)
        return tuple(values)

    def _set_key(self, rules: tuple[Rule, ...], known: dict[str, Any],
                 unknown: frozenset[str]) -> tuple[Any, ...] | None:
        hit = self.sets.get((id(rules), id(unknown)))
        if hit is None:
            # Each rule's answer depends on its own facts only once reads_only proved it (`_key`,
            # after MEMO_AFTER calls of its own): until then, no key.
            if not rules or any(id(rule) not in self.names for rule in rules) or len(self.sets) >= MEMO_ENTRIES:
                return None
            entries = [self.names[id(rule)] for rule in rules]
            union: tuple[tuple[str, ...], tuple[str, ...]] | None = None
            parts: tuple[_Part, ...] = ()
            proved = [entry for entry in entries if entry is not None]
            if len(proved) == len(entries):
                union = _union(proved, unknown)
                parts = tuple(((id(rules), id(unknown), index), positions,
                               _union([proved[p] for p in positions], unknown))
                              for index, positions in enumerate(_sharing(proved, unknown)))
            hit = self.sets[(id(rules), id(unknown))] = (rules, unknown, union, parts)
        return self._values_key((id(rules), id(unknown)), hit[2], known, unknown)

    def _key(self, rule: Rule, known: dict[str, Any], unknown: frozenset[str]) -> tuple[Any, ...] | None:
        if id(rule) not in self.names:  # not checked yet
            calls = self.calls[id(rule)] = self.calls.get(id(rule), 0) + 1
            if calls < (MEMO_AFTER if rule.own_facts is None else MEMO_AFTER_HELD):
                return None
            from advisor.facts.names import BOOL, DOUBLE, FACTS, INT

            names = sorted(rule.facts)
            plain = tuple(n for n in names if FACTS[n].type in (INT, DOUBLE, BOOL))
            sized = tuple(n for n in names if FACTS[n].type not in (INT, DOUBLE, BOOL))
            self.names[id(rule)] = (plain, sized) if rule.reads_own_facts() else None
        return self._values_key(id(rule), self.names[id(rule)], known, unknown)

    @staticmethod
    def _values_key(ident: Any, entry: tuple[tuple[str, ...], tuple[str, ...]] | None, known: dict[str, Any],
                    unknown: frozenset[str]) -> tuple[Any, ...] | None:
        if entry is None:
            return None
        plain, sized = entry
        values = tuple(map(known.get, plain))  # None: left out (known_values holds no None)
        if not sized:
            return ident, bool(unknown), values, tuple(map(type, values))
        texts = tuple(map(known.get, sized))
        if sum(map(_size, texts)) > MEMO_SIZE:
            return None
        return ident, bool(unknown), values, tuple(map(type, values)), tuple(map(_listed, texts)), \
            tuple(map(type, texts))


# A part of the rules decided together: its key's name, its rules' positions, their facts' union.
_Part = tuple[tuple[int, int, int], tuple[int, ...], tuple[tuple[str, ...], tuple[str, ...]]]


def _union(entries: list[tuple[tuple[str, ...], tuple[str, ...]]],
           unknown: frozenset[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The facts of several rules (as Decisions.names holds them) less `unknown`, sorted."""
    return (tuple(sorted({n for entry in entries for n in entry[0]} - unknown)),
            tuple(sorted({n for entry in entries for n in entry[1]} - unknown)))


def _sharing(entries: list[tuple[tuple[str, ...], tuple[str, ...]]], unknown: frozenset[str]) -> list[tuple[int, ...]]:
    """The positions of the rules in groups that share no fact outside `unknown`, in the order
    of their first rule (the rules that read none of them form one group)."""
    groups: list[tuple[set[int], set[str]]] = []
    for position, entry in enumerate(entries):
        facts, positions = {*entry[0], *entry[1]} - unknown, {position}
        for other in [g for g in groups if g[1] & facts or not (g[1] or facts)]:
            groups.remove(other)
            positions |= other[0]
            facts |= other[1]
        groups.append((positions, facts))
    return sorted((tuple(sorted(positions)) for positions, _ in groups), key=lambda positions: positions[0])


def _size(value: Any) -> int:
    """Characters and items of a string or a list of strings (0 for the other values)."""
    if value.__class__ is str:
        return len(value)
    if value.__class__ is list or value.__class__ is tuple:
        return len(value) + sum(len(v) for v in value if v.__class__ is str)
    return 0


def _listed(value: Any) -> Any:
    """A value as a key: a list as its items and their types (a list does not hash)."""
    if value.__class__ is not list and value.__class__ is not tuple:
        return value
    return value.__class__, tuple(value), tuple(map(type, value))


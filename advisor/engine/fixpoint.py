"""The written recommendation as a fixed point (issue 16, "fixes converge").

Each rule computes its fix against the VM as specified. When several written fixes reshape one
VM (a licence cap's vCPUs, a host's cores, the cores per socket of a layout) they were computed
for different shapes, so the VM with all of them applied may draw another recommendation. Here
the written part (the .vmx keys and the resized spec fields, what `advisor fix` and `advisor vmx`
write) is applied to the VM, the VM is evaluated again, and what that evaluation writes is folded
in — until it writes nothing new, at most MAX_PASSES times. Only a recommendation with a written
resize takes a second pass: .vmx keys alone are computed on the shape they leave as it is.

The findings reported stay those of the VM as specified; only what is written changes. A
recommendation still moving after MAX_PASSES is kept as the last pass left it, with a note.

Folding only adds. What a fix asked for can stop being needed once another written fix is
applied (issue 33: SCHED002 sets latency back to Normal, and SCHED004's reservations were for
High); `justified` then takes it back, ruff-style, for the rule pairs the catalog declares
(`yields_to`), and the engine settles what is left again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from advisor.engine.recommend import Fixed, Recommendation
from advisor.model.keyview import vm_values
from advisor.model.patch import applied
from advisor.model.spec import VM
from advisor.model.vmxkeys import SCALAR_KEYS
from advisor.vocab import SEVERITY_RANK

# Evaluations after the first, so the work per VM is bounded by construction: a resize's values
# move toward a limit (a licence's cores, the host's cores, a node's size), and the sweep's cases
# (tests/rules/test_convergence.py) settle within it; a cycle between two rules stops here.
MAX_PASSES = 4


def resizes(fixes: list[Fixed], explicit: frozenset[str]) -> list[dict[str, Any]]:
    """The resizes of the written fixes, least severe first (the order recommend() applies them)."""
    written = [f for f in fixes if f.fix.get("resize") and (f.writes_by_default() or f.rule in explicit)]
    return [dict(f.fix["resize"]) for f in sorted(written, key=lambda f: SEVERITY_RANK[f.severity])]


def _new(rec: Recommendation, current: dict[str, Any]) -> dict[str, Any]:
    """The changes a pass's recommendation makes to the VM it was built for (`current`: that
    VM's typed keys, lower-cased)."""
    return {k: v for k, v in rec.changes.items() if current.get(k.lower()) != v}


def _same(following: VM, current: VM) -> bool:
    """Whether evaluating `following` is evaluating `current`: the same fields, private
    attributes (a template's unknowns and ethernetN numbers, the lower-cased keys with their
    text) and fields set (what a resize validates anew)."""
    return following == current and following.model_fields_set == current.model_fields_set


# again(vm): that VM's recommendation (only the keys its written fixes change), the resizes of its
# written fixes, and the ids of the rules whose fixes it writes.
Again = Callable[[VM], tuple[Recommendation, list[dict[str, Any]], frozenset[str]]]


class _Settling:
    """The recommendation settle() builds, pass by pass: the written keys (typed), their rules
    and reasons, the guest and host settings, and the spelling of each key.
    (A plain class with __slots__: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    __slots__ = ("changes", "guest", "guest_sources", "host", "reasons", "resized_by", "sources", "spelled",
                 "summaries")

    def __init__(self, first: Recommendation, base: dict[str, Any] | None) -> None:
        self.spelled = {k.lower(): k for k in (base or {})} | {k.lower(): k for k in first.changes}
        self.changes, self.reasons, self.sources = dict(first.changes), dict(first.reasons), dict(first.sources)
        self.guest, self.host, self.guest_sources = dict(first.guest), dict(first.host), dict(first.guest_sources)
        self.summaries = dict(first.summaries)
        self.resized_by = list(first.resized)

    def follow(self, following: VM, shape: dict[str, Any], own: dict[str, tuple[str, Any]]) -> None:
        """Write what the model made of the applied VM. A field applied() left to the next pass
        (cores per socket) is written as it leaves it. A key the VM's .vmx leaves out because its
        value is the default (latency sensitivity Normal) keeps the value its rule wrote: a
        removal would lose the rule's reason. So is a field of the VM's own that the resize left
        behind (its cores per socket, which no longer divides the vCPUs a rule set), on behalf of
        the rules that resized the VM. `shape`, `own`: the applied VM's and the VM's own typed
        keys, by lower-case key."""
        changes, sources, reasons = self.changes, self.sources, self.reasons
        for key in [k for k in changes if k.lower() in SCALAR_KEYS and shape.get(k.lower()) != changes[k]]:
            if not _states_field(following, key, changes[key]):
                changes[key] = shape.get(key.lower())
        written = {k.lower() for k in changes}
        for low, (spelling, value) in own.items():
            if low in SCALAR_KEYS and low not in written and shape.get(low) != value:
                spelling = self.spelled.setdefault(low, spelling)
                changes[spelling] = shape.get(low)
                resizer = next((k for k in ("numvcpus", "memsize") if k in sources), None)
                if resizer is not None:
                    sources[low] = sources[resizer]
                    owner = next((r for k, r in reasons.items() if k.lower() == resizer), None)
                    if owner is not None:
                        reasons[spelling] = owner

    def take(self, rec: Recommendation, step: dict[str, Any], new_guest: dict[str, Any]) -> None:
        """Fold in what a pass writes anew (`step`, `new_guest`) with its rules and reasons."""
        for key, value in step.items():
            key = self.spelled.setdefault(key.lower(), key)
            self.changes[key] = value
            if key.lower() in {k.lower() for k in rec.reasons}:
                self.reasons[key] = next(r for k, r in rec.reasons.items() if k.lower() == key.lower())
            if key.lower() in rec.sources:
                self.sources[key.lower()] = rec.sources[key.lower()]
        self.guest.update(new_guest)
        self.guest_sources.update({k: rec.guest_sources[k] for k in new_guest if k in rec.guest_sources})
        self.host.update(rec.host)
        self.resized_by.extend(rec.resized)
        self.summaries.update(rec.summaries)

    def result(self, first: Recommendation, base: dict[str, Any] | None) -> Recommendation:
        """The settled recommendation; `first` itself when nothing changed."""
        if self.changes == first.changes and self.guest == first.guest and self.host == first.host:
            return first
        settings = {k: v for k, v in {**(base or {}), **self.changes}.items() if v is not None}
        return Recommendation(settings=settings, changes=self.changes, reasons=self.reasons, sources=self.sources,
                              summaries=self.summaries, guest=self.guest, guest_sources=self.guest_sources,
                              host=self.host, suggestions=first.suggestions, resized=self.resized_by)


def settle(vm: VM, first: Recommendation, base: dict[str, Any] | None, core_mhz: int | None,
           again: Again, resized: list[dict[str, Any]]) -> tuple[Recommendation, bool]:
    """Fold into `first` what evaluating the VM with it applied writes, until nothing changes.

    `first` is what evaluating `vm` itself writes (its keys may be spelled after `base`);
    resized: the resizes of `first`. Returns the recommendation (its `vm` and `vmx` left for the
    edge to build) and whether it settled within MAX_PASSES.
    """
    work = _Settling(first, base)
    own: dict[str, tuple[str, Any]] | None = None  # the VM's own typed keys, by lower-case key
    current, step = vm, dict(first.changes)
    settled = False
    for _ in range(MAX_PASSES):
        following = applied(current, step, resized)
        if following is None:
            break
        if not step and _same(following, current):
            # Nothing written reshapes the VM (a resize the model refused, one of disks only):
            # it is the VM evaluated last (`vm`, for `first`), and that evaluation wrote nothing new.
            settled = True
            break
        shape = {k.lower(): v for k, v in vm_values(following, core_mhz).items()}
        own = own if own is not None else {k.lower(): (k, v) for k, v in vm_values(vm, core_mhz).items()}
        work.follow(following, shape, own)
        rec, resized, _ = again(following)
        step = _new(rec, shape)
        new_guest = {k: v for k, v in rec.guest.items() if work.guest.get(k) != v}
        if not step and not new_guest:
            settled = True
            break
        work.take(rec, step, new_guest)
        current = following
    return work.result(first, base), settled


def _states_field(vm: VM, key: str, value: Any) -> bool:
    """Whether `value`, the typed value a rule wrote for a key with a field, is that field's
    value on `vm` (the VM with the recommendation applied)."""
    if value is None:
        return False
    name, parse = SCALAR_KEYS[key.lower()]
    try:  # sched.cpu.affinity is held as its text (advisor.model.vmxkeys.typed)
        return bool((parse(value) if value.__class__ is str else value) == getattr(vm, name))
    except ValueError:
        return False


def writers(rec: Recommendation) -> set[str]:
    """The rules with an entry in the recommendation: a key, a guest setting or a resize."""
    return ({r for rules in rec.sources.values() for r in rules} | set(rec.guest_sources.values())
            | {rule for rule, _ in rec.resized})


def justified(vm: VM, rec: Recommendation, base: dict[str, Any] | None, again: Again,
              yields: dict[str, frozenset[str]]) -> Recommendation:
    """`rec` with only the entries whose rule still fires on the VM with the rest applied.

    A fix is computed for the VM as specified; another written fix may take its premise away
    (SCHED002 sets latency sensitivity back to Normal, and SCHED004's reservations were asked
    for because it was High; SQL008 cuts a wide VM to one NUMA node, and NUMA001's preferHT was
    for a wide VM). As ruff keeps a fix only while its rule still fires on the fixed file, each
    rule that yields to another written rule (`yields_to` in its YAML) is evaluated on the VM
    with every other kept entry applied and its own left out; a rule that no longer fires loses
    its entries. Rules are decided after the rules they yield to (the catalog refuses a circle),
    so the result does not depend on the order of rules or VMs.
    """
    live = writers(rec)
    pending = {r for r in live if yields.get(r, frozenset()) & live}
    if not pending:
        return rec
    dropped: set[str] = set()
    patch = rec.patch()
    for rule in _after_what_they_yield_to(live, yields):
        if rule not in pending or not yields.get(rule, frozenset()) & (live - dropped):
            continue
        others = live - dropped - {rule}
        following = patch.kept(others).apply(vm)
        if following is None:
            continue  # the model refuses the VM without this rule's entries: nothing to judge by, kept
        if rule not in again(following)[2]:
            dropped.add(rule)
    return _without(rec, dropped, base) if dropped else rec


def _after_what_they_yield_to(rules: set[str], yields: dict[str, frozenset[str]]) -> list[str]:
    """`rules` ordered so each comes after the rules it yields to (by id where free)."""
    order: list[str] = []
    placed: set[str] = set()
    left = sorted(rules)
    while left:
        ready = [r for r in left if not (yields.get(r, frozenset()) & rules) - placed] or left[:1]
        order.extend(ready)
        placed.update(ready)
        left = [r for r in left if r not in placed]
    return order


def _without(rec: Recommendation, dropped: set[str], base: dict[str, Any] | None) -> Recommendation:
    """`rec` without the entries that only rules in `dropped` ask for: the VM keeps its own value."""
    out = Recommendation(suggestions=rec.suggestions, host=dict(rec.host), summaries=dict(rec.summaries))
    for key, value in rec.changes.items():
        named = rec.sources.get(key.lower(), ())
        left = tuple(r for r in named if r not in dropped)
        if named and not left:
            continue
        out.changes[key] = value
        if named:
            out.sources[key.lower()] = left
        reason = rec.reasons.get(key)
        if reason is not None:
            kept = reason[0] in left or not left
            out.reasons[key] = reason if kept else (left[-1], rec.summaries.get(left[-1], ""))
    for setting, value in rec.guest.items():
        if rec.guest_sources.get(setting) not in dropped:
            out.guest[setting] = value
            if setting in rec.guest_sources:
                out.guest_sources[setting] = rec.guest_sources[setting]
    out.resized = [(rule, r) for rule, r in rec.resized if rule not in dropped]
    out.settings = {k: v for k, v in {**(base or {}), **out.changes}.items() if v is not None}
    return out


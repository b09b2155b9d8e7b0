"""Rules decided one by one are memoized by the values of the facts they read
(advisor.cost.memo.Decisions): never a stale answer, and bounded (the same findings with and
without the memo: tests/unit/test_savings.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import org_rule

from advisor.cost import memo as memos
from advisor.engine import group
from advisor.engine.catalog import load_catalog
from advisor.engine.conditions import cel_env, reads_only
from advisor.errors import InputError


def _rule(tmp_path: Path, when: str):
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "org.yaml").write_text(org_rule(when))
    return load_catalog([folder]).by_id("ORG001")


def _decide(memo: memos.Decisions, rule, known: dict, unknown: frozenset[str] = frozenset()):
    return memo.decide(rule, known, group.Bound(cel_env(), known), unknown)


def test_a_decision_follows_every_fact_the_rule_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memos, "MEMO_AFTER", 1)
    rule = _rule(tmp_path, "vm.vcpus > 8 || vm.memory_mib > 4096 || vm.host_bound_keys.exists(t, t == 'e1000')")
    memo = memos.Decisions()
    base = {"vm.vcpus": 4, "vm.memory_mib": 2048, "vm.host_bound_keys": ["vmxnet3"]}
    assert _decide(memo, rule, base) is False
    assert memo.table, "the decision should be kept"
    for name, value in (("vm.vcpus", 16), ("vm.memory_mib", 8192), ("vm.host_bound_keys", ["vmxnet3", "e1000"])):
        assert _decide(memo, rule, base | {name: value}) is True, name
        assert _decide(memo, rule, base) is False
    assert _decide(memo, rule, base | {"vm.vcpus": 9}) is True
    with pytest.raises(InputError):  # 9.0 == 9 in Python, but no int in CEL: not the answer kept for 9
        _decide(memo, rule, base | {"vm.vcpus": 9.0})
    # A fact left out: undecided where unknown facts may leave it so, an error otherwise.
    partial = {"vm.memory_mib": 2048, "vm.host_bound_keys": []}
    assert _decide(memo, rule, partial, frozenset({"vm.vcpus"})) is None
    assert _decide(memo, rule, partial | {"vm.vcpus": 9}, frozenset({"vm.vcpus"})) is True
    with pytest.raises(TypeError):  # a built-in rule would raise; a user's raises InputError
        _decide(memo, dataclasses.replace(rule, builtin=True), partial)


def test_a_rule_reading_a_fact_it_does_not_list_is_not_memoized(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The key holds the facts Rule.facts names; a rule whose program reads another is proved so
    by the CEL checker and evaluated every time."""
    monkeypatch.setattr(memos, "MEMO_AFTER", 1)
    rule = dataclasses.replace(_rule(tmp_path, "vm.vcpus > vm.sockets"), facts=frozenset({"vm.vcpus"}))
    assert not reads_only(rule.d.when, rule.facts) and reads_only(rule.d.when, {"vm.vcpus", "vm.sockets"})
    memo = memos.Decisions()
    assert _decide(memo, rule, {"vm.vcpus": 4, "vm.sockets": 1}) is True
    assert _decide(memo, rule, {"vm.vcpus": 4, "vm.sockets": 8}) is False
    assert not memo.table


def test_the_memo_is_bounded_and_keys_no_long_list_or_string(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memos, "MEMO_AFTER", 1)
    monkeypatch.setattr(memos, "MEMO_ENTRIES", 5)
    rule = _rule(tmp_path, "vm.vcpus > 8 && vm.host_bound_keys.size() > 1")
    memo = memos.Decisions()
    for vcpus in range(20):
        assert _decide(memo, rule, {"vm.vcpus": vcpus, "vm.host_bound_keys": ["a", "b"]}) is (vcpus > 8)
    assert len(memo.table) == 5
    memo = memos.Decisions()
    long = ["e1000"] * (memos.MEMO_SIZE + 1)
    assert _decide(memo, rule, {"vm.vcpus": 9, "vm.host_bound_keys": long}) is True
    assert _decide(memo, rule, {"vm.vcpus": 9, "vm.host_bound_keys": ["x" * memos.MEMO_SIZE, "y"]}) is True
    assert not memo.table


def test_rules_decided_together_follow_every_fact_any_of_them_reads(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """One key for a tuple of rules (Decisions.decide_each): the values and types of the union of
    their facts, only once each rule is proven to read its own; bounded like the per-rule memo."""
    monkeypatch.setattr(memos, "MEMO_AFTER", 1)
    first = _rule(tmp_path, "vm.vcpus > 8 || vm.latency_sensitivity == 'high'")
    (tmp_path / "second").mkdir()
    second = _rule(tmp_path / "second", "vm.memory_mib > 4096")
    rules = (first, second)
    memo = memos.Decisions()

    def each(known: dict, unknown: frozenset[str] = frozenset()) -> tuple:
        return memo.decide_each(rules, known, group.Bound(cel_env(), known), unknown)

    base = {"vm.vcpus": 4, "vm.memory_mib": 2048, "vm.latency_sensitivity": "normal"}
    assert each(base) == (False, False)
    assert not memo.together, "no key before each rule is proven to read only its facts"
    assert each(base) == (False, False) and memo.together
    for name, value, expected in (("vm.vcpus", 16, (True, False)), ("vm.memory_mib", 8192, (False, True)),
                                  ("vm.latency_sensitivity", "high", (True, False))):
        assert each(base | {name: value}) == expected, name
        assert each(base) == (False, False)
    with pytest.raises(InputError):  # 9.0 == 9 in Python, but no int in CEL: not the answer kept for 9
        each(base | {"vm.vcpus": 9}) and each(base | {"vm.vcpus": 9.0})
    left_out = {"vm.memory_mib": 8192, "vm.latency_sensitivity": "normal"}
    assert each(left_out, frozenset({"vm.vcpus"})) == (None, True)
    assert each(left_out | {"vm.vcpus": 9}, frozenset({"vm.vcpus"})) == (True, True)
    memo = memos.Decisions()
    monkeypatch.setattr(memos, "MEMO_ENTRIES", 5)
    for vcpus in range(20):
        assert each(base | {"vm.vcpus": vcpus}) == (vcpus > 8, False)
    assert len(memo.together) == 5
    memo = memos.Decisions()
    long = base | {"vm.latency_sensitivity": "x" * (memos.MEMO_SIZE + 1)}
    assert each(long) == each(long) == (False, False)
    assert not memo.together


def test_rules_decided_together_are_decided_again_only_in_the_part_whose_facts_are_new(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Values new to the whole tuple (Decisions.decide_each) are sorted out part by part: rules
    that share no fact are keyed apart, so a new memory size decides again only the rule that
    reads it; and the first error is the one deciding the rules in their order raises."""
    monkeypatch.setattr(memos, "MEMO_AFTER", 1)
    conditions = ("vm.vcpus > 8", "4096 / (vm.memory_mib - 4096) > 0",
                  "vm.vcpus > 2 && vm.latency_sensitivity == 'high'", "1 / (vm.nics - 1) > 0")
    rules = []
    for index, when in enumerate(conditions):
        (tmp_path / str(index)).mkdir()
        rules.append(_rule(tmp_path / str(index), when))
    together, none = tuple(rules), frozenset[str]()
    memo = memos.Decisions()
    evaluated: list[str] = []
    real = memos.decide

    def counted(rule, activation, unknown):
        evaluated.append(rule.d.when)
        return real(rule, activation, unknown)

    monkeypatch.setattr(memos, "decide", counted)

    def each(known: dict) -> tuple:
        return memo.decide_each(together, known, group.Bound(cel_env(), known), none)

    base = {"vm.vcpus": 4, "vm.memory_mib": 2048, "vm.latency_sensitivity": "high", "vm.nics": 2}
    assert each(base) == each(base) == (False, False, True, True)
    (_, _, _, parts), = memo.sets.values()
    assert [positions for _, positions, _ in parts] == [(0, 2), (1,), (3,)]
    evaluated.clear()
    assert each(base | {"vm.memory_mib": 8192}) == (False, True, True, True)
    assert evaluated == [conditions[1]]
    # The memory and the NIC rules both divide by zero here: the memory rule, first in order, fails.
    evaluated.clear()
    with pytest.raises(InputError, match="divide by zero"):
        each(base | {"vm.memory_mib": 4096, "vm.nics": 1, "vm.vcpus": 16})
    assert evaluated == list(conditions[:2])

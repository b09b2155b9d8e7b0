"""Rules decided one by one are memoized by the values of the facts they read
(advisor.engine.group.Decisions): never a stale answer, bounded, and the same findings."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import org_rule
from test_engine import EXAMPLES, ROOT, _digest

from advisor.engine import engine, group
from advisor.engine.catalog import load_catalog
from advisor.engine.conditions import cel_env, reads_only
from advisor.engine.engine import Policy
from advisor.engine.specs import check_files
from advisor.errors import InputError


def _rule(tmp_path: Path, when: str):
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "org.yaml").write_text(org_rule(when))
    return load_catalog([folder]).by_id("ORG001")


def _decide(memo: group.Decisions, rule, known: dict, unknown: frozenset[str] = frozenset()):
    return memo.decide(rule, known, group.Bound(cel_env(), known), unknown)


def test_a_decision_follows_every_fact_the_rule_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(group, "MEMO_AFTER", 1)
    rule = _rule(tmp_path, "vm.vcpus > 8 || vm.memory_mib > 4096 || vm.host_bound_keys.exists(t, t == 'e1000')")
    memo = group.Decisions()
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
    monkeypatch.setattr(group, "MEMO_AFTER", 1)
    rule = dataclasses.replace(_rule(tmp_path, "vm.vcpus > vm.sockets"), facts=frozenset({"vm.vcpus"}))
    assert not reads_only(rule.d.when, rule.facts) and reads_only(rule.d.when, {"vm.vcpus", "vm.sockets"})
    memo = group.Decisions()
    assert _decide(memo, rule, {"vm.vcpus": 4, "vm.sockets": 1}) is True
    assert _decide(memo, rule, {"vm.vcpus": 4, "vm.sockets": 8}) is False
    assert not memo.table


def test_the_memo_is_bounded_and_keys_no_long_list_or_string(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(group, "MEMO_AFTER", 1)
    monkeypatch.setattr(group, "MEMO_ENTRIES", 5)
    rule = _rule(tmp_path, "vm.vcpus > 8 && vm.host_bound_keys.size() > 1")
    memo = group.Decisions()
    for vcpus in range(20):
        assert _decide(memo, rule, {"vm.vcpus": vcpus, "vm.host_bound_keys": ["a", "b"]}) is (vcpus > 8)
    assert len(memo.table) == 5
    memo = group.Decisions()
    long = ["e1000"] * (group.MEMO_SIZE + 1)
    assert _decide(memo, rule, {"vm.vcpus": 9, "vm.host_bound_keys": long}) is True
    assert _decide(memo, rule, {"vm.vcpus": 9, "vm.host_bound_keys": ["x" * group.MEMO_SIZE, "y"]}) is True
    assert not memo.table


@pytest.mark.self_compare
@pytest.mark.parametrize("after", [1, 10**9])
def test_memoized_runs_match_evaluating_every_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   after: int) -> None:
    """Every rule one by one (no combined program), with the memo from the first call or never:
    the same findings, skipped rules and recommendations; with it, far fewer CEL calls."""
    from advisor.engine.lint import LintJob, lint_paths

    calls = {"n": 0}
    decide = group.decide

    def counted(*args):
        calls["n"] += 1
        return decide(*args)

    monkeypatch.setattr(group, "decide", counted)
    monkeypatch.setattr(engine, "_BATCH_AFTER", 10**9)
    monkeypatch.setattr(group, "MEMO_AFTER", after)
    monkeypatch.setattr(group, "MEMO_AFTER_HELD", after)
    templates = ROOT / "tests" / "fixtures" / "templates" / "vmx"
    job = LintJob(rule_dirs=[], policy=Policy(), host_ref=None, vsphere=None)
    result = [_digest(check_files(EXAMPLES, load_catalog([]), Policy())),
              _digest(lint_paths([templates / "messy.vmx", templates / "sql-template.vmx"] * 6, job))]
    calls_with = calls["n"]
    monkeypatch.setattr(group, "MEMO_AFTER", 10**9)
    monkeypatch.setattr(group, "MEMO_AFTER_HELD", 10**9)
    calls["n"] = 0
    assert result == [_digest(check_files(EXAMPLES, load_catalog([]), Policy())),
                      _digest(lint_paths([templates / "messy.vmx", templates / "sql-template.vmx"] * 6, job))]
    assert result[1][1] and any(vm[2] for vm in result[1][1]), "some rules should be left undecided"
    if after == 1:
        assert calls_with < calls["n"] / 2


def test_rules_decided_together_follow_every_fact_any_of_them_reads(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """One key for a tuple of rules (Decisions.decide_each): the values and types of the union of
    their facts, only once each rule is proven to read its own; bounded like the per-rule memo."""
    monkeypatch.setattr(group, "MEMO_AFTER", 1)
    first = _rule(tmp_path, "vm.vcpus > 8 || vm.latency_sensitivity == 'high'")
    (tmp_path / "second").mkdir()
    second = _rule(tmp_path / "second", "vm.memory_mib > 4096")
    rules = (first, second)
    memo = group.Decisions()

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
    memo = group.Decisions()
    monkeypatch.setattr(group, "MEMO_ENTRIES", 5)
    for vcpus in range(20):
        assert each(base | {"vm.vcpus": vcpus}) == (vcpus > 8, False)
    assert len(memo.together) == 5
    memo = group.Decisions()
    long = base | {"vm.latency_sensitivity": "x" * (group.MEMO_SIZE + 1)}
    assert each(long) == each(long) == (False, False)
    assert not memo.together


def test_rules_decided_together_are_decided_again_only_in_the_part_whose_facts_are_new(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Values new to the whole tuple (Decisions.decide_each) are sorted out part by part: rules
    that share no fact are keyed apart, so a new memory size decides again only the rule that
    reads it; and the first error is the one deciding the rules in their order raises."""
    monkeypatch.setattr(group, "MEMO_AFTER", 1)
    conditions = ("vm.vcpus > 8", "4096 / (vm.memory_mib - 4096) > 0",
                  "vm.vcpus > 2 && vm.latency_sensitivity == 'high'", "1 / (vm.nics - 1) > 0")
    rules = []
    for index, when in enumerate(conditions):
        (tmp_path / str(index)).mkdir()
        rules.append(_rule(tmp_path / str(index), when))
    together, none = tuple(rules), frozenset[str]()
    memo = group.Decisions()
    evaluated: list[str] = []
    real = group.decide

    def counted(rule, activation, unknown):
        evaluated.append(rule.d.when)
        return real(rule, activation, unknown)

    monkeypatch.setattr(group, "decide", counted)

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


@pytest.mark.self_compare
@pytest.mark.parametrize("after", [1, 10**9])
def test_batched_runs_match_with_and_without_the_memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      after: int) -> None:
    """With the combined program from the first VM, the partial rules left out of it are decided
    together (Decisions.decide_each) and each outcome sorted out once per group: the same results
    as with neither, over templates of one shape with different sizes."""
    from advisor.engine.lint import LintJob, lint_paths

    monkeypatch.setattr(engine, "_BATCH_AFTER", 1)
    sql = (ROOT / "tests" / "fixtures" / "templates" / "vmx" / "sql-template.vmx").read_text()
    paths = []
    for vcpus, memory in [(16, 131072), (1, 1024), (64, 262144), (3, 3000), (128, 2048)] * 4:
        path = tmp_path / f"sql-{len(paths)}.vmx"
        path.write_text(sql.replace('numvcpus = "16"', f'numvcpus = "{vcpus}"')
                        .replace('memSize = "131072"', f'memSize = "{memory}"'))
        paths.append(path)
    job = LintJob(rule_dirs=[], policy=Policy(), host_ref=None, vsphere=None)

    def run() -> list:
        return [_digest(check_files(EXAMPLES, load_catalog([]), Policy())), _digest(lint_paths(paths, job))]

    monkeypatch.setattr(group, "MEMO_AFTER", after)
    monkeypatch.setattr(group, "MEMO_AFTER_HELD", after)
    kept = run()
    monkeypatch.setattr(group, "MEMO_AFTER", 10**9)
    monkeypatch.setattr(group, "MEMO_AFTER_HELD", 10**9)
    monkeypatch.setattr(engine, "OUTCOMES", 0)  # each VM's partial rules sorted out on its own too
    assert kept == run()
    assert kept[1][1] and any(vm[2] for vm in kept[1][1]), "some rules should be left undecided"

"""Combined programs that bind a group's known facts as typed lists (advisor.engine.packed) must
decide every rule as the program binding each fact by name does."""

from __future__ import annotations

import glob
from pathlib import Path

import pytest
from conftest import org_rule
from test_engine import _digest, _many_vms

from advisor.engine import engine, packed
from advisor.engine.catalog import load_catalog
from advisor.engine.engine import Policy
from advisor.engine.specs import check_files, evaluate_spec
from advisor.load.specfile import load_spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(glob.glob(str(ROOT / "examples" / "*.yaml")))


def test_facts_are_rewritten_outside_string_literals_only() -> None:
    index = {"vm.vcpus": "_int[0]", "vm.name": "_string[0]"}
    when = "vm.vcpus > 2 && vm.name.startsWith('vm.vcpus') && vm.memory_mib > 1 && \"vm.name\" != vm.name"
    assert packed._rewritten(when, index) == \
        "_int[0] > 2 && _string[0].startsWith('vm.vcpus') && vm.memory_mib > 1 && \"vm.name\" != _string[0]"


@pytest.mark.parametrize("when", [
    "vm.vcpus > 60 // vm.name's width",
    "vm.name == 'a\\'vm.vcpus'",
    "vm.name == r'vm.vcpus'",
    "vm.name == '''vm.vcpus'''",
    "[1, 2].exists(vm, vm.vcpus > 1)",
    "[1, 2].exists(host, vm.vcpus > host)",
    "{'vm': {'vcpus': 1}}.vm.vcpus > 0",
])
def test_text_the_rewrite_could_misread_is_bound_by_name(when: str) -> None:
    assert not packed._plain(when)


def test_a_plain_condition_is_packed() -> None:
    assert packed._plain("vm.vcpus > 2 && vm.name.startsWith('host') && topo.wide")


@pytest.mark.self_compare
@pytest.mark.parametrize("when", ["vm.vcpus > 60 // only the widest", "vm.name.startsWith('vm') || vm.vcpus > 60"])
def test_user_rules_pack_or_not_as_their_text_allows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     when: str) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "org.yaml").write_text(org_rule(when))
    catalog = load_catalog([folder])
    spec = str(_many_vms(tmp_path))
    monkeypatch.setattr(engine, "_BATCH_AFTER", 10**9)
    one_by_one = _digest(check_files([spec], catalog, Policy()))
    monkeypatch.setattr(engine, "_BATCH_AFTER", 1)
    monkeypatch.setattr(engine, "_PACK_RUN", 1)
    evaluator = engine.Evaluator(catalog, Policy())
    evaluate_spec(load_spec(spec), evaluator)
    assert all(g.batch and (g.batch.layout is None) == ("//" in when) for g in evaluator._groups.values())
    assert _digest(check_files([spec], catalog, Policy())) == one_by_one


@pytest.mark.self_compare
@pytest.mark.parametrize(("run", "after"), [(1, 10**9), (10**9, 2)])
def test_packed_programs_decide_as_named_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: int,
                                              after: int) -> None:
    files = [*EXAMPLES, str(_many_vms(tmp_path))]
    catalog = load_catalog([])
    monkeypatch.setattr(engine, "_BATCH_AFTER", 1)
    monkeypatch.setattr(engine, "_PACK_RUN", 10**9)
    monkeypatch.setattr(engine, "_PACK_AFTER", 10**9)
    named = _digest(check_files(files, catalog, Policy()))
    monkeypatch.setattr(engine, "_PACK_RUN", run)
    monkeypatch.setattr(engine, "_PACK_AFTER", after)
    evaluator = engine.Evaluator(catalog, Policy())
    evaluate_spec(load_spec(str(_many_vms(tmp_path))), evaluator)
    assert any(g.batch and g.batch.layout for g in evaluator._groups.values())  # some group was packed
    assert _digest(check_files(files, catalog, Policy())) == named
    assert named[0]

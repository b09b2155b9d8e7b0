"""advisor.engine.fixpoint.settle: a pass whose applied VM is the VM evaluated last (nothing
written reshapes it) settles without evaluating that VM again, and so changes no output."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.engine import fixpoint
from advisor.engine.fixpoint import settle
from advisor.engine.recommend import Recommendation
from advisor.model.spec import VM

TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "templates"


def _vm(**fields: object) -> VM:
    return VM.model_validate({"name": "db", "vcpus": 8, "memory": "32GB", **fields})


def test_a_pass_that_writes_nothing_onto_the_vm_is_not_evaluated_again():
    evaluated: list[VM] = []

    def again(vm: VM) -> tuple[Recommendation, list[dict[str, object]], frozenset[str]]:
        evaluated.append(vm)
        return Recommendation(), [], frozenset()

    first = Recommendation(guest={"power_plan": "high performance"})
    # A field's resize reaches the VM through its .vmx key in `changes`: with none, the VM stays.
    vm = _vm(hardware_version=13, advanced={"tools.syncTime": "FALSE"})
    assert settle(vm, first, None, None, again, [{"hardware_version": 19}]) == (first, True)
    assert evaluated == []
    # A VM without `advanced:` gets an empty one set when applied: another VM to the model, so
    # it is evaluated again (and gives `first` back).
    assert settle(_vm(hardware_version=13), first, None, None, again, [{"hardware_version": 19}]) == (first, True)
    assert len(evaluated) == 1


def test_a_pass_that_writes_a_key_is_evaluated_again():
    evaluated: list[VM] = []

    def again(vm: VM) -> tuple[Recommendation, list[dict[str, object]], frozenset[str]]:
        evaluated.append(vm)
        return Recommendation(changes={"vcpu.hotadd": False}), [], frozenset()

    # The engine holds a key with a field as the field's value (advisor.model.vmxkeys.typed).
    first = Recommendation(changes={"vcpu.hotadd": False})
    rec, settled = settle(_vm(cpu_hot_add=True), first, None, None, again, [{"hardware_version": 19}])
    assert settled and rec is first
    assert [vm.cpu_hot_add for vm in evaluated] == [False]


def _lint_json(files: list[str]) -> str:
    from advisor.engine.engine import Policy
    from advisor.engine.lint import LintJob, lint
    from advisor.output.json import render

    return render(lint(files, LintJob([], Policy(), None, None), jobs=1))


@pytest.mark.self_compare
def test_settling_without_the_second_evaluation_changes_no_report(monkeypatch: pytest.MonkeyPatch):
    files = sorted(str(p) for p in TEMPLATES.rglob("*") if p.is_file())
    same = fixpoint._same
    taken: list[bool] = []

    def counted(following: VM, current: VM) -> bool:
        taken.append(same(following, current))
        return taken[-1]

    monkeypatch.setattr(fixpoint, "_same", counted)
    report = _lint_json(files)
    assert any(taken)  # the fixtures hold a template whose pass writes nothing
    monkeypatch.setattr(fixpoint, "_same", lambda following, current: False)
    assert _lint_json(files) == report

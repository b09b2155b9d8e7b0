"""Combined programs that bind a group's known facts as typed lists (advisor.cost.packed): a fact
is rewritten as its list item only where the condition's text is plain enough to find it for sure.
(That a packed run reports what a run without packing does: tests/unit/test_savings.py.)"""

from __future__ import annotations

import pytest

from advisor.cost import packed


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

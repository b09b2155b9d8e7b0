"""A memory reservation of 0 is no reservation: accepted in every spelling a size has, kept
through model_dump and validation (the engine's resize passes rebuild VMs that way), and read
by the facts as no reservation. Sizes elsewhere stay positive."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from advisor.facts.vm import vm_facts
from advisor.model.spec import VM

BASE = {"name": "a", "vcpus": 2, "memory": "4GB"}


@pytest.mark.parametrize("zero", [0, "0", "0MB", "0 GB", "0.0GB"])
def test_zero_reservation_round_trips(zero):
    vm = VM.model_validate({**BASE, "memory_reservation": zero})
    assert vm.memory_reservation == 0
    again = VM.model_validate(vm.model_dump(exclude_unset=True))
    assert again.memory_reservation == 0


def test_zero_reservation_facts_are_no_reservation():
    zero = vm_facts(VM.model_validate({**BASE, "memory_reservation": 0}))
    none = vm_facts(VM.model_validate(BASE))
    for fact in ("vm.memory_reservation_mib", "vm.full_memory_reservation"):
        assert zero[fact] == none[fact]


@pytest.mark.parametrize("bad", [-1, "-1MB", True, 0.5, "x"])
def test_a_reservation_is_still_a_size(bad):
    with pytest.raises(ValidationError):
        VM.model_validate({**BASE, "memory_reservation": bad})


def test_other_sizes_stay_positive():
    with pytest.raises(ValidationError, match="a size must be positive"):
        VM.model_validate({**BASE, "memory": 0})
    with pytest.raises(ValidationError, match="a size must be positive"):
        VM.model_validate({**BASE, "disks": [{"size": "0GB", "controller": "pvscsi"}]})

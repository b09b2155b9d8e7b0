"""advisor.model.patch.applied: the VM with a pass's written keys applied, as the model
builds it. A device's new type goes to the field that lists the device (an `advanced:` key
beside a field stating another type is a contradiction the model refuses), and what model_dump
leaves out (a template's unresolved fields, its ethernetN numbers) is carried over."""

from __future__ import annotations

from advisor.model.patch import applied
from advisor.model.spec import VM


def _vm(**fields: object) -> VM:
    return VM.model_validate({"name": "db", "vcpus": 8, "memory": "32GB", **fields})


def test_a_nic_type_change_sets_the_listed_nic_at_its_ethernet_number():
    vm = _vm(nics=[{"adapter": "e1000"}, {"adapter": "e1000e"}])
    vm._nic_slots, vm._unknown = (0, 2), frozenset({"hardware_version"})
    following = applied(vm, {"ethernet2.virtualDev": "vmxnet3"}, [])
    assert following is not None
    assert [n.adapter for n in following.nics] == ["e1000", "vmxnet3"]
    assert "ethernet2.virtualDev" not in (following.advanced or {})
    assert following._nic_slots == (0, 2) and following._unknown == frozenset({"hardware_version"})


def test_a_scsi_type_change_sets_the_controller_of_the_disks_on_that_bus():
    vm = _vm(disks=[{"size": "40GB", "controller": "lsilogic"}, {"size": "1TB", "controller": "lsilogic", "bus": 1}])
    following = applied(vm, {"scsi1.virtualDev": "pvscsi"}, [])
    assert following is not None
    assert [d.controller for d in following.disks] == ["lsilogic", "pvscsi"]


def test_a_key_naming_no_listed_device_is_left_to_the_model():
    vm = _vm(nics=[{"adapter": "e1000"}])
    # ethernet5 is not listed: the key stays in advanced:, where the model refuses it as before.
    assert applied(vm, {"ethernet5.virtualDev": "vmxnet3"}, []) is None
    # Without a listed NIC the key is the VM's own, as written.
    following = applied(_vm(), {"ethernet0.virtualDev": "vmxnet3"}, [])
    assert following is not None and [n.adapter for n in following.nics] == ["vmxnet3"]

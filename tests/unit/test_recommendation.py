"""The typed recommendation (advisor.model.recommendation) and its .vmx form (advisor.vmx.recommendation):
read and written through the one key <-> field table, nothing lost on the way."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from advisor import emit
from advisor.engine.catalog import builtin_catalog
from advisor.engine.policy import Policy
from advisor.engine.specs import check_files
from advisor.errors import InputError
from advisor.model.recommendation import NicSlot, RecommendedVM, ScsiController
from advisor.model.vmxkeys import FIELD_KEYS, RECOMMENDATION_KEYS
from advisor.vmx.recommendation import changes, from_vmx, invalid, to_vmx

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# One key for every field a recommendation has, then devices and keys without a field.
EVERY_KEY = {
    "numvcpus": "16", "cpuid.coresPerSocket": "8", "memsize": "65536", "virtualHW.version": "19",
    "guestOS": "rhel9-64", "vcpu.hotadd": "FALSE", "vcpu.hotremove": "TRUE", "mem.hotadd": "FALSE",
    "sched.cpu.latencySensitivity": "high", "sched.cpu.min": "48000", "sched.cpu.units": "mhz",
    "sched.cpu.max": "96000", "sched.mem.min": "65536", "sched.mem.max": "131072", "sched.mem.pin": "TRUE",
    "vhv.enable": "TRUE", "disk.EnableUUID": "TRUE", "sched.cpu.affinity": "all",
    "scsi0.present": "TRUE", "scsi0.virtualDev": "pvscsi", "scsi2.virtualDev": "lsisas1068",
    "ethernet1.present": "TRUE", "ethernet1.virtualDev": "vmxnet3", "ethernet0.virtualDev": "e1000e",
    "numa.vcpu.preferHT": "TRUE", "annotation": 'say "hi" = ${x}',
}


def test_every_table_key_is_a_field_of_the_recommendation():
    fields = {f.name for f in dataclasses.fields(RecommendedVM)}
    assert {field for _, field, _ in RECOMMENDATION_KEYS.values()} <= fields
    assert set(RECOMMENDATION_KEYS) <= {key.lower() for key in EVERY_KEY}
    assert FIELD_KEYS["sched.cpu.affinity"][2] == "spec"  # "all" must stay text, not become None


def test_keys_become_typed_fields_and_devices():
    rec = from_vmx("db", EVERY_KEY, {"numvcpus": ("CPU001", "fits a node")})
    assert (rec.vcpus, rec.cores_per_socket, rec.memory, rec.hardware_version) == (16, 8, 65536, 19)
    assert rec.cpu_hot_add is False and rec.cpu_hot_remove is True and rec.memory_pinned is True
    assert (rec.cpu_reservation, rec.cpu_limit, rec.memory_reservation, rec.memory_limit) == (48000, 96000, 65536,
                                                                                             131072)
    assert rec.latency_sensitivity == "high" and rec.guest_os == "rhel9-64"
    assert rec.nested_hv is True and rec.disk_uuid is True
    assert rec.controllers == (ScsiController(0, "pvscsi"), ScsiController(2, "lsisas"))
    assert rec.controllers[1].virtual_dev == "lsisas1068"
    assert rec.nics == (NicSlot(0, "e1000e"), NicSlot(1, "vmxnet3"))
    assert dict(rec.advanced) == {"sched.cpu.units": "mhz", "sched.cpu.affinity": "all", "scsi0.present": "TRUE",
                                  "ethernet1.present": "TRUE", "numa.vcpu.preferht": "TRUE",
                                  "annotation": 'say "hi" = ${x}'}
    assert rec.reason("NUMVCPUS") == "CPU001: fits a node"


def test_the_vmx_form_round_trips():
    rec = from_vmx("db", EVERY_KEY)
    assert list(to_vmx(rec).items()) == list(EVERY_KEY.items())  # same keys, spelling, values and order
    assert from_vmx("db", to_vmx(rec)) == rec


def test_spellings_vmware_does_not_write_are_normalised():
    rec = from_vmx("db", {"NUMVCPUS": "4", "vcpu.hotadd": "true", "numvcpus": "8", "scsi0.virtualDev": "PVSCSI"})
    assert to_vmx(rec) == {"numvcpus": "8", "vcpu.hotadd": "TRUE", "scsi0.virtualDev": "pvscsi"}


def test_removed_keys_are_changes_but_not_settings():
    rec = from_vmx("db", {"sched.cpu.affinity": "all", "sched.cpu.max": None, "numvcpus": "4"})
    assert rec.cpu_limit is None and rec.removed == {"sched.cpu.max"}
    assert to_vmx(rec) == {"sched.cpu.affinity": "all", "numvcpus": "4"}
    assert list(changes(rec).items()) == [("sched.cpu.affinity", "all"), ("sched.cpu.max", None), ("numvcpus", "4")]


@pytest.mark.parametrize(("key", "text"), [("numvcpus", "many"), ("vhv.enable", "maybe"),
                                           ("scsi0.virtualDev", "floppy"), ("ethernet0.virtualDev", "token-ring")])
def test_a_value_its_field_cannot_hold_is_kept_as_written_and_refused_by_api_tools(key, text):
    rec = from_vmx("db", {"memsize": "2048", key: text})
    assert to_vmx(rec) == {"memsize": "2048", key: text}
    assert emit.render("vmx", rec) == f'memsize = "2048"\n{key} = "{text}"\n'
    problem = invalid(rec)
    assert problem is not None and problem.field == key
    for fmt in ("terraform", "packer", "packer-json", "powercli", "govc", "ansible"):
        with pytest.raises(InputError):
            emit.render(fmt, rec)


def test_a_nameless_recommendation_is_refused():
    with pytest.raises(InputError):
        emit.render("vmx", from_vmx("  ", {"numvcpus": "2"}))


def test_the_builder_gives_check_vmx_and_size_one_typed_value():
    run = check_files([str(EXAMPLES / "sql-server-64vcpu.yaml")], builtin_catalog(), Policy())
    result = run.vms[0]
    rec = result.recommendation
    assert rec.name == "sql-oltp01" and rec.vcpus == 64 and rec.memory == 256 * 1024
    assert rec.hardware_version == 10 and rec.guest_os == "windows8srv-64"
    # The fixes: PVSCSI for the data disks' controller, VMXNET3 for the emulated NIC.
    assert rec.controller(1) == ScsiController(1, "pvscsi") and rec.nic(0) == NicSlot(0, "vmxnet3")
    # check's JSON `recommended_vmx` is this value written out
    assert list(to_vmx(rec).items()) == list(result.recommended_vmx.items())
    assert rec.reason("scsi1.virtualDev", "ethernet0.virtualDev")


@pytest.mark.parametrize("keys", [
    {"numvcpus": "8", "NUMVCPUS": " 4 ", "vcpu.hotadd": "true", "guestOS": " windows2019srv-64 "},
    {"scsi0.virtualDev": "pvscsi", "scsi00.virtualDev": "lsilogic", "ethernet1.virtualDev": "E1000E"},
    {"scsi0.virtualDev": "bogus", "scsi00.virtualDev": "pvscsi", "ethernet01.virtualDev": "nope"},
    {"memsize": "many", "sched.cpu.latencySensitivity": "HIGH", "sched.mem.pin": None, "foo.bar": "x"},
])
def test_reading_keys_gives_what_writing_the_recommendation_gives(keys):
    """read_keys builds the report's .vmx keys in the same pass as the recommendation: they are
    what to_vmx writes from it, key for key and in order (duplicate device slots included)."""
    from advisor.vmx.recommendation import read_keys, written_keys

    rec, written = read_keys("vm", keys)
    assert list(written.items()) == list(to_vmx(rec).items())
    assert list(written_keys(keys).items()) == list(written.items())  # what lint reports, built alone


def test_a_resize_the_vms_own_keys_contradict_is_refused_as_the_model_refuses_it():
    """recommend's _Resizer skips validating a template VM resized to a value its own .vmx key
    contradicts: only where validating it would fail, and it finds most of those."""
    from pydantic import ValidationError

    from advisor.engine.lint import template_subject
    from advisor.engine.recommend import _contradicted, _stated_keys
    from advisor.readers import read_template

    root = Path(__file__).resolve().parents[1] / "fixtures" / "templates"
    vms = [template_subject(t).vm for p in sorted(root.rglob("*")) if p.is_file()
           for t in _templates(read_template, p)]
    resizes = [{"hardware_version": "7"}, {"hardware_version": 19}, {"cpu_reservation": "full"},
               {"cpu_reservation": "full", "memory_reservation": "full"}, {"vcpus": "8", "cores_per_socket": "4"},
               {"vcpus": 2}, {"memory": "2GB"}, {"memory": 4096}, {"latency_sensitivity": "high"},
               {"cpu_affinity": "0,1"}, {"cpu_affinity": "all"}, {"guest_os": "rhel8-64"}, {"cpu_hot_add": True},
               {"memory_hot_add": "yes"}, {"hardware_version": "many"}, {"memory_reservation": 1024},
               {"hardware_version": "7", "advanced": {"virtualHW.version": "7"}}]
    proved = refused = 0
    for vm in vms:
        stated, data = _stated_keys(vm), vm.model_dump(exclude_unset=True)
        for fields in resizes:
            try:
                type(vm).model_validate({**data, **fields})
                valid = True
            except ValidationError:
                valid, refused = False, refused + 1
            if stated and _contradicted(fields, stated):
                assert not valid, (vm.name, fields)
                proved += 1
    assert vms and proved > refused // 2, (proved, refused)


def _templates(read, path):
    try:
        return read(str(path), None, None, named=False, var_files=[])
    except InputError:
        return []

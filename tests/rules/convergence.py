"""Applying a finding's fix to a spec, as a user would: the harness of test_convergence.py.

A fix's .vmx keys go where the spec keeps them (a field the .vmx mapping owns, a NIC adapter, a
SCSI controller, otherwise `advanced:`), `resize:` sets spec fields, and the human-worded
`guest:` and `host:` settings are translated by the table below. A setting the table does not
know makes the convergence test fail: a new rule must say how its fix is applied.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from advisor.engine.engine import Evaluator, Policy
from advisor.engine.render import REMOVE
from advisor.engine.specs import evaluate_spec
from advisor.load.specfile import spec_from_root
from advisor.model.vmxkeys import SCALAR_KEYS
from advisor.report.findings import Run

_NIC = re.compile(r"^ethernet(\d+)\.virtualdev$")
_SCSI = re.compile(r"^scsi(\d+)\.virtualdev$")
_SCSI_NAMES = {"pvscsi": "pvscsi", "lsilogic": "lsilogic", "lsisas1068": "lsisas", "buslogic": "buslogic"}

# guest:/host: settings of the catalog's fixes -> (part of the spec, field, value).
GUEST = {
    "VMware Tools": ("guest", "tools", True),
    "large pages": ("guest", "large_pages", True),
    "Windows power plan": ("guest", "power_plan", "high-performance"),
    "cost threshold for parallelism": ("sql", "cost_threshold", None),
    "max degree of parallelism": ("sql", "maxdop", None),
    "startup parameter -T834": ("sql", "trace_flags", []),
    "affinity mask": ("sql", "affinity_mask", 0),
    "priority boost": ("sql", "priority_boost", False),
    "lightweight pooling": ("sql", "lightweight_pooling", False),
    "Docker network mode": ("containers", "networking", None),
}
HOST = {
    "Power.CpuPolicy": ("power_policy", "high-performance"),
    "Power.MaxFreqPct": ("max_freq_pct", None),
    "BIOS power management": ("bios_power", "os-controlled"),
    "BIOS C-states": ("deep_cstates", False),
    "BIOS CCX-as-NUMA (L3 as NUMA)": ("numa_mode", None),
    "NVMe memory tiering": ("memory_tiering", False),
}


class NotApplicable(AssertionError):
    """A fix the harness cannot apply: the rule must say how (this fails the test)."""


def evaluate(root: dict[str, Any], label: str, policy: Policy | None = None) -> Run:
    evaluator = Evaluator(_catalog(), policy or Policy())
    evaluate_spec(spec_from_root(copy.deepcopy(root), label, lenient_shape=True), evaluator)
    return evaluator.finish()


def _catalog() -> Any:
    from advisor.engine.catalog import builtin_catalog

    return builtin_catalog()


def _written_out(profile: str) -> dict[str, Any]:
    """A bundled host profile as the mapping a spec could state instead of its name."""
    from advisor.load.hosts import load_profile

    data = load_profile(profile).model_dump(mode="json", exclude_none=True)
    if isinstance(data["memory"], int):
        data["memory"] = f"{data['memory']}MB"
    return data


def _number(value: Any) -> Any:
    return int(value) if isinstance(value, str) and value.isdigit() else value


def apply_vmx(vm: dict[str, Any], key: str, value: str) -> None:
    low = key.lower()
    advanced = vm.setdefault("advanced", {})
    for existing in [k for k in advanced if k.lower() == low]:
        del advanced[existing]
    if low in SCALAR_KEYS:  # a key the spec states as a field
        field, parse = SCALAR_KEYS[low]
        if value == REMOVE:
            vm.pop(field, None)
        else:
            vm[field] = parse(value)
        return
    if low == "sched.mem.pin":
        vm.pop("memory_reservation", None)
    nic, scsi = _NIC.match(low), _SCSI.match(low)
    if low == "pcipassthru0.vgpu" and value != REMOVE and vm.get("gpu"):
        vm["gpu"]["profile"] = value
        return
    if nic and value != REMOVE and int(nic.group(1)) < len(vm.get("nics") or []):
        vm["nics"][int(nic.group(1))]["adapter"] = value
        return
    if scsi and value != REMOVE and vm.get("disks"):
        for disk in vm["disks"]:
            if disk.get("bus", 0) == int(scsi.group(1)):
                disk["controller"] = _SCSI_NAMES.get(value, value)
        return
    if value != REMOVE:
        advanced[key] = value


def _resize_data_disks(vm: dict[str, Any], field: str, value: Any) -> None:
    data = [d for d in vm.get("disks") or [] if d.get("role") != "os"]
    for index, disk in enumerate(data):
        # bus "own": a controller of its own, scsi1 to scsi3 (four SCSI controllers per VM)
        disk[field] = 1 + index % 3 if (field, value) == ("bus", "own") else _number(value)


def apply_fix(root: dict[str, Any], vm_name: str | None, fix: dict[str, Any]) -> dict[str, Any]:
    """A copy of the spec with a finding's fix applied to its VM (or its host)."""
    root = copy.deepcopy(root)
    if vm_name is None and "count" in (fix.get("resize") or {}):
        root["vms"] = root["vms"][:1]  # a host finding's resize describes the host's VMs as one group
    vms = [vm for vm in root["vms"] if vm_name is None or vm["name"] == vm_name]
    for vm in vms:
        for key, value in (fix.get("vmx") or {}).items():
            apply_vmx(vm, key, value)
        for field, value in (fix.get("resize") or {}).items():
            if field.startswith("data_disks."):  # that field of every disk but the boot disk
                _resize_data_disks(vm, field.removeprefix("data_disks."), value)
                continue
            # The resize states the field: a .vmx key saying the same goes (one statement).
            for key in [k for k in vm.get("advanced", {}) if SCALAR_KEYS.get(k.lower(), ("",))[0] == field
                        or (field == "memory_reservation" and k.lower() == "sched.mem.pin")]:
                del vm["advanced"][key]
            *parents, name = field.split(".")
            target = vm
            for parent in parents:
                target = target.setdefault(parent, {})
            target[name] = _number(value)
        for setting, value in (fix.get("guest") or {}).items():
            if "pvscsi" in setting.lower():  # the queue depth the guest is given
                for disk in vm.get("disks") or []:
                    if disk.get("controller") == "pvscsi":
                        disk["queue_depth"] = 254
                continue
            if setting not in GUEST:
                raise NotApplicable(f"guest setting {setting!r} has no spec field in tests/rules/convergence.py")
            part, field, fixed = GUEST[setting]
            vm.setdefault(part, {})[field] = _number(value) if fixed is None else fixed
    for setting, value in (fix.get("host") or {}).items():
        if setting not in HOST:
            raise NotApplicable(f"host setting {setting!r} has no spec field in tests/rules/convergence.py")
        field, fixed = HOST[setting]
        if isinstance(root["host"], str):
            root["host"] = _written_out(root["host"])
        root["host"][field] = _number(value) if fixed is None else fixed
    return root

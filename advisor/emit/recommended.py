"""What every emitter does the same way with a recommendation (advisor.model.recommendation).

Every emitter gets the same typed value and must decide, per key, whether its tool has a native
argument for it or whether the key goes into the tool's "extra config" map. This module holds
the parts that are the same for all of them: the tools' names for controller and adapter types,
the check that a value can go to an API at all, and the keys left over once an emitter has
consumed its native ones.

Some keys are never passed through as extra config: the vSphere API owns them through
VirtualMachineConfigSpec properties or device specs (a ConfigSpec may not set through
extraConfig what it has a property for), or they only make sense inside a complete .vmx
(``.encoding``, ``config.version``, device ``present`` flags, disk slots).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from advisor.errors import InputError
from advisor.model.recommendation import RecommendedVM
from advisor.vmx.recommendation import invalid, to_vmx

# Keys only a whole .vmx file carries; API-driven tools create or derive them themselves.
_FILE_ONLY = re.compile(
    r"\.encoding|config\.version|displayname|virtualhw\.productcompatibility|nvram|sched\.cpu\.units"
    r"|(?:scsi|sata|nvme|ide|ethernet|pcibridge|usb|sound|serial|parallel|floppy|vmci|hpet)\d+\.present"
    r"|(?:scsi|sata|nvme|ide)\d+:\d+\..*"
    r"|ethernet\d+\.(?:networkname|addresstype|generatedaddress|generatedaddressoffset|address)"
    r"|pcibridge\d+\..*"
)
# The latency sensitivity levels the API (and so Terraform, govc) accepts by name.
LATENCY_LEVELS = ("low", "normal", "medium", "high")
# .vmx scsiN.virtualDev -> PowerCLI / Ansible / Terraform-Packer spellings.
SCSI_NAMES = {
    "pvscsi": {"terraform": "pvscsi", "packer": "pvscsi", "ansible": "paravirtual", "powercli": "ParaVirtual"},
    "lsilogic": {"terraform": "lsilogic", "packer": "lsilogic", "ansible": "lsilogic", "powercli": "VirtualLsiLogic"},
    "lsisas1068": {"terraform": "lsilogic-sas", "packer": "lsilogic-sas", "ansible": "lsilogicsas",
                   "powercli": "VirtualLsiLogicSAS"},
    "buslogic": {"terraform": "buslogic", "packer": "buslogic", "ansible": "buslogic", "powercli": "VirtualBusLogic"},
}
NIC_NAMES = {
    "vmxnet3": {"terraform": "vmxnet3", "packer": "vmxnet3", "ansible": "vmxnet3", "powercli": "Vmxnet3"},
    "e1000e": {"terraform": "e1000e", "packer": "e1000e", "ansible": "e1000e", "powercli": "e1000e"},
    "e1000": {"terraform": "e1000", "packer": "e1000", "ansible": "e1000", "powercli": "e1000"},
    "vmxnet": {"terraform": "vmxnet2", "packer": "vmxnet2", "ansible": "vmxnet2", "powercli": "EnhancedVmxnet"},
    "vlance": {"terraform": "pcnet32", "packer": "pcnet32", "ansible": "pcnet32", "powercli": "Flexible"},
}


# What a VM without the key runs with, for the typed keys a recommendation may remove. A .vmx
# says "back to the default" by deleting the key; an API tool (govc, PowerCLI, Ansible) and a
# template (Terraform, Packer) leave a setting they are not given as it is, so they are given the
# default itself. Each default is the vSphere API's documented one: LatencySensitivity level
# "normal" (vim.LatencySensitivity.SensitivityLevel: "the default latency sensitivity value"),
# a reservation of 0 and a limit of -1, "unlimited" (vim.ResourceAllocationInfo), and false for
# memoryReservationLockedToMax, cpuHotAddEnabled, cpuHotRemoveEnabled, memoryHotAddEnabled,
# nestedHVEnabled (vim.vm.ConfigSpec / vim.vm.FlagInfo: "if not set, false"). disk.EnableUUID
# is ExtraConfig, so its removal is a removal like any other key's (removed_extras).
UNLIMITED = -1
REMOVED_DEFAULTS: dict[str, tuple[str, object]] = {
    "sched.cpu.latencysensitivity": ("latency_sensitivity", "normal"),
    "sched.cpu.min": ("cpu_reservation", 0),
    "sched.mem.min": ("memory_reservation", 0),
    "sched.cpu.max": ("cpu_limit", UNLIMITED),
    "sched.mem.max": ("memory_limit", UNLIMITED),
    "sched.mem.pin": ("memory_pinned", False),
    "vcpu.hotadd": ("cpu_hot_add", False),
    "vcpu.hotremove": ("cpu_hot_remove", False),
    "mem.hotadd": ("memory_hot_add", False),
    "vhv.enable": ("nested_hv", False),
}


def explicit(rec: RecommendedVM) -> RecommendedVM:
    """``rec`` with each typed key it removes set to the value a VM without the key runs with,
    so a tool that leaves unnamed settings alone is told to put the default back (a latency
    sensitivity of High that a rule removes becomes "normal", not "unchanged")."""
    defaults = {name: value for low, (name, value) in REMOVED_DEFAULTS.items()
                if low in rec.removed and getattr(rec, name) is None}
    if not defaults:
        return rec
    kept = frozenset(low for low in rec.removed if low not in REMOVED_DEFAULTS)
    return dataclasses.replace(rec, removed=kept, **defaults)  # type: ignore[arg-type]


def removed_extras(rec: RecommendedVM, consumed: Iterable[str] = ()) -> list[str]:
    """The spelling of each key ``rec`` removes that has no typed default (extra config keys
    such as ``numa.autosize.cookie``), in order: an API tool deletes these from ExtraConfig."""
    used = {key.lower() for key in consumed}
    return [key for key in rec.order
            if key.lower() in rec.removed and key.lower() not in REMOVED_DEFAULTS and key.lower() not in used
            and not _FILE_ONLY.fullmatch(key.lower())]


def named(rec: RecommendedVM) -> RecommendedVM:
    """``rec`` when it has a name: every format names the VM it configures."""
    if not isinstance(rec.name, str) or not rec.name.strip():
        raise InputError("a VM name is needed to render a configuration", field="name")
    return rec


def api_ready(rec: RecommendedVM) -> RecommendedVM:
    """``rec`` made explicit (see explicit()) when a tool's API can take it: it has a name, and
    every key with a field holds a value of that field (``numvcpus = "many"`` has no native
    argument to go to)."""
    problem = invalid(named(rec))
    if problem is not None:
        raise problem
    return explicit(rec)


def latency(rec: RecommendedVM) -> str | None:
    """The latency sensitivity when it is one of the API's named levels."""
    return rec.latency_sensitivity if rec.latency_sensitivity in LATENCY_LEVELS else None


def extras(rec: RecommendedVM, consumed: Iterable[str]) -> list[tuple[str, str]]:
    """(spelling, value) of every key an API tool should set as extra config: not consumed by a
    native argument and not one only a whole .vmx file carries."""
    used = {key.lower() for key in consumed}
    return [(key, value) for key, value in to_vmx(rec).items()
            if key.lower() not in used and not _FILE_ONLY.fullmatch(key.lower())
            and not (key.lower() in _LIMITS and value == str(UNLIMITED))]


# A limit of -1 is the API's "unlimited", what a VM without the key has; a tool without a limit
# argument has nothing to write for it (sched.cpu.max = "-1" is no .vmx text VMware documents).
_LIMITS = ("sched.cpu.max", "sched.mem.max")


_LINE_BREAKING = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


def comment_safe(text: str) -> str:
    """``text`` with control and line-separator characters shown as escapes.

    Names end up in ``#`` comment lines; a newline in a VM name must not end the comment and
    turn the rest of the name into a command.
    """
    return _LINE_BREAKING.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                              else f"\\u{ord(m.group()):04x}", str(text))

"""The emitters' shared view of a recommendation: typed access to the .vmx keys, and the rest.

Every emitter gets the same input — the complete, ordered .vmx keys advisor recommends, plus a
(rule id, reason) for some of them — and must decide, per key, whether its tool has a native
argument for it or whether the key goes into the tool's "extra config" map. This module does the
parts that are the same for all of them: case-insensitive lookup, typed values, the controllers
and NICs the keys describe, and the list of keys left over once an emitter has consumed its
native ones.

Some keys are never passed through as extra config: the vSphere API owns them through
VirtualMachineConfigSpec properties or device specs (a ConfigSpec may not set through
extraConfig what it has a property for), or they only make sense inside a complete .vmx
(``.encoding``, ``config.version``, device ``present`` flags, disk slots).
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from advisor.errors import InputError
from advisor.vmx.spelling import canonical_key
from advisor.vocab import read_bool

ADVISOR_PREFIX = "advisor."
_SCSI_DEV = re.compile(r"scsi(\d+)\.virtualdev")
_NIC_DEV = re.compile(r"ethernet(\d+)\.virtualdev")
_DISK_SIZE = re.compile(r"advisor\.disk(\d+)\.size")
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


@dataclass
class Recommended:
    """Settings keyed case-insensitively, with VMware's spelling and the reasons kept alongside."""

    name: str
    values: dict[str, str] = field(default_factory=dict)  # lower key -> value, in input order
    spelling: dict[str, str] = field(default_factory=dict)  # lower key -> canonical spelling
    reasons: dict[str, tuple[str, str]] = field(default_factory=dict)  # lower key -> (rule, text)
    disk_sizes: dict[int, str] = field(default_factory=dict)  # advisor.diskN.size (MB)

    @classmethod
    def of(cls, name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]] | None) -> Recommended:
        if not isinstance(name, str) or not name.strip():
            raise InputError("a VM name is needed to render a configuration", field="name")
        rec = cls(name=name)
        for key, value in settings.items():
            low = str(key).lower()
            if low.startswith(ADVISOR_PREFIX):
                match = _DISK_SIZE.fullmatch(low)
                if match:
                    rec.disk_sizes[int(match.group(1))] = str(value)
                continue
            rec.values[low] = str(value)
            rec.spelling[low] = canonical_key(str(key))
        for key, reason in (reasons or {}).items():
            rec.reasons[str(key).lower()] = (str(reason[0]), str(reason[1]))
        return rec

    # ------------------------------------------------------------------ typed access

    def get(self, key: str) -> str | None:
        return self.values.get(key.lower())

    def int(self, key: str) -> int | None:
        """A whole number, or None when absent; a value that is not one is an InputError."""
        text = self.get(key)
        if text is None:
            return None
        try:
            return int(text.strip(), 10)
        except ValueError:
            raise InputError(f"{text!r} is not a whole number", field=self.spelling[key.lower()]) from None

    def bool(self, key: str) -> bool | None:
        text = self.get(key)
        if text is None:
            return None
        value = read_bool(text)
        if value is not None:
            return value
        raise InputError(f"{text!r} is not TRUE or FALSE", field=self.spelling[key.lower()])

    def latency(self) -> str | None:
        """sched.cpu.latencySensitivity when it is one of the API's named levels."""
        text = self.get("sched.cpu.latencySensitivity")
        return text.strip().lower() if text and text.strip().lower() in LATENCY_LEVELS else None

    def scsi_controllers(self) -> dict[builtins.int, str]:
        """Bus number -> scsiN.virtualDev (lower case), in bus order."""
        found = {int(m.group(1)): v.strip().lower() for k, v in self.values.items() if (m := _SCSI_DEV.fullmatch(k))}
        return dict(sorted(found.items()))

    def nics(self) -> dict[builtins.int, str]:
        """NIC index -> ethernetN.virtualDev (lower case), in index order."""
        found = {int(m.group(1)): v.strip().lower() for k, v in self.values.items() if (m := _NIC_DEV.fullmatch(k))}
        return dict(sorted(found.items()))

    # ------------------------------------------------------------------ what is left

    def extras(self, consumed: Iterable[str]) -> list[tuple[str, str]]:
        """(spelling, value) of every key an API tool should set as extra config: not consumed
        by a native argument and not one only a whole .vmx file carries."""
        used = {key.lower() for key in consumed}
        return [
            (self.spelling[low], value)
            for low, value in self.values.items()
            if low not in used and not _FILE_ONLY.fullmatch(low)
        ]

    def reason(self, *keys: str) -> str | None:
        """``RULE: reason`` for the first of ``keys`` that has one (for a comment line)."""
        for key in keys:
            hit = self.reasons.get(key.lower())
            if hit:
                return one_line(f"{hit[0]}: {hit[1]}")
        return None

    def reasons_for(self, keys: Iterable[str]) -> list[str]:
        """Every distinct ``RULE: reason`` among ``keys``, in order."""
        out: list[str] = []
        for key in keys:
            text = self.reason(key)
            if text and text not in out:
                out.append(text)
        return out


def one_line(text: str) -> str:
    """A reason flattened to one line, so it stays inside a single comment."""
    return " ".join(str(text).split())


_LINE_BREAKING = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


def comment_safe(text: str) -> str:
    """``text`` with control and line-separator characters shown as escapes.

    Names end up in ``#`` comment lines; a newline in a VM name must not end the comment and
    turn the rest of the name into a command.
    """
    return _LINE_BREAKING.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                              else f"\\u{ord(m.group()):04x}", str(text))

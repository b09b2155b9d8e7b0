"""Words about .vmx values that are not the file's syntax: VMware's booleans, and the keys the
host writes by itself (volatile keys)."""

from __future__ import annotations

import re

from advisor.errors import InputError
from advisor.vmx.reader import WS
from advisor.vocab import FALSE_WORDS, TRUE_WORDS, vmx_bool


def format_bool(value: bool) -> str:
    """Render a boolean the way VMware writes it (``TRUE`` / ``FALSE``, upper case)."""
    return vmx_bool(value)


def parse_bool(value: str, *, field: str | None = None) -> bool:
    """Read a .vmx boolean; VMware and older tools write ``TRUE``, ``true``, ``1`` or ``yes``."""
    word = value.strip(WS).lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise InputError(f"{value!r} is not a boolean (expected TRUE or FALSE)", field=field)


def values_equal(current: str | None, wanted: str) -> bool:
    """Whether a file value already says what we want.

    Boolean words differ only in case between writers (libvirt wrote ``"true"``), so
    ``true``/``TRUE`` count as equal; everything else is compared exactly, because ``"04"`` and
    ``"4"`` may well be read differently by ESXi.
    """
    if current is None:
        return False
    bools = ("true", "false")
    if current.lower() in bools and wanted.lower() in bools:
        return current.lower() == wanted.lower()
    return current == wanted


# Keys that ESXi, vCenter or VMware Tools write by themselves (at creation, power-on, vMotion
# or while the guest runs). Lints must not flag them and diffs should not be alarmed by them:
# a template that sets them is either copying identity from another VM or fighting the host.
VOLATILE_KEYS = frozenset(
    {
        "numa.autosize.cookie",
        "numa.autosize.vcpu.maxPerVirtualNode",
        "cpuid.coresPerSocket.cookie",
        "uuid.bios",
        "uuid.location",
        "vc.uuid",
        "vm.genid",
        "vm.genidX",
        "vm.createDate",
        "sched.swap.derivedName",
        "checkpoint.vmState",
        "checkpoint.vmState.readOnly",
        "cleanShutdown",
        "softPowerOff",
        "monitor.phys_bits_used",
        "migrate.hostLog",
        "migrate.hostLogState",
        "migrate.migrationId",
        "toolsInstallManager.updateCounter",
        "toolsInstallManager.lastInstallError",
        "tools.remindInstall",
        "svga.guestBackedPrimaryAware",
        "vmxstats.filename",
        "extendedConfigFile",
        "guestOS.detailed.data",
        "guestInfo.detailed.data",
        "viv.moid",
    }
)
_VOLATILE_LOWER = frozenset(k.lower() for k in VOLATILE_KEYS)
_VOLATILE_PATTERNS = (
    re.compile(r"ethernet\d+\.generatedaddress(?:offset)?"),
    re.compile(r"[a-z_]+\d*\.pcislotnumber"),
    re.compile(r"scsi\d+\.saswwid"),
    re.compile(r"nvme\d+\.subnqnuuid"),
    re.compile(r"vmci\d+\.id"),
    re.compile(r"vmotion\..+"),
    re.compile(r"guestinfo\.vmtools\..+"),
    re.compile(r"guestinfo\.appinfo"),
)


def is_volatile(key: str) -> bool:
    """Whether the host rewrites ``key`` itself (see VOLATILE_KEYS), case-insensitively."""
    lower = key.lower()
    return lower in _VOLATILE_LOWER or any(p.fullmatch(lower) for p in _VOLATILE_PATTERNS)

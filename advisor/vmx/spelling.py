"""How keys and values are spelled in a .vmx file: VMware's spelling of the keys advisor writes
and the `|XX` escapes of quoted values. Apart from the .vmx codec (advisor.vmx.document, which
re-exports them), so that `advisor check` writes keys and values without importing the codec."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from itertools import repeat
from typing import TypeVar

# VMware's spelling of the keys advisor writes ('#' stands for a device or unit number).
# Keys are case-insensitive when read, but files are read by people and diffed by tools, so
# new entries use the spelling ESXi itself writes.
_CANONICAL_TEMPLATES = (
    ".encoding",
    "config.version",
    "virtualHW.version",
    "virtualHW.productCompatibility",
    "displayName",
    "guestOS",
    "firmware",
    "annotation",
    "numvcpus",
    "cpuid.coresPerSocket",
    "cpuid.coresPerSocket.cookie",
    "memsize",
    "numa.autosize",
    "numa.autosize.cookie",
    "numa.autosize.once",
    "numa.autosize.vcpu.maxPerVirtualNode",
    "numa.vcpu.preferHT",
    "numa.vcpu.maxPerVirtualNode",
    "numa.vcpu.maxPerMachineNode",
    "numa.vcpu.maxPerClient",
    "numa.vcpu.min",
    "numa.vcpu.followcorespersocket",
    "numa.vcpu.coresPerNode",
    "numa.consolidate",
    "numa.allowHotadd",
    "numa.nodeAffinity",
    "vcpu.hotadd",
    "mem.hotadd",
    "sched.cpu.latencySensitivity",
    "sched.cpu.min",
    "sched.cpu.max",
    "sched.cpu.units",
    "sched.cpu.shares",
    "sched.cpu.affinity",
    "sched.mem.min",
    "sched.mem.minSize",
    "sched.mem.max",
    "sched.mem.pin",
    "sched.mem.shares",
    "sched.swap.derivedName",
    "ethernet#.present",
    "ethernet#.virtualDev",
    "ethernet#.coalescingScheme",
    "ethernet#.coalescingParams",
    "ethernet#.intrMode",
    "ethernet#.features",
    "ethernet#.emuRxMode",
    "ethernet#.networkName",
    "scsi#.present",
    "scsi#.virtualDev",
    "scsi#:#.present",
    "scsi#:#.fileName",
    "scsi#:#.deviceType",
    "nvme#.present",
    "nvme#:#.present",
    "nvme#:#.fileName",
    "sata#.present",
    "sata#:#.present",
    "sata#:#.fileName",
    "sata#:#.deviceType",
    "tools.syncTime",
    "vmx.reboot.PowerCycle",
    "uuid.bios",
    "uuid.location",
    "vc.uuid",
    "checkpoint.vmState",
    "disk.EnableUUID",
)
_DIGITS_RE = re.compile(r"\d+")
_CANONICAL = {_DIGITS_RE.sub("#", t.lower()): t for t in _CANONICAL_TEMPLATES}


def canonical_key(key: str) -> str:
    """VMware's spelling of ``key`` (``NUMVCPUS`` -> ``numvcpus``, ``scsi0:1.filename`` ->
    ``scsi0:1.fileName``); keys advisor has no opinion on are returned unchanged."""
    return _SPELLED[key]


def canonical_keys(keys: Iterable[str]) -> Iterator[str]:
    """canonical_key of each key, in order: a key spelled before costs one dict lookup and no
    Python call (a .vmx has a hundred keys, and lint reads thousands of files)."""
    return map(_SPELLED.__getitem__, keys)


_CACHED_KEY = 256  # characters; VMware's own keys are a few dozen
_V = TypeVar("_V")


class KeyMemo(dict[str, _V]):
    """key -> what `work_out` makes of it, worked out on the key's first lookup and looked up
    from C after that (`map(memo.__getitem__, keys)`: no Python call per key seen before). Keys
    repeat across VMs and files: short ones are worked out once. A long one (a hostile file's)
    is not kept, and the memo starts afresh once it holds `most` keys, so it stays small
    whatever the inputs hold."""

    __slots__ = ("_most", "_work_out")

    def __init__(self, work_out: Callable[[str], _V], most: int) -> None:
        super().__init__()
        self._work_out, self._most = work_out, most

    def __missing__(self, key: str) -> _V:
        value = self._work_out(key)
        if len(key) <= _CACHED_KEY:
            if len(self) >= self._most:
                self.clear()
            self[key] = value
        return value


def _spell(key: str) -> str:
    template = _CANONICAL.get(_DIGITS_RE.sub("#", key.lower()))
    numbers = _DIGITS_RE.findall(key)
    # A key that spells a '#' itself (`scsi0:#.present`) matches a template without the numbers
    # to fill it: it is no key VMware writes, so it keeps its own spelling.
    if template is None or len(numbers) != template.count("#"):
        return key
    found = iter(numbers)
    return re.sub("#", lambda _m: next(found), template)


_SPELLED = KeyMemo(_spell, 4096)  # key -> its VMware spelling


# --------------------------------------------------------------------------- escaping

_ESCAPE_NEEDED_RE = re.compile(r'["|\x00-\x1f\x7f]')
# A run of escapes, written to start with its literal `|`: the regex engine then jumps from one
# `|` to the next instead of trying a match at every character of a value (a guestinfo value
# runs to kilobytes).
_ESCAPE_RUN_SPLIT = re.compile(r"(\|[0-9A-Fa-f]{2}(?:\|[0-9A-Fa-f]{2})*)")


def escape(value: str) -> str:
    """Encode a value for the inside of double quotes using VMware's ``|XX`` scheme.

    Only what cannot appear raw is escaped: the quote that would end the value, the pipe that
    introduces escapes, and control characters (a raw newline would end the line). ``#`` and
    ``=`` are ordinary data inside quotes. Hex is upper case, as VMware writes it.
    """
    return _ESCAPE_NEEDED_RE.sub(_hex_escape, value)


def unescape(raw: str, charset: str = "utf-8") -> str:
    """Decode ``|XX`` escapes (either hex case) into text.

    A run of escapes is decoded as bytes in the file's charset, so ``|E5|85|B1`` in a UTF-8
    file is one character; VMware only escapes ASCII in practice, where this is the same as
    ``chr``. A ``|`` not followed by two hex digits is kept literally, as VMware reads it.
    """
    if "|" not in raw:
        return raw
    # Text and runs alternate; the runs (`|0A`, `|22` over and over in annotations and guest
    # info) are decoded once per distinct run and charset.
    parts = _ESCAPE_RUN_SPLIT.split(raw)
    runs = parts[1::2]
    # Runs are nearly always short: then each goes straight to the cache (no Python call per run).
    decode = _decoded_short_run if max(map(len, runs), default=0) <= _SHORT_RUN else _decoded_run
    parts[1::2] = map(decode, runs, repeat(charset))
    return "".join(parts)


def _decoded_run(run: str, charset: str) -> str:
    # Short runs only are kept: the cache stays small whatever a file holds.
    return _decoded_short_run(run, charset) if len(run) <= _SHORT_RUN else _decode_run(run, charset)


def _decode_run(run: str, charset: str) -> str:
    return bytes.fromhex(run.replace("|", "")).decode(charset, "surrogateescape")


_SHORT_RUN = 24  # characters: eight escapes
_decoded_short_run = lru_cache(maxsize=4096)(_decode_run)


def _hex_escape(match: re.Match[str]) -> str:
    return f"|{ord(match.group()):02X}"

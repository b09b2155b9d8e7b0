"""A recommendation (advisor.model.recommendation.RecommendedVM) read from and written as .vmx keys.

Both directions use the one key <-> field table, advisor.model.vmxkeys: a key with a field becomes
that field through the table's parser and is written back with vmx_text; scsiN.virtualDev and
ethernetN.virtualDev become the typed controllers and NICs. Reading then writing gives the same
keys in the same order; only spellings VMware does not write change (``true`` -> ``TRUE``,
``NUMVCPUS`` -> ``numvcpus``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

from advisor.errors import InputError
from advisor.model.recommendation import DiskSize, NicSlot, RecommendedVM, ScsiController
from advisor.model.vmxkeys import RECOMMENDATION_KEYS, device_slot, vmx_text
from advisor.vmx.spelling import canonical_key
from advisor.vocab import NIC_VIRTUALDEV, SCSI_FROM_VIRTUALDEV


# Every VM of a run repeats the same few dozen keys: each is lower-cased and spelled once (long
# keys are not kept).
@lru_cache(maxsize=8192)
def _spelled(key: str) -> tuple[str, str]:
    return str(key).lower(), canonical_key(str(key))


def from_vmx(name: str, keys: Mapping[str, str | None], reasons: Mapping[str, tuple[str, str]] | None = None,
             disks: Iterable[DiskSize] = ()) -> RecommendedVM:
    """The recommendation that ``keys`` state, in their order; a value of None is a key the
    recommendation removes. Keys that differ only in case are one key (the last value wins,
    at the first one's place)."""
    return read_keys(name, keys, reasons, disks)[0]


def read_keys(name: str, keys: Mapping[str, str | None], reasons: Mapping[str, tuple[str, str]] | None = None,
              disks: Iterable[DiskSize] = (), sources: Mapping[str, tuple[str, ...]] | None = None
              ) -> tuple[RecommendedVM, dict[str, str]]:
    """from_vmx, and to_vmx of what it gives, in one pass (the engine needs both for every VM)."""
    values, spelled, fields, controllers, nics, advanced, written = _read_all(keys)
    rec = RecommendedVM(
        name=name, **fields,
        controllers=tuple(controllers[bus] for bus in sorted(controllers)),
        nics=tuple(nics[index] for index in sorted(nics)),
        disks=tuple(sorted(disks, key=lambda d: d.index)),
        advanced=advanced, order=tuple(spelled.values()),
        removed=frozenset(low for low, text in values.items() if text is None),
        reasons={str(k).lower(): (str(rule), str(text)) for k, (rule, text) in (reasons or {}).items()},
        sources={str(k).lower(): tuple(rules) for k, rules in (sources or {}).items()},
    )
    return rec, written


def written_keys(keys: Mapping[str, str | None]) -> dict[str, str]:
    """to_vmx(from_vmx(keys)), without the recommendation itself (advisor lint reports only its keys)."""
    return _read_all(keys)[-1]


def _read_all(keys: Mapping[str, str | None]) -> tuple[dict[str, str | None], dict[str, str], dict[str, Any],
                                                      dict[int, ScsiController], dict[int, NicSlot], dict[str, str],
                                                      dict[str, str]]:
    """The keys' texts and spellings (by lower-case key), their fields, controllers, NICs and
    other keys, and the keys as to_vmx writes them."""
    values: dict[str, str | None] = {}
    spelled: dict[str, str] = {}
    for key, value in keys.items():
        low, spelling = _spelled(key) if len(key) <= _CACHED_TEXT else _spelled.__wrapped__(key)
        spelled[low] = spelling
        values[low] = None if value is None else str(value)
    fields: dict[str, Any] = {}
    controllers: dict[int, ScsiController] = {}
    nics: dict[int, NicSlot] = {}
    advanced: dict[str, str] = {}
    written: dict[str, str] = {}
    # Keys that name one device (scsi1 and scsi01): the text of each is the device's last valid type.
    slots: set[tuple[str, int]] = set()
    shared = False
    for low, text in values.items():
        if text is None:
            continue
        parsed, out, slot = _read(low, text) if len(text) <= _CACHED_TEXT else _read.__wrapped__(low, text)
        if slot is not None:
            shared = shared or slot in slots
            slots.add(slot)
        if parsed is None:
            advanced[low] = text
        elif parsed.__class__ is ScsiController:
            controllers[parsed.bus] = parsed
        elif parsed.__class__ is NicSlot:
            nics[parsed.index] = parsed
        else:
            fields[parsed[0]] = parsed[1]  # type: ignore[index]
        if out is not None:
            written[spelled[low]] = out
    if shared:
        def device(kind: str, index: int) -> ScsiController | NicSlot | None:
            return controllers.get(index) if kind == "scsi" else nics.get(index)

        written = {spelled[low]: out for low, text in values.items()
                   if text is not None and (out := _key_text(low, fields.get, device, advanced)) is not None}
    return values, spelled, fields, controllers, nics, advanced, written


# Key and text -> what _parse makes of it (None: no field, or a text that is no value of its
# field) and the key's .vmx text (text_of). Every VM of an estate repeats the same few hundred
# pairs; long texts are not kept.
_CACHED_TEXT = 256


@lru_cache(maxsize=8192)
def _read(low: str, text: str) -> tuple[tuple[str, Any] | ScsiController | NicSlot | None, str | None,
                                        tuple[str, int] | None]:
    """What _parse makes of a key, the key's text as to_vmx writes it, and its device slot."""
    try:
        parsed = _parse(low, text)
    except ValueError:
        parsed = None
    # No other key has this key's field, and read_keys sees to keys that share a device: the
    # key's text follows from the key alone.
    field = {parsed[0]: parsed[1]} if isinstance(parsed, tuple) else {}
    device = None if isinstance(parsed, tuple) else parsed
    return (parsed, _key_text(low, field.get, lambda kind, index: device, {low: text} if parsed is None else {}),
            device_slot(low))


def _parse(low: str, text: str) -> tuple[str, Any] | ScsiController | NicSlot | None:
    """(field, value), a device, or None for a key without a field; ValueError for a text that is
    no value of its field."""
    if low in RECOMMENDATION_KEYS:
        _, field, parse = RECOMMENDATION_KEYS[low]
        return field, parse(text)
    slot = device_slot(low)
    if slot is None:
        return None
    kind = text.strip().lower()
    if slot[0] == "scsi":
        if kind not in SCSI_FROM_VIRTUALDEV:
            raise ValueError(f"{text!r} is not a SCSI controller type")
        return ScsiController(slot[1], SCSI_FROM_VIRTUALDEV[kind])  # type: ignore[arg-type]
    if kind not in NIC_VIRTUALDEV:
        raise ValueError(f"{text!r} is not a network adapter type")
    return NicSlot(slot[1], kind)  # type: ignore[arg-type]


def field_of(rec: RecommendedVM, key: str) -> Any:
    """The typed value behind a key with a field (``numvcpus`` -> rec.vcpus); None when unset."""
    return getattr(rec, RECOMMENDATION_KEYS[key.lower()][1])


def text_of(rec: RecommendedVM, key: str) -> str | None:
    """The .vmx text of one key of the recommendation, None when it does not state it."""
    low = key.lower()
    if low in rec.removed:
        return None

    def device(kind: str, index: int) -> ScsiController | NicSlot | None:
        return rec.controller(index) if kind == "scsi" else rec.nic(index)

    return _key_text(low, lambda name: getattr(rec, name), device, rec.advanced)


def _key_text(low: str, field: Callable[[str], Any], device: Callable[[str, int], ScsiController | NicSlot | None],
              advanced: Mapping[str, str]) -> str | None:
    """The .vmx text of a key (lower case): its field's value, its device's type, else its own
    text among the advanced keys; None when the recommendation does not state it."""
    if low in RECOMMENDATION_KEYS:
        value = field(RECOMMENDATION_KEYS[low][1])
        if value is not None:
            return vmx_text(value)
    elif (slot := device_slot(low)) is not None:
        found = device(slot[0], slot[1])
        if isinstance(found, ScsiController):
            return found.virtual_dev
        if isinstance(found, NicSlot):
            return found.adapter
    return advanced.get(low)


def to_vmx(rec: RecommendedVM) -> dict[str, str]:
    """Every key the recommendation sets, in order, spelled as VMware spells it."""
    out: dict[str, str] = {}
    for key in rec.order:
        text = text_of(rec, key)
        if text is not None:
            out[key] = text
    return out


def changes(rec: RecommendedVM) -> dict[str, str | None]:
    """to_vmx plus the keys the recommendation removes (None), in order: what `advisor fix`
    makes a .vmx say."""
    return {key: text_of(rec, key) for key in rec.order}


def invalid(rec: RecommendedVM) -> InputError | None:
    """The first key whose text is no value of its field (``numvcpus = "many"``), as an input
    error naming it: a tool's native argument cannot take it."""
    for low, text in rec.advanced.items():
        try:
            _parse(low, text)
        except ValueError as exc:
            return InputError(str(exc), field=rec.spelling(low))
    return None

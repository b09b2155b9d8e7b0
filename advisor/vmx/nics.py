"""A template's network adapters: the `ethernetN` slots that are present, each with its type.

VMware numbers adapters by slot, and a VM may use ethernet1..3 without ethernet0; fixes must name
the slots that exist. Used by advisor.vmx.templatefields when a template becomes a VM.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from advisor.vocab import NIC_VIRTUALDEV, read_bool

if TYPE_CHECKING:
    from advisor.readers.base import TemplateVM

_NIC_PRESENT = re.compile(r"^ethernet(\d+)\.(present|virtualdev)$")


def template_nics(t: TemplateVM, texts: Mapping[str, tuple[Any, Any]], line_of: Mapping[str, int | None],
                  unknown: set[str], present: list[tuple[int, str]]
                  ) -> tuple[list[dict[str, str]], list[int], int | None]:
    """The adapters that exist (`ethernetN.present` TRUE), with their slot numbers kept:
    a .vmx with ethernet1..3 has three NICs, and fixes must name ethernet1..3.

    An adapter without `virtualDev` gets VMware's default for the guest in a .vmx (other readers
    state their builder's default themselves): Flexible (vlance) for 32-bit guests, E1000 for
    64-bit ones (vSphere 4.0 Basic System Administration, "Network Adapter Types"). An adapter
    whose type is unknown (a variable) is left out and `nics` is marked unknown.
    `texts`: lower-cased key -> (spelling, value); `line_of`: lower-cased key -> line;
    `present`: the template's `ethernetN.present` keys, each after its N.
    """
    nics: list[dict[str, str]] = []
    slots: list[int] = []
    first_line: int | None = None
    for slot, low in sorted(present):
        if not read_bool(texts[low][1]):
            continue
        type_key = f"ethernet{slot}.virtualdev"
        dev = texts.get(type_key)
        if dev is not None and dev[1] is None:
            unknown.add("nics")
            continue
        if dev is not None and dev[1].strip():
            adapter = dev[1].strip().lower()
            line = line_of.get(type_key)
        elif t.kind == "vmx":
            adapter = _guest_default_nic(texts)
            line = line_of.get(low)
            t.notes.append(f"ethernet{slot} has no virtualDev: VMware gives this guest its default adapter, {adapter}")
        else:
            unknown.add("nics")
            continue
        if adapter not in NIC_VIRTUALDEV:
            continue  # refused with its line by the model (the key stays in `advanced`)
        if first_line is None and adapter in ("e1000", "e1000e", "vlance", "vmxnet"):
            first_line = line
        nics.append({"adapter": adapter})
        slots.append(slot)
    return nics, slots, first_line


@lru_cache(maxsize=8192)
def nic_role(low: str) -> tuple[str, int] | None:
    """("present", N) for `ethernetN.present`, ("type", N) for `ethernetN.virtualDev`, else None
    (classified once per distinct key, like templatefields' key roles)."""
    match = _NIC_PRESENT.match(low)
    if match:
        return ("present" if match[2] == "present" else "type", int(match[1]))
    return None


def _guest_default_nic(texts: Mapping[str, tuple[Any, Any]]) -> str:
    guest = texts.get("guestos")
    text = (guest[1] or "").lower() if guest is not None else ""
    return "e1000" if "64" in text else "vlance"

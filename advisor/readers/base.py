"""What every template reader returns: a VM as `.vmx`-equivalent settings with their locations.

Readers for .vmx, OVF/OVA, Packer and Terraform all translate their format into the keys a
`.vmx` file would carry (numvcpus, cpuid.coresPerSocket, memsize, scsi0.virtualDev, ...), so one
mapping (advisor.model.vmxkeys) turns any template into advisor's VM model, and the structured spec's
`advanced:` keys mean exactly the same thing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol


class Setting(NamedTuple):
    """One value read from a template.

    value is None when the template computes it from something the reader cannot resolve
    (a variable, a function call): it is unknown, never guessed; `raw` keeps the source text.
    (A named tuple: a template has a hundred of them, and it is cheaper than a frozen dataclass.)
    """

    value: str | None
    line: int | None = None
    raw: str | None = None
    column: int | None = None  # 1-based, in characters, where the format has columns; None: unknown

    @property
    def known(self) -> bool:
        return self.value is not None


class ReadSetting(Protocol):
    """What the mapping reads from a setting: a Setting, or the .vmx reader's VmxEntry (which
    has the same three attributes, so a .vmx's hundred entries are not copied)."""

    @property
    def value(self) -> str | None: ...

    @property
    def line(self) -> int | None: ...

    @property
    def raw(self) -> str | None: ...


@dataclass(slots=True)
class TemplateVM:
    """One VM found in a template file."""

    name: str
    file: str
    kind: str  # "vmx" | "ovf" | "packer" | "terraform"
    line: int | None = None
    builder: str | None = None  # Packer: vsphere-iso, vmware-iso, ...
    # Keyed by the lower-cased .vmx key; Setting keeps the value. Use `set()` to add.
    settings: Mapping[str, ReadSetting] = field(default_factory=dict)
    # Canonical spelling of each key as first seen (lower-cased key -> spelling).
    spelling: Mapping[str, str] = field(default_factory=dict)
    # Human-readable remarks from the reader (e.g. "num_cpus comes from var.cpus: unknown").
    notes: list[str] = field(default_factory=list)
    # Inline suppressions found in the file: (rule id, reason, line).
    suppressions: list[tuple[str, str, int | None]] = field(default_factory=list)
    # Keys (lower case) written as raw `.vmx` keys in the format's pass-through map (extra_config,
    # configuration_parameters, vmx_data, vmw:ExtraConfig): a fix edits them there.
    passthrough: set[str] = field(default_factory=set)
    # line -> the 1-based column of the value on it, for a reader whose settings carry no column
    # but whose format has one (.vmx: worked out only for the lines findings point at).
    value_column: Callable[[int], int | None] | None = None
    # Instances the template stands for (Terraform `count = 8` is eight VMs); None: unknown (a
    # count from an unresolved expression, or for_each), the VM is then checked as one.
    count: int | None = 1

    def set(self, key: str, value: str | None, line: int | None = None, raw: str | None = None,
            column: int | None = None) -> None:
        low = key.lower()
        # A reader may hand over read-only settings (the .vmx reader's, made on demand).
        settings = self.settings if isinstance(self.settings, dict) else dict(self.settings)
        spelling = self.spelling if isinstance(self.spelling, dict) else dict(self.spelling)
        settings[low] = Setting(value, line, raw, column)
        spelling.setdefault(low, key)
        self.settings, self.spelling = settings, spelling

    def get(self, key: str) -> ReadSetting | None:
        return self.settings.get(key.lower())

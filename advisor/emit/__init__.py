"""Emitters: advisor's recommended .vmx settings written for the tool that will apply them.

Every emitter takes the same input: the VM's name, the complete ordered dict of recommended
.vmx keys in VMware's spelling, and (rule id, reason) for the keys a rule changed. Modules are
imported only when their format is asked for, so `advisor` starts without loading PyYAML or
the HCL helpers it does not need.
"""

from __future__ import annotations

from importlib import import_module

from advisor.errors import UsageError

FORMATS = ("vmx", "terraform", "packer", "packer-json", "powercli", "govc", "ansible")
# format -> (module, function)
_RENDERERS = {
    "vmx": ("advisor.emit.vmxfrag", "render"),
    "vmx-full": ("advisor.emit.vmxfrag", "render_full"),
    "terraform": ("advisor.emit.terraform", "render"),
    "packer": ("advisor.emit.packer", "render"),
    "packer-json": ("advisor.emit.packer", "render_json"),
    "powercli": ("advisor.emit.powercli", "render"),
    "govc": ("advisor.emit.govc", "render"),
    "ansible": ("advisor.emit.ansible", "render"),
}


def render(fmt: str, name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]] | None = None) -> str:
    """The recommendation as text in format ``fmt`` (one of FORMATS, or "vmx-full")."""
    if fmt not in _RENDERERS:
        raise UsageError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    module, function = _RENDERERS[fmt]
    return getattr(import_module(module), function)(name, settings, reasons or {})

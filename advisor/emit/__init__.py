"""Emitters: advisor's recommended .vmx settings written for the tool that will apply them.

Every emitter takes the same input: the VM's recommendation as a typed value
(advisor.model.recommendation.RecommendedVM, built once by advisor.engine.recommend), which
carries the reason (rule id, summary) of each key a rule set. Modules are imported only when
their format is asked for, so `advisor` starts without loading PyYAML or the HCL helpers it does
not need.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from advisor.errors import UsageError
from advisor.vocab import EMIT_FORMATS as FORMATS
from advisor.vocab import EmitFormat

if TYPE_CHECKING:
    from advisor.model.recommendation import RecommendedVM

# format -> (module, function); every EmitFormat member has one (tests/unit/test_vocab.py).
_RENDERERS: dict[str, tuple[str, str]] = {
    EmitFormat.VMX: ("advisor.emit.vmxfrag", "render"),
    "vmx-full": ("advisor.emit.vmxfrag", "render_full"),
    EmitFormat.TERRAFORM: ("advisor.emit.terraform", "render"),
    EmitFormat.PACKER: ("advisor.emit.packer", "render"),
    EmitFormat.PACKER_JSON: ("advisor.emit.packer", "render_json"),
    EmitFormat.POWERCLI: ("advisor.emit.powercli", "render"),
    EmitFormat.GOVC: ("advisor.emit.govc", "render"),
    EmitFormat.ANSIBLE: ("advisor.emit.ansible", "render"),
}


def render(fmt: str, rec: RecommendedVM) -> str:
    """The recommendation as text in format ``fmt`` (one of FORMATS, or "vmx-full")."""
    if fmt not in _RENDERERS:
        raise UsageError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    from advisor.emit.recommended import named

    module, function = _RENDERERS[fmt]
    text: str = getattr(import_module(module), function)(named(rec))
    return text

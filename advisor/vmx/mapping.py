"""A VM written as `.vmx` keys: the edge where the model becomes `.vmx` text.

The key <-> field table itself belongs to the model (advisor.model.vmxkeys), and so does the
VM's typed view in key space (advisor.model.keyview), which the engine works with; reconciling
a spec's `advanced:` keys with its fields is the model's too (advisor.model.reconcile).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from advisor.model.keyview import vm_values
from advisor.model.spec import VM
from advisor.model.vmxkeys import vmx_text


def vm_to_vmx(vm: VM, core_mhz: int | None = None) -> dict[str, str]:
    """The .vmx keys that express the VM as specified (not advisor's recommendations)."""
    return keys_text(vm_values(vm, core_mhz))  # type: ignore[return-value]  # vm_values holds no None


def keys_text(values: Mapping[str, Any]) -> dict[str, str | None]:
    """Typed key values (advisor.model.keyview) as .vmx text; None (a removal) stays None."""
    return {key: None if value is None else vmx_text(value) for key, value in values.items()}

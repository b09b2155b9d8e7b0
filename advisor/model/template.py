"""A template's VM (advisor lint): the model built from the values its reader already typed.

A .vmx has a hundred keys, all carried in `advanced:` as text; validating them one by one
(the spec's path, where `advanced:` is written by hand) cost a fifth of reading a template.
Here the model validates every structured field as for a spec, then takes the carried keys as
they are and reconciles the few that mean a field (advisor.vmx.mapping). Anything the quick
path refuses goes through the spec's full validation, so an invalid template is reported
with the very same message, line and field.
"""

from __future__ import annotations

from typing import Any

from advisor.model.spec import VM
from advisor.vmx.mapping import reconcile_advanced


def template_vm(data: dict[str, Any], keys: list[str], context: dict[str, Any]) -> VM:
    """The VM of advisor.vmx.templatefields.template_fields' `data` (its `advanced:` values text,
    numbers or booleans: what the model would keep unchanged); `keys`: the keys of `advanced`
    that reconcile_advanced reads, in file order. Raises ValidationError as VM.model_validate."""
    try:
        vm = VM.model_validate({**data, "advanced": {}}, context=context)
        vm.advanced = data["advanced"]
        reconcile_advanced(vm, keys)
        return vm
    except (ValueError, TypeError):  # ValidationError is a ValueError: the full path says what is wrong
        return VM.model_validate(data, context=context)

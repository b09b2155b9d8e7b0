"""A template's VM (advisor lint): the model built from the values its reader already typed.

A .vmx has a hundred keys, all carried in `advanced:` as text; validating them one by one
(the spec's path, where `advanced:` is written by hand) cost a fifth of reading a template.
Here the few keys that mean a field are read first (advisor.model.reconcile) and validated with
the structured fields, in one pass; the carried keys are taken as they are. Anything the quick
path refuses goes through the spec's full validation, so an invalid template is reported
with the very same message, line and field.
"""

from __future__ import annotations

from typing import Any

from advisor.model.reconcile import reconcile_devices, stated_fields
from advisor.model.spec import VM
from advisor.model.vmxkeys import ADVANCED_INDEX


def template_vm(data: dict[str, Any], keys: list[str], context: dict[str, Any]) -> VM:
    """The VM of advisor.vmx.templatefields.template_fields' `data` (its `advanced:` values text,
    numbers or booleans: what the model would keep unchanged); `keys`: the keys of `advanced`
    that reconcile_advanced reads, in file order. Raises ValidationError as VM.model_validate."""
    try:
        adv = context[ADVANCED_INDEX]
        fields, given, devices = stated_fields(adv, keys, data)
        # A field's value is validated here, where reconcile_advanced would set it unchecked
        # on the built model: a value the model refuses takes the full path, which keeps it.
        vm = VM.model_validate({**data, **fields, "advanced": {}}, context=context)
        for field, value in given:  # what reconcile_advanced compares with the field it reads
            if getattr(vm, field) != value:
                raise ValueError(field)
        vm.advanced = data["advanced"]
        reconcile_devices(vm, adv, devices)
        return vm
    except (ValueError, TypeError):  # ValidationError is a ValueError: the full path says what is wrong
        return VM.model_validate(data, context=context)

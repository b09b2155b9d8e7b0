"""Terraform reader: each `resource "vsphere_virtual_machine"` as the `.vmx` keys it would produce.

Reads `.tf` (HCL2) and `.tf.json` files. Only literal values, and `var.x` references whose value
is a literal (a `variable` default in this file or a sibling, or a terraform.tfvars assignment),
become settings; any other expression is recorded as unknown with its source text and a note.

Provider defaults are deliberately NOT filled in: when an argument is absent its key stays
absent, and the model applies its own defaults. That keeps one place (the model) deciding what an
unset value means for every template format, instead of each reader guessing provider versions.
The only exceptions are the two disk-addressing defaults (`controller_type` = scsi,
`unit_number` = 0): without them a disk that certainly exists could not be placed at all.
"""

from __future__ import annotations

import re
from pathlib import Path

from advisor.errors import InputError
from advisor.readers.base import TemplateVM
from advisor.readers.folder import Folder
from advisor.readers.hcl import parse_hcl
from advisor.readers.hclview import (
    Block,
    Variables,
    assigned_values,
    decode_text,
    masked,
    resolve,
    resolved_value,
    sensitive,
    set_from_expr,
    short,
    variable_defaults,
    vmx_value,
)
from advisor.readers.jsonlines import expr_from_json, json_blocks, json_line, parse_json
from advisor.readers.suppress import attach_suppressions, comment_suppressions, json_suppressions
from advisor.readers.terraform_devices import network, storage
from advisor.readers.terraform_modules import Parse, module_vms

KIND = "terraform"
RESOURCE = "vsphere_virtual_machine"

# Arguments that map one-to-one onto a .vmx key: argument -> (key, how to format the value).
_SCALARS: dict[str, tuple[str, str]] = {
    "num_cpus": ("numvcpus", "int"),
    "num_cores_per_socket": ("cpuid.coresPerSocket", "int"),
    "memory": ("memsize", "int"),
    "cpu_hot_add_enabled": ("vcpu.hotadd", "bool"),
    "cpu_hot_remove_enabled": ("vcpu.hotremove", "bool"),
    "memory_hot_add_enabled": ("mem.hotadd", "bool"),
    "latency_sensitivity": ("sched.cpu.latencySensitivity", "lower"),
    "cpu_reservation": ("sched.cpu.min", "int"),
    "cpu_limit": ("sched.cpu.max", "int"),
    "memory_reservation": ("sched.mem.min", "int"),
    "memory_limit": ("sched.mem.max", "int"),
    "memory_reservation_locked_to_max": ("sched.mem.pin", "bool"),
    "hardware_version": ("virtualHW.version", "int"),
    "guest_id": ("guestOS", "str"),
    "firmware": ("firmware", "lower"),
    "nested_hv_enabled": ("vhv.enable", "bool"),
    "cpu_performance_counters_enabled": ("vpmc.enable", "bool"),
    "efi_secure_boot_enabled": ("uefi.secureBoot.enabled", "bool"),
    "enable_disk_uuid": ("disk.EnableUUID", "bool"),
    "vbs_enabled": ("vbs.enable", "bool"),
    "vvtd_enabled": ("vvtd.enable", "bool"),
}

# (level argument, count argument, .vmx key)
_SHARES = (
    ("cpu_share_level", "cpu_share_count", "sched.cpu.shares"),
    ("memory_share_level", "memory_share_count", "sched.mem.shares"),
)


Suppressions = list[tuple[str, str, int | None]]  # (rule, reason, line) as advisor.readers.suppress reads them

# Nested blocks in the JSON form (name -> number of labels); everything else is an argument.
_JSON_BLOCKS = {"disk": 0, "network_interface": 0, "dynamic": 1, "content": 0, "clone": 0,
                "customize": 0, "ovf_deploy": 0, "vapp": 0, "cdrom": 0, "linux_options": 0,
                "windows_options": 0}


def sniff(path: Path, head: bytes) -> bool:
    """A `.tf` / `.tf.json` file, or any file declaring a vsphere_virtual_machine resource."""
    name = path.name.lower()
    if name.endswith((".tf", ".tf.json")):
        return True
    text = head.decode("utf-8", "ignore")
    return bool(re.search(r'resource\s+"vsphere_virtual_machine"', text)) or (
        '"resource"' in text and '"vsphere_virtual_machine"' in text
    )


def read(path: Path, data: bytes, folder: Folder | None = None, var_files: Folder | None = None) -> list[TemplateVM]:
    """Every vsphere_virtual_machine resource in the file, as a TemplateVM.

    `folder` holds the other files of the same folder (advisor.readers.folder): `variable`
    defaults in `*.tf` / `*.tf.json` and assignments in `terraform.tfvars` / `*.auto.tfvars`
    resolve `var.x`. A sibling that does not parse is skipped: it gets its own error when it is
    read itself. `var_files`: the `-var-file` values, in the order given.
    """
    folder = folder or Folder.given(())
    root, suppressions = folder.made(path, _parse_file, data)
    variables = _variables(root, path, folder)
    for var_file in (var_files or Folder.given(())).files():  # -var-file: after every automatic file
        variables.update(var_files.made(var_file, _assignments_quietly) or {})  # type: ignore[union-attr]
    found = []
    for block in root.children("resource"):
        if len(block.labels) == 2 and block.labels[0] == RESOURCE:
            found.append((_read_resource(block, path, variables), block.line, block.end_line))
    attach_suppressions(found, suppressions)
    modules = module_vms(root, path, variables, _read_resource, _module_parser(folder), RESOURCE)
    return [vm for vm, _, _ in found] + modules


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def _parse_file(path: Path, data: bytes, folder: Folder | None = None) -> tuple[Block, Suppressions]:
    """The file as a block tree, with the inline suppressions it carries."""
    text = decode_text(data, path)
    if not path.name.lower().endswith(".json"):
        return parse_hcl(text, path), comment_suppressions(text)
    document = parse_json(text, path)
    if not isinstance(document, dict):
        raise InputError("a Terraform JSON file must hold an object", file=str(path), line=1)
    root = Block(type="", labels=[], line=1, end_line=text.count("\n") + 1)
    # `locals` is an object of names (or a list of them), read as a `locals` block: `${local.x}`
    # resolves as in HCL.
    for key, labels in (("resource", 2), ("variable", 1), ("locals", 0)):
        if key in document:
            root.blocks.extend(json_blocks(document[key], key, labels, _JSON_BLOCKS, "hcl",
                                           getattr(document, "lines", {}).get(key)))
    return root, json_suppressions(document, text=text)


def _module_parser(folder: Folder) -> Parse:
    """A module file's block tree, read and parsed once per run through the module's folder;
    None when it cannot be read or parsed (it gets its own error when it is linted itself)."""
    def parse(file: Path) -> Block | None:
        try:
            return folder.near(file.parent).made(file, _parse_file)[0]
        except (InputError, OSError, RecursionError):
            return None
    return parse


def _variables(root: Block, path: Path, folder: Folder) -> Variables:
    """Known variable values: defaults from every .tf in the folder, then tfvars assignments.

    Assignments apply in Terraform's order: terraform.tfvars, terraform.tfvars.json, then the
    *.auto.tfvars(.json) files by name, each overriding the ones before.
    """
    defaults: Variables = {}
    assignments: list[tuple[tuple[int, str], Variables]] = []
    for sibling in folder.beside(path):
        name = sibling.name.lower()
        order = _tfvars_order(name)
        if order is not None:
            values = folder.made(sibling, _assignments_quietly)
            if values is not None:
                assignments.append(((order, name), values))
        elif name.endswith((".tf", ".tf.json")):
            defaults.update(folder.made(sibling, _sibling_defaults))
    defaults.update(variable_defaults(root))
    hidden = sensitive(defaults)
    for _, values in sorted(assignments, key=lambda item: item[0]):
        defaults.update(values)
    return masked(defaults, hidden)


def _tfvars_order(name: str) -> int | None:
    """Where a variable-values file comes in Terraform's loading order; None if not auto-loaded."""
    if name == "terraform.tfvars":
        return 0
    if name == "terraform.tfvars.json":
        return 1
    if name.endswith((".auto.tfvars", ".auto.tfvars.json")):
        return 2
    return None


def _sibling_defaults(path: Path, data: bytes, folder: Folder) -> Variables:
    """Variable defaults of another .tf in the folder ({} when it does not parse)."""
    try:
        return variable_defaults(folder.made(path, _parse_file, data)[0])
    except InputError:
        return {}


def _assignments_quietly(path: Path, data: bytes, folder: Folder | None = None) -> Variables | None:
    """`name = value` pairs of a .tfvars (HCL) or .tfvars.json file; None if it does not parse."""
    try:
        text = decode_text(data, path)
        if not path.name.lower().endswith(".json"):
            return assigned_values(parse_hcl(text, path), path.name)
        document = parse_json(text, path)
    except InputError:
        return None
    if not isinstance(document, dict):
        return None
    root = Block(type="", labels=[])
    root.attrs = {key: expr_from_json(value, json_line(document, key), "hcl") for key, value in document.items()}
    return assigned_values(root, path.name)


# --------------------------------------------------------------------------------------------
# One resource
# --------------------------------------------------------------------------------------------


def _read_resource(block: Block, path: Path, variables: Variables) -> TemplateVM:
    vm = TemplateVM(name=block.labels[1], file=str(path), kind=KIND, line=block.line)
    _note_meta_arguments(block, vm, variables)
    for argument, (key, kind) in _SCALARS.items():
        if argument in block.attrs:
            set_from_expr(vm, key, argument, block.attrs[argument], kind, variables)
    for level, count, key in _SHARES:
        _shares(block, vm, variables, level, count, key)
    storage(block, vm, variables)
    network(block, vm, variables)
    _extra_config(block, vm, variables)
    return vm


# The most instances one resource is taken to stand for: advisor.model.spec.VM's count bound.
MAX_COUNT = 100_000


def _instances(block: Block, variables: Variables) -> tuple[int | None, str | None]:
    """How many VMs the resource makes (Terraform's `count` meta-argument, a whole number,
    literal or from a variable's known value), and the note to keep when it is not known."""
    if "for_each" in block.attrs:
        expr = block.attrs["for_each"]
        return None, f"for_each = {short(expr.raw)}: unknown number of instances; this VM stands for every instance"
    if "count" not in block.attrs:
        return 1, None
    expr, origin = resolve(block.attrs["count"], variables)
    value = expr.value if expr.known else None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)  # Terraform converts a number-like string to the count it stands for
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None, f"count = {short(expr.raw)}: unknown; this VM stands for every instance"
    if value > MAX_COUNT:
        return None, (f"count = {short(expr.raw)}: {value} instances, more than the {MAX_COUNT:,} advisor "
                      "places on one host; taken as unknown, this VM stands for every instance")
    return value, (f"count = {short(expr.raw)}: using {value} from {origin}" if origin else None)


def _note_meta_arguments(block: Block, vm: TemplateVM, variables: Variables) -> None:
    """count/for_each, dynamic devices and cloning change what the file alone can tell."""
    vm.count, note = _instances(block, variables)
    if note:
        vm.notes.append(note)
    for dynamic in block.children("dynamic"):
        what = dynamic.labels[0] if dynamic.labels else "?"
        if what in ("disk", "network_interface"):
            vm.notes.append(f'dynamic "{what}" block (line {dynamic.line}): how many there are and '
                            "their settings are unknown")
    for source in ("clone", "ovf_deploy"):
        for sub in block.children(source):
            vm.notes.append(f"{source} block (line {sub.line}): settings not written here come from the source "
                            "template")


def _shares(block: Block, vm: TemplateVM, variables: Variables, level_arg: str, count_arg: str,
            key: str) -> None:
    """Share level low/normal/high as-is; "custom" means the count is the value."""
    if level_arg not in block.attrs:
        return
    level = resolved_value(vm, level_arg, block.attrs[level_arg], variables)
    if level.known and level.value is None:
        return  # null: the provider's default applies
    name = vmx_value(level.value, "lower") if level.known else None
    if name is None:
        vm.set(key, None, level.line, raw=level.raw, column=level.column)
        if level.known:
            vm.notes.append(f"{level_arg} = {short(level.raw)}: not a share level, unknown")
        return
    if name != "custom":
        vm.set(key, name, level.line, column=level.column)
        return
    if count_arg in block.attrs:
        set_from_expr(vm, key, count_arg, block.attrs[count_arg], "int", variables)


# --------------------------------------------------------------------------------------------
# extra_config
# --------------------------------------------------------------------------------------------


def _extra_config(block: Block, vm: TemplateVM, variables: Variables) -> None:
    """`extra_config` keys are .vmx keys already: pass them through, last, as the provider does."""
    expr = block.attrs.get("extra_config")
    if expr is None:
        return
    expr, origin = resolve(expr, variables)
    if expr.known and expr.value is None:
        return  # null: no extra keys
    if expr.items is None:
        # Not an object literal: a reference or call whose keys cannot be listed.
        vm.notes.append(f"extra_config = {short(expr.raw)}: unknown")
        return
    if origin:
        vm.notes.append(f"extra_config = {short(expr.raw)}: using the map from {origin}")
    for key in expr.dynamic_keys:
        vm.notes.append(f"extra_config key {short(key)}: unknown")
    # Values resolved from a variable keep the reference's line, in this file.
    from_variable = expr.var is not None
    for key, item in expr.items.items():
        line = expr.line if from_variable else item.line
        if item.known and item.value is None:
            continue  # null leaves the key unset
        vm.passthrough.add(key.lower())
        if item.known:
            vm.set(key, vmx_value(item.value, "str"), line, column=None if from_variable else item.column)
        else:
            vm.set(key, None, line, raw=item.raw)
            vm.notes.append(f"extra_config {key} = {short(item.raw)}: unknown")

"""Packer reader: each VMware builder (`vsphere-iso`, `vsphere-clone`, `vmware-iso`, `vmware-vmx`)
as the `.vmx` keys the VM it builds would carry.

Three syntaxes: HCL2 (`source "vsphere-iso" "name" { ... }` in `.pkr.hcl`), HCL2's JSON form
(`.pkr.json`, a `source` object) and the legacy JSON template (a `builders` list). Values are
taken when literal, or when they are a bare variable reference with a literal value (`var.x`
with a `variable` default; `{{user `x`}}` with an entry in `variables`); anything else is
recorded as unknown with its source text.

As in the Terraform reader, a builder default is never filled in: an absent option leaves its key
absent for the model to default. Devices are recorded only where the template says something
about them, and cloning builders add devices to a source whose layout this file cannot show, so
their new disks and adapters get sizes and notes but no slots.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from advisor.errors import InputError
from advisor.readers.base import TemplateVM
from advisor.readers.folder import Folder
from advisor.readers.hcl import parse_hcl
from advisor.readers.hclview import (
    Block,
    Expr,
    Variables,
    assigned_values,
    decode_text,
    masked,
    resolve,
    sensitive,
    set_from_expr,
    short,
    variable_defaults,
    vmx_value,
)
from advisor.readers.jsonlines import expr_from_json, json_at, json_block, json_blocks, json_line, parse_json
from advisor.readers.packer_devices import vmware_devices, vsphere_devices
from advisor.readers.suppress import attach_suppressions, comment_suppressions, json_suppressions

KIND = "packer"
VSPHERE = ("vsphere-iso", "vsphere-clone")
VMWARE = ("vmware-iso", "vmware-vmx")
CLONES = ("vsphere-clone", "vmware-vmx")
BUILDERS = VSPHERE + VMWARE

_VSPHERE_SCALARS: dict[str, tuple[str, str]] = {
    "CPUs": ("numvcpus", "int"),
    "cpu_cores": ("cpuid.coresPerSocket", "int"),
    "RAM": ("memsize", "int"),
    "RAM_reserve_all": ("sched.mem.pin", "bool"),
    "CPU_reservation": ("sched.cpu.min", "int"),
    "CPU_limit": ("sched.cpu.max", "int"),
    "RAM_reservation": ("sched.mem.min", "int"),
    "CPU_hot_plug": ("vcpu.hotadd", "bool"),
    "RAM_hot_plug": ("mem.hotadd", "bool"),
    "NestedHV": ("vhv.enable", "bool"),
    "vm_version": ("virtualHW.version", "int"),
    "guest_os_type": ("guestOS", "str"),
}
_VMWARE_SCALARS: dict[str, tuple[str, str]] = {
    "cpus": ("numvcpus", "int"),
    "cores": ("cpuid.coresPerSocket", "int"),
    "memory": ("memsize", "int"),
    "version": ("virtualHW.version", "int"),
    "guest_os_type": ("guestOS", "str"),
}
# Values a clone inherits from its source unless the template sets them.
_CLONE_INHERITS = {"vsphere": ("CPUs", "RAM"), "vmware": ("cpus", "memory")}
# vmware-iso's documented defaults (packer-plugin-vmware docs: HWConfig memory "Defaults to 512";
# iso Config version "Default value is 9"); cpus unset leaves VMware's own default of one vCPU.
_VMWARE_ISO_DEFAULTS = (("memory", "512", "HWConfig docs"), ("version", "9", "iso Config docs"))
# Options only one plugin reads (vsphere's CPUs/RAM vs vmware's cpus/memory, and their devices).
_VSPHERE_OPTIONS = (frozenset(_VSPHERE_SCALARS) - frozenset(_VMWARE_SCALARS)) | {
    "storage", "network_adapters", "disk_controller_type",
                                                  "configuration_parameters"}
_VMWARE_OPTIONS = (frozenset(_VMWARE_SCALARS) - frozenset(_VSPHERE_SCALARS)) | {
    "network_adapter_type", "disk_adapter_type", "disk_additional_size", "vmx_data", "vmx_data_post"}
# Options whose map entries are .vmx keys already, in the order the builder applies them.
_PASSTHROUGH = {"vsphere": ("configuration_parameters",), "vmware": ("vmx_data", "vmx_data_post")}


_JSON_BLOCKS = {"storage": 0, "network_adapters": 0, "content_library_destination": 0, "export": 0,
                "location": 0, "dynamic": 1, "content": 0}
_SNIFF_SOURCE = re.compile(r'source\s+"(?:vsphere-iso|vsphere-clone|vmware-iso|vmware-vmx)"')


def sniff(path: Path, head: bytes) -> bool:
    """`.pkr.hcl` / `.pkr.json`, a JSON template with `builders`, or HCL declaring a VMware source."""
    name = path.name.lower()
    if name.endswith((".pkr.hcl", ".pkr.json")):
        return True
    text = head.decode("utf-8", "ignore")
    if name.endswith(".json"):
        return bool(re.search(r'"builders"\s*:', text))
    return bool(_SNIFF_SOURCE.search(text))


def read(path: Path, data: bytes, folder: Folder | None = None, var_files: Folder | None = None) -> list[TemplateVM]:
    """Every VMware builder in the template, as a TemplateVM ([] when it has none).

    `folder` (HCL2 only) holds the other files of the folder (advisor.readers.folder): `variable`
    defaults in `*.pkr.hcl` and assignments in `*.auto.pkrvars.hcl` resolve `var.x`.
    `var_files`: the `-var-file` values, in the order given.
    """
    folder = folder or Folder.given(())
    var_files = var_files or Folder.given(())
    text = decode_text(data, path)
    name = path.name.lower()
    misnamed = not name.endswith(".json") and text.lstrip().startswith("{")
    if name.endswith(".json") or misnamed:
        document = folder.made(path, _json_document, data)
        if not isinstance(document, dict):
            raise InputError("a Packer JSON template must hold an object", file=str(path), line=1)
        if name.endswith(".pkr.json") or "builders" not in document:
            sources, variables = _hcl_json_sources(document)
            variables = _with_siblings(variables, path, folder, var_files)
        else:
            sources, variables = _legacy_sources(document, path)
        suppressions = json_suppressions(document, ("//", "_comment"), text)
    else:
        root = folder.made(path, _hcl_root, data)
        sources = [(b.labels[0], b.labels[1], b) for b in root.children("source") if len(b.labels) == 2]
        variables = _with_siblings(variable_defaults(root), path, folder, var_files)
        suppressions = comment_suppressions(text)
    found = []
    for builder, label, block in sources:
        if builder in BUILDERS:
            found.append((_read_source(builder, label, block, path, variables), block.line, block.end_line))
    attach_suppressions(found, suppressions)
    if misnamed:
        for vm, _, _ in found:
            vm.notes.append(f"{path.name} holds JSON, not HCL: read as a JSON template (Packer picks the "
                            "syntax by the file name: .pkr.json or .json)")
    return [vm for vm, _, _ in found]


# --------------------------------------------------------------------------------------------
# Sources and variables per syntax
# --------------------------------------------------------------------------------------------


def _hcl_json_sources(document: dict) -> tuple[list[tuple[str, str, Block]], Variables]:
    """`.pkr.json`: `{"source": {"TYPE": {"NAME": {...}}}, "variable": {...}}`."""
    lines = getattr(document, "lines", {})
    blocks = json_blocks(document.get("source"), "source", 2, _JSON_BLOCKS, "hcl", lines.get("source"))
    sources = [(b.labels[0], b.labels[1], b) for b in blocks]
    return sources, variable_defaults(_json_variables(document))


def _json_variables(document: dict) -> Block:
    """The `variable` and `locals` objects of an HCL-JSON file as blocks (`${local.x}` resolves)."""
    lines = getattr(document, "lines", {})
    root = Block(type="", labels=[])
    root.blocks = json_blocks(document.get("variable"), "variable", 1, {}, "hcl", lines.get("variable"))
    root.blocks += json_blocks(document.get("locals"), "locals", 0, {}, "hcl", lines.get("locals"))
    return root


def _legacy_sources(document: dict, path: Path) -> tuple[list[tuple[str, str, Block]], Variables]:
    """Legacy JSON: `{"variables": {...}, "builders": [{"type": ..., ...}]}`."""
    builders = document["builders"]
    if not isinstance(builders, list):
        raise InputError('"builders" must be a list', file=str(path), line=json_line(document, "builders"))
    variables: Variables = {}
    declared = document.get("variables")
    if isinstance(declared, dict):
        for name, value in declared.items():
            expr = expr_from_json(value, json_line(declared, name), "packer")
            if expr.known and expr.value is not None:
                variables[name] = (expr, "the template's variables")
    hidden = document.get("sensitive-variables")  # Packer's legacy JSON: names whose values are secret
    if isinstance(hidden, list):
        masked(variables, [name for name in hidden if isinstance(name, str)])
    sources = []
    for index, item in enumerate(builders):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            continue
        block = json_block(item, "builder", [], _JSON_BLOCKS, "packer", json_line(builders, index))
        block.column = json_at(builders, index)[1]
        label = item["type"]
        if "name" in block.attrs:  # the builder's name, used when vm_name is not known
            name, _ = resolve(block.attrs["name"], variables)
            if name.known and isinstance(name.value, str) and name.value:
                label = name.value
        sources.append((item["type"], label, block))
    return sources, variables


# The files of a folder that make one configuration, and the variable files Packer loads by itself.
_CONFIG_FILES = (".pkr.hcl", ".pkr.json", ".pkrvars.hcl", ".pkrvars.json")
_AUTO_VAR_FILES = (".auto.pkrvars.hcl", ".auto.pkrvars.json")


def _hcl_root(path: Path, data: bytes, folder: Folder | None = None) -> Block:
    """An HCL file's block tree: one parse whether it is read as a template or as a sibling."""
    return parse_hcl(decode_text(data, path), path)


def _json_document(path: Path, data: bytes, folder: Folder | None = None) -> Any:
    """A JSON file's document: one parse whether it is read as a template or as a sibling."""
    return parse_json(decode_text(data, path), path)


def _sibling_values(path: Path, data: bytes, folder: Folder) -> tuple[Variables, Variables] | None:
    """(variable defaults, assignments) of another file of the folder; None if it does not parse."""
    try:
        if path.name.lower().endswith(".json"):
            document = folder.made(path, _json_document, data)
            root = _json_variables(document) if isinstance(document, dict) else Block(type="", labels=[])
            if isinstance(document, dict):  # a .pkrvars.json: top-level names are the assignments
                root.attrs = {k: expr_from_json(v, json_line(document, k), "hcl") for k, v in document.items()}
        else:
            root = folder.made(path, _hcl_root, data)
        return variable_defaults(root), assigned_values(root, path.name)
    except InputError:
        return None


def _with_siblings(variables: Variables, path: Path, folder: Folder, var_files: Folder) -> Variables:
    """Defaults from the folder's other `*.pkr.hcl` / `*.pkr.json`, this file's own, then
    `*.auto.pkrvars.hcl` and `*.auto.pkrvars.json` (each kind by name), then each `--var-file` in
    the order given: Packer's order (hashicorp/packer hcl2template/parser.go, Parser.Parse, "parse
    var files"). A named file is read with no siblings at all: GetHCL2Files (hcl2template/utils.go)
    returns a file argument alone, so no auto-loaded variable file applies to it."""
    defaults: Variables = {}
    assigned: list[tuple[tuple[bool, str], Variables]] = []
    for sibling in folder.beside(path):
        name = sibling.name.lower()
        if not name.endswith(_CONFIG_FILES):
            continue
        parsed = folder.made(sibling, _sibling_values)
        if parsed is None:
            continue  # reported when that file is read itself
        if name.endswith(_AUTO_VAR_FILES):
            assigned.append(((name.endswith(".json"), sibling.name), parsed[1]))
        elif not name.endswith((".pkrvars.hcl", ".pkrvars.json")):  # named var files load only by --var-file
            defaults.update(parsed[0])
    defaults.update(variables)
    hidden = sensitive(defaults)
    for _, values in sorted(assigned, key=lambda item: item[0]):
        defaults.update(values)
    hidden |= sensitive(defaults)
    for var_file in var_files.files():
        parsed = var_files.made(var_file, _sibling_values)
        if parsed is not None:
            defaults.update(parsed[1])
    return masked(defaults, hidden)


# --------------------------------------------------------------------------------------------
# One builder
# --------------------------------------------------------------------------------------------


def _read_source(builder: str, label: str, block: Block, path: Path, variables: Variables) -> TemplateVM:
    vm = TemplateVM(name=_vm_name(block, label, variables), file=str(path), kind=KIND, line=block.line,
                    builder=builder)
    family = "vsphere" if builder in VSPHERE else "vmware"
    scalars = _VSPHERE_SCALARS if family == "vsphere" else _VMWARE_SCALARS
    for option, (key, kind) in scalars.items():
        if option in block.attrs:
            set_from_expr(vm, key, option, block.attrs[option], kind, variables)
    if "firmware" in block.attrs:
        _firmware(vm, block.attrs["firmware"], variables)
    if builder in CLONES:
        source = block.attrs.get("template") or block.attrs.get("source_path")
        what = f" {short(source.raw, 60)}" if source is not None else ""
        vm.notes.append(f"{builder} clones{what}: settings not written here come from the source")
        for option in _CLONE_INHERITS[family]:
            if option not in block.attrs:  # the source's value, which this file cannot show
                vm.set(scalars[option][0], None, block.line, raw=f"(inherited from the source by {builder})",
                       column=block.column)
    elif builder == "vmware-iso":
        for option, value, why in _VMWARE_ISO_DEFAULTS:
            if option not in block.attrs:
                vm.set(scalars[option][0], value, block.line, column=block.column)
                vm.notes.append(f"{option} not set: vmware-iso's default {value} ({why})")
    _foreign_options(builder, family, block, vm)
    if family == "vsphere":
        vsphere_devices(builder, block, vm, variables)
    else:
        vmware_devices(builder, block, vm, variables)
    for option in _PASSTHROUGH[family]:
        if option in block.attrs:
            _passthrough(vm, option, block.attrs[option], variables)
    return vm


def _foreign_options(builder: str, family: str, block: Block, vm: TemplateVM) -> None:
    """Options of the other plugin (vmware-iso's `cpus` in a vsphere-iso source): the builder
    does not read them, so they size nothing; say so rather than use or drop them silently."""
    other = _VMWARE_OPTIONS if family == "vsphere" else _VSPHERE_OPTIONS
    lines = {b.type: b.line for b in reversed(block.blocks)} | {k: e.line for k, e in block.attrs.items()}
    for option in sorted(other & lines.keys()):
        vm.notes.append(f"{option} (line {lines[option]}) is not an option of {builder}: "
                        "the builder ignores it, and so does advisor")


def _vm_name(block: Block, label: str, variables: Variables) -> str:
    expr = block.attrs.get("vm_name")
    if expr is not None:
        expr, _ = resolve(expr, variables)
        if expr.known and isinstance(expr.value, str | int) and str(expr.value):
            return str(expr.value)
    return label


def _firmware(vm: TemplateVM, expr: Expr, variables: Variables) -> None:
    """bios / efi / efi-secure; the last is EFI with secure boot on."""
    value = set_from_expr(vm, "firmware", "firmware", expr, "lower", variables)
    if isinstance(value, str) and value.lower() == "efi-secure":
        vm.set("firmware", "efi", expr.line, raw=expr.raw, column=expr.column)
        vm.set("uefi.secureBoot.enabled", "TRUE", expr.line, column=expr.column)


def _passthrough(vm: TemplateVM, option: str, expr: Expr, variables: Variables) -> None:
    expr, origin = resolve(expr, variables)
    if expr.known and expr.value is None:
        return
    if expr.items is None:
        vm.notes.append(f"{option} = {short(expr.raw)}: unknown")
        return
    if origin:
        vm.notes.append(f"{option} = {short(expr.raw)}: using the map from {origin}")
    for key in expr.dynamic_keys:
        vm.notes.append(f"{option} key {short(key)}: unknown")
    for key, item in expr.items.items():
        line = expr.line if origin else item.line
        item, item_origin = resolve(item, variables)  # `{{user `cpus`}}` inside vmx_data
        if item_origin:
            vm.notes.append(f"{option} {key} = {short(item.raw)}: using {item.value} from {item_origin}")
        if item.known and item.value is None:
            continue
        vm.passthrough.add(key.lower())
        if item.known:
            vm.set(key, vmx_value(item.value, "str"), line, column=None if origin else item.column)
        else:
            vm.set(key, None, line, raw=item.raw)
            vm.notes.append(f"{option} {key} = {short(item.raw)}: unknown")

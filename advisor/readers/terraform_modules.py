"""Terraform `module` blocks with a local source (`./vm`, `../modules/vm`): the child folder's
vsphere_virtual_machine resources, read with the module block's arguments as their variables.

Terraform loads a module from its folder and sets each input variable from the argument of the
same name in the module block (Terraform docs, "Modules": calling a child module); an argument
whose value is unknown here leaves that variable unknown, never the child's default. Registry and
Git sources are not on disk and are skipped with a note. Nesting is followed three levels deep.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from advisor.readers.base import TemplateVM
from advisor.readers.hclview import Block, Variables, resolve, short, variable_defaults

_META = {"source", "version", "count", "for_each", "providers", "depends_on"}
_MAX_DEPTH = 3
_MAX_FILES = 200

ReadResource = Callable[[Block, Path, Variables], TemplateVM]
Parse = Callable[[Path], Block | None]


def module_vms(root: Block, path: Path, variables: Variables, read_resource: ReadResource, parse: Parse,
               resource: str, depth: int = 0, seen: frozenset[str] = frozenset()) -> list[TemplateVM]:
    found: list[TemplateVM] = []
    for block in root.children("module"):
        label = block.labels[0] if block.labels else "?"
        folder = _local_source(block, path)
        if folder is None or str(folder) in seen or depth >= _MAX_DEPTH:
            continue
        inputs = _inputs(block, label, variables)
        children = [(f, parse(f)) for f in _tf_files(folder)]
        child_vars: Variables = {}
        for _, child in children:
            if child is not None:
                child_vars.update(variable_defaults(child))
        for name, value in inputs.items():
            if value is None:
                child_vars.pop(name, None)  # set by the module block to something unknown here
            else:
                child_vars[name] = value
        where = f'module "{label}" ({path.name} line {block.line})'
        for file, child in children:
            if child is None:
                continue
            for res in child.children("resource"):
                if len(res.labels) == 2 and res.labels[0] == resource:
                    vm = read_resource(res, file, child_vars)
                    vm.name = f"module.{label}.{vm.name}"
                    vm.notes.append(f"read through {where}")
                    if "count" in block.attrs or "for_each" in block.attrs:
                        vm.notes.append(f"{where} has count/for_each: this VM stands for every instance")
                    found.append(vm)
            found.extend(module_vms(child, file, child_vars, read_resource, parse, resource, depth + 1,
                                    seen | {str(folder)}))
    return found


def _local_source(block: Block, path: Path) -> Path | None:
    source = block.attrs.get("source")
    if source is None or not source.known or not isinstance(source.value, str):
        return None
    if not source.value.startswith(("./", "../")):
        return None  # a registry, Git or URL source: not on this disk
    folder = Path(os.path.normpath(path.parent / source.value))
    return folder if folder.is_dir() else None


def _inputs(block: Block, label: str, variables: Variables) -> dict[str, tuple | None]:
    inputs: dict[str, tuple | None] = {}
    for name, expr in block.attrs.items():
        if name in _META:
            continue
        value, _ = resolve(expr, variables)
        known = value.known and value.value is not None
        inputs[name] = (value, f'module "{label}" argument {name} = {short(expr.raw, 40)}') if known else None
    return inputs


def _tf_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.name.lower().endswith(".tf") and p.is_file())[:_MAX_FILES]
    except OSError:
        return []

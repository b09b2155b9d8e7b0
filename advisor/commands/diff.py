"""`advisor diff OLD NEW`: what changed in an estate between two snapshots (RVTools exports or folders
of spec files), and which findings are new or fixed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from advisor.vocab import DIFF_FORMATS as FORMATS


def _snapshot(path: str, catalog: Any, policy: Any, profiles: Any, workloads: Any = (), host_rules: Any = ()) -> Any:
    """The VMs of one snapshot, each under its key, and its findings, each under its VM's key (or
    its subject's: a host) and its rule."""
    from advisor.errors import InputError
    from advisor.rvtools.detect import is_export

    run, snap, keys = (_export(path, catalog, policy, workloads, host_rules) if is_export(path)
                       else _folder(path, catalog, policy, profiles))
    if run.errors:
        raise InputError(run.errors[0].message, file=run.errors[0].file, line=run.errors[0].line)
    # A finding belongs to the VM where it points (an export's row, or the spec file and VM name): equal
    # VM names on two hosts stay apart.
    for f in run.findings:
        if f.suppressed is not None:
            continue
        where = (f.file, f.line) if snap.ids == "rvtools" else (f.file, f.vm)
        owner = keys.get(where, f.subject) if f.vm else f.subject
        snap.findings[(owner, f.rule)] = {"rule": f.rule, "severity": f.severity, "subject": f.subject,
                                          "message": f.message, "file": f.file, "line": f.line}
    return snap


def _export(path: str, catalog: Any, policy: Any, workloads: Any, host_rules: Any) -> tuple[Any, Any, dict[Any, str]]:
    """An RVTools export's run, its snapshot of VMs keyed by VI SDK UUID and VM UUID, and where each
    VM's findings point (its sheet and row) -> its key."""
    from advisor.report.diff import Snapshot, shared_key
    from advisor.rvtools.check import evaluate

    run, estates = evaluate([path], catalog, policy, workloads, host_rules)
    snap = Snapshot(path, by_uuid=True, ids="rvtools")
    keys: dict[Any, str] = {}
    vms = [(spec.origin.keys[vm["name"]], vm, spec) for estate in estates for spec in estate.specs
           for vm in spec.doc["vms"]]
    held: dict[str, int] = {}
    for key, _, _ in vms:
        held[key] = held.get(key, 0) + 1
    for key, vm, spec in vms:
        if held[key] > 1:  # one UUID on several VMs (a copied VM keeps it): told apart by name
            snap.shared.add(key)
            key = shared_key(key, vm["name"])
        if vm["name"] in spec.origin.unkeyed:
            snap.unkeyed.add(key)
        place = run.sources[(spec.label, vm["name"])]
        keys[(place.file, place.line)] = key
        snap.vms[key] = {"name": vm["name"], "host": spec.doc["host"]["name"], "vcpus": vm["vcpus"],
                         "cores_per_socket": vm.get("cores_per_socket"), "memory": vm["memory"]}
    return run, snap, keys


def _folder(path: str, catalog: Any, policy: Any, profiles: Any) -> tuple[Any, Any, dict[Any, str]]:
    """A folder of spec files (or one file): its run, its snapshot, and (file, VM name) -> the VM's
    key. A folder `collect vcenter` wrote names each VM's instance UUID (and its vCenter's): matched
    by those when every VM has one, so a renamed or moved VM stays itself and two vCenters stay apart;
    else by host and VM name."""
    from advisor.engine.specs import check_files
    from advisor.errors import InputError
    from advisor.load.specfile import load_spec
    from advisor.model.units import format_mib
    from advisor.report.diff import Snapshot
    from advisor.vcenter.specfiles import read_vm_keys

    folder = Path(path)
    files = sorted(str(p) for p in folder.glob("*.yaml")) if folder.is_dir() else [path]
    if not files:
        raise InputError("no spec files (*.yaml) and not an RVTools export", file=path)
    run = check_files(files, catalog, policy, profiles, None)
    if run.errors:
        return run, Snapshot(path, by_uuid=False), {}
    ids = read_vm_keys(folder) if folder.is_dir() else None
    shapes: list[tuple[str, str | None, dict[str, Any]]] = []
    for file in files:
        loaded = load_spec(file)
        of_file = (ids or {}).get(Path(file).name, {})
        shapes += [(file, of_file.get(vm.name), {"name": vm.name, "host": loaded.host.name, "vcpus": vm.vcpus,
                                                 "cores_per_socket": vm.cores_per_socket,
                                                 "memory": format_mib(vm.memory)}) for vm in loaded.spec.vms]
    by_uuid = bool(shapes) and all(uuid for _, uuid, _ in shapes)
    snap = Snapshot(path, by_uuid=by_uuid, ids="vcenter" if by_uuid else "")
    keys: dict[Any, str] = {}
    for file, uuid, shape in shapes:
        key = uuid if by_uuid and uuid else f"{shape['host']}/{shape['name']}"
        keys[(file, shape["name"])] = key  # a VM's findings are in its host's file
        snap.vms[key] = shape
    return run, snap, keys


@click.command("diff")
@click.argument("old", type=click.Path(exists=True))
@click.argument("new", type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Report format [default: from --output's suffix, else text]; every format of check but svg.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report to this file.")
@click.option("--fail-on", type=click.Choice(["never", "new"]), default="never", show_default=True,
              help="Exit 1 when NEW has a finding OLD did not have (for a scheduled CI job).")
def command(old: str, new: str, fmt: str, output: str | None, fail_on: str) -> None:
    """What changed between two snapshots of an estate.

    OLD and NEW are RVTools exports (.xlsx, or the folder of RVTools_tab*.csv files) or folders of
    spec files (`advisor collect vcenter -o DIR`). Reports VMs added, removed and reshaped (host,
    vCPUs, cores per socket, memory) and findings new, fixed and unchanged. Two exports are matched
    by VM UUID, two folders `collect vcenter` wrote by VM instance UUID (with the vCenter's);
    anything else by host and VM name.
    """
    from advisor.atomic import check_target, write_atomic
    from advisor.commands.scopes import Options, Scopes
    from advisor.load.config import load_config
    from advisor.output.diffs import render
    from advisor.overwrites import refuse_inputs
    from advisor.report import diff as diffs
    from advisor.vocab import FORMAT_BY_SUFFIX

    fmt = fmt or (FORMAT_BY_SUFFIX.get(Path(output).suffix.lower(), "text") if output else "text")
    if fmt not in FORMATS:
        raise click.UsageError(f"advisor diff cannot write {fmt} (a NUMA map has no difference to draw)")
    if output:
        check_target(output)
        refuse_inputs([output], [old, new])
    elif fmt == "xlsx" and sys.stdout.isatty():
        raise click.UsageError("--format xlsx writes a binary workbook: give --output FILE.xlsx")
    scopes = Scopes(Options((), (), (), None, None))
    first = scopes.of(load_config(None, [old, new], scopes.found))
    config = first.loaded.config
    result = diffs.compare(
        _snapshot(old, first.catalog, first.policy, first.profiles, config.workloads, config.estate_hosts),
        _snapshot(new, first.catalog, first.policy, first.profiles, config.workloads, config.estate_hosts))
    rendered = render(fmt, result)
    if output:
        write_atomic(output, rendered)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(rendered)
        sys.stdout.buffer.flush()
    if fail_on == "new" and result.new_findings:
        sys.exit(1)

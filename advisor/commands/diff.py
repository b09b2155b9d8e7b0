"""`advisor diff OLD NEW`: what changed in an estate between two snapshots (RVTools exports or folders
of spec files), and which findings are new or fixed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from advisor.vocab import DIFF_FORMATS as FORMATS


def _snapshot(path: str, catalog: Any, policy: Any, profiles: Any, workloads: Any = ()) -> Any:
    from advisor.errors import InputError
    from advisor.load.specfile import load_spec
    from advisor.model.units import format_mib
    from advisor.report.diff import Snapshot
    from advisor.rvtools.detect import is_export

    if is_export(path):
        from advisor.rvtools.check import evaluate

        run, estates = evaluate([path], catalog, policy, workloads)
        if run.errors:
            raise InputError(run.errors[0].message, file=run.errors[0].file, line=run.errors[0].line)
        snap = Snapshot(path, by_uuid=True)
        keys: dict[tuple[str, str], str] = {}
        for estate in estates:
            for spec in estate.specs:
                host = spec.doc["host"]["name"]
                for vm in spec.doc["vms"]:
                    key = spec.origin.keys[vm["name"]]
                    keys[(host, vm["name"])] = key
                    snap.vms[key] = {"name": vm["name"], "host": host, "vcpus": vm["vcpus"],
                                     "cores_per_socket": vm.get("cores_per_socket"), "memory": vm["memory"]}
    else:
        from advisor.engine.specs import check_files

        folder = Path(path)
        files = sorted(str(p) for p in folder.glob("*.yaml")) if folder.is_dir() else [path]
        if not files:
            raise InputError("no spec files (*.yaml) and not an RVTools export", file=path)
        run = check_files(files, catalog, policy, profiles, None)
        if run.errors:
            raise InputError(run.errors[0].message, file=run.errors[0].file, line=run.errors[0].line)
        snap = Snapshot(path, by_uuid=False)
        keys = {}
        for file in files:
            loaded = load_spec(file)
            for vm in loaded.spec.vms:
                key = f"{loaded.host.name}/{vm.name}"
                keys[(loaded.host.name, vm.name)] = key
                snap.vms[key] = {"name": vm.name, "host": loaded.host.name, "vcpus": vm.vcpus,
                                 "cores_per_socket": vm.cores_per_socket, "memory": format_mib(vm.memory)}
    hosts_of = {vm.name: vm.host for vm in run.vms}
    for f in run.findings:
        if f.suppressed is not None:
            continue
        owner = keys.get((hosts_of.get(f.vm or "") or "", f.vm or ""), f.subject) if f.vm else f.subject
        snap.findings[(owner, f.rule)] = {"rule": f.rule, "severity": f.severity, "subject": f.subject,
                                          "message": f.message, "file": f.file, "line": f.line}
    return snap


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
    by VM UUID; anything else by host and VM name.
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
    workloads = first.loaded.config.workloads
    result = diffs.compare(_snapshot(old, first.catalog, first.policy, first.profiles, workloads),
                           _snapshot(new, first.catalog, first.policy, first.profiles, workloads))
    rendered = render(fmt, result)
    if output:
        write_atomic(output, rendered)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(rendered)
        sys.stdout.buffer.flush()
    if fail_on == "new" and result.new_findings:
        sys.exit(1)

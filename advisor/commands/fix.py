"""`advisor fix`: apply the recommended keys to an existing .vmx, touching nothing else."""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Any

import click

from advisor.commands.outputs import check_output, deliver
from advisor.model.base import WORKLOADS

if TYPE_CHECKING:
    from pathlib import Path


@click.command("fix")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--host", "host_ref", help="Host profile or file, for the NUMA-aware fixes.")
@click.option("--vsphere", help="vSphere version (default: the host's).")
@click.option("--workload", type=click.Choice(WORKLOADS), help="Workload kind of the VM (default: generic).")
@click.option("--write", is_flag=True, help="Write the file (atomically, keeping FILE.bak) instead of printing a diff.")
@click.option("--format", "format_", type=click.Choice(["diff", "json"]), default="diff", show_default=True,
              help="diff: a unified diff, each change's rules on stderr; json: the changes, each with its rules "
                   "(schema advisor-fix/v1).")
@click.option("--select", multiple=True, help="Only fixes from these rule ids or prefixes.")
@click.option("--ignore", "ignore_", multiple=True, help="No fixes from these rule ids or prefixes.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Configuration file.")
@click.option("--rules", "rule_dirs", multiple=True, type=click.Path(file_okay=False), help="Extra rule folder.")
@click.option("--output", "-o", "output", metavar="FILE", type=click.Path(dir_okay=False),
              help="Write the diff (or the JSON document) to FILE (atomically) instead of standard output.")
def command(file, host_ref, vsphere, workload, write, format_, select, ignore_, config_file, rule_dirs,
            output) -> None:
    """Apply advisor's .vmx fixes to FILE.vmx.

    Only the keys a finding's fix writes change (fixes of warnings and errors that hold for
    the VM as described); a suggestion, which depends on what advisor cannot see, is written
    only when its rule is named in --select (e.g. --select NUMA004). New keys go at the end;
    every other byte, comment, order and the file's encoding stay as they were. Without --write a
    unified diff is printed (exit 0 with no changes, 1 with changes), and each change, removals
    too, with the rules that ask for it; --format json gives the same as one document. With
    --write the file is replaced atomically and
    the content before the run kept as FILE.vmx.bak (one generation: the next run replaces it).
    Runs on the same file take turns (a lock on its folder), so none loses another's change. A
    second run changes nothing. A VM that is running (a
    .lck folder beside the file) is refused.
    """
    from pathlib import Path

    from advisor.atomic import locked, write_atomic
    from advisor.load.yamlfile import read_bytes
    from advisor.output.describe import visible
    from advisor.vmx.document import VmxDocument, apply, unified_diff
    from advisor.vmx.recommendation import changes as recommended_changes

    path = Path(file)
    _refuse_arguments(path, file, write, output, config_file)
    with locked(path) if write else contextlib.nullcontext():
        data = read_bytes(path)
        doc = VmxDocument.parse(data, file=file)
        rec = _recommendation(path, file, data, write, (host_ref, vsphere, workload),
                              (select, ignore_, config_file, rule_dirs))
        # Built without the VM's own keys, the recommendation is exactly what the fixes change.
        desired = recommended_changes(rec.vm)
        _say_not_written(rec.suggestions)
        before = doc.to_bytes()
        changes = apply(doc, desired)
        after = doc.to_bytes()
        # Every change names the rules behind it, a removal too (issue 33).
        named = [(c, rec.vm.rules_of(c.key)) for c in changes]
        if format_ == "json" and not (write and changes):
            deliver(fix_document(file, named, written=False), output)
        if not changes:
            click.echo(f"advisor: {file}: nothing to change", err=True)
            sys.exit(0)
        if not write:
            if format_ == "diff":
                deliver(unified_diff(path, before, after, doc.charset or "utf-8"), output)
                for change, rules in named:
                    new = "removed" if change.new is None else repr(change.new)
                    click.echo(visible(f"# {'+'.join(rules) or '?'}: {change.key} {change.old!r} -> {new}"), err=True)
            sys.exit(1)
        had_backup = path.with_name(path.name + ".bak").exists()
        # Under the lock, and only if the file still holds the bytes the fixes were computed on.
        write_atomic(path, after, backup=True, expect=data)
        if format_ == "json":
            deliver(fix_document(file, named, written=True), output)
        older = f"; it replaced the older {path.name}.bak" if had_backup else ""
        click.echo(f"advisor: {file}: {len(changes)} key{'s' if len(changes) != 1 else ''} changed "
                   f"(the content before this run is in {path.name}.bak{older})", err=True)


def _say_not_written(suggestions: Any) -> None:
    for suggestion in suggestions:
        keys = ", ".join(f"{k} = {v}" for k, v in suggestion.vmx.items()) or suggestion.text
        click.echo(f"# not written: {suggestion.rule} suggests {keys} if {suggestion.condition}; "
                   f"to write it: --select {suggestion.rule}", err=True)


def _refuse_arguments(path: Path, file: str, write: bool, output: str | None, config_file: str | None) -> None:
    """Usage errors, and a file that is no .vmx (saying which command takes it, if one does)."""
    from advisor.errors import InputError
    from advisor.load.yamlfile import read_bytes

    if write and output:
        raise click.UsageError("--write replaces FILE; --output writes the diff: give one of the two")
    check_output(output, [file, *([config_file] if config_file else [])])
    if path.suffix.lower() not in (".vmx", ".vmtx"):
        from advisor.load.kinds import for_template_command

        hint = for_template_command(file, read_bytes(path)[:65536]) if path.is_file() else None
        raise InputError("advisor fix edits .vmx files only" + (f"; {hint}" if hint else ""), file=file)


def _recommendation(path: Path, file: str, data: bytes, write: bool, target: tuple[Any, Any, Any],
                    rules: tuple[Any, Any, Any, Any]) -> Any:
    """The recommendation check and vmx show for the file's VM: only what is right for it as
    described, plus the suggestions of rules named one by one in --select. `target`: host,
    vSphere version and workload; `rules`: select, ignore, configuration file and rule folders."""
    from advisor.commands.common import settings
    from advisor.engine.engine import Evaluator
    from advisor.engine.lint import LintJob, host_and_version, template_subject
    from advisor.errors import InputError
    from advisor.readers import vmxfile
    from advisor.vmx.document import is_locked

    templates = vmxfile.read(path, data)
    if not templates:
        raise InputError("no virtual machine settings in this file", file=file)
    if write and is_locked(path):
        raise InputError("the VM is running or locked (a .lck folder or file is beside it); power it off first",
                         file=file)
    host_ref, vsphere, workload = target
    select, ignore_, config_file, rule_dirs = rules
    s = settings([file], (), (), None, select, ignore_, config_file, rule_dirs, True, False)
    job = LintJob([], s.policy, host_ref, vsphere, workload, profiles=s.profiles)
    host, version = host_and_version(job)
    evaluator = Evaluator(s.catalog, s.policy, full_vmx=False)
    evaluator.evaluate([template_subject(templates[0], workload)], host, version, file)
    run = evaluator.finish()
    return evaluator.recommendations[id(run.vms[0])]


FIX_SCHEMA = "advisor-fix/v1"


def fix_document(file: str, changes: list[tuple[Any, tuple[str, ...]]], written: bool) -> str:
    """`advisor fix --format json`: each change (a key set, changed or removed) with its rules."""
    import json

    return json.dumps({
        "schema": FIX_SCHEMA,
        "file": file,
        "written": written,
        "changes": [{"key": c.key, "old": c.old, "new": c.new, "line": c.line, "rules": list(rules)}
                    for c, rules in changes],
    }, ensure_ascii=True, indent=2)

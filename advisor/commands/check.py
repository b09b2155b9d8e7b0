"""`advisor check`: predict each proposed VM's NUMA layout and check it against the rules."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import click

from advisor.commands.common import display, emit, report_options, settings, stdin_inputs, stdin_option
from advisor.commands.vcenter_options import vcenter_options
from advisor.errors import EXIT_CODES_HELP

if TYPE_CHECKING:
    from advisor.commands.common import Settings
    from advisor.report.findings import Run


@click.command("check", epilog=EXIT_CODES_HELP)
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--exclude", multiple=True, help="gitignore-style pattern to skip in folder walks (repeatable; adds to "
                                               "the config's).")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None,
              help="Skip what git ignores in folder walks (default: on, or the config's respect_gitignore); "
                   "named files are always checked.")
@report_options
@click.option(
    "--vcenter",
    metavar="[HOST[:PORT]]",
    multiple=True,
    is_flag=False,
    flag_value="",  # `--vcenter` alone: the server of $GOVC_URL, as govc takes it
    help="Check the VMs running in this vCenter (read-only) instead of spec files; without HOST, the "
    "server of $GOVC_URL; repeat for several vCenters; see `advisor collect vcenter`.",
)
@vcenter_options
@stdin_option
def command(
    files: tuple[str, ...],
    exclude: tuple[str, ...],
    respect_gitignore: bool | None,
    formats,
    outputs,
    fail_on,
    select,
    ignore_,
    config_file,
    rule_dirs,
    quiet,
    show_sources,
    show_skipped,
    verbose,
    color,
    vcenter,
    stdin_filename,
    **vcenter_args,
) -> None:
    """Check proposed VMs (spec YAML files) against VMware's performance guidance.

    For every VM: the virtual NUMA topology ESXi will build. Then each finding in one line
    (file:line, rule, severity, message), its fix and its rule's page; --show-sources lists the
    papers and documents behind it, -v adds each host's capacity and the rest.
    A file that cannot be read is reported (file, line, field) and the other files still run.
    A folder is walked as `advisor lint` walks one (skipping .git, what git ignores and the
    config's `exclude:` patterns) for the YAML files that state VMs (a `vms:` key).
    With --vcenter, the specs `advisor collect vcenter` would write are checked in one step, each
    finding at its `vcenter SERVER/cluster/host/vm`; --vcenter may be repeated.
    An RVTools export (.xlsx, or the folder of its `RVTools_tab*.csv` files) is checked as a running
    estate: each host with its powered-on VMs, findings pointed at the sheet and row. A running
    estate's VM topologies (an export's, --vcenter's) are on demand: --format table, or -v.
    `-` reads a spec from standard input (reported as --stdin-filename, else `-`).
    """
    if bool(files or stdin_filename is not None) == bool(vcenter):
        raise click.UsageError("give spec files or --vcenter HOST (one of the two)")
    names, given = stdin_inputs(list(files), stdin_filename)
    s = settings(names, formats, outputs, fail_on, select, ignore_, config_file, rule_dirs, quiet, color)
    s.display = display(show_sources, show_skipped, verbose, topology=True)
    from advisor.rvtools.detect import is_export

    exports = [n for n in names if is_export(n)]
    if any(n not in exports and os.path.isdir(n) for n in names):
        # A folder that is not an RVTools CSV export is walked for specs, as lint walks one for templates.
        names = exports + _walk_folders([n for n in names if n not in exports], s, list(exclude), respect_gitignore,
                                        given[0] if given else None)
    if vcenter:
        from advisor.commands.collect import VcenterArgs, check_vcenter

        run = check_vcenter(VcenterArgs(servers=vcenter, **vcenter_args), s.catalog, s.policy,
                            s.loaded.config.workloads)
    elif exports and len(exports) == len(names):
        from advisor.rvtools.check import check_exports

        run = check_exports(exports, s.catalog, s.policy, *_estate_rules(s))
    else:
        run = _check_specs(names, exports, s, given)
    run.command = "check"
    sys.exit(emit(run, s))


def _estate_rules(s: Settings) -> tuple[Any, Any]:
    """The configuration's `workloads:` and `estate_hosts:` rules, for an RVTools export."""
    return s.loaded.config.workloads, s.loaded.config.estate_hosts


def _check_specs(names: list[str], exports: list[str], s: Settings, given: tuple[str, bytes] | None) -> Run:
    """The run over spec files (each under its own configuration) and any RVTools exports among them."""
    from advisor.commands.scopes import merge, note_unused_exemptions
    from advisor.engine.specs import check_files

    runs = []
    if exports:
        from advisor.rvtools.check import check_exports

        runs.append(check_exports(exports, s.catalog, s.policy, *_estate_rules(s)))
        names = [n for n in names if n not in exports]
    for scope in s.scopes.group(names):  # each spec file under its own configuration
        runs.append(check_files(scope.files, scope.catalog, scope.policy, scope.profiles,
                                dict([given]) if given else None))
        note_unused_exemptions(scope, runs[-1])
    return merge(runs, names)


def _walk_folders(names: list[str], s, exclude: list[str], respect_gitignore: bool | None,
                  stdin_name: str | None) -> list[str]:
    """The spec files named and found in the folders named, with lint's walk (advisor.readers.
    template_files: .gitignore, --exclude, each configuration's `exclude:`); files named are kept."""
    from pathlib import Path

    from advisor.commands.scopes import not_excluded, pick
    from advisor.errors import InputError
    from advisor.load.kinds import is_spec_file
    from advisor.readers import template_files

    named = frozenset(str(Path(n)) for n in names if n == stdin_name or not os.path.isdir(n))
    found = template_files([Path(n) for n in names], exclude,
                           pick(respect_gitignore, s.loaded.config.respect_gitignore, True), keep=is_spec_file)
    kept = [f for scope in s.scopes.group(found) for f in not_excluded(scope, scope.files, named)]
    if not kept:
        raise InputError("no spec files found (YAML with a `vms:` key)",
                         file=", ".join(n for n in names if os.path.isdir(n)))
    order = {f: i for i, f in enumerate(found)}
    return sorted(kept, key=order.__getitem__)

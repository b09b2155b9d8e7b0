"""`advisor check`: predict each proposed VM's NUMA layout and check it against the rules."""

from __future__ import annotations

import os
import sys

import click

from advisor.cli import EXIT_CODES_HELP
from advisor.commands.common import display, emit, report_options, settings, stdin_inputs, stdin_option
from advisor.commands.vcenter_options import vcenter_options


@click.command("check", epilog=EXIT_CODES_HELP)
@click.argument("files", nargs=-1, type=click.Path())
@report_options
@click.option(
    "--vcenter",
    metavar="HOST[:PORT]",
    help="Check the VMs running in this vCenter (read-only) instead of spec files; see `advisor collect vcenter`.",
)
@vcenter_options
@stdin_option
def command(
    files: tuple[str, ...],
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
    With --vcenter, the specs `advisor collect vcenter` would write are checked in one step.
    An RVTools export (.xlsx, or the folder of its `RVTools_tab*.csv` files) is checked as a running
    estate: each host with its powered-on VMs, findings pointed at the sheet and row.
    `-` reads a spec from standard input (reported as --stdin-filename, else `-`).
    """
    if bool(files or stdin_filename is not None) == bool(vcenter):
        raise click.UsageError("give spec files or --vcenter HOST (one of the two)")
    names, given = stdin_inputs(list(files), stdin_filename)
    s = settings(names, formats, outputs, fail_on, select, ignore_, config_file, rule_dirs, quiet, color)
    s.display = display(show_sources, show_skipped, verbose, topology=True)
    from advisor.rvtools.detect import is_export

    exports = [n for n in names if is_export(n)]
    for name in names:
        if name not in exports and os.path.isdir(name):  # a folder is read only as an RVTools CSV export
            raise click.BadParameter(f"'{name}' is a directory and not an RVTools CSV export", param_hint="FILES")
    if vcenter:
        from advisor.commands.collect import VcenterArgs, check_vcenter

        run = check_vcenter(VcenterArgs(server=vcenter, **vcenter_args), s.catalog, s.policy)
    elif exports and len(exports) == len(names):
        from advisor.rvtools.check import check_exports

        run = check_exports(exports, s.catalog, s.policy, s.loaded.config.workloads)
    else:
        from advisor.commands.scopes import merge, note_unused_exemptions
        from advisor.engine.specs import check_files

        runs = []
        if exports:
            from advisor.rvtools.check import check_exports

            runs.append(check_exports(exports, s.catalog, s.policy, s.loaded.config.workloads))
            names = [n for n in names if n not in exports]
        for scope in s.scopes.group(names):  # each spec file under its own configuration
            runs.append(check_files(scope.files, scope.catalog, scope.policy, scope.profiles,
                                    dict([given]) if given else None))
            note_unused_exemptions(scope, runs[-1])
        run = merge(runs, names)
    run.command = "check"
    sys.exit(emit(run, s))

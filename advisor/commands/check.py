"""`advisor check`: predict each proposed VM's NUMA layout and check it against the rules."""

from __future__ import annotations

import sys

import click

from advisor.cli import EXIT_CODES_HELP
from advisor.commands.common import emit, report_options, settings


@click.command("check", epilog=EXIT_CODES_HELP)
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@report_options
def command(files: tuple[str, ...], formats, outputs, fail_on, select, ignore_, config_file, rule_dirs,
            quiet, color) -> None:
    """Check proposed VMs (spec YAML files) against VMware's performance guidance.

    For every host: a capacity line. For every VM: the virtual NUMA topology ESXi will build,
    then findings with the evidence, the fix and the paper or document it comes from.
    A file that cannot be read is reported (file, line, field) and the other files still run.
    """
    from advisor.engine.engine import check_files

    s = settings(list(files), formats, outputs, fail_on, select, ignore_, config_file, rule_dirs, quiet, color)
    run = check_files(files, s.catalog, s.policy, s.profiles)
    sys.exit(emit(run, s))

"""`advisor collect vcenter`: read a running estate into spec files (and what `advisor check
--vcenter` runs; the options both take are in advisor.commands.vcenter_options)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from advisor.commands.vcenter_options import PASSWORD_ENV, USER_ENV, vcenter_options

COLLECT_EXIT_CODES = """\b
Exit codes:
  0  spec files written (hosts and settings left out are listed on standard error)
  2  usage error, or the vCenter could not be read (one line says why); nothing written
  3  internal error (a bug in advisor; run with --debug and report it)
"""


@dataclass
class VcenterArgs:
    server: str
    user: str | None
    password_stdin: bool
    insecure: bool
    ca_file: str | None
    timeout: float
    deadline: float
    clusters: tuple[str, ...]
    hosts: tuple[str, ...]
    vms: tuple[str, ...]


def read_estate(args: VcenterArgs) -> tuple[Any, str]:
    """Log in, read the inventory, map it; returns (advisor.vcenter.to_spec.Mapping, server).
    The connection is bounded in time and answer size (advisor.vcenter.transport)."""
    from advisor.vcenter.collect import read_inventory
    from advisor.vcenter.errors import VcenterError
    from advisor.vcenter.session import Endpoint, connect, pyvmomi
    from advisor.vcenter.to_spec import Filters, map_inventory

    endpoint = Endpoint.parse(args.server)  # before asking for anything
    user = args.user or _ask_user()
    password = _password(args.password_stdin)
    pyvmomi()
    from advisor.commands.progress import progress
    from advisor.vcenter.transport import DeadlineExceeded, ResponseTooLarge, bounded

    try:
        with bounded(args.timeout, args.deadline) as bound:
            session = connect(args.server, user, password, insecure=args.insecure, ca_file=args.ca_file,
                              timeout=args.timeout)
            del password
            try:
                with progress(f"reading {args.server}: objects") as advance:
                    inventory = read_inventory(session, progress=advance)
            finally:
                if not bound.expired:
                    session.close()
    except DeadlineExceeded:
        raise VcenterError(str(endpoint), f"no complete answer within {args.deadline:g} s (--deadline); "
                                          "nothing written") from None
    except ResponseTooLarge as exc:
        raise VcenterError(str(endpoint), f"does not answer as a vSphere API endpoint ({exc})") from None
    return map_inventory(inventory, Filters(args.clusters, args.hosts, args.vms)), inventory.server


def _ask_user() -> str:
    if sys.stdin.isatty():
        return click.prompt("vCenter user")
    raise click.UsageError(f"no user: give --user or set ${USER_ENV}")


# The longest password read from standard input: a vCenter Single Sign-On password policy
# allows at most a few dozen characters; a first line longer than this is not a password
# (`--password-stdin < /dev/zero` read until memory ran out).
MAX_PASSWORD_CHARS = 4096


def _password(from_stdin: bool) -> str:
    if from_stdin:
        if sys.stdin is None:  # started with standard input closed
            raise click.UsageError("--password-stdin: standard input is closed")
        line = sys.stdin.readline(MAX_PASSWORD_CHARS + 2)
        if not line:
            raise click.UsageError("--password-stdin: standard input is empty")
        password = line.rstrip("\r\n")
        if len(password) > MAX_PASSWORD_CHARS:
            raise click.UsageError(f"--password-stdin: the first line is longer than {MAX_PASSWORD_CHARS:,} "
                                   "characters; give the password alone on the first line")
        return password
    if os.environ.get(PASSWORD_ENV):
        return os.environ[PASSWORD_ENV]
    if sys.stdin.isatty():
        return click.prompt("vCenter password", hide_input=True)
    raise click.UsageError(f"no password: set ${PASSWORD_ENV}, pass --password-stdin, or run on a terminal")


def report_left_out(mapping: Any) -> list[str]:
    return [*mapping.skipped, *(note for spec in mapping.specs for note in spec.notes)]


@click.group("collect")
def command() -> None:
    """Read a running estate into spec files that `advisor check` reads."""


@command.command("vcenter", epilog=COLLECT_EXIT_CODES)
@click.option("--server", "-s", required=True, metavar="HOST[:PORT]", help="vCenter Server (or ESXi host) to read.")
@vcenter_options
@click.option("--output-dir", "-o", required=True, type=click.Path(file_okay=False), help="Folder for the spec files.")
def vcenter(server: str, output_dir: str, **options: Any) -> None:
    """Write one spec per host with the powered-on VMs it runs, named as in vCenter.

    Read-only: one container view and a paged PropertyCollector read, whatever the number of VMs.
    Hosts advisor cannot model (fewer NUMA nodes than sockets, ...) and VM settings a spec cannot
    state are listed on standard error and at the top of each file, never approximated.
    """
    from advisor.errors import printable
    from advisor.vcenter.specfiles import write_folder

    mapping, label = read_estate(VcenterArgs(server=server, **options))
    for line in report_left_out(mapping):
        click.echo(f"advisor: {label}: {printable(line)}", err=True)
    if not mapping.specs:
        click.echo(f"advisor: vcenter {label}: no VM to write (none matched, or all hosts were left out)", err=True)
        sys.exit(2)
    written = write_folder(mapping, Path(output_dir), label)
    stale = [name for name in written.kept if name.endswith((".yaml", ".yml"))]
    if stale:
        click.echo(f"advisor: {printable(output_dir)}: {len(stale)} spec file{'s' if len(stale) != 1 else ''} "
                   f"this run did not write (hosts no longer in vCenter or not selected) left as they were: "
                   f"{printable(', '.join(stale[:20]))}{' ...' if len(stale) > 20 else ''}", err=True)
    count = sum(1 for path in written.files if path.is_file())  # what exists, not what was meant
    vms = sum(len(spec.doc["vms"]) for spec in mapping.specs)
    click.echo(
        f"{count} spec file{'s' if count != 1 else ''} with {vms} VM{'s' if vms != 1 else ''} "
        f"written to {printable(output_dir)}"
    )


def check_vcenter(args: VcenterArgs, catalog: Any, policy: Any) -> Any:
    """`advisor check --vcenter`: the specs `collect vcenter` would write, checked in memory.

    Each spec is labelled `vcenter HOST/<file>.yaml` and its line numbers are those of the file
    `collect vcenter` writes; hosts and settings left out become the report's notes."""
    from advisor.vcenter.core import check_texts
    from advisor.vcenter.specfiles import render, stems

    mapping, label = read_estate(args)
    pairs = zip(mapping.specs, stems(mapping), strict=True)
    texts = [(f"vcenter {label}/{stem}.yaml", render(spec, label)) for spec, stem in pairs]
    if not texts:
        from advisor.vcenter.errors import VcenterError

        raise VcenterError(label, "no VM to check (none matched, or all hosts were left out)")
    from advisor.commands.progress import progress

    with progress("checking", len(texts), show=len(texts) > 1) as advance:
        return check_texts(texts, [f"{label}: {line}" for line in report_left_out(mapping)], catalog, policy,
                           advance)

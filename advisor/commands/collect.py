"""`advisor collect vcenter`: read a running estate into spec files (and what `advisor check
--vcenter` runs; the options both take are in advisor.commands.vcenter_options)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
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
    servers: tuple[str, ...]  # several for `check --vcenter A --vcenter B`
    user: str | None
    password_stdin: bool
    insecure: bool
    ca_file: str | None
    timeout: float
    deadline: float
    clusters: tuple[str, ...]
    hosts: tuple[str, ...]
    vms: tuple[str, ...]


class Estate:
    """One vCenter read and mapped: its specs (advisor.vcenter.to_spec.Mapping), its label
    (HOST[:PORT]) and its instance UUID (None from an ESXi host)."""

    __slots__ = ("instance", "label", "mapping")

    def __init__(self, mapping: Any, label: str, instance: str | None) -> None:
        self.mapping, self.label, self.instance = mapping, label, instance


def read_estates(args: VcenterArgs, workloads: Sequence[Any] = ()) -> list[Estate]:
    """Each server of `args` logged into, read and mapped, with the credentials asked for once
    (the same user and password for every server). A server that is the same vCenter as an
    earlier one (equal instance UUID: an address and a DNS name of one vCenter) is refused in one
    line: its VMs would be counted twice."""
    from advisor.vcenter.errors import VcenterError
    from advisor.vcenter.govc import read_env, same_server
    from advisor.vcenter.session import Endpoint

    govc = read_env()
    # No server given (`collect vcenter` without --server, `check --vcenter` without HOST): GOVC_URL's.
    servers = tuple(server or govc.server or "" for server in args.servers or ("",))
    if not all(servers):
        raise click.UsageError("no server given, and $GOVC_URL names none: give the vCenter as HOST[:PORT]")
    for server in servers:
        Endpoint.parse(server)  # before asking for anything
    from_url = [same_server(server, govc) for server in servers]
    user = args.user or govc.user or next((govc.url_user for hit in from_url if hit and govc.url_user), None)
    user = user or _ask_user()
    password = _password(args.password_stdin, govc.password or next(
        (govc.url_password for hit in from_url if hit and govc.url_password), None))
    out: list[Estate] = []
    seen: dict[str, str] = {}
    for server in servers:
        mapping, inventory = _read_one(args, server, user, password, govc, workloads)
        if inventory.instance and inventory.instance in seen:
            raise VcenterError(inventory.server, f"is the same vCenter as {seen[inventory.instance]} (instance UUID "
                                                 f"{inventory.instance}); give it once")
        if inventory.instance:
            seen[inventory.instance] = inventory.server
        out.append(Estate(mapping, inventory.server, inventory.instance))
    return out


def _read_one(args: VcenterArgs, server: str, user: str, password: str, govc: Any,
              workloads: Sequence[Any]) -> tuple[Any, Any]:
    """Log in, read the inventory, map it; returns (advisor.vcenter.to_spec.Mapping, Inventory).
    The connection is bounded in time and answer size (advisor.vcenter.transport)."""
    from advisor.vcenter.collect import read_inventory
    from advisor.vcenter.errors import VcenterError
    from advisor.vcenter.session import Endpoint, connect, pyvmomi
    from advisor.vcenter.to_spec import Filters, map_inventory

    endpoint = Endpoint.parse(server)
    pyvmomi()
    from advisor.commands.progress import progress
    from advisor.vcenter.transport import DeadlineExceeded, ResponseTooLarge, bounded

    try:
        with bounded(args.timeout, args.deadline) as bound:
            session = connect(server, user, password, insecure=args.insecure or govc.insecure,
                              ca_file=args.ca_file, timeout=args.timeout,
                              more_ca_files=() if args.ca_file else govc.ca_files)
            try:
                with progress(f"reading {endpoint}: objects") as advance:
                    inventory = read_inventory(session, progress=advance)
            finally:
                if not bound.expired:
                    session.close()
    except DeadlineExceeded:
        raise VcenterError(str(endpoint), f"no complete answer within {args.deadline:g} s (--deadline); "
                                          "nothing written") from None
    except ResponseTooLarge as exc:
        raise VcenterError(str(endpoint), f"does not answer as a vSphere API endpoint ({exc})") from None
    return map_inventory(inventory, Filters(args.clusters, args.hosts, args.vms), workloads), inventory


def _ask_user() -> str:
    if sys.stdin.isatty():
        return click.prompt("vCenter user")
    raise click.UsageError(f"no user: give --user or set ${USER_ENV} (or $GOVC_USERNAME)")


# The longest password read from standard input: a vCenter Single Sign-On password policy
# allows at most a few dozen characters; a first line longer than this is not a password
# (`--password-stdin < /dev/zero` read until memory ran out).
MAX_PASSWORD_CHARS = 4096


def _password(from_stdin: bool, govc_password: str | None = None) -> str:
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
    if govc_password:
        return govc_password
    if sys.stdin.isatty():
        return click.prompt("vCenter password", hide_input=True)
    raise click.UsageError(f"no password: set ${PASSWORD_ENV} (or $GOVC_PASSWORD), pass --password-stdin, or run "
                           "on a terminal")


def report_left_out(mapping: Any) -> list[str]:
    return [*mapping.skipped, *(note for spec in mapping.specs for note in spec.notes), *mapping.notes]


@click.group("collect")
def command() -> None:
    """Read a running estate into spec files that `advisor check` reads."""


@command.command("vcenter", epilog=COLLECT_EXIT_CODES)
@click.option("--server", "-s", metavar="HOST[:PORT]",
              help="vCenter Server (or ESXi host) to read (default: the host of $GOVC_URL).")
@vcenter_options
@click.option("--config", "config_file", type=click.Path(dir_okay=False),
              help="Configuration whose `workloads:` name the VMs' workloads (default: .advisor.yaml or "
                   "pyproject.toml found from the current folder up).")
@click.option("--output-dir", "-o", required=True, type=click.Path(file_okay=False), help="Folder for the spec files.")
def vcenter(server: str | None, config_file: str | None, output_dir: str, **options: Any) -> None:
    """Write one spec per host with the powered-on VMs it runs, named as in vCenter.

    Read-only: one container view and a paged PropertyCollector read, whatever the number of VMs.
    Hosts advisor cannot model (fewer NUMA nodes than sockets, ...) and VM settings a spec cannot
    state are listed on standard error and at the top of each file, never approximated. Each spec
    states the other hosts of its host's cluster (`cluster:`), and each VM the workload the
    configuration's `workloads:` give it. govc's GOVC_URL, GOVC_USERNAME, GOVC_PASSWORD,
    GOVC_INSECURE and GOVC_TLS_CA_CERTS are read as govc reads them, after advisor's own options.
    """
    from advisor.errors import printable
    from advisor.load.config import load_config
    from advisor.vcenter.specfiles import write_folder

    workloads = load_config(config_file, []).config.workloads
    estate = read_estates(VcenterArgs(servers=(server,) if server else (), **options), workloads)[0]
    mapping, label = estate.mapping, estate.label
    for line in report_left_out(mapping):
        click.echo(f"advisor: {label}: {printable(line)}", err=True)
    if not mapping.specs:
        click.echo(f"advisor: vcenter {label}: no VM to write (none matched, or all hosts were left out)", err=True)
        sys.exit(2)
    written = write_folder(mapping, Path(output_dir), label, estate.instance)
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


def check_vcenter(args: VcenterArgs, catalog: Any, policy: Any, workloads: Sequence[Any] = ()) -> Any:
    """`advisor check --vcenter` (repeatable): the specs `collect vcenter` would write, checked in
    memory. Each finding points at what it is about in vCenter, `vcenter SERVER/cluster/host/vm`
    (advisor.vcenter.to_spec.location), not at a file; hosts and settings left out become the
    report's notes."""
    from advisor.report.findings import VCENTER, EstateRead
    from advisor.vcenter.core import SpecSource, check_docs

    estates = read_estates(args, workloads)
    read = [EstateRead(VCENTER, tuple(f"vcenter {spec.location}" for spec in estate.mapping.specs))
            for estate in estates]
    sources = [SpecSource(label, spec.doc, {vm: f"vcenter {place}" for vm, place in spec.vms.items()}, spec.cluster)
               for estate, each in zip(estates, read, strict=True)
               for spec, label in zip(estate.mapping.specs, each.specs, strict=True)]
    if not sources:
        from advisor.vcenter.errors import VcenterError

        raise VcenterError(", ".join(e.label for e in estates), "no VM to check (none matched, or all hosts were "
                                                                "left out)")
    notes = [f"{estate.label}: {line}" for estate in estates for line in report_left_out(estate.mapping)]
    from advisor.commands.progress import progress

    with progress("checking", len(sources), show=len(sources) > 1) as advance:
        run = check_docs(sources, notes, catalog, policy, advance)
    run.estates.extend(read)
    return run

"""`advisor verify`: was advisor right about these VMs? ESXi's own log against the prediction."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from advisor.model.spec import Host
    from advisor.verify.esxilog import LoggedVM
    from advisor.verify.schedstats import LoggedClients

# A folder is walked for these (the VM's vmware.log, rotated vmware-N.log, saved one-liner output).
_LOG_SUFFIXES = (".log", ".txt")
MAX_FILES = 10_000


def _files(paths: tuple[str, ...]) -> tuple[list[str], list[Exception]]:
    from advisor.errors import InputError

    files: list[str] = []
    errors: list[Exception] = []
    for given in paths:
        if os.path.isdir(given):
            for root, dirs, names in os.walk(given):  # links to folders are not followed (os.walk's default)
                dirs.sort()
                files += [os.path.join(root, n) for n in sorted(names) if n.lower().endswith(_LOG_SUFFIXES)]
                if len(files) > MAX_FILES:
                    raise InputError(f"more than {MAX_FILES:,} log files under this folder", file=given)
        elif os.path.exists(given):
            files.append(given)
        else:
            errors.append(InputError("no such file or folder", file=given))
    return files, errors


@click.command("verify")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--host", "host_ref", metavar="PROFILE|FILE", help="The ESXi host the logs come from: a bundled "
              "profile name (`advisor hosts`) or a host YAML file.")
@click.option("--spec", "spec_file", type=click.Path(dir_okay=False), metavar="SPEC",
              help="Take the host from this spec (e.g. one written by `advisor collect vcenter`).")
@click.option("--vsphere", "vsphere_text", metavar="VERSION",
              help="The ESXi version that built the layouts (default: the log's own, else the host's).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "html"]), default="text",
              show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report to this file.")
@click.option("--fail-on", type=click.Choice(["never", "disagree", "any"]), default="never", show_default=True,
              help="Exit 1 when a VM disagrees with the prediction (disagree), or on any difference or note (any).")
def command(paths: tuple[str, ...], host_ref: str | None, spec_file: str | None, vsphere_text: str | None,
            fmt: str, output: str | None, fail_on: str) -> None:
    """Compare the NUMA topology ESXi logged with advisor's prediction.

    PATHS are vmware.log files, folders of them, saved output of the vmdumper one-liner
    (several VMs in one text) and `sched-stats -t numa-clients` output. For each VM: agree, or
    which of vNUMA node count and sizes, NUMA clients, cores per socket and client placement
    differ, and what the logged settings say about why. Codes and formats: docs/verify.md.

    \b
    Exit codes: 0 done (and nothing reached --fail-on), 1 --fail-on reached,
    2 a file could not be read or the host is missing (the others are still compared).
    """
    from advisor.atomic import check_target, write_atomic
    from advisor.errors import InputError
    from advisor.model.versions import Version
    from advisor.overwrites import refuse_inputs
    from advisor.verify import compare, report

    if bool(host_ref) == bool(spec_file):
        raise click.UsageError("give the host the logs come from: --host PROFILE|FILE or --spec SPEC (one of them)")
    host = _host(host_ref, spec_file)
    override = None
    if vsphere_text:
        try:
            override = Version.parse(vsphere_text)
        except ValueError as exc:
            raise InputError(str(exc), field="--vsphere") from None
    files, errors = _files(paths)
    if output:
        refuse_inputs([output], [*files, *([spec_file] if spec_file else []), *([host_ref] if host_ref else [])])
        check_target(output)

    logged, groups = _read_logs(files, errors)
    verdicts = []
    for vm in logged:
        try:
            verdicts.append(compare.compare(vm, host, override))
        except InputError as exc:
            errors.append(exc)
    paired = compare.pair(groups, logged)
    for i, group in enumerate(groups):
        version, _ = compare.choose_version(paired[i].esxi if i in paired else None, host, override)
        verdicts.append(compare.compare_clients(group, host, version, paired.get(i)))

    rendered = report.RENDERERS[fmt](verdicts, [e for e in errors if isinstance(e, InputError)])
    if output:
        write_atomic(output, rendered.encode("utf-8", "surrogateescape"))
    else:
        sys.stdout.buffer.write(rendered.encode("utf-8", "surrogateescape"))
        sys.stdout.flush()
    if errors:
        sys.exit(2)
    levels = {d.level for v in verdicts for d in v.differences}
    if (fail_on == "disagree" and "disagree" in levels) or (fail_on == "any" and levels):
        sys.exit(1)


def _read_logs(files: list[str], errors: list[Exception]) -> tuple[list[LoggedVM], list[LoggedClients]]:
    """The VMs the vmware.log files state, and the NUMA client groups sched-stats output lists
    (a file that cannot be read or parsed: its error into `errors`)."""
    from advisor.errors import InputError
    from advisor.verify import esxilog, schedstats

    logged: list[esxilog.LoggedVM] = []
    groups: list[schedstats.LoggedClients] = []
    for file in files:
        try:
            with open(file, "rb") as handle:
                data = handle.read(esxilog.MAX_BYTES + 1)
            if schedstats.looks_like(data[:4096].decode("utf-8", "replace")) and b"\x00" not in data:
                groups += schedstats.parse_text(data.decode("utf-8", "replace"), file)
            else:
                logged += esxilog.parse_bytes(data, file)
        except OSError as exc:
            errors.append(InputError(f"cannot read: {exc.strerror or exc}", file=file))
        except InputError as exc:
            errors.append(exc)
    return logged, groups


def _host(host_ref: str | None, spec_file: str | None) -> Host:
    from advisor.errors import InputError
    from advisor.load.hosts import BUNDLED
    from advisor.load.specfile import load_spec

    if spec_file:
        loaded = load_spec(spec_file)
        return loaded.host
    assert host_ref is not None
    try:
        return BUNDLED.resolve(host_ref, Path.cwd(), "--host", None)
    except InputError as exc:
        exc.field = "--host"
        raise

"""`advisor size`: ranked VM shapes for a workload on a host (or the smallest host of a cluster)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from advisor.commands.outputs import check_output, deliver, layout_width, output_option
from advisor.model.base import WORKLOADS


def load_profile_or_explain(name: str):
    """A profile by name; an unknown one is an input error naming --host and the closest profile."""
    from advisor.errors import InputError
    from advisor.load.hosts import load_profile

    try:
        return load_profile(name)
    except InputError as exc:
        raise InputError(exc.message, field="--host") from None


def _positive(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    if value is not None and value < 1:
        raise click.BadParameter("must be at least 1")
    return value


@click.command("size")
@click.option("--host", "host_refs", multiple=True, required=True, metavar="PROFILE|FILE",
              help="Host profile name or host YAML file; repeat for a cluster (shapes fit the smallest host).")
@click.option("--workload", type=click.Choice(WORKLOADS), required=True, help="Workload kind.")
@click.option("--vcpus", type=int, callback=_positive, help="vCPUs per VM you have in mind.")
@click.option("--vms", type=int, callback=_positive, help="VMs per host you want.")
@click.option("--total-vcpus", type=int, callback=_positive, help="vCPUs the workload needs on this host in total.")
@click.option(
    "--memory", "memory_text", metavar="SIZE", help="Memory per VM (e.g. 64GB); default: the node-local share."
)
@click.option("--vsphere", "vsphere_text", metavar="VERSION", help="vSphere version (default: the oldest host's ESXi).")
@click.option("--headroom", type=click.IntRange(0, 90), default=0, show_default=True,
              help="Percent of CPU and memory to leave free (HA failover, growth).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@output_option
@click.option("--emit-spec", "emit_spec", type=click.Path(dir_okay=False),
              help="Write the chosen proposal as a spec that `advisor check` accepts.")
@click.option("--pick", type=int, default=1, show_default=True, callback=_positive,
              help="Which proposal --emit-spec writes (1 = the recommended one).")
@click.option(
    "--color/--no-color", default=None, help="Colour the text report (default: on a terminal, unless NO_COLOR)."
)
def command(
    host_refs: tuple[str, ...],
    workload: str,
    vcpus: int | None,
    vms: int | None,
    total_vcpus: int | None,
    memory_text: str | None,
    vsphere_text: str | None,
    headroom: int,
    fmt: str,
    output: str | None,
    emit_spec: str | None,
    pick: int,
    color: bool | None,
) -> None:
    """Propose VM shapes that fit the host's NUMA nodes for a workload.

    Shapes come from the papers' evidence for the workload (rules/sizing/shapes.yaml): vCPUs
    aligned to a node's cores (or its threads with numa.vcpu.preferHT), VM counts that load
    every node equally, memory from the node-local share after ESXi's own. A shape is proposed
    only if `advisor check` finds no warning or error in the spec it would write.

    \b
    Exit codes: 0 proposals printed; 1 nothing passes the rules (the reasons are listed);
    2 impossible request (more vCPUs or memory than the host or vSphere version allows).
    """
    from advisor.errors import InputError
    from advisor.model.units import parse_size_mib
    from advisor.model.versions import Version
    from advisor.sizing.sizing import Request, size

    if sum(x is not None for x in (vcpus, vms, total_vcpus)) > 1:
        raise click.UsageError("give at most one of --vcpus, --vms and --total-vcpus")
    check_output(output, [r for r in host_refs if os.path.exists(r)])
    hosts, refs = _hosts(host_refs)
    try:
        memory = parse_size_mib(memory_text) if memory_text is not None else None
    except (ValueError, TypeError) as exc:
        raise InputError(str(exc), field="--memory") from None
    try:
        version = Version.parse(vsphere_text) if vsphere_text else None
    except ValueError as exc:
        raise InputError(str(exc), field="--vsphere") from None
    request = Request(workload, vcpus, vms, total_vcpus, memory, headroom, version)
    sizing = size(hosts, request, refs)

    from advisor.atomic import write_atomic
    from advisor.output.sizing import render_json, render_text, spec_text

    if emit_spec:
        if pick > len(sizing.proposals):
            raise InputError(f"--pick {pick}: there are {len(sizing.proposals)} proposals", field="--pick")
        write_atomic(Path(emit_spec), spec_text(sizing, sizing.proposals[pick - 1], pick).encode("utf-8"))
    if color is None:
        color = output is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    text = render_json(sizing) if fmt == "json" else render_text(sizing, color=bool(color),
                                                                   width=layout_width(output))
    deliver(text, output, color=bool(color))
    if not sizing.proposals:
        sys.exit(1)


def _hosts(host_refs: tuple[str, ...]) -> tuple[list[Any], dict[Any, Any]]:
    """The hosts named by --host (profile names or files), and how each was named, by host name."""
    from advisor.errors import InputError
    from advisor.load.hosts import load_host_file, load_profile, profile_names

    hosts: list[Any] = []
    refs: dict[Any, Any] = {}
    for ref in host_refs:
        if ref in profile_names():
            host = load_profile(ref)
            refs[host.name] = ref
        elif os.path.exists(ref) or ref.endswith((".yaml", ".yml")) or os.sep in ref:
            path = Path(ref)
            if not path.is_file():
                raise InputError("host file not found" if not path.exists() else "is not a file", file=ref,
                                 field="--host")
            host = load_host_file(path)
            refs[host.name] = str(path.resolve())
        else:
            host = load_profile_or_explain(ref)
        if any(h.name == host.name for h in hosts):
            raise click.UsageError(f"host '{host.name}' is given twice")
        hosts.append(host)
    return hosts, refs

"""`advisor topology`: draw what the guest sees and where ESXi homes each VM's vCPUs."""

from __future__ import annotations

import sys

import click

from advisor.commands.outputs import check_output, console_text, deliver, output_option, text_console


@click.command("topology")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--vm", "only", multiple=True, help="Only these VMs (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html", "svg"]), default="text", show_default=True,
              help="html: a self-contained page with the NUMA maps; svg: the maps alone.")
@click.option("--compare/--no-compare", default=True, show_default=True,
              help="Show the numa.vcpu.preferHT layout beside an unbalanced one.")
@output_option
def command(files: tuple[str, ...], only: tuple[str, ...], fmt: str, compare: bool, output: str | None) -> None:
    """Draw each VM's virtual NUMA topology and the host's NUMA nodes.

    For every VM: sockets × cores the guest sees, its vNUMA nodes (a Coreinfo-style map),
    the NUMA clients ESXi schedules, and which physical node each lands on, beside the other
    VMs of the same spec.
    """
    from advisor.errors import InputError, printable, problems
    from advisor.facts.facts import placement_facts
    from advisor.load.specfile import load_spec
    from advisor.numa.topology import predict
    from advisor.numa.variants import prefer_ht_variant

    check_output(output, files)
    from advisor.output.terminal import use_color

    color = fmt == "text" and output is None and use_color(None, sys.stdout)
    results = []
    place_facts: list[dict] = []
    failed = False
    for file in files:
        try:
            loaded = load_spec(file)
        except InputError as exc:
            for problem in problems(exc):
                click.echo(f"advisor: {printable(str(problem))}", err=True)
            failed = True
            continue
        host, version = loaded.host, loaded.version
        topos = [(vm, predict(host, vm, version)) for vm in loaded.spec.vms]
        facts, placement = placement_facts(host, topos)
        place_facts.append(facts)
        chosen = [(vm, t) for vm, t in topos if not only or vm.name in only]
        results.append((loaded, placement, [(vm, t, prefer_ht_variant(host, vm, version, t) if compare else None)
                                            for vm, t in chosen]))

    if fmt == "json":
        text = _as_json(results)
    elif fmt in ("html", "svg"):
        from advisor.output import render as render_report

        text = render_report(fmt, _as_run(results, place_facts, compare))
    else:
        from advisor.output.topology_view import render

        console = text_console(output, color)
        render(results, console)
        text = console_text(console)
    if results or not failed:
        deliver(text, output, color=color)
    if failed:
        sys.exit(2)


def _as_json(results) -> str:
    """The layouts as advisor's JSON document (schema advisor/v1)."""
    from advisor.output.escape import json_for_terminal

    doc = {
        "schema": "advisor/v1",
        "files": [
            {
                "file": loaded.file,
                "host": loaded.host.name,
                "vsphere": str(loaded.version),
                "node_load": placement.load,
                "vms": [
                    {"name": vm.name, "count": vm.count, "topology": t.as_dict(),
                     "prefer_ht_topology": alt.as_dict() if alt else None}
                    for vm, t, alt in vms
                ],
            }
            for loaded, placement, vms in results
        ],
    }
    text: str = json_for_terminal(doc)
    return text


def _as_run(results, place_facts: list[dict], compare: bool):
    """The drawn layouts as a report without findings, for the picture formats."""
    from advisor.engine.hostresult import host_result, vm_layouts
    from advisor.report.findings import Run, VmResult

    run = Run()
    run.command = "topology"  # the formats then say no rule ran, rather than print totals of zero
    for (loaded, placement, vms), facts in zip(results, place_facts, strict=True):
        host, version = loaded.host, loaded.version
        run.files.append(loaded.file)
        run.hosts.append(host_result(host, version, facts, placement, loaded.file))
        for vm, topo, _ in vms:
            topo_dict, layouts = vm_layouts(topo, host, vm, version, alternatives=compare)
            run.vms.append(VmResult(vm.name, loaded.file, host.name, vm.count, None, topo_dict, layouts=layouts))
    return run

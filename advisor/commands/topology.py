"""`advisor topology`: draw what the guest sees and where ESXi homes each VM's vCPUs."""

from __future__ import annotations

import json
import sys

import click


def _prefer_ht_variant(host, vm, version):
    """The same VM with numa.vcpu.preferHT=TRUE, when that changes its layout."""
    from advisor.numa.topology import predict

    if vm.setting("numa.vcpu.preferHT") is not None or host.prefer_ht or host.threads_per_core < 2:
        return None
    variant = vm.model_copy(deep=True)
    variant.advanced = {**vm.advanced, "numa.vcpu.preferHT": "TRUE"}
    variant.__pydantic_private__.pop("_adv", None)
    alt = predict(host, variant, version)
    current = predict(host, vm, version)
    if alt.vnuma_nodes == current.vnuma_nodes and alt.numa_clients == current.numa_clients:
        return None
    return alt


@click.command("topology")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--vm", "only", multiple=True, help="Only these VMs (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--compare/--no-compare", default=True, show_default=True,
              help="Show the numa.vcpu.preferHT layout beside an unbalanced one.")
def command(files: tuple[str, ...], only: tuple[str, ...], fmt: str, compare: bool) -> None:
    """Draw each VM's virtual NUMA topology and the host's NUMA nodes.

    For every VM: sockets × cores the guest sees, its vNUMA nodes (a Coreinfo-style map),
    the NUMA clients ESXi schedules, and which physical node each lands on, beside the other
    VMs of the same spec.
    """
    from advisor.errors import InputError
    from advisor.load.specfile import load_spec
    from advisor.numa.placement import place
    from advisor.numa.topology import predict

    results = []
    failed = False
    for file in files:
        try:
            loaded = load_spec(file)
        except InputError as exc:
            click.echo(f"advisor: {exc}", err=True)
            failed = True
            continue
        host, version = loaded.host, loaded.version
        topos = [(vm, predict(host, vm, version)) for vm in loaded.spec.vms]
        placement = place(host, [(vm.name, vm.count, t) for vm, t in topos])
        chosen = [(vm, t) for vm, t in topos if not only or vm.name in only]
        results.append(
            (
                loaded,
                placement,
                [(vm, t, _prefer_ht_variant(host, vm, version) if compare else None) for vm, t in chosen],
            )
        )

    if fmt == "json":
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
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        from advisor.output.topology_view import render

        render(results)
    if failed:
        sys.exit(2)

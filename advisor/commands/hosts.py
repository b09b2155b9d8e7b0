"""`advisor hosts`: the bundled host profiles as a table."""

from __future__ import annotations

import json

import click


@click.command("hosts")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--sources", is_flag=True, help="Add a column naming where each profile's figures come from.")
def command(fmt: str, sources: bool) -> None:
    """List the host profiles in hosts/ (use their names as `host:` in a spec)."""
    from advisor.load.hosts import load_profile, profile_names
    from advisor.model.units import format_mib

    hosts = [load_profile(name) for name in profile_names()]
    if fmt == "json":
        click.echo(json.dumps([h.model_dump(mode="json") for h in hosts], indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Host profiles", show_lines=False)
    table.add_column("name", no_wrap=True)
    table.add_column("CPU")
    table.add_column("S×C×T", no_wrap=True)
    table.add_column("NUMA nodes", no_wrap=True)
    table.add_column("mem/node", no_wrap=True, justify="right")
    table.add_column("ESXi", no_wrap=True)
    if sources:
        table.add_column("source", overflow="fold")
    for h in hosts:
        row = [
            h.name,
            h.cpu or "",
            f"{h.sockets}×{h.cores_per_socket}×{h.threads_per_core}",
            f"{h.nodes}×{h.cores_per_node}c" + (f" {h.numa_mode}" if h.numa_mode else ""),
            format_mib(h.memory_per_node),
            str(h.esxi),
        ]
        table.add_row(*row, *([h.source or ""] if sources else []))
    Console(width=None if Console().is_terminal else 100).print(table)

"""`advisor hosts`: the bundled host profiles as a table."""

from __future__ import annotations

import json

import click


@click.command("hosts")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(fmt: str) -> None:
    """List the host profiles in hosts/ (use their names as `host:` in a spec)."""
    from advisor.hosts import load_profile, profile_names
    from advisor.units import format_mib

    hosts = [load_profile(name) for name in profile_names()]
    if fmt == "json":
        click.echo(json.dumps([h.model_dump(mode="json") for h in hosts], indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Host profiles", show_lines=False)
    for column in ("name", "CPU", "sockets×cores×threads", "NUMA nodes", "memory/node", "ESXi", "source"):
        table.add_column(column, overflow="fold")
    for h in hosts:
        table.add_row(
            h.name,
            h.cpu or "",
            f"{h.sockets}×{h.cores_per_socket}×{h.threads_per_core}",
            f"{h.nodes} × {h.cores_per_node} cores" + (f" ({h.numa_mode})" if h.numa_mode else ""),
            format_mib(h.memory_per_node),
            str(h.esxi),
            (h.source or "")[:60],
        )
    Console().print(table)

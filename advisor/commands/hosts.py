"""`advisor hosts`: the bundled host profiles as a table."""

from __future__ import annotations

import json

import click

from advisor.commands.outputs import check_output, console_text, deliver, output_option, text_console


@click.command("hosts")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--sources", is_flag=True, help="Add a column naming where each profile's figures come from.")
@output_option
def command(fmt: str, sources: bool, output: str | None) -> None:
    """List the host profiles in hosts/ (use their names as `host:` in a spec)."""
    from advisor.load.hosts import load_profile, profile_names
    from advisor.model.units import format_mib

    check_output(output)
    hosts = [load_profile(name) for name in profile_names()]
    if fmt == "json":
        deliver(json.dumps([h.model_dump(mode="json") for h in hosts], indent=2), output)
        return
    from rich.table import Table

    table = Table(title="Host profiles", box=None, pad_edge=False, show_edge=False, header_style="bold")
    # On a narrow terminal the columns wrap (no cell is cut to "…"); the name never does.
    table.add_column("name", no_wrap=True)
    table.add_column("CPU", min_width=8)
    table.add_column("S×C×T", overflow="fold")
    table.add_column("NUMA nodes")
    table.add_column("mem/node", justify="right", overflow="fold", min_width=8)
    table.add_column("ESXi", overflow="fold")
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
    console = text_console(output)  # the terminal's width (a file: the default width)
    console.print(table)
    deliver(console_text(console), output)

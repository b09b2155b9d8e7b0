"""Rich rendering of topologies: guest view (Coreinfo-style), NUMA clients, host nodes."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from advisor.model.units import format_mib
from advisor.output.escape import command_safe, one_line
from advisor.output.terminal import use_color, width

_PALETTE = ["cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan", "bright_magenta"]


def _console() -> Console:
    """Standard output at the terminal's width (advisor.output.terminal), coloured per
    FORCE_COLOR / NO_COLOR / a terminal."""
    color = use_color(None, sys.stdout)
    return Console(width=width(sys.stdout), color_system="standard" if color else None, force_terminal=color,
                   no_color=not color, highlight=False)


def _guest_map(topo: Any) -> Text:
    """One row per vNUMA node, one character per vCPU, like Sysinternals Coreinfo's NUMA map."""
    out = Text("guest NUMA map (node:vCPUs)\n", style="dim")
    step = -(-topo.vcpus // 32)  # one character per `step` vCPUs keeps rows ≤ 32 wide
    width = -(-topo.vcpus // step)
    start = 0
    for index, size in enumerate(topo.vnuma_nodes):
        first, last = start // step, (start + size - 1) // step
        row = "-" * first + "*" * (last - first + 1) + "-" * (width - last - 1)
        out.append(f"{row} n{index}:{size}\n")
        start += size
    if step > 1:
        out.append(f"(one mark = {step} vCPUs)\n")
    sockets = (f"{topo.sockets} socket{'s' if topo.sockets != 1 else ''}"
               f" × {topo.cores_per_socket} core{'s' if topo.cores_per_socket != 1 else ''}")
    out.append(f"presented as {sockets} ({topo.cores_per_socket_source})")
    return out


def _topology_panel(title: str, topo: Any, host: Any) -> Panel:
    body = Table.grid(padding=(0, 1))
    body.add_row(Text(topo.summary(), style="bold"))
    body.add_row(_guest_map(topo))
    if topo.numa_managed:
        pairs = zip(topo.numa_clients, topo.client_nodes, strict=False)
        clients = ", ".join(f"{size}→node {node}" for size, node in pairs)
        body.add_row(Text(f"NUMA clients: {clients}"))
        ht = "yes" if topo.uses_hyperthreads else "no"
        body.add_row(Text(f"needs hyper-threads to stay on its nodes: {ht}"))
    if topo.memory_remote_mib:
        body.add_row(
            Text(
                f"memory: {format_mib(topo.memory_local_mib)} local, {format_mib(topo.memory_remote_mib)} remote",
                style="yellow",
            )
        )
    for reason in topo.reasons:
        body.add_row(Text(f"· {one_line(reason)}", style="dim"))
    for note in topo.uncertain:
        body.add_row(Text(f"? uncertain: {one_line(note)}", style="italic yellow"))
    # A title given as text would be read as Rich markup: a VM called `[/x]` must print as itself.
    return Panel(body, title=Text(title), expand=True)


def _host_panel(loaded: Any, placement: Any) -> Panel:
    host = loaded.host
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    table.add_column("node", no_wrap=True)
    table.add_column("socket", no_wrap=True)
    table.add_column("vCPU/threads", no_wrap=True)
    table.add_column("residents (vCPUs)")
    colours: dict[str, str] = {}
    for node in range(host.nodes):
        load = placement.load[node]
        style = "red" if load > host.threads_per_node else ("yellow" if load > host.cores_per_node else "green")
        residents = Text()
        for name, size, instances in placement.residents[node]:
            colours.setdefault(name, _PALETTE[len(colours) % len(_PALETTE)])
            times = f"×{instances}" if instances > 1 else ""
            residents.append(f"{one_line(name)}:{size}{times} ", style=colours[name])
        table.add_row(
            str(node), str(node // host.numa_nodes_per_socket),
            Text(f"{load}/{host.threads_per_node}", style=style), residents,
        )
    title = (
        f"host {one_line(host.name)}: {host.sockets}×{host.cores_per_socket} cores×{host.threads_per_core} threads, "
        f"{host.nodes} NUMA nodes × {host.cores_per_node} cores, {format_mib(host.memory_per_node)}/node, "
        f"vSphere {loaded.version}"
    )
    return Panel(table, title=Text(title), expand=False)


def render(results: list[tuple[Any, Any, list[tuple[Any, Any, Any]]]], console: Console | None = None) -> None:
    """Print the layouts to `console` (default: standard output)."""
    console = console or _console()
    for loaded, placement, vms in results:
        # The one line that begins with text from outside: a file named `::error::x` must not be a
        # workflow command in a CI log.
        console.print(Text(command_safe(one_line(loaded.file)), style="bold underline"))
        for vm, topo, alt in vms:
            count = f" ×{vm.count}" if vm.count > 1 else ""
            current = _topology_panel(f"{one_line(vm.name)}{count} as specified", topo, loaded.host)
            if alt is not None and not topo.balanced and alt.balanced:
                pair = Table.grid(expand=True, padding=(0, 1))
                pair.add_column(ratio=1)
                pair.add_column(ratio=1)
                pair.add_row(current, _topology_panel(f"{one_line(vm.name)} with numa.vcpu.preferHT = TRUE", alt,
                                                      loaded.host))
                console.print(pair)
            else:
                console.print(current)
        console.print(_host_panel(loaded, placement))

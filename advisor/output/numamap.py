"""The NUMA map as a picture: one SVG per host layout, sockets → NUMA nodes → cores → threads.

Each hardware thread is a cell coloured by the VM whose vCPU is homed on its node, and each node
has a memory bar split the same way. Which thread a vCPU runs on at a given moment is the
scheduler's choice at run time; the map only shows where each NUMA client is homed, drawing a
node's vCPUs on its cores first and on the second hyper-threads after, so a node that needs
hyper-threads shows it. The SVG is plain text with no script, font or image fetched, so a page
that embeds it is self-contained.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from advisor.output.escape import xml as escape
from advisor.output.hostmaps import HostMap, Resident

# Colour-blind-safe categorical palette (Okabe & Ito), then a few more distinct hues.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
           "#7F3C8D", "#11A579", "#3969AC", "#F2B701", "#E73F74", "#80BA5A", "#E68310", "#008695")
FREE = "#eeeeee"
OVER = "#c00000"
OTHER = "#b8b8b8"  # the other VMs of the host, on one VM's own map
OTHERS = "\x00others"  # the legend's key for them (no VM name holds a NUL)

CELL = 13  # one hardware thread
GAP = 3
PAD = 8
NODE_HEAD = 16
MEM_BAR = 8
SOCKET_HEAD = 16


def colours(names: list[str]) -> dict[str, str]:
    """A stable colour per VM name, in first-seen order."""
    out: dict[str, str] = {}
    for name in names:
        out.setdefault(name, PALETTE[len(out) % len(PALETTE)])
    return out


def _grid(cores: int) -> tuple[int, int]:
    """Columns and rows of a node's core grid: about twice as wide as tall."""
    cols = max(1, min(cores, math.ceil(math.sqrt(cores * 2))))
    return cols, math.ceil(cores / cols)


def _threads(node: list[Resident], cores: int, threads_per_core: int
             ) -> tuple[list[tuple[Resident, int] | None], int]:
    """The resident drawn on each thread with which of its vCPUs (cores' first threads, then their
    second...), and how many vCPUs did not fit the node's threads at all."""
    order: list[tuple[Resident, int] | None] = [None] * (cores * threads_per_core)
    slot = 0
    over = 0
    for resident in node:
        for vcpu in range(resident.vcpus):
            if slot >= len(order):
                over += 1
                continue
            thread, core = divmod(slot, cores)
            order[core * threads_per_core + thread] = (resident, vcpu)
            slot += 1
    return order, over


def _mib(mib: int) -> str:
    if mib >= 1024 * 1024 and mib % (1024 * 1024) == 0:
        return f"{mib // (1024 * 1024)} TB"
    if mib >= 1024:
        gb = mib / 1024
        return f"{gb:.0f} GB" if gb == int(gb) else f"{gb:.1f} GB"
    return f"{mib} MB"


@dataclass(frozen=True, slots=True)
class _Box:
    """Sizes of one map, in SVG user units."""

    cols: int
    core_w: int
    legend: tuple[tuple[tuple[str, str, int], ...], ...]  # rows of (key, label, x)
    legend_y: int
    node_w: int
    node_h: int
    socket_w: int
    socket_h: int
    socket_cols: int
    width: int
    height: int


TITLE_H = 22
LEGEND_ROW = 16  # one row of the legend under a map
LEGEND_NOTE = "node n · v/t: v vCPUs homed on t threads; digit: vNUMA node; ring: pinned; bar: memory"


def _box(layout: HostMap, caption: str) -> _Box:
    cols, rows = _grid(layout.cores_per_node)
    core_w = CELL * layout.threads_per_core + (layout.threads_per_core - 1)
    node_w = PAD * 2 + cols * core_w + (cols - 1) * GAP
    node_h = NODE_HEAD + rows * CELL + (rows - 1) * GAP + GAP * 2 + MEM_BAR + PAD
    per_socket = layout.nodes_per_socket
    socket_w = PAD * 2 + node_w
    socket_h = SOCKET_HEAD + per_socket * node_h + (per_socket - 1) * PAD + PAD
    socket_cols = max(1, min(layout.sockets, 2))
    socket_rows = math.ceil(layout.sockets / socket_cols)
    # Wide enough for the caption too (about 7 units per character at font-size 12).
    width = max(socket_cols * socket_w + (socket_cols - 1) * PAD + 2, math.ceil(len(caption) * 7.2) + 2)
    maps_h = TITLE_H + socket_rows * socket_h + (socket_rows - 1) * PAD + 2
    keys = [(r.vm, _short(r.vm)) for r in _legend_residents(layout)]
    keys += [(OTHERS, "other VMs")] * has_others(layout) + [("", "free")]
    width = max(width, max(_entry_w(label) for _, label in keys), math.ceil(len(LEGEND_NOTE) * 6) + 2)
    lines: list[list[tuple[str, str, int]]] = [[]]
    x = 1
    for key, label in keys:  # flow the entries into lines as wide as the map
        if lines[-1] and x + _entry_w(label) > width:
            lines.append([])
            x = 1
        lines[-1].append((key, label, x))
        x += _entry_w(label)
    height = maps_h + (len(lines) + 1) * LEGEND_ROW + 2
    return _Box(cols, core_w, tuple(tuple(r) for r in lines), maps_h, node_w, node_h, socket_w, socket_h,
                socket_cols, width, height)


SHORT = 40  # characters of a name shown in a legend (the whole name is in its tooltip)


def _short(name: str) -> str:
    return name if len(name) <= SHORT else name[:SHORT - 1] + "…"


def _entry_w(label: str) -> int:
    """A legend entry: swatch, label at font-size 10 (about 6 units a character), gap."""
    return 14 + math.ceil(len(label) * 6.2) + 12


def _legend_residents(layout: HostMap) -> list[Resident]:
    """One resident per VM drawn on the map, in the order they first appear."""
    seen: dict[str, Resident] = {}
    for node in layout.residents:
        for resident in node:
            if not resident.other:
                seen.setdefault(resident.vm, resident)
    for names in layout.pinned.values():
        for name in names:
            seen.setdefault(name, Resident(name, name, 0, 0))
    return list(seen.values())


def has_others(layout: HostMap) -> bool:
    """Whether the map draws other VMs of the host (grey) beside its own."""
    return any(r.other for node in layout.residents for r in node)


def size(layout: HostMap, caption: str) -> tuple[int, int]:
    """Width and height of the map of `layout` under `caption`."""
    box = _box(layout, caption)
    return box.width, box.height


def svg(layout: HostMap, caption: str, palette: dict[str, str], *, x: int | None = None, y: int | None = None) -> str:
    """The map of one host layout as an `<svg>` element; `x`/`y` place it inside another SVG."""
    box = _box(layout, caption)
    per_socket = layout.nodes_per_socket
    width, height, socket_w, socket_h, socket_cols = box.width, box.height, box.socket_w, box.socket_h, box.socket_cols
    node_w, node_h, cols, core_w = box.node_w, box.node_h, box.cols, box.core_w
    title_h = TITLE_H
    place = f' x="{x}" y="{y}"' if x is not None and y is not None else ""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="numa-map" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}"{place} data-host="{escape(layout.host)}">',
        f"<title>{escape(caption)}</title>",
        f'<text x="1" y="15" class="cap" font-size="12" font-weight="bold">{escape(caption)}</text>',
    ]
    for socket in range(layout.sockets):
        sx = 1 + (socket % socket_cols) * (socket_w + PAD)
        sy = title_h + (socket // socket_cols) * (socket_h + PAD)
        parts.append(f'<g class="socket" data-socket="{socket}">')
        parts.append(f'<rect x="{sx}" y="{sy}" width="{socket_w}" height="{socket_h}" rx="6" fill="none" '
                     'stroke="#555" stroke-width="1.5"/>')
        parts.append(f'<text x="{sx + PAD}" y="{sy + 12}" font-size="11" font-weight="bold">socket {socket}</text>')
        for local in range(per_socket):
            node = socket * per_socket + local
            if node >= layout.nodes:
                break
            nx = sx + PAD
            ny = sy + SOCKET_HEAD + local * (node_h + PAD)
            parts.append(_node(layout, node, nx, ny, node_w, node_h, cols, core_w, palette))
        parts.append("</g>")
    parts.append(_legend(layout, box, palette))
    parts.append("</svg>")
    return "".join(parts)


def _legend(layout: HostMap, box: _Box, palette: dict[str, str]) -> str:
    """The colour key inside the map, so the SVG reads alone (saved, embedded or printed)."""
    parts = ['<g class="legend">']
    y = box.legend_y
    for row in box.legend:
        for key, label, x in row:
            colour = OTHER if key == OTHERS else (palette.get(key, "#999") if key else FREE)
            mark = (' data-others=""' if key == OTHERS else f' data-vm="{escape(key)}"') if key else ' data-free=""'
            parts.append('<g class="legend-entry"' + mark
                         + f'><title>{escape("other VMs" if key == OTHERS else key or "free")}</title>'
                         f'<rect x="{x}" y="{y + 3}" width="10" height="10" fill="{colour}" stroke="#555" '
                         f'stroke-width="0.5"/><text x="{x + 14}" y="{y + 12}" font-size="10">'
                         f"{escape(label)}</text></g>")
        y += LEGEND_ROW
    parts.append(f'<text class="legend-note" x="1" y="{y + 12}" font-size="10" fill="#444">'
                 f"{escape(LEGEND_NOTE)}</text></g>")
    return "".join(parts)


def _node(layout: HostMap, node: int, x: int, y: int, w: int, h: int, cols: int, core_w: int,
          palette: dict[str, str]) -> str:
    residents = layout.residents[node] if node < len(layout.residents) else []
    load = sum(r.vcpus for r in residents)
    threads = layout.cores_per_node * layout.threads_per_core
    order, over = _threads(residents, layout.cores_per_node, layout.threads_per_core)
    stroke = OVER if over else ("#b07000" if load > layout.cores_per_node else "#777")
    pinned = sum(1 for (n, _) in layout.pinned if n == node)
    head = f"node {node} · {load}/{threads}" + (f" · {pinned} pinned" if pinned else "")
    parts = [
        f'<g class="node" data-node="{node}" data-load="{load}" data-threads="{threads}" data-pinned="{pinned}">'
        f"<title>node {node}: {load} vCPUs homed on {threads} hardware threads"
        + (f"; {pinned} of them pinned by sched.cpu.affinity" if pinned else "") + "</title>",
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="4" fill="#fff" stroke="{stroke}"/>',
        f'<text x="{x + PAD}" y="{y + 12}" font-size="10">{escape(head)}'
        + (f' <tspan fill="{OVER}" font-weight="bold">+{over} over</tspan>' if over else "") + "</text>",
    ]
    for core in range(layout.cores_per_node):
        cx = x + PAD + (core % cols) * (core_w + GAP)
        cy = y + NODE_HEAD + (core // cols) * (CELL + GAP)
        parts.append(f'<rect class="core" x="{cx - 0.5}" y="{cy - 0.5}" width="{core_w + 1}" height="{CELL + 1}" '
                     'fill="none" stroke="#444" stroke-width="0.6"/>')
        for thread in range(layout.threads_per_core):
            slot = core * layout.threads_per_core + thread
            tx = cx + thread * (CELL + 1)
            parts.append(_thread(order[slot], core, thread, tx, cy, palette))
            for name in layout.pinned.get((node, slot), ()):
                parts.append(f'<rect class="pinned" x="{tx + 2}" y="{cy + 2}" width="{CELL - 4}" height="{CELL - 4}" '
                             f'fill="none" stroke="{palette.get(name, "#999")}" stroke-width="2.5" '
                             f'data-vm="{escape(name)}" data-slot="{slot}">'
                             f"<title>{escape(name)}: pinned to this logical CPU (sched.cpu.affinity)</title></rect>")
    parts.append(_memory_bar(layout, residents, x + PAD, y + h - PAD - MEM_BAR, w - 2 * PAD, palette))
    parts.append("</g>")
    return "".join(parts)


def _thread(drawn: tuple[Resident, int] | None, core: int, thread: int, x: int, y: int,
            palette: dict[str, str]) -> str:
    """One hardware thread: free, or the VM (another VM in grey) whose vCPU is homed on it, with
    the guest's vNUMA node of that vCPU as a digit and a lighter shade on odd vNUMA nodes, so
    the split reads over the cores."""
    if drawn is None:
        return (f'<rect class="thread" x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{FREE}">'
                f"<title>core {core} thread {thread}: free</title></rect>")
    resident, vcpu = drawn
    tip = f"core {core} thread {thread}: {resident.label}"
    if resident.other:
        return (f'<rect class="thread" x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{OTHER}" '
                f'data-other="{escape(resident.vm)}"><title>{escape(tip)}</title></rect>')
    marks = f' data-vm="{escape(resident.vm)}"'
    if resident.instance is not None:
        marks += f' data-instance="{resident.instance}"'
    vnode = resident.vnuma[vcpu] if vcpu < len(resident.vnuma) else None
    if vnode is not None:
        marks += f' data-vnuma="{vnode}"'
        tip += f", vNUMA node {vnode}"
    shade = ' fill-opacity="0.6"' if vnode is not None and vnode % 2 else ""
    out = (f'<rect class="thread" x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
           f'fill="{palette.get(resident.vm, "#999")}"{shade}{marks}><title>{escape(tip)}</title></rect>')
    if vnode is not None:
        out += (f'<text class="vnuma" x="{x + CELL / 2}" y="{y + CELL - 3}" font-size="{8 if vnode < 10 else 6}" '
                'text-anchor="middle" fill="#fff" stroke="#000" stroke-width="0.3" pointer-events="none">'
                f"{vnode}</text>")
    return out


def _memory_bar(layout: HostMap, residents: list[Resident], x: int, y: int, w: int, palette: dict[str, str]) -> str:
    capacity = max(1, layout.memory_per_node_mib)
    used = sum(r.memory_mib for r in residents)
    parts = [f'<rect class="memory" x="{x}" y="{y}" width="{w}" height="{MEM_BAR}" fill="{FREE}" stroke="#999" '
             f'stroke-width="0.5"><title>memory {escape(_mib(used))} of {escape(_mib(capacity))}</title></rect>']
    # One segment per run of the same VM: a counted VM's instances are drawn apart on the threads,
    # but thousands of slivers of one colour would only weigh on the file.
    runs: list[tuple[Resident, int, int]] = []  # (first resident, memory, residents)
    for resident in residents:
        if runs and (runs[-1][0].vm, runs[-1][0].other) == (resident.vm, resident.other):
            first, memory, n = runs[-1]
            runs[-1] = (first, memory + resident.memory_mib, n + 1)
        else:
            runs.append((resident, resident.memory_mib, 1))
    offset = 0.0
    for resident, memory, n in runs:
        share = w * memory / max(capacity, used)
        colour, mark = (OTHER, "data-other") if resident.other else (palette.get(resident.vm, "#999"), "data-vm")
        label = resident.label if n == 1 else f"{resident.vm}, {n} NUMA clients"
        parts.append(f'<rect class="memory-use" x="{x + offset:.1f}" y="{y}" width="{share:.1f}" height="{MEM_BAR}" '
                     f'fill="{colour}" {mark}="{escape(resident.vm)}">'
                     f"<title>{escape(label)}: {escape(_mib(memory))}</title></rect>")
        offset += share
    if used > capacity:
        parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{MEM_BAR}" fill="none" stroke="{OVER}" '
                     'stroke-width="1.5"/>')
    return "".join(parts)

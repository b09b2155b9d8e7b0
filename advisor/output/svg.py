"""The NUMA maps alone, as one standalone SVG document (`advisor topology --format svg`).

Row by row: each host with every VM as the placement homes them, then each VM's own layout and,
beside it, the numa.vcpu.preferHT one when that balances it; the same maps the HTML report
shows. Each map keeps its title, so the picture reads without the page around it.
"""

from __future__ import annotations

import advisor.output.hostmaps as hostmaps
import advisor.output.numamap as numamap
from advisor.output.escape import xml as escape
from advisor.report.findings import Run

GAP = 16


def render(run: Run) -> str:
    palette = numamap.colours([vm.name for vm in run.vms])
    rows: list[list[tuple[hostmaps.HostMap, str]]] = []
    for host in run.hosts:
        vms = [v for v in run.vms if v.file == host.file and v.host == host.name]
        rows.append([(hostmaps.host_map(host, vms), hostmaps.host_caption(host))])
        for vm in vms:
            rows.append([(hostmaps.layout_map(host, vm, layout, vms), f"{vm.name}: {layout.title}")
                         for layout in vm.layouts])
    parts: list[str] = []
    y, width = 0, 0
    for row in rows:
        x, height = 0, 0
        for layout, caption in row:
            w, h = numamap.size(layout, caption)
            parts.append(numamap.svg(layout, caption, palette, x=x, y=y))
            x, height = x + w + GAP, max(height, h)
        width, y = max(width, x - GAP), y + height + GAP
    keys = "; ".join(f"{name}: {colour}" for name, colour in palette.items())
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {max(width, 1)} {max(y - GAP, 1)}" '
            f'width="{max(width, 1)}" height="{max(y - GAP, 1)}" font-family="sans-serif">'
            f"<title>advisor NUMA maps</title><desc>{escape(keys)}</desc>"
            f'<rect width="100%" height="100%" fill="#fff"/>' + "".join(parts) + "</svg>\n")

"""The HTML report renders for every example and for counted VMs, without a browser.

(The browser test in tests/slow checks the page in Chromium; this one guards the map's data path
in the default run: counted VMs reach the map as (name, client vCPUs, instances) per node.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO

EXAMPLES = sorted((REPO / "examples").glob("*.yaml"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_renders_as_html(cli, example: Path) -> None:
    result = cli("check", "--fail-on", "never", "--format", "html", example)
    assert result.code == 0, result.err
    assert result.out.lstrip().lower().startswith("<!doctype html")
    assert "<svg" in result.out


def test_counted_vms_show_their_instances_on_each_node(cli, tmp_path: Path) -> None:
    spec = tmp_path / "counted.yaml"
    spec.write_text(
        "host: hp-dl580-g7\n"
        "vms:\n"
        "  - {name: web, vcpus: 4, memory: 8GB, count: 12}\n"
        "  - {name: db, vcpus: 40, memory: 64GB}\n",
        encoding="utf-8",
    )
    result = cli("check", "--fail-on", "never", "--format", "html", spec)
    assert result.code == 0, result.err
    # A 40-vCPU VM, a 10-vCPU client on each node, then 12 four-vCPU VMs over the 4 nodes: three
    # instances per node, drawn as one resident each.
    assert "web×3" in result.out
    assert "db" in result.out

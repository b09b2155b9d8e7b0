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


def test_a_counted_vm_draws_as_many_elements_at_any_count(cli, tmp_path: Path) -> None:
    """Each instance of a counted VM is drawn apart on its own map, but the drawing is bounded by
    the host's threads: 20,000 instances make no more elements than 200 (issue 34, item 6)."""
    pages = []
    for count in (200, 20000):
        spec = tmp_path / f"counted-{count}.yaml"
        spec.write_text(f"host: hp-dl580-g7\nvms:\n  - {{name: web, vcpus: 2, memory: 4GB, count: {count}}}\n"
                        "  - {name: db, vcpus: 16, memory: 64GB, count: 3}\n", encoding="utf-8")
        result = cli("check", "--fail-on", "never", "--format", "html", spec)
        assert result.code == 0, result.err
        pages.append(result.out)
    # The same cells; only the over-subscription outlines may differ (a few per map).
    assert pages[1].count("<rect") <= pages[0].count("<rect") + 50
    assert pages[0].count("data-instance=") == pages[1].count("data-instance=") > 0

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


def _estate_page(cli, folder: Path, vms: int) -> str:
    """The HTML page of a generated RVTools export: `vms` VMs of 2 to 16 vCPUs, 25 on each host of
    2×10 cores with HT (an estate grows by hosts: ESXi caps the VMs a host runs), three in four with
    an emulated NIC (NET001, their only finding)."""
    from rvtools_gen import GenHost, GenVM, sheets, write_csv_folder

    hosts = [GenHost(f"esx{h:02d}") for h in range(-(-vms // 25))]
    guests = [GenVM(f"vm{i:04d}", hosts[i // 25].name, cpus=2 << (i % 4), memory_mb=4096,
                    nics=["Vmxnet3"] if i % 4 == 3 else ["E1000"]) for i in range(vms)]
    export = write_csv_folder(folder, sheets(hosts, guests))
    result = cli("check", "--fail-on", "never", "--format", "html", export)
    assert result.code == 0, result.err
    return result.out


def test_an_estate_page_grows_by_a_small_constant_per_vm_not_by_a_host_drawing(cli, tmp_path: Path) -> None:
    """Issue 37: each VM's own maps drew every thread of its host, 28 KB per VM (a 10,000-VM export
    made a 283 MB page). Past MAX_VM_MAPS VMs, the page draws a map per host and the own maps of
    MAX_VM_MAPS VMs at most: twice the VMs add a row, an article and their findings each, and their
    hosts' maps, counted in bytes and elements."""
    from advisor.output.html import MAX_VM_MAPS

    small, large = (_estate_page(cli, tmp_path / str(n), n) for n in (150, 300))
    for page, vms in ((small, 150), (large, 300)):
        assert page.count("<svg") <= vms // 25 + 2 * MAX_VM_MAPS  # a host map each, 1 or 2 layouts per drawn VM
        drawn = min(MAX_VM_MAPS, vms - vms // 4)  # the VMs with a finding, up to MAX_VM_MAPS
        assert f'data-vms="{vms}" data-drawn="{drawn}" data-omitted="{vms - drawn}"' in page
        assert page.count('<figure class="layout"') >= drawn
        assert page.count('<article class="vm"') == vms  # every VM keeps its article
        assert page.count("<tr data-vm=") == vms  # and its row
    added = 300 - 150
    # Each VM: its share of its host's drawing (about 70 cells for 25 VMs) and a memory bar per node it is
    # on; it was about 90 more, a 2×10×2-thread host drawn for it alone.
    assert (large.count("<rect") - small.count("<rect")) / added <= 6
    assert (len(large) - len(small)) / added <= 3000  # was about 28,000 bytes


def test_a_page_of_max_vm_maps_vms_draws_every_vms_own_maps(cli, tmp_path: Path) -> None:
    """Up to MAX_VM_MAPS VMs the page is as it always was: every VM's own maps, no note."""
    from advisor.output.html import MAX_VM_MAPS

    page = _estate_page(cli, tmp_path, MAX_VM_MAPS)
    assert page.count('<figure class="layout"') >= MAX_VM_MAPS
    assert "maps-omitted" not in page and "map-omitted" not in page


def test_the_readme_states_the_page_size_where_the_code_sets_it() -> None:
    from advisor.output.html import MAX_VM_MAPS

    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert f"A page of more than {MAX_VM_MAPS} VMs draws the own layouts of the {MAX_VM_MAPS} VMs" in text


def test_a_topology_page_of_many_vms_draws_the_first_max_vm_maps_vms_own_maps(cli, tmp_path: Path) -> None:
    """`advisor topology` runs no rules, so no finding ranks the VMs: the first MAX_VM_MAPS are drawn."""
    from advisor.output.html import MAX_VM_MAPS

    spec = tmp_path / "many.yaml"
    spec.write_text("host: hp-dl580-g7\nvms:\n" + "".join(f"  - {{name: vm{i:03d}, vcpus: 2, memory: 4GB}}\n"
                                                        for i in range(MAX_VM_MAPS + 20)), encoding="utf-8")
    result = cli("topology", "--format", "html", spec)
    assert result.code == 0, result.err
    page = result.out
    assert f'data-drawn="{MAX_VM_MAPS}" data-omitted="20">' in page and "the first in report order" in page
    drawn = [a for a in page.split('<article class="vm"')[1:] if "<svg" in a.split("</article>")[0]]
    assert [a[len(' data-vm="'):].split('"')[0] for a in drawn] == [f"vm{i:03d}" for i in range(MAX_VM_MAPS)]

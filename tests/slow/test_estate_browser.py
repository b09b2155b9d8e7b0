"""The estate part of the HTML report (issue 37): the one-row-per-VM table and the estate summary
open the page, before the per-file sections, as headless Chromium parses and lays them out. DOM
assertions, no pixels. Skips without Chromium, fails so under CI=true (.ci/run installs it)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import REPO, require_tool
from rvtools_gen import GenHost, GenVM, sheets, write_csv_folder
from test_maps_browser import CHROMIUM, _advisor, _at_phone_width, _drawn_vms, _dump, _tree

pytestmark = pytest.mark.slow
EXPORT = str(REPO / "examples" / "rvtools")


@pytest.fixture(autouse=True)
def _needs_chromium() -> None:
    require_tool("headless Chromium", CHROMIUM, "apt-get install chromium")


def test_the_report_opens_with_the_estate_summary_and_the_vm_table_of_the_csv(tmp_path):
    _advisor("check", EXPORT, "--format", "html", "-o", "r.html", "--format", "json", "-o", "r.json", cwd=tmp_path)
    report = json.loads((tmp_path / "r.json").read_text())
    rows = list(csv.DictReader(io.StringIO(_advisor("check", EXPORT, "--format", "csv", cwd=tmp_path).stdout)))
    root = _tree(_dump(tmp_path, tmp_path / "r.html"))
    body = root.all("body")[0]
    order = [c.attrs.get("class", "") for c in body.children if c.tag == "section"]
    assert order.index("estate") < order.index("file"), order  # before every per-file section
    estate = next(c for c in body.children if c.attrs.get("class") == "estate")
    counts = {tr.attrs["data-estate"]: int(tr.all("td")[0].content()) for tr in estate.all("tr")
              if "data-estate" in tr.attrs}
    assert counts == {"VMs": len(report["vms"]), "hosts": len(report["hosts"]), "clusters": 1}
    summary = estate.all("table", "estate-counts")[0]
    verdicts = {tr.attrs["data-verdict"]: int(tr.all("td")[0].content()) for tr in summary.all("tr")
                if "data-verdict" in tr.attrs}
    assert verdicts == {v: sum(1 for r in rows if r["verdict"] == v) for v in ("error", "warning", "info", "ok")}
    assumptions = estate.all("ul", "assumptions")[0].all("li")
    assert any("one NUMA node per socket assumed" in li.content() and li.attrs["data-hosts"] == "3"
               for li in assumptions)
    table = estate.all("table", "vm-table")[0]
    assert [th.content() for th in table.all("th")][:3] == ["VM", "host", "cluster"]
    shown = [[td.content() for td in tr.all("td")] for tr in table.all("tbody")[0].all("tr")]
    assert shown == [[" ".join(v.split()) for v in r.values()] for r in rows]  # the CSV's cells, in its order


@pytest.mark.parametrize("width", [390, 320])
def test_the_vm_table_never_widens_the_page_at_a_phones_width(tmp_path, width):
    """Eleven columns do not fit a phone: the table scrolls in its own box, the page does not. Names
    without a break opportunity (a long VM and host name) must wrap or scroll inside that box."""
    long = "vm-with-a-name-that-has-no-space-in-it-at-all-" * 3
    hosts = [GenHost("esx-" + "h" * 80), GenHost("esx02", cluster="c-" + "x" * 90)]
    vms = [GenVM(long + str(i), hosts[i % 2].name, cpus=2 + 2 * i, memory_mb=4096) for i in range(6)]
    folder = write_csv_folder(tmp_path / "export", sheets(hosts, vms))
    _advisor("check", str(folder), "--format", "html", "-o", "r.html", cwd=tmp_path)
    measure = _at_phone_width(tmp_path, (tmp_path / "r.html").read_text(), width, ".map-scroll, .table-scroll")
    assert measure["viewport"] == width
    assert measure["page"] <= width, measure["wide"]
    assert not measure["wide"], measure["wide"]  # nothing outside a scrolling box is wider than its own box


def test_a_page_of_more_than_max_vm_maps_vms_draws_host_maps_and_the_worst_vms_own_maps(tmp_path):
    """Past MAX_VM_MAPS VMs (issue 37: a 10,000-VM export made a 283 MB page), the page says at its
    top how many VMs' own maps it left out; it draws a map per host, which between them show every
    VM, and the own maps of the MAX_VM_MAPS VMs whose worst finding is the most severe (the CSV's
    verdict), in report order; every VM keeps its row and its article."""
    from advisor.output.html import MAX_VM_MAPS

    hosts = [GenHost(f"esx{h}") for h in range(6)]
    # Three in four with an emulated NIC (a warning); the last ten latency-sensitive High without
    # reservations (an error), so severity, not order alone, picks the VMs drawn.
    vms = [GenVM(f"vm{i:03d}", hosts[i // 25].name, cpus=2 << (i % 4), memory_mb=4096,
                 nics=["Vmxnet3"] if i % 4 == 3 else ["E1000"], latency="high" if i >= 140 else "normal")
           for i in range(150)]
    folder = write_csv_folder(tmp_path / "export", sheets(hosts, vms))
    _advisor("check", str(folder), "--format", "html", "-o", "r.html", cwd=tmp_path)
    rows = list(csv.DictReader(io.StringIO(_advisor("check", str(folder), "--format", "csv", cwd=tmp_path).stdout)))
    root = _tree(_dump(tmp_path, tmp_path / "r.html"))
    body = root.all("body")[0]
    note = body.all("p", "maps-omitted")
    assert len(note) == 1 and body.children.index(note[0]) < body.children.index(body.all("section", "estate")[0])
    assert (note[0].attrs["data-vms"], note[0].attrs["data-drawn"]) == ("150", str(MAX_VM_MAPS))
    assert f"left out for the other {150 - MAX_VM_MAPS}" in note[0].content()
    worst_first = [r["vm"] for verdict in ("error", "warning") for r in rows if r["verdict"] == verdict]
    assert len(worst_first) > MAX_VM_MAPS and worst_first[:10] == [f"vm{i}" for i in range(140, 150)]
    articles = body.all("article", "vm")
    assert [a.attrs["data-vm"] for a in articles] == [r["vm"] for r in rows]
    drawn = [a.attrs["data-vm"] for a in articles if a.all("svg", "numa-map")]
    assert sorted(drawn) == sorted(worst_first[:MAX_VM_MAPS])
    for article in articles:
        assert bool(article.all("p", "map-omitted")) != (article.attrs["data-vm"] in drawn)
    host_maps = [f.all("svg", "numa-map")[0] for f in body.all("figure", "host-map")]
    assert sorted(m.attrs["data-host"] for m in host_maps) == [h.name for h in hosts]
    assert set().union(*(_drawn_vms(m) for m in host_maps)) == {v.name for v in vms}
    assert len(body.all("svg")) == len(hosts) + len(body.all("figure", "layout"))

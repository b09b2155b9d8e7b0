"""The NUMA maps of the HTML report and the standalone SVG, as headless Chromium builds them
(issue 34, item 6): every point is a DOM assertion on what the browser parsed and laid out, not
a pixel snapshot. Skips without Chromium, fails so under CI=true (.ci/run installs it)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import REPO, require_tool, which

CHROMIUM = which("chromium", "chromium-browser", "google-chrome")
pytestmark = pytest.mark.slow
EXAMPLES = sorted(str(p) for p in (REPO / "examples").glob("*.yaml"))
MIXED = str(REPO / "examples" / "mixed-cluster.yaml")  # a 2×56-core host
SQL = str(REPO / "examples" / "sql-server-64vcpu.yaml")


@pytest.fixture(autouse=True)
def _needs_chromium() -> None:
    require_tool("headless Chromium", CHROMIUM, "apt-get install chromium")


def _advisor(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "advisor", *argv], capture_output=True, text=True, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return result


def _dump(tmp_path: Path, page: Path, *args: str) -> str:
    # A profile of its own: several runs (or people) on one machine must not share one.
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
               f"--user-data-dir={tmp_path / 'profile'}", *args, "--dump-dom", page.as_uri()]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert "<svg" in result.stdout or "data-measure" in result.stdout, result.stderr[-2000:]
    return result.stdout


class Node:
    """One element of the DOM Chromium serialised: tag, attributes, children, text."""

    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node] = []
        self.text: list[str] = []

    def all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        out = []
        for child in self.children:
            if (tag is None or child.tag == tag) and (cls is None or cls in child.attrs.get("class", "").split()):
                out.append(child)
            out.extend(child.all(tag, cls))
        return out

    def content(self) -> str:
        return " ".join(" ".join([*self.text, *(c.content() for c in self.children)]).split())

    def own_title(self) -> str:
        return next((c.content() for c in self.children if c.tag == "title"), "")


_VOID = {"meta", "link", "br", "img", "input", "hr", "area", "base", "col", "embed", "source", "track", "wbr"}


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.root = Node("#document", {}, None)
        self.at = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, self.at)
        self.at.children.append(node)
        if tag not in _VOID:
            self.at = node

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.at))

    def handle_endtag(self, tag):
        node = self.at
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.at = node.parent

    def handle_data(self, data):
        self.at.text.append(data)


def _tree(text: str) -> Node:
    tree = _Tree()
    tree.feed(text)
    return tree.root


def _maps(root: Node) -> list[Node]:
    return root.all("svg", "numa-map")


def _report(tmp_path: Path, *files: str, command: str = "check") -> tuple[Node, dict]:
    if command == "check":
        _advisor("check", *files, "--format", "html", "-o", "r.html", "--format", "json", "-o", "r.json", cwd=tmp_path)
        report = json.loads((tmp_path / "r.json").read_text())
    else:
        (tmp_path / "r.html").write_text(_advisor("topology", *files, "--format", "html", cwd=tmp_path).stdout)
        report = {}
    return _tree(_dump(tmp_path, tmp_path / "r.html")), report


def test_topology_html_prints_no_finding_totals_where_check_finds_warnings(tmp_path):
    checked, report = _report(tmp_path, SQL)
    assert report["summary"]["warning"] > 0
    assert f"{report['summary']['warning']} warnings" in checked.all("p", "totals")[0].content()
    drawn, _ = _report(tmp_path, SQL, command="topology")
    assert not drawn.all("p", "totals")
    text = drawn.content()
    assert "0 warnings" not in text and "0 errors" not in text
    assert "evaluates no rules" in drawn.all("p", "scope")[0].content()
    assert not drawn.all("table", "findings-by-rule")  # no findings table either
    assert len(_maps(drawn)) == len(_maps(checked))  # the same maps


def test_estate_summary_at_the_top_counts_hosts_vms_and_findings_by_rule_and_severity(tmp_path):
    root, report = _report(tmp_path, *EXAMPLES)
    body = root.all("body")[0]
    header, summary = [c for c in body.children if c.tag in ("header", "section")][:2]
    assert header.tag == "header" and "summary" in summary.attrs.get("class", "")
    counts = {tr.attrs["data-count"]: int(tr.all("td")[0].content())
              for tr in summary.all("tr") if "data-count" in tr.attrs}
    assert counts["hosts"] == len(report["hosts"]) and counts["VMs"] == len(report["vms"])
    assert counts["VM instances (count:)"] == sum(v["count"] for v in report["vms"])
    assert counts["files"] == len(EXAMPLES)
    shown = Counter((f["rule"], f["severity"]) for f in report["findings"] if f["suppressed"] is None)
    table = {(tr.attrs["data-summary-rule"], tr.attrs["data-severity"]): int(tr.all("td")[-1].content())
             for tr in summary.all("tr") if "data-summary-rule" in tr.attrs}
    assert table == dict(shown) and sum(table.values()) > 0


def _drawn_vms(svg: Node) -> set[str]:
    return {r.attrs["data-vm"] for r in svg.all("rect") if "data-vm" in r.attrs}


def _check_legends(maps: list[Node]) -> None:
    assert maps
    for svg in maps:
        legends = svg.all("g", "legend")
        assert len(legends) == 1, svg.own_title()
        keys = {e.attrs["data-vm"] for e in legends[0].all("g", "legend-entry") if "data-vm" in e.attrs}
        assert keys == _drawn_vms(svg), svg.own_title()  # a key for every VM drawn, none for others
        assert any("data-free" in e.attrs for e in legends[0].all("g", "legend-entry"))


def test_every_map_of_the_html_report_has_a_legend_and_each_host_map_names_its_file(tmp_path):
    root, report = _report(tmp_path, *EXAMPLES)
    maps = _maps(root)
    _check_legends(maps)
    host_maps = [f.all("svg", "numa-map")[0] for f in root.all("figure", "host-map")]
    assert sorted(m.attrs["data-host"] for m in host_maps) == sorted(h["name"] for h in report["hosts"])
    for svg, host in zip(host_maps, [h for h in report["hosts"]], strict=True):
        assert host["file"] in svg.own_title() and host["file"] in svg.all("text", "cap")[0].content()


def test_standalone_svg_has_a_legend_in_every_map_and_each_host_map_names_its_file(tmp_path):
    out = _advisor("topology", *EXAMPLES, "--format", "svg", cwd=tmp_path).stdout
    (tmp_path / "maps.svg").write_text(out)
    root = _tree(_dump(tmp_path, tmp_path / "maps.svg"))
    _check_legends(_maps(root))
    captions = [svg.own_title() for svg in _maps(root) if ", every VM as placed" in svg.own_title()]
    assert len(captions) == len(EXAMPLES)  # one host per example file
    for example in EXAMPLES:
        assert sum(1 for c in captions if c.startswith(example + ":")) == 1, example


_MEASURE = """
<script>
const page = document.querySelector("iframe");
page.onload = () => {
  const doc = page.contentDocument, win = page.contentWindow;
  const maps = [...doc.querySelectorAll("svg.numa-map")].map(svg => {
    const box = svg.parentElement;
    return {width: svg.getBoundingClientRect().width, viewbox: svg.viewBox.baseVal.width,
            boxClient: box.clientWidth, boxScroll: box.scrollWidth,
            overflow: win.getComputedStyle(box).overflowX};
  });
  // What is wider than its own box, outside a box that scrolls: named when the page is too wide.
  const wide = [...doc.querySelectorAll("body *")].filter(el => el.scrollWidth > el.clientWidth + 1
      && !el.closest(".map-scroll") && el.clientWidth > 0)
    .map(el => el.tagName + "." + el.className + " " + el.scrollWidth + ">" + el.clientWidth).slice(0, 10);
  document.body.setAttribute("data-measure", JSON.stringify(
    {viewport: win.innerWidth, page: doc.documentElement.scrollWidth, maps, wide}));
};
</script>
"""


def _at_phone_width(tmp_path: Path, page: str, width: int, scrolling: str = ".map-scroll") -> dict:
    """What _MEASURE reports of `page` laid out in a frame `width` px wide (a viewport of its own:
    headless Chromium's window is at least 500 px wide). `scrolling`: the boxes meant to scroll."""
    frame = tmp_path / "phone.html"
    frame.write_text(f'<!DOCTYPE html><html><body style="margin:0">'
                     f'<iframe style="width:{width}px;height:800px;border:0" srcdoc="{escape(page)}"></iframe>'
                     f"{_MEASURE.replace('.map-scroll', scrolling)}</body></html>")
    return json.loads(_tree(_dump(tmp_path, frame)).all("body")[0].attrs["data-measure"])


@pytest.mark.parametrize("width", [390, 320])
def test_a_2x56_core_host_is_readable_at_a_phones_width(tmp_path, width):
    """At a phone's width the map keeps its size (a thread stays 13 px) and scrolls sideways in
    its own box; the page itself does not scroll sideways. Headless Chromium's window is at least
    500 px wide, so the report is laid out in a frame of `width` px (a viewport of its own). The
    spec sits under a long folder name, as on a CI runner: a path is one word that must still wrap,
    whatever the machine's fonts (this failed on a runner whose path was longer than ours)."""
    deep = tmp_path / ("a-checkout-folder-with-a-long-name-" * 3).rstrip("-") / "examples"
    deep.mkdir(parents=True)
    spec = deep / "mixed-cluster.yaml"
    spec.write_text(Path(MIXED).read_text())
    root, _ = _report(tmp_path, str(spec))
    measure = _at_phone_width(tmp_path, (tmp_path / "r.html").read_text(), width)
    assert measure["viewport"] == width
    assert measure["page"] <= width, measure["wide"]  # nothing widens the page
    assert len(measure["maps"]) == len(_maps(root)) >= 3
    for m in measure["maps"]:
        assert m["width"] == m["viewbox"] > width  # drawn at full size, not scaled down
        assert m["overflow"] == "auto" and m["boxClient"] <= width and m["boxScroll"] >= m["width"]


def _per_node(svg: Node, vm: str) -> dict[int, int]:
    """vCPUs of `vm` drawn on each physical node of a map."""
    out = {}
    for node in svg.all("g", "node"):
        out[int(node.attrs["data-node"])] = sum(1 for r in node.all("rect", "thread") if r.attrs.get("data-vm") == vm)
    return out


def _own_maps(root: Node, vm: str) -> dict[str, Node]:
    article = next(a for a in root.all("article", "vm") if a.attrs["data-vm"] == vm)
    return {f.attrs["data-layout"]: f.all("svg", "numa-map")[0] for f in article.all("figure", "layout")}


def test_the_vnuma_split_is_drawn_over_the_cores_of_each_layout(tmp_path):
    root, _ = _report(tmp_path, SQL)
    topo = json.loads(_advisor("topology", SQL, "--format", "json", cwd=tmp_path).stdout)["files"][0]["vms"][0]
    maps = _own_maps(root, "sql-oltp01")
    for title, topology in (("as specified", topo["topology"]),
                            ("with numa.vcpu.preferHT = TRUE", topo["prefer_ht_topology"])):
        cells = [r for r in maps[title].all("rect", "thread") if r.attrs.get("data-vm") == "sql-oltp01"]
        drawn = Counter(int(r.attrs["data-vnuma"]) for r in cells)
        assert [drawn[i] for i in range(len(drawn))] == topology["vnuma_nodes"], title  # [10×6, 4], then [16×4]
        digits = Counter(t.content() for t in maps[title].all("text", "vnuma"))
        assert digits == Counter(str(i) for i in drawn.elements())  # each cell says its vNUMA node
        for node in maps[title].all("g", "node"):  # a vNUMA node's vCPUs are homed on one physical node
            here = {r.attrs["data-vnuma"] for r in node.all("rect", "thread") if "data-vnuma" in r.attrs}
            for other in maps[title].all("g", "node"):
                if other is not node:
                    assert not here & {r.attrs.get("data-vnuma") for r in other.all("rect", "thread")}


COUNTED = """host: hp-dl580-g7
vms:
  - {name: web, vcpus: 4, memory: 8GB, count: 5}
  - {name: pinned-db, vcpus: 4, memory: 16GB, cpu_affinity: "20-23"}
  - {name: sql, vcpus: 24, memory: 64GB}
"""


@pytest.mark.parametrize("spec", ["mixed", "counted"])
def test_each_vm_and_counted_instance_is_drawn_where_the_host_map_places_it(tmp_path, spec):
    if spec == "counted":
        (tmp_path / "counted.yaml").write_text(COUNTED)
        files = [str(tmp_path / "counted.yaml")]
    else:
        files = [MIXED]
    root, report = _report(tmp_path, *files)
    host_map = root.all("figure", "host-map")[0].all("svg", "numa-map")[0]
    placed = 0
    for vm in report["vms"]:
        if not vm["topology"]["numa_managed"]:
            continue
        own = _own_maps(root, vm["name"])["as specified"]
        assert _per_node(own, vm["name"]) == _per_node(host_map, vm["name"]), vm["name"]
        assert sum(_per_node(own, vm["name"]).values()) == vm["topology"]["vcpus"] * vm["count"]
        instances = {r.attrs.get("data-instance") for r in own.all("rect", "thread") if r.attrs.get("data-vm")}
        assert instances == ({str(i) for i in range(vm["count"])} if vm["count"] > 1 else {None})
        placed += 1
    assert placed == 2
    if spec == "mixed":  # the case issue 34 names: the smaller VM is homed on node 1, beside sql-wide
        own = _own_maps(root, "sql-sized-for-the-cluster")["as specified"]
        assert _per_node(own, "sql-sized-for-the-cluster") == {0: 0, 1: 24}
        assert {r.attrs["data-other"] for r in own.all("rect", "thread") if "data-other" in r.attrs} == {"sql-wide"}


def test_a_pinned_vm_is_drawn_on_its_pinned_cpus(tmp_path):
    (tmp_path / "counted.yaml").write_text(COUNTED)
    root, report = _report(tmp_path, str(tmp_path / "counted.yaml"))
    (pinned,) = [v for v in report["vms"] if not v["topology"]["numa_managed"]]
    host_map = root.all("figure", "host-map")[0].all("svg", "numa-map")[0]
    own = _own_maps(root, pinned["name"])["as specified"]
    for svg in (host_map, own):
        # CPUs 20-23 of a host with 10 cores × 2 threads per node: node 1, its first two cores' threads.
        marks = [(int(r.parent.attrs["data-node"]), int(r.attrs["data-slot"])) for r in svg.all("rect", "pinned")]
        assert sorted(marks) == [(1, 0), (1, 1), (1, 2), (1, 3)]
        assert all(r.attrs["data-vm"] == "pinned-db" for r in svg.all("rect", "pinned"))
        assert {n.attrs["data-node"]: n.attrs["data-pinned"] for n in svg.all("g", "node")} == {
            "0": "0", "1": "4", "2": "0", "3": "0"}
        assert "pinned-db" in {e.attrs.get("data-vm") for e in svg.all("g", "legend-entry")}

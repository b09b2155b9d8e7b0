"""The HTML report opened in a real browser: headless Chromium (Debian's `chromium`) loads the page
from disk, the DOM it builds is checked for every host, VM and finding of the run, and a
screenshot is taken. Skips when no Chromium is installed, fails so under CI=true (.ci/run installs it)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import REPO, require_tool, which

CHROMIUM = which("chromium", "chromium-browser", "google-chrome")
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _needs_chromium() -> None:
    require_tool("headless Chromium", CHROMIUM, "apt-get install chromium")
EXAMPLES = sorted(str(p) for p in (REPO / "examples").glob("*.yaml"))


def _advisor(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "advisor", *argv], capture_output=True, text=True, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return result


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # A profile of its own: several runs (or people) on one machine must not share one.
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


class _Dom(HTMLParser):
    """Attributes of the elements Chromium serialised, and the page's text."""

    def __init__(self) -> None:
        super().__init__()
        self.attrs: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.attrs.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data):
        self.text.append(data)

    def values(self, name: str) -> set[str]:
        return {a[name] for _, a in self.attrs if name in a}


def _dom(tmp_path: Path, page: Path) -> _Dom:
    result = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert "<svg" in result.stdout, result.stderr[-2000:]
    dom = _Dom()
    dom.feed(result.stdout)
    return dom


def test_report_of_every_example_renders_with_every_host_vm_and_finding(tmp_path):
    _advisor("check", *EXAMPLES, "--format", "html", "-o", "report.html", "--format", "json", "-o", "report.json",
             cwd=tmp_path)
    report = json.loads((tmp_path / "report.json").read_text())
    dom = _dom(tmp_path, tmp_path / "report.html")
    assert {h["name"] for h in report["hosts"]} <= dom.values("data-host")
    assert {v["name"] for v in report["vms"]} <= dom.values("data-vm")
    shown = [f for f in report["findings"] if f["suppressed"] is None]
    rules = [a["data-rule"] for tag, a in dom.attrs if tag == "li" and "data-rule" in a]
    assert sorted(rules) == sorted(f["rule"] for f in shown)
    text = " ".join(" ".join(dom.text).split())
    for f in shown:
        assert " ".join(f["message"].split()) in text, f["rule"]
    # Nothing is fetched: no script, stylesheet, image or frame with a source.
    assert not [a for tag, a in dom.attrs if tag in ("script", "link", "img", "iframe") or "src" in a]


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.mark.parametrize("width,height", [(1400, 1000), (390, 844)])
def test_sql_server_64_vcpu_shows_default_and_prefer_ht_layouts(tmp_path, width, height):
    _advisor("check", str(REPO / "examples" / "sql-server-64vcpu.yaml"), "--format", "html", "-o", "sql.html",
             cwd=tmp_path)
    dom = _dom(tmp_path, tmp_path / "sql.html")
    text = " ".join(" ".join(dom.text).split())
    layouts = [a["data-layout"] for tag, a in dom.attrs if tag == "figure" and "data-layout" in a]
    assert layouts == ["as specified", "with numa.vcpu.preferHT = TRUE"]
    assert "7 vNUMA nodes [10×6, 4]" in text and "4 vNUMA nodes [16×4]" in text
    # One SVG thread cell per hardware thread (4 sockets × 10 cores × 2 threads), per map.
    maps = [a for tag, a in dom.attrs if tag == "svg" and "numa-map" in a.get("class", "")]
    assert len(maps) == 3  # the host with every VM, then the VM's two layouts
    threads = [a for tag, a in dom.attrs if tag == "rect" and a.get("class") == "thread"]
    assert len(threads) == 3 * 80
    assert sum(1 for a in threads if a.get("data-vm") == "sql-oltp01") == 3 * 64
    shot = tmp_path / "sql.png"
    result = _chromium(tmp_path, f"--screenshot={shot}", f"--window-size={width},{height}",
                       (tmp_path / "sql.html").as_uri())
    assert shot.is_file(), result.stderr[-2000:]
    assert _png_size(shot) == (width, height)

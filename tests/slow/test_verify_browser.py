"""`advisor verify --format html` opened in headless Chromium: one row a VM, its state as data, the
summary, and a hostile VM name shown as text (Debian's `chromium`: skips without it, fails so under
CI=true; .ci/run installs it)."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import REPO, require_tool, which

CHROMIUM = which("chromium", "chromium-browser", "google-chrome")
pytestmark = pytest.mark.slow
EX = REPO / "examples" / "verify"


class _Dom(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, str]] = []
        self.text: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        if tag == "tr" and dict(attrs).get("data-state"):
            self.rows.append({k: v or "" for k, v in attrs})
        self.scripts += tag == "script"

    def handle_data(self, data):
        self.text.append(data)


def test_the_verify_page_in_a_browser(tmp_path: Path) -> None:
    chromium = require_tool("headless Chromium", CHROMIUM, "apt-get install chromium")
    log = tmp_path / "vmware.log"
    log.write_text('DICT displayName = "<script>alert(1)</script>\u202e"\n'
                   + (EX / "memory-wide-vm" / "vmware.log").read_text())
    small = tmp_path / "small.yaml"
    small.write_text("name: small\nsockets: 2\ncores_per_socket: 4\nmemory: 64GB\nesxi: '8.0'\n")
    pages = []
    for host in (EX / "lab-2x20.yaml", small):
        page = tmp_path / f"{host.stem}.html"
        result = subprocess.run([sys.executable, "-m", "advisor", "verify", str(log), str(EX / "sched-stats.txt"),
                                 "--host", str(host), "--format", "html", "-o", str(page)],
                                capture_output=True, text=True, cwd=REPO)
        assert result.returncode == 0, result.stderr
        pages.append(page)
    states = []
    for page in pages:
        dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                              f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
                             capture_output=True, text=True, timeout=180)
        parsed = _Dom()
        parsed.feed(dom.stdout)
        assert len(parsed.rows) == 2, dom.stderr[-2000:]
        assert parsed.scripts == 0
        assert any("<script>alert(1)</script>" in t for t in parsed.text)
        states.append([r["data-state"] for r in parsed.rows])
    assert states[0] == ["agree", "agree"]
    assert "disagree" in states[1]

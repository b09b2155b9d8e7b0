"""Shared test helpers: run the CLI in-process, and find ../shared when it exists."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


# advisor's on-disk cache (advisor.engine.cache) goes to a folder of this test session, for this
# process and every CLI process the tests start (set before test modules build their
# environments): the suite neither reads a developer's cache nor leaves entries in it.
_CACHE = tempfile.TemporaryDirectory(prefix="advisor-test-cache-")
os.environ["ADVISOR_CACHE_DIR"] = _CACHE.name


# An organisation rule (advisor check --rules DIR) for tests of user rule folders; its condition
# is filled in by org_rule().
_ORG_RULE = """\
rules:
  - id: ORG001
    name: org-rule
    severity: warning
    summary: An organisation rule for the tests
    when: WHEN
    message: "{vm.name} has a problem here"
    rationale: Our organisation keeps VMs small so that they fit everywhere we run them.
    references: [{doc: Internal policy, url: "https://example.com/policy"}]
    fix: {text: Use two vCPUs.}
    examples:
      fail: [{host: hp-dl580-g7, vms: [{name: a, vcpus: 4, memory: 8GB}]}]
      pass: [{host: hp-dl580-g7, vms: [{name: a, vcpus: 2, memory: 8GB}]}]
"""


def org_rule(when: str = "vm.vcpus > 2") -> str:
    """The text of a one-rule file whose condition is `when` (as a JSON string, which is a YAML
    double-quoted one, so any expression survives)."""
    return _ORG_RULE.replace("WHEN", json.dumps(when))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/slow carries the `slow` marker, so the folder decides the pass."""
    slow = Path(__file__).resolve().parent / "slow"
    for item in items:
        if slow in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@dataclass
class CliResult:
    code: int
    out: str
    err: str
    spec: Path | None = None  # for tests that remember which inputs they passed
    bad: Path | None = None


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """advisor.cli.main() - the wrapper users run - with argv patched, SystemExit caught and
    stdout/stderr captured, so the no-traceback contract is what is tested.
    """
    from advisor.cli import main

    monkeypatch.delenv("ADVISOR_DEBUG", raising=False)

    def run(*args: object) -> CliResult:
        monkeypatch.setattr(sys, "argv", ["advisor", *map(str, args)])
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            main()
        out, err = capsys.readouterr()
        code = info.value.code
        return CliResult(0 if code is None else code if isinstance(code, int) else 1, out, err)

    yield run

"""Shared test helpers: run the CLI in-process, find ../shared, and require the real tools some
tests drive (skipped on a developer's machine without them, failed under CI=true)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


# advisor's on-disk cache (advisor.cost.disk) goes to a folder of this test session, for this
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


T = TypeVar("T")


def under_ci() -> bool:
    """CI runs `.ci/run` with CI=true (as GitHub Actions and most CI services set it)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require_tool(what: str, found: T | None, install: str) -> T:
    """`found` (the tool's path, module, folder, ...) when there is one. Without it the test skips
    on a developer's machine, saying how to get the tool; under CI=true it FAILS with the same
    reason, since .ci/run installs every tool a test needs: a broken install must not turn into a
    green run whose real-tool tests all skipped (issue 39, item 10)."""
    if found is not None and found is not False:
        return found
    reason = f"{what} is not available ({install})"
    if under_ci():
        pytest.fail(f"CI=true and {reason}: .ci/run installs it, so the test fails rather than skips",
                    pytrace=False)
    pytest.skip(reason)


def which(*names: str, also: Iterable[str | Path] = ()) -> str | None:
    """The first of `names` on PATH, else the first executable file in `also` (the places an
    installer puts a tool outside PATH, such as ~/go/bin)."""
    for name in names:
        if found := shutil.which(name):
            return found
    return next((str(p) for p in also if os.access(p, os.X_OK) and Path(p).is_file()), None)


def require_module(name: str, install: str) -> object:
    """The imported module `name`, through require_tool (a test dependency CI installs)."""
    import importlib

    try:
        module = importlib.import_module(name)
    except ImportError:
        module = None
    return require_tool(f"the Python module {name}", module, install)


def require_shared(*parts: str) -> Path:
    """../shared (or a folder in it): CI lays a copy beside the clone (see .ci/run)."""
    path = SHARED.joinpath(*parts)
    return require_tool("../" + "/".join(("shared", *parts)), path if path.is_dir() else None,
                        "the project's shared folder beside the repository")


@pytest.fixture
def shared_dir() -> Path:
    return require_shared()


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

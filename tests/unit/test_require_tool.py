"""CI honesty (issue 39, item 10): a test whose real tool is missing skips on a developer's machine
and FAILS under CI=true, and .ci/run stops when an install step fails instead of going on."""

from __future__ import annotations

import subprocess

import pytest
from conftest import REPO, require_shared, require_tool, which


def test_a_found_tool_is_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert require_tool("sh", "/bin/sh", "it is everywhere") == "/bin/sh"


def test_a_missing_tool_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"no-such-tool is not available \(apt-get install it\)"):
        require_tool("no-such-tool", which("advisor-no-such-tool-4f1c"), "apt-get install it")


@pytest.mark.parametrize("value", ["true", "True", "1"])
def test_a_missing_tool_fails_under_ci(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match=r"CI=true and no-such-tool is not available \(apt-get"):
        require_tool("no-such-tool", None, "apt-get install it")
    with pytest.raises(pytest.fail.Exception, match=r"shared/no-such-folder-4f1c is not available"):
        require_shared("no-such-folder-4f1c")


def test_which_finds_a_tool_outside_path(tmp_path) -> None:
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\n")
    assert which("advisor-no-such-tool-4f1c", also=[tool]) is None  # not executable
    tool.chmod(0o755)
    assert which("advisor-no-such-tool-4f1c", also=[tmp_path / "absent", tool]) == str(tool)


def test_ci_run_stops_when_an_install_step_fails(tmp_path) -> None:
    """Run .ci/run's install section with a PATH where apt-get fails and neither chromium nor
    shellcheck exists: the script must exit non-zero, naming the step, before any test runs."""
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "|| echo" not in script and "|| true" not in script
    install = script.rsplit("\npython3 -m venv .venv", 1)[0]  # everything up to the test command
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, body in {"apt-get": "echo 'E: Unable to locate package chromium' >&2; exit 100",
                       "go": "exit 0", "actionlint": "exit 0", "ansible-playbook": "exit 0"}.items():
        (fake / name).write_text(f"#!/bin/sh\n{body}\n")
        (fake / name).chmod(0o755)
    for name in ("bash", "dirname", "mktemp", "tail", "cat"):
        if found := which(name):
            (fake / name).symlink_to(found)
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "run").write_text(install + "\necho INSTALLED\n")
    done = subprocess.run([str(fake / "bash"), str(tmp_path / ".ci" / "run")], capture_output=True, text=True,
                          env={"PATH": str(fake), "HOME": str(tmp_path)}, timeout=60)
    assert done.returncode != 0
    assert "INSTALLED" not in done.stdout
    assert "ci: apt-get install chromium shellcheck failed" in done.stderr
    assert "Unable to locate package" in done.stderr

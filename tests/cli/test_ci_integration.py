"""The pre-commit hooks and the documented GitHub Actions workflow run the real CLI."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import yaml
from conftest import REPO


def _hooks() -> dict[str, dict]:
    return {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}


def test_pre_commit_check_hook_runs_the_cli_on_a_sample():
    hook = _hooks()["advisor-check"]
    sample = REPO / "examples" / "consolidation-8x8.yaml"
    assert re.search(hook["files"], "vms/db.yaml") and hook["language"] == "python"
    argv = shlex.split(hook["entry"])
    assert argv[0] == "advisor"
    # pre-commit appends the staged file names to the entry
    result = subprocess.run([sys.executable, "-m", "advisor", *argv[1:], str(sample)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    bad = subprocess.run([sys.executable, "-m", "advisor", *argv[1:], str(REPO / "examples" / "consolidation-9x8.yaml"),
                          "--fail-on", "warning"], capture_output=True, text=True)
    assert bad.returncode == 1


def test_pre_commit_lint_hook_pattern_matches_templates():
    hook = _hooks()["advisor-lint"]
    for name in ("a.vmx", "b.ovf", "c.ova", "d.pkr.hcl", "e.pkr.json", "main.tf", "x.tf.json"):
        assert re.search(hook["files"], name), name
    assert not re.search(hook["files"], "README.md")


def test_documented_workflow_commands_work(tmp_path):
    doc = (REPO / "docs" / "github-actions.md").read_text()
    workflow = yaml.safe_load(doc.split("```yaml", 1)[1].split("```", 1)[0])
    steps = workflow["jobs"]["advisor"]["steps"]
    check = next(s["run"] for s in steps if s.get("name") == "Check VM specs")
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)
    argv = shlex.split(check)
    argv = [str(REPO / "examples" / "consolidation-8x8.yaml") if a == "vms/*.yaml" else a for a in argv[1:]]
    result = subprocess.run([sys.executable, "-m", "advisor", *argv], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    sarif = json.loads((tmp_path / "advisor-check.sarif").read_text())
    assert sarif["version"] == "2.1.0"

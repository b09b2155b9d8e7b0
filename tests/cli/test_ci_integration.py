"""The pre-commit hooks and the documented GitHub Actions workflow run the real CLI."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml
from conftest import REPO, require_tool, which


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


def _workflow() -> tuple[str, dict]:
    doc = (REPO / "docs" / "github-actions.md").read_text()
    text = doc.split("```yaml", 1)[1].split("```", 1)[0]
    return text, yaml.safe_load(text)


def _step(steps: list[dict], name: str) -> dict:
    return next(s for s in steps if s.get("name") == name)


def test_documented_workflow_passes_actionlint(tmp_path):
    """actionlint (the Go linter for workflow files; shellcheck on `run:` scripts when installed)
    finds nothing in the documented workflow. .ci/run installs both."""
    actionlint = require_tool("actionlint", which("actionlint", also=[Path.home() / "go" / "bin" / "actionlint"]),
                              "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12")
    # actionlint runs shellcheck on the `run:` scripts only when it finds it: without it, half the check.
    require_tool("shellcheck", which("shellcheck"), "apt-get install shellcheck")
    text, _ = _workflow()
    workflow = tmp_path / ".github" / "workflows" / "advisor.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(text)
    result = subprocess.run([actionlint, "-no-color", str(workflow)], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    # A broken workflow fails the same check (the linter really reads the file).
    workflow.write_text(text.replace("actions/checkout@v6", "actions/checkout@v2"))
    assert subprocess.run([actionlint, "-no-color", str(workflow)], capture_output=True, cwd=tmp_path).returncode == 1


def test_documented_workflow_installs_what_exists_with_current_actions():
    import advisor

    _, workflow = _workflow()
    steps = workflow["jobs"]["advisor"]["steps"]
    install = _step(steps, "Install advisor")["run"]
    # Not from PyPI (advisor is not published there) and not at a tag the repository does not
    # have: its Git repository's main branch, which the page says to pin to a commit SHA.
    source = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]["Source"]
    assert f"vsphere-advisor @ git+{source}@main" in install
    tags = subprocess.run(["git", "-C", str(REPO), "tag", "--list", f"v{advisor.__version__}"], capture_output=True,
                          text=True).stdout.strip()
    assert f"@v{advisor.__version__}" not in install or tags
    uses = {s["uses"].split("@")[0]: s["uses"].split("@")[1] for s in steps if "uses" in s}
    assert uses == {"actions/checkout": "v6", "actions/setup-python": "v6", "github/codeql-action/upload-sarif": "v4"}
    hooks_doc = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "rev: main " in hooks_doc and "autoupdate --freeze" in hooks_doc


def test_documented_workflow_uploads_two_distinct_schema_valid_sarif_files(tmp_path):
    """Both report steps run as written (paths swapped for this repository's examples); the two
    SARIF files validate against SARIF 2.1.0, carry different automation ids, and each upload
    step sends one of them under its own category."""
    import jsonschema

    _, workflow = _workflow()
    steps = workflow["jobs"]["advisor"]["steps"]
    swap = {"vms/*.yaml": str(REPO / "examples" / "consolidation-8x8.yaml"),
            "templates/": str(REPO / "tests" / "fixtures" / "templates" / "terraform")}
    for name in ("Check VM specs", "Lint templates"):
        argv = [swap.get(a, a) for a in shlex.split(_step(steps, name)["run"])[1:]]
        result = subprocess.run([sys.executable, "-m", "advisor", *argv], capture_output=True, text=True, cwd=tmp_path)
        assert result.returncode in (0, 1), result.stderr
    schema = json.loads((REPO / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text())
    ids = {}
    for name in ("advisor-check.sarif", "advisor-lint.sarif"):
        sarif = json.loads((tmp_path / name).read_text())
        jsonschema.validators.validator_for(schema)(schema).validate(sarif)
        assert len(sarif["runs"]) == 1
        ids[name] = sarif["runs"][0]["automationDetails"]["id"]
    assert ids == {"advisor-check.sarif": "advisor/check/", "advisor-lint.sarif": "advisor/lint/"}
    uploads = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
    assert sorted(u["with"]["sarif_file"] for u in uploads) == sorted(ids)
    for upload in uploads:
        assert ids[upload["with"]["sarif_file"]] == upload["with"]["category"] + "/"

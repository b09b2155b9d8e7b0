"""CI and terminal conventions of issue 21: `-` for standard input with --stdin-filename (as
ruff), .gitignore honoured in folder walks, configuration found per input file, baseline keys
relative to the project root, and configuration exemptions that match nothing reported."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from conftest import REPO

SPEC = (REPO / "examples" / "sql-server-64vcpu.yaml").read_bytes()
VMX = b'displayName = "web"\nnumvcpus = "4"\nmemsize = "8192"\nguestOS = "windows2019srv-64"\n' \
      b'ethernet0.present = "TRUE"\nethernet0.virtualDev = "e1000"\n'
TF = b'''resource "vsphere_virtual_machine" "web" {
  name     = "web"
  num_cpus = 4
  memory   = 8192
  guest_id = "windows2019srv_64Guest"
  network_interface {
    network_id   = "n"
    adapter_type = "e1000"
  }
}
'''


@pytest.fixture
def stdin(monkeypatch):
    def feed(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    return feed


def _json(result) -> dict:
    assert "Traceback" not in result.err, result.err
    return json.loads(result.out)


# -- standard input -------------------------------------------------------------------------

def test_check_reads_a_spec_from_stdin_reported_as_dash_or_the_given_name(cli, stdin, tmp_path):
    stdin(SPEC)
    doc = _json(cli("check", "-", "--format", "json"))
    assert {f["file"] for f in doc["findings"]} == {"-"}
    assert any(f["rule"] == "NUMA001" for f in doc["findings"])
    stdin(SPEC)
    named = str(tmp_path / "specs" / "db.yaml")
    doc = _json(cli("check", "--stdin-filename", named, "--format", "json"))  # no `-`: stdin, as ruff
    assert {f["file"] for f in doc["findings"]} == {named}


def test_lint_stdin_filename_picks_the_reader_by_extension(cli, stdin):
    stdin(TF)
    doc = _json(cli("lint", "-", "--stdin-filename", "infra/main.tf", "--format", "json", "--fail-on", "never"))
    assert doc["vms"] and {v["file"] for v in doc["vms"]} == {"infra/main.tf"}
    assert any(f["rule"] == "NET001" and f["file"] == "infra/main.tf" for f in doc["findings"])


def test_lint_stdin_named_as_a_file_of_a_folder_stands_for_itself_alone(cli, stdin, tmp_path, monkeypatch):
    """Standard input named `tf/a.tf` is read with the folder's other files, and the folder's
    other templates read `tf/a.tf` from the disk (advisor.readers.folder keeps no stdin bytes)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tf").mkdir()
    (tmp_path / "tf" / "a.tf").write_text('variable "c" {\n  default = 2\n}\n')
    (tmp_path / "tf" / "b.tf").write_text('resource "vsphere_virtual_machine" "b" {\n  num_cpus = var.c\n'
                                          '  memory = 4096\n}\n')
    stdin(b'variable "c" {\n  default = 8\n}\nresource "vsphere_virtual_machine" "a" {\n  num_cpus = var.c\n'
          b'  memory = 4096\n}\n')
    doc = _json(cli("lint", "tf", "-", "--stdin-filename", "tf/a.tf", "--host", "intel-xeon-6248r-2s",
                    "--format", "json", "--fail-on", "never"))
    assert doc["files"] == ["tf/a.tf", "tf/b.tf"]
    assert {v["name"]: v["topology"]["vcpus"] for v in doc["vms"]} == {"a": 8, "b": 2}


def test_lint_stdin_without_a_name_says_what_it_assumed_or_asks_for_it(cli, stdin):
    stdin(VMX)
    result = cli("lint", "-", "--format", "json", "--fail-on", "never")
    assert result.code == 0 and "-: read as .vmx (recognised by content" in result.err
    assert {v["file"] for v in _json(result)["vms"]} == {"-"}
    stdin(b"just some words\n")
    result = cli("lint", "-")
    assert result.code == 2 and result.out == ""
    assert result.err.strip().splitlines() == [result.err.strip()] and "--stdin-filename" in result.err


def test_stdin_is_read_once_and_within_the_file_limit(cli, stdin, monkeypatch):
    import advisor.load.yamlfile as yamlfile

    stdin(VMX)
    result = cli("lint", "-", "-")
    assert result.code == 2 and "only once" in result.err
    monkeypatch.setattr(yamlfile, "MAX_FILE_BYTES", 64)
    stdin(SPEC)
    result = cli("check", "-")
    assert result.code == 2 and "larger than the" in result.err and "Traceback" not in result.err
    stdin(VMX)
    result = cli("lint", "--stdin-filename", "x.vmx", str(REPO / "examples"))
    assert result.code == 2 and "add - to the inputs" in result.err


# -- .gitignore in folder walks ---------------------------------------------------------------

def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _found(root: Path, *given: str, gitignore: bool = True) -> list[str]:
    from advisor.readers import find_templates

    notes: list[str] = []
    return sorted(p.relative_to(root).as_posix() for p in
                  find_templates([root / g for g in given or ("",)], [], gitignore, notes))


def test_gitignore_nested_negation_and_the_repository_root(tmp_path):
    vmx = VMX.decode()
    outside = tmp_path  # above the repository: its .gitignore is not git's business here
    repo = tmp_path / "repo"
    _tree(outside, {".gitignore": "*.vmx\n"})
    _tree(repo, {".git/HEAD": "", ".gitignore": "build/\n*.bak.vmx\n", "a/x.vmx": vmx, "a/build/y.vmx": vmx,
                 "a/o.bak.vmx": vmx, "b/.gitignore": "!keep.bak.vmx\n", "b/keep.bak.vmx": vmx, "b/z.bak.vmx": vmx,
                 "c/.gitignore": "*\n", "c/hidden.vmx": vmx})
    assert _found(repo) == ["a/x.vmx", "b/keep.bak.vmx"]
    assert _found(repo, gitignore=False) == ["a/build/y.vmx", "a/o.bak.vmx", "a/x.vmx", "b/keep.bak.vmx",
                                             "b/z.bak.vmx", "c/hidden.vmx"]
    # Walking a subfolder still applies the .gitignore files above it, up to the repository root.
    assert _found(repo, "a") == ["a/x.vmx"]
    # A named file or a named ignored folder is linted, as ruff does.
    assert _found(repo, "a/o.bak.vmx", "a/build") == ["a/build/y.vmx", "a/o.bak.vmx"]
    # .git/info/exclude counts, below every .gitignore.
    _tree(repo, {".git/info/exclude": "b/\n"})
    assert _found(repo) == ["a/x.vmx"]


def test_gitignore_outside_a_repository_is_not_read(tmp_path):
    _tree(tmp_path, {".gitignore": "*.vmx\n", "x.vmx": VMX.decode()})
    assert _found(tmp_path) == ["x.vmx"]


def test_lint_respects_gitignore_unless_told_and_notes_a_symlinked_one(cli, tmp_path):
    _tree(tmp_path, {".git/HEAD": "", ".gitignore": "old/\n", "old/x.vmx": VMX.decode(), "new/y.vmx": VMX.decode(),
                     "elsewhere": "*\n"})
    (tmp_path / "new" / ".gitignore").symlink_to(tmp_path / "elsewhere")
    doc = _json(cli("lint", tmp_path, "--format", "json", "--fail-on", "never"))
    assert [Path(v["file"]).name for v in doc["vms"]] == ["y.vmx"]
    assert any("symlink" in note and "new/.gitignore" in note for note in doc["notes"])
    doc = _json(cli("lint", tmp_path, "--no-respect-gitignore", "--format", "json", "--fail-on", "never"))
    assert sorted(Path(v["file"]).name for v in doc["vms"]) == ["x.vmx", "y.vmx"]
    (tmp_path / ".advisor.yaml").write_text("respect_gitignore: false\n")
    doc = _json(cli("lint", tmp_path, "--format", "json", "--fail-on", "never"))
    assert len(doc["vms"]) == 2


# -- configuration per input file -------------------------------------------------------------

def _rules_by_file(doc: dict) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for f in doc["findings"]:
        if f["suppressed"] is None:
            out.setdefault(Path(f["file"]).parent.name, set()).add(f["rule"])
    return out


def test_check_finds_each_spec_files_own_configuration(cli, tmp_path):
    _tree(tmp_path, {".advisor.yaml": "ignore: [LIM010]\n"})  # above the repository: never read
    repo = tmp_path / "repo"
    _tree(repo, {".git/HEAD": "", "a/.advisor.yaml": "ignore: [NUMA001]\n", "a/x.yaml": SPEC.decode(),
                 "b/.advisor.yaml": "fail_on: warning\n", "b/y.yaml": SPEC.decode(), "c/z.yaml": SPEC.decode()})
    for order in (("a/x.yaml", "b/y.yaml", "c/z.yaml"), ("c/z.yaml", "b/y.yaml", "a/x.yaml")):
        result = cli("check", *(repo / o for o in order), "--format", "json")
        rules = _rules_by_file(_json(result))
        assert "NUMA001" not in rules["a"] and "NUMA001" in rules["b"] and "NUMA001" in rules["c"]
        assert all("LIM010" in found for found in rules.values())  # the config above the repository root
        assert result.code == 1  # b's fail_on: warning applies to b's warnings
    assert cli("check", repo / "a" / "x.yaml", repo / "c" / "z.yaml").code == 0  # default fail_on: error
    # --config is one configuration for every input.
    doc = _json(cli("check", repo / "a" / "x.yaml", repo / "c" / "z.yaml", "--config", repo / "a" / ".advisor.yaml",
                    "--format", "json"))
    assert all("NUMA001" not in found for found in _rules_by_file(doc).values())


def test_lint_files_found_in_a_walk_use_their_nearest_configuration(cli, tmp_path):
    _tree(tmp_path, {".git/HEAD": "", ".advisor.yaml": "exclude: ['skip/']\n", "top.vmx": VMX.decode(),
                     "team/.advisor.yaml": "ignore: [NET001]\nexclude: ['old.vmx']\n", "team/web.vmx": VMX.decode(),
                     "team/old.vmx": VMX.decode(), "skip/x.vmx": VMX.decode()})
    doc = _json(cli("lint", tmp_path, "--format", "json", "--fail-on", "never"))
    assert sorted(Path(f).relative_to(tmp_path).as_posix() for f in doc["files"]) == ["team/web.vmx", "top.vmx"]
    nets = {Path(f["file"]).name for f in doc["findings"] if f["rule"] == "NET001" and f["suppressed"] is None}
    assert nets == {"top.vmx"}
    # Run from inside the team folder, the exclude patterns still mean the same files.
    doc = _json(cli("lint", tmp_path / "team", "--format", "json", "--fail-on", "never"))
    assert [Path(f).name for f in doc["files"]] == ["web.vmx"]


def test_a_later_inputs_symlinked_configuration_is_refused_too(cli, tmp_path):
    _tree(tmp_path, {"shadow": "root:x:0:0\n", "ok/a.vmx": VMX.decode(), "repo/b.vmx": VMX.decode()})
    (tmp_path / "repo" / ".advisor.yaml").symlink_to(tmp_path / "shadow")
    result = cli("lint", tmp_path / "ok" / "a.vmx", tmp_path / "repo" / "b.vmx")
    assert result.code == 2 and "symlink" in result.err and "root:x" not in result.err + result.out


# -- unused configuration exemptions ----------------------------------------------------------

CONFIG_EXEMPTIONS = """\
exemptions:
  - {rule: NUMA001, reason: "measured, fine", vms: [sql-oltp01]}
  - {rule: NUMA002, reason: "never fires here"}
  - {rule: NUMA003, reason: "elsewhere only", paths: ["other/*.yaml"]}
"""


def test_an_exemption_that_matched_nothing_is_reported_and_exit_codes_stay(cli, tmp_path):
    _tree(tmp_path, {".git/HEAD": "", ".advisor.yaml": CONFIG_EXEMPTIONS, "spec.yaml": SPEC.decode()})
    result = cli("check", tmp_path / "spec.yaml", "--format", "json")
    doc = _json(result)
    assert result.code == 0
    unused = [n for n in doc["notes"] if "unused exemption" in n]
    # NUMA001 suppressed a finding; NUMA002 matched nothing; NUMA003's paths name no file of the run.
    assert len(unused) == 1 and ".advisor.yaml:3: ignore NUMA002: unused exemption" in unused[0], doc["notes"]
    text = cli("check", tmp_path / "spec.yaml", "--fail-on", "info")
    assert text.code == 1 and "unused exemption" in text.out  # the note is shown; the exit code is the findings'


def test_exemptions_used_in_parallel_workers_are_not_reported_unused(cli, tmp_path):
    _tree(tmp_path, {".git/HEAD": "", ".advisor.yaml": "exemptions:\n  - {rule: NET001, reason: legacy e1000}\n",
                     "a.vmx": VMX.decode(), "b.vmx": VMX.decode()})
    doc = _json(cli("lint", tmp_path, "-j", "2", "--format", "json", "--fail-on", "never"))
    assert [f["suppressed"]["kind"] for f in doc["findings"] if f["rule"] == "NET001"] == ["config", "config"]
    assert not [n for n in doc["notes"] if "unused" in n]
    (tmp_path / "a.vmx").write_text(VMX.decode().replace("e1000", "vmxnet3"))
    (tmp_path / "b.vmx").unlink()
    doc = _json(cli("lint", tmp_path, "--format", "json", "--fail-on", "never"))
    assert [n for n in doc["notes"] if "ignore NET001: unused exemption" in n]


# -- baseline keys ----------------------------------------------------------------------------

def test_baseline_matches_from_any_folder_and_any_spelling(cli, tmp_path, monkeypatch):
    _tree(tmp_path, {".git/HEAD": "", "templates/a.vmx": VMX.decode(), "templates/deep/b.vmx": VMX.decode()})
    baseline = tmp_path / "baseline.json"
    monkeypatch.chdir(tmp_path)
    assert cli("lint", "templates", "--write-baseline", baseline).code == 0
    doc = json.loads(baseline.read_text())
    assert doc["schema"] == "advisor-baseline/v2"
    assert {row["file"] for row in doc["findings"]} == {"templates/a.vmx", "templates/deep/b.vmx"}
    monkeypatch.chdir(tmp_path / "templates" / "deep")
    for spelling in ("..", str(tmp_path / "templates"), "../../templates/./"):
        result = cli("lint", spelling, "--baseline", baseline, "--format", "json", "--fail-on", "info")
        found = _json(result)["findings"]
        assert found and all(f["suppressed"] and f["suppressed"]["kind"] == "baseline" for f in found), spelling
        assert result.code == 0


def test_a_v1_baseline_is_read_relative_to_the_current_folder_with_a_note(cli, tmp_path, monkeypatch):
    _tree(tmp_path, {".git/HEAD": "", "t/a.vmx": VMX.decode()})
    monkeypatch.chdir(tmp_path)
    rows = [{"rule": "NET001", "file": "t/a.vmx", "vm": "web", "subject": "vm web", "count": 1}]
    (tmp_path / "old.json").write_text(json.dumps({"schema": "advisor-baseline/v1", "findings": rows}))
    doc = _json(cli("lint", "t", "--baseline", "old.json", "--format", "json", "--fail-on", "never"))
    assert [f["suppressed"]["kind"] for f in doc["findings"] if f["rule"] == "NET001"] == ["baseline"]
    assert any("a v1 baseline" in n and "--write-baseline" in n for n in doc["notes"])

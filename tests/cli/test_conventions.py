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

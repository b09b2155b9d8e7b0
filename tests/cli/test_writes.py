"""Report and fix writes through the CLI: where --output may not go, and when nothing is written.

advisor.atomic's own behaviour (temporary file, fsync, rename, .bak, crashes) is covered by
test_atomic.py and `advisor fix --write` by test_vmx_fix_commands.py; this file covers what the
commands do with it:

* an --output that write_atomic would refuse (a symlink, a missing folder, a file where the
  folder should be, a name too long) fails with exit 2 and one line *before* the run does any
  work, so no other --output of the same run is written and nothing reaches stdout;
* a run in which no input could be evaluated writes no report (an old report stays as it was);
  a run with some good inputs writes its report, input errors included, and exits 2;
* `advisor fix --write` through a symlink is refused and touches neither the link nor its target.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliResult

HOST = "host: {name: lab, sockets: 2, cores_per_socket: 10, threads_per_core: 2, memory: 256GB, esxi: '7.0'}\n"
GOOD_SPEC = HOST + "vms:\n  - name: good-vm\n    vcpus: 4\n    memory: 8GB\n"
BAD_SPEC = HOST + "vms:\n  - name: bad-vm\n    vcpus: 0\n    memory: 8GB\n"
VMX = ('.encoding = "UTF-8"\nconfig.version = "8"\ndisplayName = "db"\nnumvcpus = "4"\nmemsize = "8192"\n'
       'ethernet0.present = "TRUE"\nethernet0.virtualDev = "e1000"\n')


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "vm.yaml"
    path.write_text(GOOD_SPEC)
    return path


def _listing(folder: Path) -> dict[str, str]:
    """Every entry under folder: a symlink as '-> target', a file as its text, a folder as '/'."""
    out = {}
    for p in sorted(folder.rglob("*")):
        key = str(p.relative_to(folder))
        out[key] = f"-> {p.readlink()}" if p.is_symlink() else "/" if p.is_dir() else p.read_text(errors="replace")
    return out


def _refused_up_front(result: CliResult, target: Path | str, words: str) -> None:
    assert result.code == 2, result.err
    assert result.err.startswith(f"advisor: {target}: {words}") and result.err.count("\n") == 1, result.err
    assert result.out == ""  # refused before the report was rendered to stdout
    assert "Traceback" not in result.err


# -- --output targets that are refused --------------------------------------------------------


def test_output_to_a_symlink_is_refused_and_the_link_and_target_are_untouched(cli, spec: Path, tmp_path: Path) -> None:
    """write_atomic refuses to replace a symlink (it would detach the link from its target), and
    the report commands do not follow it: exit 2, nothing written, not even the other --output."""
    target = tmp_path / "reports" / "real.json"
    target.parent.mkdir()
    target.write_text("previous report\n")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    before = _listing(tmp_path)
    result = cli("check", spec, "--format", "sarif", "-o", tmp_path / "first.sarif", "--format", "json", "-o", link,
                 "--format", "text")
    _refused_up_front(result, link, "is a symlink; refusing to replace it with a regular file")
    assert _listing(tmp_path) == before  # no first.sarif, link still a link, target unchanged


def test_output_to_a_dangling_symlink_is_refused(cli, spec: Path, tmp_path: Path) -> None:
    link = tmp_path / "report.json"
    link.symlink_to(tmp_path / "elsewhere" / "report.json")
    before = _listing(tmp_path)
    _refused_up_front(cli("check", spec, "-o", link), link, "is a symlink")
    assert _listing(tmp_path) == before and not (tmp_path / "elsewhere").exists()


def test_output_into_a_missing_folder(cli, spec: Path, tmp_path: Path) -> None:
    before = _listing(tmp_path)
    target = tmp_path / "no" / "such" / "folder" / "report.json"
    result = cli("check", spec, "--format", "json", "-o", tmp_path / "ok.json", "--format", "sarif", "-o", target)
    _refused_up_front(result, target, "the folder does not exist")
    assert _listing(tmp_path) == before  # neither the folder nor ok.json was created


def test_output_under_a_file_instead_of_a_folder(cli, spec: Path, tmp_path: Path) -> None:
    target = spec / "report.json"
    result = cli("check", spec, "-o", target)
    _refused_up_front(result, target, "cannot write here: Not a directory")
    assert spec.read_text() == GOOD_SPEC


def test_output_with_a_name_too_long_for_the_filesystem(cli, spec: Path, tmp_path: Path) -> None:
    target = tmp_path / ("r" * 300 + ".json")
    before = _listing(tmp_path)
    result = cli("check", spec, "-o", target)
    assert result.code == 2 and "cannot write here" in result.err and "Traceback" not in result.err
    assert result.err.count("\n") == 1 and result.out == ""
    assert _listing(tmp_path) == before


def test_output_that_is_a_folder_is_a_usage_error(cli, spec: Path, tmp_path: Path) -> None:
    (tmp_path / "out.json").mkdir()
    result = cli("check", spec, "-o", tmp_path / "out.json")
    assert result.code == 2 and "is a directory" in result.err and result.out == ""


def test_lint_checks_its_outputs_before_reading_any_template(cli, tmp_path: Path) -> None:
    (tmp_path / "vm.vmx").write_text(VMX)
    target = tmp_path / "missing" / "lint.sarif"
    result = cli("lint", tmp_path / "vm.vmx", "--format", "sarif", "-o", target)
    _refused_up_front(result, target, "the folder does not exist")


def test_write_baseline_into_a_missing_folder(cli, tmp_path: Path) -> None:
    (tmp_path / "vm.vmx").write_text(VMX)
    target = tmp_path / "missing" / "baseline.json"
    result = cli("lint", tmp_path / "vm.vmx", "--write-baseline", target)
    assert result.code == 2 and result.err == f"advisor: {target}: the folder does not exist\n"
    assert not target.parent.exists()


# -- failing runs -----------------------------------------------------------------------------


@pytest.mark.parametrize("existing", [False, True], ids=["no-report-yet", "old-report"])
def test_a_run_that_evaluates_nothing_writes_no_report(cli, tmp_path: Path, existing: bool) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_SPEC)
    report, sarif = tmp_path / "report.json", tmp_path / "report.sarif"
    if existing:
        report.write_text("the last good report\n")
    before = _listing(tmp_path)
    result = cli("check", bad, "--format", "json", "-o", report, "--format", "sarif", "-o", sarif)
    assert result.code == 2
    assert result.err == f"advisor: {bad}:4: vms[0].vcpus: Input should be greater than or equal to 1\n"
    assert _listing(tmp_path) == before  # an old report survives; no new file, no temporary file


def test_a_lint_run_whose_only_template_is_broken_writes_no_report(cli, tmp_path: Path) -> None:
    broken = tmp_path / "broken.ovf"
    broken.write_text("<Envelope>")
    report = tmp_path / "lint.json"
    result = cli("lint", broken, "--format", "json", "-o", report)
    assert result.code == 2 and str(broken) in result.err
    assert not report.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["broken.ovf"]


def test_a_partly_failing_run_writes_its_report_with_the_errors(cli, spec: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_SPEC)
    report = tmp_path / "report.json"
    result = cli("check", bad, spec, "--format", "json", "-o", report)
    assert result.code == 2 and result.out == ""
    doc = json.loads(report.read_text())
    assert [vm["name"] for vm in doc["vms"]] == ["good-vm"]
    assert [(e["file"], e["line"]) for e in doc["errors"]] == [(str(bad), 4)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml", "report.json", "vm.yaml"]  # no .tmp left


# -- advisor fix --write ----------------------------------------------------------------------


def test_fix_write_through_a_symlink_is_refused(cli, tmp_path: Path) -> None:
    real = tmp_path / "store" / "db.vmx"
    real.parent.mkdir()
    real.write_text(VMX)
    link = tmp_path / "db.vmx"
    link.symlink_to(real)
    before = _listing(tmp_path)
    diff = cli("fix", link)
    assert diff.code == 1 and "ethernet0.virtualDev" in diff.out  # there is something to change...
    result = cli("fix", link, "--write")
    assert result.code == 2 and result.err.startswith(f"advisor: {link}: is a symlink")  # ...but not through it
    assert _listing(tmp_path) == before  # link, target and no .bak
    written = cli("fix", real, "--write")  # the target itself can be fixed, and the link sees it
    assert written.code == 0, written.err
    assert 'ethernet0.virtualDev = "vmxnet3"' in link.read_text() and link.is_symlink()
    assert (real.parent / "db.vmx.bak").read_text() == VMX

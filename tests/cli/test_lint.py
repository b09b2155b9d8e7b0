"""`advisor lint` end to end: readers → engine → report, suppressions, baseline, parallel runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

WIDE_VMX = """.encoding = "UTF-8"
config.version = "8"
virtualHW.version = "10"
displayName = "sql-wide"
guestOS = "windows8srv-64"
numvcpus = "64"
memsize = "262144"
scsi0.present = "TRUE"
scsi0.virtualDev = "lsilogic"
scsi0:0.present = "TRUE"
scsi0:0.fileName = "sql-wide.vmdk"
scsi0:1.present = "TRUE"
scsi0:1.fileName = "sql-wide_1.vmdk"
ethernet0.present = "TRUE"
ethernet0.virtualDev = "e1000"
"""


def advisor(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def lint_json(*args: str, cwd: Path | None = None) -> tuple[int, dict]:
    result = advisor("lint", *args, "--format", "json", "--fail-on", "never", cwd=cwd)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout)


def test_vmx_with_host_gets_numa_findings_at_the_right_line(tmp_path):
    vmx = tmp_path / "sql.vmx"
    vmx.write_text(WIDE_VMX)
    code, doc = lint_json(str(vmx), "--host", "hp-dl580-g7")
    assert code == 0
    numa = [f for f in doc["findings"] if f["rule"] == "NUMA001"]
    assert numa and numa[0]["line"] == 6  # numvcpus
    assert doc["vms"][0]["topology"]["vnuma_nodes"] == [10, 10, 10, 10, 10, 10, 4]


def test_without_host_the_host_rules_are_skipped_not_guessed(tmp_path):
    vmx = tmp_path / "sql.vmx"
    vmx.write_text(WIDE_VMX)
    _, doc = lint_json(str(vmx))
    assert not [f for f in doc["findings"] if f["rule"] == "NUMA001"]
    assert any(s.startswith("NUMA001") for s in doc["vms"][0]["skipped"])
    assert doc["vms"][0]["topology"] is None


def test_inline_suppression_with_reason(tmp_path):
    vmx = tmp_path / "sql.vmx"
    vmx.write_text(WIDE_VMX + "# advisor: ignore NUMA001 -- vendor-certified layout\n")
    _, doc = lint_json(str(vmx), "--host", "hp-dl580-g7")
    numa = [f for f in doc["findings"] if f["rule"] == "NUMA001"]
    assert numa[0]["suppressed"]["kind"] == "inline"
    assert numa[0]["suppressed"]["reason"] == "vendor-certified layout"


def test_unused_inline_suppression_is_reported(tmp_path):
    vmx = tmp_path / "small.vmx"
    vmx.write_text(
        'displayName = "small"\nnumvcpus = "2"\nmemsize = "4096"\n# advisor: ignore NUMA001 -- just in case\n'
    )
    _, doc = lint_json(str(vmx), "--host", "hp-dl580-g7")
    assert any("unused suppression" in n for n in doc["notes"])


def test_baseline_reports_only_new_findings(tmp_path):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "a.vmx").write_text(WIDE_VMX)
    baseline = tmp_path / "baseline.json"
    result = advisor("lint", str(folder), "--host", "hp-dl580-g7", "--write-baseline", str(baseline))
    assert result.returncode == 0, result.stderr
    _, doc = lint_json(str(folder), "--host", "hp-dl580-g7", "--baseline", str(baseline))
    assert doc["findings"] and all(f["suppressed"] and f["suppressed"]["kind"] == "baseline" for f in doc["findings"])
    (folder / "b.vmx").write_text(WIDE_VMX.replace("sql-wide", "sql-new"))
    _, doc = lint_json(str(folder), "--host", "hp-dl580-g7", "--baseline", str(baseline))
    new = [f for f in doc["findings"] if f["suppressed"] is None]
    assert new and all(f["file"].endswith("b.vmx") for f in new)
    (folder / "a.vmx").unlink()
    _, doc = lint_json(str(folder), "--host", "hp-dl580-g7", "--baseline", str(baseline))
    assert any("no longer match" in n for n in doc["notes"])


def test_exclude_from_config_and_flag(tmp_path):
    (tmp_path / "keep").mkdir()
    (tmp_path / "vendor").mkdir()
    (tmp_path / "keep" / "a.vmx").write_text(WIDE_VMX)
    (tmp_path / "vendor" / "b.vmx").write_text(WIDE_VMX)
    _, doc = lint_json(str(tmp_path), "--exclude", "vendor/")
    assert [Path(f).name for f in doc["files"]] == ["a.vmx"]
    (tmp_path / ".git").mkdir()  # a repository: its files below take the root's configuration
    (tmp_path / ".advisor.yaml").write_text("exclude: ['keep/']\n")
    _, doc = lint_json(str(tmp_path))
    assert [Path(f).name for f in doc["files"]] == ["b.vmx"]


def test_bad_file_is_an_input_error_and_others_still_run(tmp_path):
    (tmp_path / "good.vmx").write_text(WIDE_VMX)
    (tmp_path / "bad.vmx").write_bytes(b"\x00\x01binary\x00")
    (tmp_path / "bad.tf").write_text('resource "vsphere_virtual_machine" "x" {\n  num_cpus = \n')
    result = advisor("lint", str(tmp_path), "--host", "hp-dl580-g7", "--format", "json")
    assert result.returncode == 2
    doc = json.loads(result.stdout)
    assert {Path(e["file"]).name for e in doc["errors"]} == {"bad.vmx", "bad.tf"}
    assert [v["name"] for v in doc["vms"]] == ["sql-wide"]
    assert "bad.vmx" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.self_compare
@pytest.mark.parametrize("fmt", ["json", "junit"])
@pytest.mark.parametrize("named", [False, True], ids=["folder", "named-in-reverse"])
def test_parallel_output_is_identical_to_serial(tmp_path, fmt, named):
    for i in range(12):
        (tmp_path / f"vm{i:02d}.vmx").write_text(
            WIDE_VMX.replace("sql-wide", f"vm{i}").replace('"64"', f'"{4 * (i + 1)}"')
            # a note per file that sorts after the files' own ("vm ..." after "/tmp/...")
            + ('encryption.data = "x"\n' if i % 3 else "")
        )
    # Files named on the command line are read in the order given, by one process or several.
    where = sorted((str(p) for p in tmp_path.glob("*.vmx")), reverse=True) if named else [str(tmp_path)]
    common = ["--host", "hp-dl580-g7", "--format", fmt, "--fail-on", "never"]
    serial = advisor("lint", *where, *common, "--jobs", "1")
    parallel = advisor("lint", *where, *common, "--jobs", "2")
    assert serial.returncode == parallel.returncode == 0
    assert serial.stdout == parallel.stdout
    if fmt == "json":
        doc = json.loads(serial.stdout)
        if named:
            assert [Path(f).name for f in doc["files"]] == [Path(f).name for f in where]
        assert any("encrypted" in n for n in doc["notes"])


def test_unresolved_terraform_variable_is_unknown_not_guessed(tmp_path):
    tf = tmp_path / "main.tf"
    tf.write_text('resource "vsphere_virtual_machine" "db" {\n  name = "db"\n  num_cpus = var.cpus\n'
                  '  memory = 65536\n  network_interface {\n    adapter_type = "e1000"\n  }\n}\n')
    _, doc = lint_json(str(tf), "--host", "hp-dl580-g7")
    assert doc["vms"][0]["topology"] is None
    assert any("vcpus" in s or "no host" in s for s in doc["vms"][0]["skipped"]) or doc["vms"][0]["skipped"]


@pytest.mark.usefixtures("shared_dir")
def test_whole_corpus_lints_without_traceback(shared_dir):
    result = advisor(
        "lint", str(shared_dir / "corpus"), "--host", "hp-dl580-g7", "--format", "json", "--fail-on", "never"
    )
    assert result.returncode in (0, 2), result.stderr
    assert "Traceback" not in result.stderr
    doc = json.loads(result.stdout)
    assert len(doc["files"]) >= 100
    for error in doc["errors"]:
        assert error["file"] and error["message"]


_RESIZED_VMX = """.encoding = "UTF-8"
config.version = "8"
virtualHW.version = "17"
displayName = "db"
guestOS = "windows2019srv-64"
numvcpus = "32"
memSize = "65536"
cpuid.coresPerSocket = "4"
numa.autosize.cookie = "20012"
numa.autosize.vcpu.maxPerVirtualNode = "2"
scsi0.present = "TRUE"
scsi0.virtualDev = "pvscsi"
ethernet0.present = "TRUE"
ethernet0.virtualDev = "vmxnet3"
"""


def test_a_zero_memory_reservation_is_no_reservation_through_the_resize_passes(tmp_path):
    """`sched.mem.min = "0"` (what vSphere writes for no reservation) once made every resize pass
    fail to rebuild the VM ("0MB" is not a size): the recommendation came out empty, with a note
    that it did not settle. It must read as no reservation, and as a 1 MB one does here."""
    for name, line in (("zero", 'sched.mem.min = "0"\n'), ("one", 'sched.mem.min = "1"\n'), ("none", "")):
        (tmp_path / f"{name}.vmx").write_text(_RESIZED_VMX + line)
    _, doc = lint_json(str(tmp_path), "--host", "dell-r730-e5-2680v4")
    recommended = {Path(v["file"]).stem: v["recommended_vmx"] for v in doc["vms"]}
    assert recommended["zero"] == recommended["one"] == recommended["none"] != {}
    assert not any("did not settle" in n for n in doc["notes"])


def test_an_e1000_nic_does_not_stop_the_resize_passes(tmp_path):
    """The recommended VMXNET3 for an E1000 NIC once contradicted the VM's own NIC list in every
    resize pass: the later passes never ran (numa.vcpu.preferHT went missing) and a note said
    the recommendation did not settle."""
    (tmp_path / "vmxnet3.vmx").write_text(_RESIZED_VMX)
    (tmp_path / "e1000.vmx").write_text(_RESIZED_VMX.replace('"vmxnet3"', '"e1000"'))
    _, doc = lint_json(str(tmp_path), "--host", "dell-r730-e5-2680v4")
    recommended = {Path(v["file"]).stem: v["recommended_vmx"] for v in doc["vms"]}
    assert recommended["e1000"] == {**recommended["vmxnet3"], "ethernet0.virtualDev": "vmxnet3"}
    assert "numa.vcpu.preferHT" in recommended["e1000"]
    assert not any("did not settle" in n for n in doc["notes"])


def test_a_resized_template_keeps_its_ethernet_numbers(tmp_path):
    """A resize (here SCHED004's full reservations for latency sensitivity High) rebuilds the VM;
    the rebuilt VM once forgot that the template's NICs are ethernet1 and ethernet2, and the
    written keys added an ethernet0 and removed ethernet2's type."""
    (tmp_path / "lat.vmx").write_text(
        '.encoding = "UTF-8"\nvirtualHW.version = "17"\ndisplayName = "lat"\nguestOS = "windows2019srv-64"\n'
        'numvcpus = "4"\nmemSize = "16384"\nsched.cpu.latencySensitivity = "high"\n'
        'ethernet1.present = "TRUE"\nethernet1.virtualDev = "e1000"\n'
        'ethernet2.present = "TRUE"\nethernet2.virtualDev = "e1000"\n')
    _, doc = lint_json(str(tmp_path))
    written = doc["vms"][0]["recommended_vmx"]
    assert "sched.mem.pin" in written  # the resize was written
    assert {k for k in written if k.startswith("ethernet")} == {"ethernet1.virtualDev", "ethernet2.virtualDev"}
    assert not any("did not settle" in n for n in doc["notes"])

"""`advisor vmx` and `advisor fix` through the CLI (the .vmx model itself is in test_vmx.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import hcl2
import pytest
from click.testing import CliRunner
from conftest import REPO

from advisor.cli import group
from advisor.vmx.document import VmxDocument

SQL64 = str(REPO / "examples" / "sql-server-64vcpu.yaml")


def advisor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, timeout=120)


def test_vmx_fragment_names_the_rule_behind_prefer_ht():
    result = advisor("vmx", SQL64)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    index = lines.index('numa.vcpu.preferHT = "TRUE"')
    assert lines[index - 1].startswith("# NUMA001")
    doc = VmxDocument.parse(result.stdout.encode())
    assert doc.get("ethernet0.virtualDev") == "vmxnet3"


def test_full_vmx_is_a_complete_document():
    result = advisor("vmx", SQL64, "--full")
    doc = VmxDocument.parse(result.stdout.encode())
    for key in ("config.version", "virtualHW.version", "guestOS", "numvcpus", "memsize", "displayName"):
        assert doc.get(key), key
    assert doc.get("numa.vcpu.preferHT") == "TRUE"


@pytest.mark.parametrize(("esxi", "hw"), [("6.7", "14"), ("7.0 U3", "19"), ("8.0 U2", "21")])
def test_full_vmx_uses_the_newest_hardware_the_target_runs(tmp_path, esxi, hw):
    """Not a fixed 19: ESXi 6.7 cannot run hardware 19, 8.0 U2 runs 21 (KB 1003746)."""
    spec = tmp_path / "vm.yaml"
    spec.write_text("host: {name: h, sockets: 2, cores_per_socket: 16, threads_per_core: 2, memory: 256GB, "
                    f"esxi: '{esxi}'}}\nvms: [{{name: app, vcpus: 8, memory: 32GB}}]\n")
    result = advisor("vmx", str(spec), "--full")
    assert result.returncode == 0, result.stderr
    assert VmxDocument.parse(result.stdout.encode()).get("virtualHW.version") == hw


def test_terraform_and_packer_forms_parse():
    tf = advisor("vmx", SQL64, "--as", "terraform")
    parsed = hcl2.loads(tf.stdout)
    # python-hcl2 8 keeps block labels quoted
    resource = {k.strip('"'): v for k, v in parsed["resource"][0].items()}["vsphere_virtual_machine"]
    body = next(iter(resource.values()))
    assert body["num_cpus"] == 64
    packer = advisor("vmx", SQL64, "--as", "packer")
    assert "vsphere-iso" in json.dumps(hcl2.loads(packer.stdout))
    packer_json = json.loads(advisor("vmx", SQL64, "--as", "packer-json").stdout)
    assert packer_json["builders"][0]["type"] == "vsphere-iso"


def test_vmx_unknown_vm_is_a_usage_error():
    result = advisor("vmx", SQL64, "--vm", "nope")
    assert result.returncode == 2 and "nope" in result.stderr


WIDE = '.encoding = "UTF-8"\n# comment kept\ndisplayName = "db"\nnumvcpus = "64"\nmemsize = "262144"\n' \
       'scsi0.present = "TRUE"\nscsi0.virtualDev = "lsilogic"\nscsi0:0.present = "TRUE"\n' \
       'scsi1.present = "TRUE"\nscsi1.virtualDev = "lsilogic"\nscsi1:0.present = "TRUE"\n' \
       'ethernet0.present = "TRUE"\nethernet0.virtualDev = "e1000"\nfoo = "a = b"\n'


def test_fix_diff_then_write_then_idempotent(tmp_path):
    vmx = tmp_path / "db.vmx"
    vmx.write_text(WIDE)
    diff = advisor("fix", str(vmx), "--host", "hp-dl580-g7")
    assert diff.returncode == 1
    changed = {line[1:].split(" = ")[0] for line in diff.stdout.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++", "---"))}
    assert changed == {"scsi1.virtualDev", "ethernet0.virtualDev", "numa.vcpu.preferHT"}
    assert vmx.read_text() == WIDE  # nothing written without --write
    written = advisor("fix", str(vmx), "--host", "hp-dl580-g7", "--write")
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "db.vmx.bak").read_text() == WIDE
    after = vmx.read_text()
    assert "# comment kept" in after and 'foo = "a = b"' in after
    assert 'scsi0.virtualDev = "lsilogic"' in after  # the boot disk's controller is not touched
    assert after.endswith('numa.vcpu.preferHT = "TRUE"\n')
    again = advisor("fix", str(vmx), "--host", "hp-dl580-g7", "--write")
    assert again.returncode == 0 and vmx.read_text() == after


def test_fix_refuses_a_running_vm(tmp_path):
    vmx = tmp_path / "db.vmx"
    vmx.write_text(WIDE)
    (tmp_path / "db.vmx.lck").mkdir()
    result = advisor("fix", str(vmx), "--host", "hp-dl580-g7", "--write")
    assert result.returncode == 2 and "lck" in result.stderr
    assert vmx.read_text() == WIDE


def test_fix_refuses_a_non_vmx(tmp_path):
    other = tmp_path / "vm.yaml"
    other.write_text("host: x\n")
    result = advisor("fix", str(other))
    assert result.returncode == 2 and "vm.yaml" in result.stderr


def test_interrupted_write_leaves_the_original(tmp_path, monkeypatch):
    import advisor.atomic as atomic

    vmx = tmp_path / "db.vmx"
    vmx.write_text(WIDE)

    def fail(temp, dest):
        raise OSError("simulated crash between write and rename")

    monkeypatch.setattr(atomic, "_replace", fail)
    result = CliRunner().invoke(group, ["fix", str(vmx), "--host", "hp-dl580-g7", "--write"])
    assert result.exit_code != 0
    assert vmx.read_text() == WIDE
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "db.vmx.bak") == ["db.vmx"]


@pytest.mark.slow  # a sweep over the whole corpus: the slow pass runs it
def test_fix_on_every_corpus_file_touches_only_recommended_keys(shared_dir, tmp_path):
    from advisor.engine.catalog import builtin_catalog
    from advisor.engine.engine import Evaluator, Policy
    from advisor.engine.lint import template_subject
    from advisor.readers import vmxfile
    from advisor.vmx.document import apply

    catalog = builtin_catalog()
    from advisor.load.hosts import load_profile

    host = load_profile("hp-dl580-g7")
    files = sorted((shared_dir / "corpus" / "vmx").glob("*.vmx"))
    assert files
    for path in files:
        data = path.read_bytes()
        evaluator = Evaluator(catalog, Policy(), full_vmx=False)
        evaluator.evaluate([template_subject(vmxfile.read(path, data)[0])], host, host.esxi, str(path))
        run = evaluator.finish()
        desired = {k: (None if v == "REMOVE" else v) for f in run.findings for k, v in f.fix.get("vmx", {}).items()}
        doc = VmxDocument.parse(data, file=str(path))
        changes = apply(doc, desired)
        assert {c.key.lower() for c in changes} <= {k.lower() for k in desired}
        before = VmxDocument.parse(data).settings()
        after = VmxDocument.parse(doc.to_bytes()).settings()
        untouched = {k for k in before if k not in {d.lower() for d in desired}}
        assert all(after.get(k) == before[k] for k in untouched), path.name
        copy = tmp_path / path.name
        shutil.copy(path, copy)
        result = advisor("fix", str(copy), "--host", "hp-dl580-g7")
        assert result.returncode in (0, 1), (path.name, result.stderr)
        assert "Traceback" not in result.stderr


BALANCED = '.encoding = "UTF-8"\ndisplayName = "app"\nnumvcpus = "56"\nmemsize = "131072"\nvirtualHW.version = "19"\n'
TWO_BY_28 = "name: two-by-28\nsockets: 2\ncores_per_socket: 28\nthreads_per_core: 2\nmemory: 1TB\nesxi: '7.0'\n"


def test_fix_write_on_a_balanced_wide_vm_writes_no_prefer_ht(tmp_path):
    # Issue 16: 56 vCPUs on 2 x 28 cores split 28 + 28 over cores; preferHT would fold the VM onto
    # one socket's threads (KB 415687, seed 001's 59%). Nothing NUMA-related is written.
    vmx, host = tmp_path / "app.vmx", tmp_path / "host.yaml"
    vmx.write_text(BALANCED)
    host.write_text(TWO_BY_28)
    result = advisor("fix", str(vmx), "--host", str(host), "--write")
    assert result.returncode == 0, result.stderr
    assert "preferHT" not in vmx.read_text()


def test_fix_writes_an_info_fix_only_when_its_rule_is_selected(tmp_path):
    # NUMA005 (info: an odd vCPU count on a wide VM) resizes nothing in a .vmx; NET002 (info)
    # removes ethernetN.intrMode keys: optional, so written only with --select NET002.
    vmx = tmp_path / "app.vmx"
    text = 'displayName = "app"\nnumvcpus = "4"\nmemsize = "8192"\nethernet0.present = "TRUE"\n' \
           'ethernet0.virtualDev = "vmxnet3"\nethernet0.intrMode = "1"\n'
    vmx.write_text(text)
    plain = advisor("fix", str(vmx), "--host", "dell-r720-e5-2697v2", "--write")
    assert plain.returncode == 0, plain.stderr
    assert "intrMode" in vmx.read_text() and "--select NET002" in plain.stderr
    chosen = advisor("fix", str(vmx), "--host", "dell-r720-e5-2697v2", "--select", "NET002", "--write")
    assert chosen.returncode == 0, chosen.stderr
    assert "intrMode" not in vmx.read_text()


LATENCY_HIGH = ('.encoding = "UTF-8"\ndisplayName = "sql"\nvirtualHW.version = "19"\nguestOS = "windows2019srv-64"\n'
                'numvcpus = "16"\nmemsize = "65536"\nsched.cpu.latencySensitivity = "high"\nsched.mem.max = "118"\n')


def test_fix_names_the_rule_of_every_change_and_removal(tmp_path):
    # Issue 33: "# removed: sched.mem.max '118' -> None" named no rule; SCHED002's Normal was a
    # removal that lost its reason, and SCHED004 wrote reservations Normal does not need.
    import jsonschema

    vmx = tmp_path / "sql.vmx"
    vmx.write_text(LATENCY_HIGH)
    args = ("fix", str(vmx), "--host", "hp-dl580-g7", "--workload", "sql-server")
    diff = advisor(*args)
    assert diff.returncode == 1, diff.stderr
    trailer = [line for line in diff.stderr.splitlines() if line.startswith("# ") and "->" in line]
    assert "# MEM003: sched.mem.max '118' -> removed" in trailer
    assert "# SCHED002: sched.cpu.latencySensitivity 'high' -> 'normal'" in trailer
    assert not any(line.startswith("# ?") for line in trailer)
    assert "sched.cpu.min" not in diff.stdout and "sched.mem.pin" not in diff.stdout
    report = advisor(*args, "--format", "json")
    assert report.returncode == 1, report.stderr
    document = json.loads(report.stdout)
    schema = json.loads((REPO / "advisor" / "schemas" / "fix-v1.schema.json").read_text())
    jsonschema.validate(document, schema)
    assert {c["key"]: (c["new"], c["rules"]) for c in document["changes"]} == {
        "sched.mem.max": (None, ["MEM003"]), "sched.cpu.latencySensitivity": ("normal", ["SCHED002"])}
    assert vmx.read_text() == LATENCY_HIGH
    written = advisor(*args, "--format", "json", "--write")
    assert written.returncode == 0 and json.loads(written.stdout)["written"] is True
    assert 'sched.cpu.latencySensitivity = "normal"' in vmx.read_text()

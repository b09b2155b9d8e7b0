"""Invalid specs: one line naming file, line and field; exit 2; no traceback (issue #2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HOST = "host: {name: lab, sockets: 2, cores_per_socket: 10, threads_per_core: 2, memory: 256GB, esxi: '7.0'}\n"

CASES = {
    "wrong-type-vcpus": (HOST + "vms:\n  - name: a\n    vcpus: many\n    memory: 8GB\n", 4, "vcpus"),
    "zero-vcpus": (HOST + "vms:\n  - name: a\n    vcpus: 0\n    memory: 8GB\n", 4, "vcpus"),
    "negative-count": (HOST + "vms:\n  - name: a\n    count: -2\n    vcpus: 4\n    memory: 8GB\n", 4, "count"),
    "cps-not-dividing": (
        HOST + "vms:\n  - name: a\n    vcpus: 10\n    cores_per_socket: 4\n    memory: 8GB\n",
        5,
        "cores_per_socket",
    ),
    "unknown-profile": ("host: hp-dl580\nvms:\n  - name: a\n    vcpus: 4\n    memory: 8GB\n", 1, "host"),
    "unknown-vm-key": (HOST + "vms:\n  - name: a\n    vcpu: 4\n    memory: 8GB\n", 4, "vcpu"),
    "unknown-top-key": (HOST + "vm:\n  - name: a\n", 2, "vm"),
    "unknown-host-key": (
        "host: {name: x, socket: 2, cores_per_socket: 10, memory: 256GB, esxi: '7.0'}\n"
        "vms: [{name: a, vcpus: 4, memory: 8GB}]\n",
        1,
        "host.socket",
    ),
    "malformed-yaml": (HOST + "vms:\n  - name: a\n    vcpus: [4\n", 5, None),
    "not-yaml-binary": ("\x00\x01\x02PK\x03\x04", None, None),
    "not-a-mapping": ("- just\n- a list\n", 1, None),
    "empty-file": ("", None, None),
    "unknown-unit": (HOST + "vms:\n  - name: a\n    vcpus: 4\n    memory: 8 parsecs\n", 5, "memory"),
    "bad-workload": (HOST + "vms:\n  - name: a\n    vcpus: 4\n    memory: 8GB\n    workload: sql\n", 6, "workload"),
    "bad-version": ("vsphere: banana\n" + HOST + "vms:\n  - name: a\n    vcpus: 4\n    memory: 8GB\n", 1, "vsphere"),
    "absurd-vcpus": (HOST + "vms:\n  - name: a\n    vcpus: 1000000000000\n    memory: 8GB\n", 4, "vcpus"),
    "absurd-memory": (HOST + "vms:\n  - name: a\n    vcpus: 4\n    memory: 1 ZB\n", 5, "memory"),
    "nodes-not-dividing-cores": (
        "host: {name: x, sockets: 2, cores_per_socket: 10, numa_nodes_per_socket: 4, memory: 256GB, esxi: '7.0'}\n"
        "vms: [{name: a, vcpus: 4, memory: 8GB}]\n",
        1,
        "numa_nodes_per_socket",
    ),
    "duplicate-key": (HOST + "vms:\n  - name: a\n    vcpus: 4\n    vcpus: 8\n    memory: 8GB\n", 5, "vcpus"),
    "duplicate-key-beside-a-merge": (
        HOST + "vms:\n  - &a {name: a, vcpus: 4, memory: 8GB}\n  - <<: *a\n    name: b\n    name: c\n",
        6,
        "name",
    ),
    "duplicate-vm-names": (
        HOST + "vms:\n  - {name: a, vcpus: 4, memory: 8GB}\n  - {name: a, vcpus: 2, memory: 8GB}\n",
        4,
        "name",
    ),
    "advanced-contradiction": (
        HOST
        + "vms:\n  - name: a\n    vcpus: 4\n    memory: 8GB\n    cpu_hot_add: false\n"
        "    advanced: {vcpu.hotadd: 'TRUE'}\n",
        7,
        "vcpu.hotadd",
    ),
    "advanced-not-boolean": (
        HOST + "vms:\n  - name: a\n    vcpus: 4\n    memory: 8GB\n    advanced:\n      vcpu.hotadd: maybe\n",
        7,
        "vcpu.hotadd",
    ),
    "missing-vms": (HOST, 1, None),
    "host-file-missing": ("host: ./nope.yaml\nvms: [{name: a, vcpus: 4, memory: 8GB}]\n", 1, "host"),
}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", sorted(CASES))
def test_invalid_spec_is_one_clear_line(tmp_path: Path, name: str) -> None:
    text, line, field = CASES[name]
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    proc = run("topology", str(path))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    message = lines[0]
    assert str(path) in message
    if line is not None:
        assert f"{path}:{line}:" in message, message
    if field is not None:
        assert field in message, message


def test_directory_instead_of_file(tmp_path: Path) -> None:
    proc = run("topology", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_other_files_still_processed(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(CASES["zero-vcpus"][0])
    good = tmp_path / "good.yaml"
    good.write_text(HOST + "vms:\n  - name: fine\n    vcpus: 4\n    memory: 8GB\n")
    proc = run("topology", "--format", "json", str(bad), str(good))
    assert proc.returncode == 2
    assert '"fine"' in proc.stdout and str(bad) in proc.stderr

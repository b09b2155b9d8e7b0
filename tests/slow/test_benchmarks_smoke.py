"""The benchmark inputs (benchmarks/generate.py): same seed, same bytes; and advisor reads them.

Not a timing test: the benchmarks themselves run with `python benchmarks/run.py`.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from advisor.load.specfile import parse_spec
from advisor.readers import read_template

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def generate():
    spec = importlib.util.spec_from_file_location("bench_generate", REPO / "benchmarks" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def hosts(generate):
    return generate.host_profiles()


def test_spec_files_are_deterministic_and_valid(generate, hosts):
    first = generate.spec_file_text(7, 3, hosts)
    assert first == generate.spec_file_text(7, 3, hosts)
    assert first != generate.spec_file_text(8, 3, hosts)
    loaded = parse_spec(first, "spec-00003.yaml")
    assert len(loaded.spec.vms) == 10
    assert loaded.spec.vms[0].name == "vm-00003-00"


def test_engine_spec_is_deterministic_and_valid(generate, hosts):
    text = generate.engine_spec_text(7, 25, hosts)
    assert text == generate.engine_spec_text(7, 25, hosts)
    loaded = parse_spec(text, "engine-25.yaml")
    assert [vm.name for vm in loaded.spec.vms] == [f"vm-{i:06d}" for i in range(25)]
    # the smaller spec is the start of the larger one (the same stream for every N)
    assert generate.engine_spec_text(7, 30, hosts).split("\n")[3:28] == text.split("\n")[3:28]


def test_vmx_variations_are_deterministic_and_readable(generate, tmp_path):
    bases, origin = generate.vmx_bases(corpus=None)  # the bundled templates: no ../shared needed
    assert origin.startswith("templates")
    data = generate.vmx_file_bytes(7, 1, bases)
    assert data == generate.vmx_file_bytes(7, 1, bases)
    assert data != generate.vmx_file_bytes(7, 2, bases)
    path = generate.vmx_path(tmp_path, 1)
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    (vm,) = read_template(path, data, ())
    assert vm.name == "bench-00001"
    assert vm.get("numvcpus") is not None and vm.get("memSize") is not None


def test_vary_vmx_keeps_crlf_line_endings(generate):
    base = b'.encoding = "UTF-8"\r\nnumvcpus = "2"\r\nethernet0.present = "TRUE"\r\n'
    varied = generate.vary_vmx(base, random.Random(1), 4)
    assert varied.count(b"\r\n") == varied.count(b"\n")
    assert b'displayName = "bench-00004"' in varied


def test_terraform_files_are_deterministic_and_readable(generate, tmp_path):
    text = generate.terraform_file_text(7, 5)
    assert text == generate.terraform_file_text(7, 5)
    path = generate.terraform_path(tmp_path, 5)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    vms = read_template(path, text.encode(), ())
    assert len(vms) == text.count('resource "vsphere_virtual_machine"') >= 1

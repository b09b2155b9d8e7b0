"""A template's VM built the quick way (advisor.model.template) is the VM the spec's full
validation builds from the same data, and an invalid template fails with the same error.

Compared field by field, in order, with the fields set and the private state: the engine, the
fix-point pass (model_dump(exclude_unset=True)) and the outputs read all three.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import SHARED
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from advisor.errors import InputError
from advisor.load import yamlfile
from advisor.model.spec import VM
from advisor.model.template import template_vm
from advisor.model.vmxkeys import _WHOLE, ADVANCED_INDEX, _int
from advisor.readers import read_template
from advisor.vmx.spelling import unescape
from advisor.vmx.templatefields import RECONCILED, template_fields

TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "templates"
_BAD = re.compile(r"^(advisor|not-a-vmx)")


def _inputs(t, workload: str | None = None):
    data, _, _ = template_fields(t)
    data.pop("_nic_slots")
    keys = data.pop(RECONCILED)
    context = {"lenient_shape": True, ADVANCED_INDEX: data.pop(ADVANCED_INDEX)}
    if workload:
        data["workload"] = workload
    return data, keys, context


def _state(vm: VM) -> tuple:
    nested = [(type(d).__name__, list(d.__dict__.items()), d.model_fields_set) for d in [*vm.disks, *vm.nics]]
    return list(vm.__dict__.items()), vm.model_fields_set, vm.__pydantic_private__, nested


def _same_vm(t, workload: str | None = None) -> None:
    data, keys, context = _inputs(t, workload)
    try:
        full = VM.model_validate(data, context=dict(context))
    except ValidationError as exc:
        with pytest.raises(ValidationError) as quick:
            template_vm(data, keys, dict(context))
        assert quick.value.errors(include_context=False) == exc.errors(include_context=False)
        return
    quick_vm = template_vm(data, keys, dict(context))
    assert _state(quick_vm) == _state(full)
    assert quick_vm.model_dump(exclude_unset=True) == full.model_dump(exclude_unset=True)


def _template_files() -> list[Path]:
    found = [p for p in sorted(TEMPLATES.rglob("*")) if p.is_file() and not _BAD.match(p.name)]
    corpus = SHARED / "corpus"
    if corpus.is_dir():
        found += sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix in (".vmx", ".ovf", ".tf", ".json",
                                                                                      ".hcl"))
    return found


@pytest.mark.self_compare
def test_every_template_gives_the_same_vm_either_way() -> None:
    seen = 0
    for path in _template_files():
        try:
            templates = read_template(path)
        except InputError:
            continue
        for t in templates:
            _same_vm(t)
            _same_vm(t, "sql-server")
            seen += 1
    assert seen >= 8


_ODD_LINES = [
    'numvcpus = "4"', 'numvcpus = "abc"', 'numvcpus = "99999"', 'memsize = "4096"', 'memSize = "4GB"',
    'cpuid.coresPerSocket = "3"', 'cpuid.coresPerSocket = "0"', 'virtualHW.version = "19"',
    'virtualHW.version = "x"', 'sched.cpu.min = "-5"', 'sched.mem.pin = "TRUE"', 'sched.mem.pin = "maybe"',
    'sched.mem.min = "1024"', 'sched.cpu.affinity = "all"', 'sched.cpu.affinity = "0,1"', 'vcpu.hotadd = "yes"',
    'vcpu.hotadd = "sometimes"', 'sched.cpu.latencySensitivity = "high"', 'sched.cpu.latencySensitivity = "x"',
    'ethernet0.present = "TRUE"', 'ethernet0.virtualDev = "vmxnet3"', 'ethernet0.virtualDev = "bogus"',
    'ethernet12.present = "TRUE"', 'ethernet12.virtualDev = "bogus"', 'scsi0.virtualDev = "pvscsi"',
    'scsi0.virtualDev = "lsilogic"', 'scsi0.virtualDev = "nonsense"', 'scsi0:0.present = "TRUE"',
    'scsi0:1.present = "TRUE"', 'scsi0:1.deviceType = "cdrom-image"', 'sata0:0.present = "TRUE"',
    'advisor.disk0.size = "40"', 'displayName = "x"', 'guestOS = "windows2019srv-64"', 'mem.hotadd = "TRUE"',
    # Values the model refuses as fields but reconcile_advanced sets unchecked, a pinned reservation
    # after or before its minimum, and a SCSI bus past the last one a disk can name (disks on it
    # count as bus 3): the quick path hands each to the full path.
    'virtualHW.version = "99"', 'sched.mem.pin = "FALSE"', 'sched.mem.min = "4096"', 'sched.cpu.min = "0x10"',
    'guestOS = " padded "', 'sched.cpu.affinity = ""', 'numvcpus = "0x4"', 'memsize = " 2048 "',
    'scsi5:0.present = "TRUE"', 'scsi5.virtualDev = "pvscsi"', 'scsi3.virtualDev = "lsilogic"',
    'ethernet0.virtualDev = "e1000"', 'ethernet1.present = "TRUE"',
]


@pytest.mark.self_compare
@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_ODD_LINES), max_size=10))
def test_odd_templates_give_the_same_vm_or_the_same_error(lines: list[str]) -> None:
    from advisor.readers import vmxfile

    for t in vmxfile.read(Path("t.vmx"), ("\n".join(['displayName = "t"', *lines]) + "\n").encode()):
        try:
            _same_vm(t)
        except ValueError:  # int("x") of advisor.diskN.size: raised the same way on both paths
            continue


def _unescape_reference(raw: str, charset: str = "utf-8") -> str:
    """The decoding as it was written before the runs were cached (one regex substitution)."""
    run = re.compile(r"(?:\|[0-9A-Fa-f]{2})+")
    return run.sub(lambda m: bytes.fromhex(m.group().replace("|", "")).decode(charset, "surrogateescape"), raw)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="|0123456789aAfFgz\u00e9 ", max_size=60), st.sampled_from(["utf-8", "cp1252", "shift_jis"]))
def test_unescape_decodes_runs_as_one_substitution_would(raw: str, charset: str) -> None:
    assert unescape(raw, charset) == _unescape_reference(raw, charset)


def _whole_reference(text: str) -> int:
    """mapping._int as it was written before plain digits skipped the pattern."""
    match = _WHOLE.fullmatch(text.strip().strip('"'))
    if not match:
        raise ValueError(text)
    value = int(match[2], 16) if match[2] else int(match[3])
    return -value if match[1] == "-" else value


@pytest.mark.self_compare
@settings(max_examples=500, deadline=None)
@given(st.one_of(st.from_regex(r"[+-]?[0-9]{1,20}", fullmatch=True),
                 st.text(alphabet="0123456789\u0663\u00b2\uff11 _x\"+-", max_size=22)))
def test_whole_numbers_read_as_the_pattern_reads_them(text: str) -> None:
    try:
        expected = _whole_reference(text)
    except ValueError:
        with pytest.raises(ValueError):
            _int(text)
        return
    assert _int(text) == expected


def test_read_bytes_reads_on_after_short_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read may return fewer bytes than asked for; the file is read to its end all the same,
    and a file over the limit is still refused."""
    path = tmp_path / "t.vmx"
    path.write_bytes(b"x" * 5000)
    real = os.read
    monkeypatch.setattr(yamlfile.os, "read", lambda fd, n: real(fd, min(n, 7)))
    assert yamlfile.read_bytes(path) == b"x" * 5000
    assert yamlfile.read_bytes(path, limit=5000) == b"x" * 5000
    with pytest.raises(InputError, match="limit"):
        yamlfile.read_bytes(path, limit=4999)
    empty = tmp_path / "empty.vmx"
    empty.write_bytes(b"")
    assert yamlfile.read_bytes(empty) == b""


def test_read_bytes_stops_at_the_fstat_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file read to its fstat size takes one read (no second one to see the end); a file that
    grew since fstat is still read on to its new end."""
    path = tmp_path / "t.vmx"
    path.write_bytes(b"x" * 5000)
    real = os.read
    calls: list[int] = []

    def counted(fd: int, n: int) -> bytes:
        calls.append(n)
        return real(fd, n)

    monkeypatch.setattr(yamlfile.os, "read", counted)
    assert yamlfile.read_bytes(path) == b"x" * 5000
    assert len(calls) == 1

    def growing(fd: int, n: int) -> bytes:
        if not calls:
            with path.open("ab") as more:
                more.write(b"y" * 3000)
        calls.append(n)
        return real(fd, n)

    calls.clear()
    monkeypatch.setattr(yamlfile.os, "read", growing)
    assert yamlfile.read_bytes(path) == b"x" * 5000 + b"y" * 3000


def test_key_roles_are_kept_only_for_short_keys_and_bounded() -> None:
    from advisor.vmx import templatefields

    roles = templatefields._ROLES
    roles.clear()
    long_key = "ethernet0." + "x" * 100_000  # a hostile file's key: classified, never kept
    assert roles[long_key] is None
    assert long_key not in roles
    for n in range(9_000):
        assert roles[f"ethernet{n}.virtualdev"] is not None
        assert len(roles) <= 8192
    assert roles["ethernet7.present"].nic_present == 7  # classified again once dropped

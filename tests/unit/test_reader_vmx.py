"""Tests for the .vmx template reader (advisor.readers.vmxfile)."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.errors import InputError
from advisor.readers import vmxfile

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "vmx"


def read_one(name: str):
    path = FIXTURES / name
    vms = vmxfile.read(path, path.read_bytes())
    assert len(vms) == 1
    return vms[0]


def test_settings_carry_unescaped_values_lines_and_canonical_spelling():
    vm = read_one("sql-template.vmx")
    assert vm.kind == "vmx"
    assert vm.name == 'SQL "prod" 01'  # |22 is a double quote
    assert vm.line == 4
    assert vm.get("numvcpus").value == "16"
    assert vm.get("numvcpus").line == 7
    memsize = vm.get("memsize")
    assert (memsize.value, memsize.line) == ("131072", 9)
    assert vm.spelling["memsize"] == "memsize"  # memSize is written the way ESXi writes it
    assert vm.spelling["scsi0:0.filename"] == "scsi0:0.fileName"
    assert vm.get("annotation").value == "Owner: DBA team\nHas = and # inside"
    assert vm.get("annotation").raw == "Owner: DBA team|0AHas = and # inside"
    assert vm.get("sched.cpu.latencySensitivity").value == "normal"  # a bare, unquoted value
    assert vm.get("scsi0.virtualDev").value == "lsisas1068"


def test_suppressions_carry_their_reason():
    vm = read_one("sql-template.vmx")
    assert vm.suppressions == [
        ("NET001", "the backup appliance only ships e1000e drivers", 6),
        ("CPU002", "sized by the vendor's sizing tool", 17),
        ("MEM001", "sized by the vendor's sizing tool", 17),
    ]
    assert vm.notes == []


@pytest.mark.parametrize(("charset", "name"), [
    ("windows-1252", "plain"), ("windows-1252", "caf\u00e9"), ("Shift_JIS", "plain"), ("Shift_JIS", "\u65e5\u672c"),
    ("UTF-8", "plain"), ("UTF-8", "\u65e5\u672c"),
])
def test_suppressions_are_found_in_any_charset(charset, name):
    # An ASCII file is searched for the hint's bytes alone, whatever its charset; other files
    # line by line in their charset.
    text = (f'.encoding = "{charset}"\n# advisor: ignore NET001 -- vendor appliance\ndisplayName = "{name}"\n'
            "#advisor:ignore CPU001\n")
    vm = vmxfile.read(Path("t.vmx"), text.encode("cp1252" if charset == "windows-1252" else charset))[0]
    assert vm.name == name
    # the reasonless one is carried as it is: the engine refuses it (tests/cli/test_spec_writing.py)
    assert vm.suppressions == [("NET001", "vendor appliance", 2), ("CPU001", "", 4)]


def test_duplicates_last_wins_and_malformed_lines_are_notes():
    vm = read_one("messy.vmx")
    assert vm.get("numvcpus").value == "12"
    assert vm.get("numvcpus").line == 9
    assert vm.get("ethernet0.virtualDev").value == "vmxnet3"  # unclosed quote read to line end
    notes = "\n".join(vm.notes)
    assert "numvcpus is set on lines 3, 6, 9; the last one (line 9) counts" in notes
    assert "line 5:" in notes and "not a `key" in notes
    assert "line 7:" in notes and "closing quote" in notes
    assert "line 8:" in notes and "no rule id" in notes
    assert vm.suppressions == []


def test_name_falls_back_to_the_file_stem_and_crlf_keeps_line_numbers():
    vm = read_one("crlf-no-name.vmtx")
    assert vm.name == "crlf-no-name"
    assert vm.get("memsize").value == "2048"
    assert vm.get("memsize").line == 3


def test_binary_file_is_an_input_error_naming_the_file():
    path = FIXTURES / "not-a-vmx.vmx"
    with pytest.raises(InputError) as caught:
        vmxfile.read(path, path.read_bytes())
    assert caught.value.file == str(path)


def test_text_without_entries_is_an_input_error(tmp_path):
    path = tmp_path / "notes.vmx"
    path.write_text("# only a comment\n\nhello world\n")
    with pytest.raises(InputError) as caught:
        vmxfile.read(path, path.read_bytes())
    assert caught.value.file == str(path)
    assert "not a .vmx" in caught.value.message


def test_many_malformed_lines_are_summarised(tmp_path):
    path = tmp_path / "noisy.vmx"
    path.write_text('numvcpus = "2"\n' + "garbage line\n" * 50)
    vm = vmxfile.read(path, path.read_bytes())[0]
    assert len(vm.notes) == 21
    assert vm.notes[-1].startswith("... 30 more")


@pytest.mark.parametrize(
    ("name", "head", "expected"),
    [
        ("a.vmx", b"", True),
        ("a.VMTX", b"", True),
        ("config", b'.encoding = "UTF-8"\nconfig.version = "8"\nnumvcpus = "2"\n', True),
        ("config", b'# a comment\r\ndisplayName = "x"\r\nmemsize = 1024\r\n', True),
        ("main.tf", b'resource "vsphere_virtual_machine" "vm" {\n  num_cpus = 2\n}\n', False),
        ("vars.tfvars", b'cpus = "2"\nmemory = 4096\n', False),
        ("x.yaml", b"numvcpus: 2\n", False),
        ("blob", b'numvcpus = "2"\0\0', False),
    ],
)
def test_sniff(name, head, expected):
    assert vmxfile.sniff(Path(name), head) is expected


def test_sniff_does_not_claim_other_template_fixtures():
    templates = FIXTURES.parent
    for path in templates.rglob("*"):
        if path.is_file() and path.parent.name != "vmx":
            assert not vmxfile.sniff(path.with_suffix(".txt"), path.read_bytes()[:4096]), path


def test_every_corpus_file_reads(shared_dir):
    corpus = shared_dir / "corpus" / "vmx"
    files = sorted(p for p in corpus.rglob("*") if p.is_file())
    assert files, "the vmx corpus is empty"
    for path in files:
        data = path.read_bytes()
        vms = vmxfile.read(path, data)
        assert len(vms) == 1, path
        vm = vms[0]
        assert vm.name, path
        assert vm.settings, path
        assert all(s.line is not None and s.value is not None for s in vm.settings.values()), path
        assert vmxfile.sniff(path, data[:4096]), path

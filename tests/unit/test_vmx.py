"""Tests for the .vmx reader and editor (advisor.vmx.reader, advisor.vmx.document): one test per known
.vmx parser pitfall, properties, and the corpus.

The pitfalls are the ones other parsers are known to have (landscape §2 item 13); each test
names the pitfall it guards against so a failure says which promise broke.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from conftest import require_shared
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.errors import InputError
from advisor.vmx.document import (
    Change,
    VmxDocument,
    apply,
    canonical_key,
    escape,
    is_locked,
    render_fragment,
    unescape,
    unified_diff,
)
from advisor.vmx.entries import VmxEntries
from advisor.vmx.reader import MAX_FILE_BYTES, read_entries

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "vmx"


def parse(text: str | bytes) -> VmxDocument:
    return VmxDocument.parse(text.encode() if isinstance(text, str) else text)


# --------------------------------------------------------------------------- pitfalls


def test_every_line_is_read_none_dropped() -> None:
    """vmxparser called readline() inside `for line in f` and lost every other line."""
    text = "".join(f'key{i} = "{i}"\n' for i in range(25))
    doc = parse(text)
    assert [e.key for e in doc.entries()] == [f"key{i}" for i in range(25)]
    assert [e.line for e in doc.entries()] == list(range(1, 26))
    assert doc.get("key24") == "24"


def test_keys_match_exactly_not_by_prefix() -> None:
    """vmx-editor matched by prefix; Xen Orchestra dropped `guestOS` next to `guestOS.detailed`."""
    doc = parse(
        'scsi0.present = "TRUE"\n'
        'scsi0:0.present = "FALSE"\n'
        'guestOS = "windows9-64"\n'
        'guestOS.detailed.data = "x"\n'
    )
    assert doc.get("scsi0.present") == "TRUE"
    assert doc.get("scsi0:0.present") == "FALSE"
    assert doc.get("guestOS") == "windows9-64"
    assert doc.get("guestOS.detailed.data") == "x"
    assert doc.get("scsi0") is None and doc.get("guestOS.detailed") is None
    doc.set("scsi0.present", "FALSE")
    assert doc.get("scsi0:0.present") == "FALSE"
    assert b'scsi0:0.present = "FALSE"' in doc.to_bytes()


def test_values_may_contain_equals_signs() -> None:
    """govmx rejected values with `=`; Xen Orchestra split on " = "."""
    doc = parse('annotation = "a=b = c"\nx="k = v"\n')
    assert doc.get("annotation") == "a=b = c"
    assert doc.get("x") == "k = v"


def test_comments_are_skipped_and_kept() -> None:
    """Packer's ParseVMX read `#` lines as keys; `#` inside quotes is data, not a comment."""
    text = '#!/usr/bin/vmware\n  # indented comment\n#x = "1"\nname = "a # b"\n'
    doc = parse(text)
    assert [e.key for e in doc.entries()] == ["name"]
    assert doc.get("name") == "a # b"
    assert doc.get("x") is None and doc.get("#x") is None
    assert doc.to_bytes() == text.encode()


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("|22quoted|22", '"quoted"'),
        ("a|7Cb|7cc", "a|b|c"),
        ("one|0Atwo|0a", "one\ntwo\n"),
        ("100|25", "100%"),
    ],
)
def test_pipe_hex_escapes_are_decoded(raw: str, value: str) -> None:
    """vmxparser and Packer returned `|22` literally."""
    doc = parse(f'annotation = "{raw}"\n')
    assert doc.get("annotation") == value
    assert next(doc.entries()).raw_value == raw


def test_pipe_without_hex_is_literal() -> None:
    assert unescape("a|b|4|zz|") == "a|b|4|zz|"


def test_escape_uses_upper_case_hex_for_what_is_needed_only() -> None:
    assert escape('say "hi" | bye\n\t#=%') == "say |22hi|22 |7C bye|0A|09#=%"
    assert escape("\x7f\x00") == "|7F|00"


def test_escape_runs_decode_in_the_file_charset() -> None:
    assert unescape("|E5|85|B1") == "共"
    assert unescape("|E9", "cp1252") == "é"


def test_keys_are_case_insensitive() -> None:
    """vmxparser compared keys case-sensitively; govix wrote all-lowercase files VMware loaded."""
    doc = parse('numVCPUs = "4"\nCPUID.CORESPERSOCKET = "2"\n')
    assert doc.get("NUMVCPUS") == "4" and doc.get("numvcpus") == "4"
    assert doc.get("cpuid.coresPerSocket") == "2"
    assert "NumVcpus" in doc
    assert doc.settings() == {"numvcpus": "4", "cpuid.corespersocket": "2"}


def test_duplicates_are_reported_and_the_last_wins() -> None:
    doc = parse('memsize = "1024"\nnumvcpus = "2"\nMEMSIZE = "4096"\nmemSize = "8192"\n')
    assert doc.get("memsize") == "8192"
    assert doc.duplicates == [("memsize", [1, 3, 4])]
    assert doc.lines_of()["memsize"] == 4
    assert doc.settings()["memsize"] == "8192"


def test_entry_gives_the_effective_occurrence_with_its_line() -> None:
    doc = parse('# x\nMemSize = "1"\nmemsize = "2|7C"\n')
    found = doc.entry("MEMSIZE")
    assert found is not None
    assert (found.key, found.value, found.raw_value, found.line) == ("memsize", "2|", "2|7C", 3)
    assert doc.entry("numvcpus") is None

def test_windows_1252_is_decoded_and_edits_are_encoded_back() -> None:
    data = '.encoding = "windows-1252"\ndisplayName = "Caf\xe9"\n'.encode("cp1252")
    doc = parse(data)
    assert doc.encoding == "cp1252" and doc.charset == "windows-1252"
    assert doc.get("displayName") == "Café"
    doc.set("displayName", "Crème")
    assert doc.to_bytes() == '.encoding = "windows-1252"\ndisplayName = "Cr\xe8me"\n'.encode("cp1252")


def test_shift_jis_is_decoded() -> None:
    data = '.encoding = "Shift_JIS"\r\ndisplayName = "仮想マシン"\r\n'.encode("shift_jis")
    doc = parse(data)
    assert doc.get("displayname") == "仮想マシン"
    assert doc.to_bytes() == data


def test_shift_jis_pipe_trail_bytes_are_not_escapes() -> None:
    """In Shift_JIS "ポ" is 0x83 0x7C: decoding before unescaping keeps that 0x7C a letter."""
    doc = parse('.encoding = "Shift_JIS"\nname = "x"\n'.encode("shift_jis"))
    doc.set("name", "ポ|22ト")
    data = doc.to_bytes()
    assert b"\x83\x7c" in data
    assert parse(data).get("name") == "ポ|22ト"

def test_icu_charset_names_map_to_python_codecs() -> None:
    """Workstation writes ICU names such as windows-949-2000 (Korean)."""
    data = b'.encoding = "windows-949-2000"\ndisplayName = "CentOS \xbd\xc7\xc7\xe0"\n'
    assert parse(data).get("displayName") == "CentOS 실행"


def test_unknown_charset_falls_back_to_utf8_with_a_warning() -> None:
    doc = parse('.encoding = "klingon-1"\nname = "ü"\n')
    assert doc.encoding == "utf-8" and doc.get("name") == "ü"
    assert any("klingon-1" in w.message for w in doc.warnings)


def test_undecodable_bytes_round_trip_and_warn() -> None:
    data = b'name = "bad \xff\xfe"\nother = "1"\n'
    doc = parse(data)
    assert doc.to_bytes() == data
    assert [w.line for w in doc.warnings] == [1]
    doc.set("other", "2")
    assert doc.to_bytes() == b'name = "bad \xff\xfe"\nother = "2"\n'


@pytest.mark.parametrize(
    "data",
    [
        b'a = "1"\r\nb = "2"\r\n',
        b'a = "1"\nb = "2"',
        b'a = "1"\r\nb = "2"\n\n\n',
        b'\xef\xbb\xbf.encoding = "UTF-8"\na = "1"\n',
        b"",
        b"\n",
        b'  a   =   "1"   \n\tb=2\n',
    ],
)
def test_line_endings_bom_and_spacing_round_trip(data: bytes) -> None:
    assert parse(data).to_bytes() == data


def test_crlf_file_gets_crlf_for_appended_lines() -> None:
    doc = parse(b'a = "1"\r\nb = "2"\r\n')
    doc.set("numvcpus", "4")
    assert doc.to_bytes() == b'a = "1"\r\nb = "2"\r\nnumvcpus = "4"\r\n'


def test_missing_final_newline_is_added_before_appending() -> None:
    doc = parse(b'a = "1"')
    doc.set("memsize", "4096")
    assert doc.to_bytes() == b'a = "1"\nmemsize = "4096"\n'


def test_malformed_lines_are_kept_verbatim() -> None:
    text = 'a = "1"\nthis is not an entry\n= "no key"\nb = "2" trailing\nc = "unterminated\n'
    doc = parse(text)
    assert doc.to_bytes() == text.encode()
    assert doc.malformed == [2, 3]
    assert doc.get("b") == "2"
    assert doc.get("c") == "unterminated"
    assert {w.line for w in doc.warnings} == {2, 3, 4, 5}


def test_unquoted_values_are_read_and_edited_in_their_style() -> None:
    doc = parse("rtc.diffFromUTC = 0\nscsi0:0.virtualSSD = 1\n")
    assert doc.get("rtc.diffFromUTC") == "0"
    assert next(doc.entries()).quoted is False
    doc.set("rtc.diffFromUTC", "3600")
    doc.set("scsi0:0.virtualSSD", "needs quotes")
    assert doc.to_bytes() == b'rtc.diffFromUTC = 3600\nscsi0:0.virtualSSD = "needs quotes"\n'


def test_set_keeps_spelling_spacing_and_quoting() -> None:
    doc = parse('NUMVCPUS="2"   \n  memSize   =  "1024"\n')
    assert doc.set("numvcpus", "8") is True
    assert doc.set("MEMSIZE", "2048") is True
    assert doc.to_bytes() == b'NUMVCPUS="8"   \n  memSize   =  "2048"\n'


def test_set_edits_the_last_duplicate_only() -> None:
    doc = parse('memsize = "1"\nmemsize = "2"\n')
    doc.set("memsize", "3")
    assert doc.to_bytes() == b'memsize = "1"\nmemsize = "3"\n'


def test_set_appends_with_canonical_spelling_and_escaping() -> None:
    doc = parse('displayName = "vm"\n')
    doc.set("NUMA.VCPU.PREFERHT", "TRUE")
    doc.set("scsi1:3.filename", 'disk "1".vmdk')
    assert doc.to_bytes() == (
        b'displayName = "vm"\nnuma.vcpu.preferHT = "TRUE"\nscsi1:3.fileName = "disk |221|22.vmdk"\n'
    )
    assert doc.get("scsi1:3.fileName") == 'disk "1".vmdk'


def test_set_of_same_value_changes_nothing() -> None:
    data = b'memsize = "40|39|36"\n'
    doc = parse(data)
    assert doc.set("memsize", "4096") is False
    assert doc.to_bytes() == data


def test_set_fixes_an_unterminated_quote() -> None:
    doc = parse(b'a = "oops\n')
    doc.set("a", "fine")
    assert doc.to_bytes() == b'a = "fine"\n'


def test_set_refuses_unwritable_keys_and_values() -> None:
    doc = parse("")
    for bad in ["", "has space", "a=b", '"q"', "#comment", "tab\t", "ünï"]:
        with pytest.raises(InputError):
            doc.set(bad, "x")
    with pytest.raises(InputError):
        doc.set("k", 5)  # type: ignore[arg-type]


def test_value_outside_the_charset_is_an_input_error_and_changes_nothing() -> None:
    data = '.encoding = "windows-1252"\nname = "x"\n'.encode("cp1252")
    doc = parse(data)
    with pytest.raises(InputError, match="charset"):
        doc.set("name", "漢字")
    assert doc.to_bytes() == data


def test_encoding_changes_are_refused_but_same_charset_is_fine() -> None:
    doc = parse('.encoding = "windows-1252"\n')
    with pytest.raises(InputError, match="transcode"):
        doc.set(".encoding", "UTF-8")
    with pytest.raises(InputError):
        doc.remove(".ENCODING")
    assert doc.set(".encoding", "cp1252") is True
    fresh = parse('a = "1"\n')
    fresh.set(".encoding", "UTF-8")
    assert fresh.to_bytes() == b'.encoding = "UTF-8"\na = "1"\n'


def test_remove_drops_every_occurrence() -> None:
    doc = parse('a = "1"\n# keep\nA = "2"\nb = "3"\n')
    assert doc.remove("a") == 2
    assert doc.remove("missing") == 0
    assert doc.to_bytes() == b'# keep\nb = "3"\n'
    assert [e.line for e in doc.entries()] == [2]


def test_apply_reports_changes_and_is_idempotent() -> None:
    doc = parse(
        'numvcpus = "8"\nnuma.vcpu.preferHT = "true"\ncpuid.coresPerSocket = "1"\nvcpu.hotadd = "TRUE"\n'
    )
    desired = {
        "numa.vcpu.preferHT": "TRUE",
        "cpuid.coresPerSocket": "4",
        "memsize": "16384",
        "vcpu.hotadd": None,
    }
    changes = apply(doc, desired)
    assert changes == [
        Change("cpuid.coresPerSocket", "1", "4", 3),
        Change("memsize", None, "16384", 4),
        Change("vcpu.hotadd", "TRUE", None, 4),
    ]
    once = doc.to_bytes()
    assert apply(doc, desired) == []
    assert doc.to_bytes() == once
    assert b'numa.vcpu.preferHT = "true"' in once  # equal boolean left alone


def test_apply_treats_case_variants_of_a_key_as_one() -> None:
    doc = parse('memsize = "1"\n')
    assert apply(doc, {"MEMSIZE": "2", "memsize": "3"}) == [Change("memsize", "1", "3", 1)]
    assert apply(doc, {"MEMSIZE": "2", "memsize": "3"}) == []


def test_unified_diff_shows_only_the_edit() -> None:
    before = b'a = "1"\nb = "2"'
    doc = parse(before)
    doc.set("b", "3")
    diff = unified_diff("vm.vmx", before, doc.to_bytes())
    assert "--- a/vm.vmx" in diff and "+++ b/vm.vmx" in diff
    assert '-b = "2"\n\\ No newline at end of file\n' in diff
    assert '+b = "3"\n' in diff
    assert ' a = "1"\n' in diff
    assert unified_diff("vm.vmx", before, before) == ""


def test_booleans() -> None:
    from advisor.model.vmxkeys import parse_bool
    from advisor.vocab import vmx_bool

    assert vmx_bool(True) == "TRUE" and vmx_bool(False) == "FALSE"
    for word in ["true", "TRUE", "True", "1", "yes", " TRUE "]:
        assert parse_bool(word) is True
    for word in ["false", "FALSE", "0", "no"]:
        assert parse_bool(word) is False
    with pytest.raises(ValueError):
        parse_bool("maybe")


@pytest.mark.parametrize(
    ("key", "canonical"),
    [
        ("NUMVCPUS", "numvcpus"),
        ("cpuid.corespersocket", "cpuid.coresPerSocket"),
        ("numa.vcpu.preferht", "numa.vcpu.preferHT"),
        ("ETHERNET12.VIRTUALDEV", "ethernet12.virtualDev"),
        ("scsi0:15.filename", "scsi0:15.fileName"),
        ("sched.mem.minsize", "sched.mem.minSize"),
        ("vmx.reboot.powercycle", "vmx.reboot.PowerCycle"),
        ("VirtualHW.Version", "virtualHW.version"),
        ("some.Unknown.key", "some.Unknown.key"),
    ],
)
def test_canonical_key(key: str, canonical: str) -> None:
    assert canonical_key(key) == canonical


def test_key_spellings_are_kept_only_for_short_keys_and_bounded() -> None:
    from advisor.vmx import spelling

    spelling._SPELLED.clear()
    long_key = "ETHERNET0." + "x" * 100_000  # a hostile file's key: spelled, never kept
    assert canonical_key(long_key) == long_key
    assert list(spelling.canonical_keys([long_key, "NUMVCPUS"])) == [long_key, "numvcpus"]
    assert long_key not in spelling._SPELLED
    for n in range(5_000):
        assert canonical_key(f"ETHERNET{n}.VIRTUALDEV") == f"ethernet{n}.virtualDev"
        assert len(spelling._SPELLED) <= 4096
    assert canonical_key("ETHERNET7.VIRTUALDEV") == "ethernet7.virtualDev"  # spelled again once dropped


def test_render_fragment_writes_comments_and_canonical_escaped_entries() -> None:
    text = render_fragment(
        [("numa.vcpu.preferht", "TRUE", "threads count as cores\nsee §1.5"), ("annotation", 'a "b"', None)]
    )
    assert text == (
        "# threads count as cores\n# see §1.5\n"
        'numa.vcpu.preferHT = "TRUE"\n'
        'annotation = "a |22b|22"\n'
    )
    assert parse(text).settings() == {"numa.vcpu.preferht": "TRUE", "annotation": 'a "b"'}


# --------------------------------------------------------------------------- input limits and files


def test_nul_bytes_are_refused_with_their_line() -> None:
    with pytest.raises(InputError) as info:
        VmxDocument.parse(b'a = "1"\nb\0 = "2"\n', file="vm.vmx")
    assert info.value.line == 2 and info.value.file == "vm.vmx"


def test_utf16_is_refused_as_not_a_vmx() -> None:
    with pytest.raises(InputError, match="NUL"):
        VmxDocument.parse('a = "1"\n'.encode("utf-16"))


def test_oversized_input_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.vmx"
    with big.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(InputError, match="MiB"):
        VmxDocument.read(big)


def test_read_reports_missing_files_and_folders(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        VmxDocument.read(tmp_path / "nope.vmx")
    with pytest.raises(InputError, match="folder"):
        VmxDocument.read(tmp_path)
    good = tmp_path / "vm.vmx"
    good.write_bytes(b'numvcpus = "2"\n')
    doc = VmxDocument.read(good)
    assert doc.get("numvcpus") == "2" and doc.file == str(good)


def test_is_locked(tmp_path: Path) -> None:
    vmx = tmp_path / "vm.vmx"
    vmx.write_bytes(b"")
    assert not is_locked(vmx)
    (tmp_path / "vm.vmx.lck").mkdir()
    assert is_locked(vmx)
    (tmp_path / "vm.vmx.lck").rmdir()
    (tmp_path / "vm-flat.vmdk.lck").mkdir()
    assert is_locked(vmx)
    (tmp_path / "vm-flat.vmdk.lck").rmdir()
    (tmp_path / "notes.lck").write_text("")  # a plain *.lck file elsewhere is not a lock folder
    assert not is_locked(vmx)
    (tmp_path / "vm.vmx.lck").write_text("")
    assert is_locked(vmx)


# --------------------------------------------------------------------------- properties

_KEY_TEXT = st.from_regex(r"[A-Za-z][A-Za-z0-9_.:]{0,15}", fullmatch=True)
_LINE_PIECES = st.sampled_from(
    ['k = "v"', "k=v", "# c", "", "  ", '"', "=", "|22", "\r", "\t", "#",
     '.encoding = "cp1252"', ".encoding=shift_jis", "é", "\x85", "日本", "\u2028"]
)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300).map(lambda b: b.replace(b"\0", b"")))
def test_any_bytes_round_trip(data: bytes) -> None:
    assert VmxDocument.parse(data).to_bytes() == data


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(_LINE_PIECES, max_size=5).map("".join), max_size=12),
    st.sampled_from(["\n", "\r\n"]),
)
def test_vmx_like_text_round_trips_and_every_line_is_classified(lines: list[str], eol: str) -> None:
    data = eol.join(lines).encode("utf-8")
    doc = VmxDocument.parse(data)
    assert doc.to_bytes() == data
    assert doc.line_count == len(data.split(b"\n")) - (1 if data.endswith(b"\n") or not data else 0)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_escape_then_unescape_is_identity(value: str) -> None:
    escaped = escape(value)
    assert '"' not in escaped and "\n" not in escaped
    assert unescape(escaped) == value


@pytest.mark.self_compare
@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="|0aAfFgG9 \u00e9", max_size=40))
def test_escape_runs_are_cut_where_the_plain_run_regex_cuts_them(raw: str) -> None:
    import re

    from advisor.vmx import spelling

    assert spelling._ESCAPE_RUN_SPLIT.split(raw) == re.split(r"((?:\|[0-9A-Fa-f]{2})+)", raw)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_KEY_TEXT, st.text(max_size=20), st.none() | st.text(max_size=20)), max_size=8))
def test_render_fragment_parses_back_to_the_same_settings(items: list[tuple[str, str, str | None]]) -> None:
    expected = {key.lower(): value for key, value, _ in items}
    assert parse(render_fragment(items)).settings() == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(_KEY_TEXT, st.text(max_size=12)), max_size=6),
    st.lists(st.tuples(_KEY_TEXT, st.text(max_size=12)), max_size=6),
    st.sampled_from([b"", b"\n", b"# header\r\n", b'x = "no newline"']),
)
def test_set_produces_documents_that_parse_back(
    initial: list[tuple[str, str]], edits: list[tuple[str, str]], prefix: bytes
) -> None:
    doc = VmxDocument.parse(prefix + render_fragment([(k, v, None) for k, v in initial]).encode())
    expected = doc.settings()
    for key, value in edits:
        doc.set(key, value)
        expected[key.lower()] = value
    reparsed = VmxDocument.parse(doc.to_bytes())
    assert reparsed.settings() == expected
    # Keys are case-insensitive: the settings to re-apply are the final value of each key
    # (a dict of the raw edits would keep 'r0' and 'R0' as two contradicting entries).
    assert apply(reparsed, expected) == []


# --------------------------------------------------------------------------- the lint view
# The editor is built on the reader (advisor.vmx.reader), so the two cannot disagree; the .vmx
# template reader's settings are a lazy mapping over the reader's columns, and must say what the
# file's entries say.


def _reader_agrees(data: bytes, full: VmxEntries) -> None:
    """The .vmx reader's settings, spellings and index (made on demand) say what the full parser's
    entries say, in the same order."""
    from advisor.readers.vmxfile import read

    if not full.effective:
        with pytest.raises(InputError):
            read(Path("t.vmx"), data)
        return
    vm = read(Path("t.vmx"), data)[0]
    assert list(vm.settings) == list(full.effective) and len(vm.settings) == len(full.effective)
    assert all(low in vm.settings and vm.settings.get(low) == entry == vm.settings[low]
               for low, entry in full.effective.items())
    assert vm.settings.get("no.such.key") is None and "no.such.key" not in vm.settings
    assert dict(vm.spelling) == {low: canonical_key(e.key) for low, e in full.effective.items()}
    from advisor.engine.lint import _on_line

    eager = dict(vm.settings.items())  # as a reader without lines gives them
    for number in range(data.count(b"\n") + 2):
        for prefixes in (("",), ("k", "numvcpus")):
            assert _on_line(vm.settings, number, prefixes) == _on_line(eager, number, prefixes)
    index = getattr(vm.settings, "index", None)
    if index is not None:  # not when the reader changed a setting (an encrypted file)
        assert index == {low: (canonical_key(e.key), e.value) for low, e in full.effective.items()}


_REGULAR_PIECES = st.sampled_from(
    [
        'numvcpus = "4"',
        'displayName = "db|22x|7C"',
        'a.b = ""',
        '  k\t=\t"v"  ',
        'K = "x = y"',
        'k = "v" ',
        "# advisor: ignore NET001 -- why",
        "",
        "   ",
        '.encoding = "UTF-8"',
        '.encoding = "utf8"',
        'name = "日本"',
        '.encoding = "windows-1252"',
        '.encoding = "Shift_JIS"',
        '.encoding = "windows-949-2000"',
        "bare = value",
        'k = "unclosed',
        'k = "v" tail',
        "junk",
        'k = "\x85\u2028"',
        '\f k = "v"\v',
        '.encoding = "no-such-charset"',
        'numvcpus = "8"',
        "rtc.diffFromUTC = 0",
        "e =",
        "e = \t",
        'b = x"y',
        'b = x "y"',
        'q =  "a" ',
        "=x",
        "k==v",
        'k = "a"b"',
    ]
)


@pytest.mark.self_compare
@settings(max_examples=300, deadline=None)
@given(st.lists(_REGULAR_PIECES, max_size=14), st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_template_settings_say_what_the_entries_say(lines: list[str], eol: str, bom: bool, final_eol: bool) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + (eol.join(lines) + (eol if final_eol else "")).encode("utf-8")
    view = read_entries(data)
    assert {k: view.entry_at(line) for k, line in view.lines.items()} == view.effective
    _reader_agrees(data, view)


def test_a_file_that_cannot_be_decoded_whole_is_read_line_by_line() -> None:
    """A broken Shift_JIS lead byte before a newline would swallow it if the file were decoded
    whole: each line is then decoded alone, the broken one kept as its bytes and said."""
    data = b'.encoding = "Shift_JIS"\r\nbad = "\x83\r\nname = "\x83|7C"\r\njunk\r\n'
    view = read_entries(data)
    assert view.encoding == "shift_jis" and view.charset == "Shift_JIS"
    assert [(e.key, e.value, e.line) for e in view.entries] == [
        (".encoding", "Shift_JIS", 1), ("bad", "\udc83", 2), ("name", "\u30dd7C", 3)]
    assert [(w.line, w.message) for w in view.warnings] == [
        (2, "bytes that are not valid shift_jis; kept as they are"),
        (2, "value has no closing quote; read to the end of the line"),
        (4, "not a `key = \"value\"` line; kept verbatim")]
    assert view.malformed == [4]
    doc = VmxDocument.parse(data)
    assert doc.to_bytes() == data and doc.malformed == [4]
    doc.set("bad", "ok")
    assert doc.to_bytes() == data.replace(b'bad = "\x83\r\n', b'bad = "ok"\r\n')


def test_an_unknown_charset_is_said_before_the_lines() -> None:
    view = read_entries(b'.encoding = "no-such-charset"\nk = "v" tail\n')
    assert view.encoding == "utf-8"
    assert [(w.line, w.message) for w in view.warnings] == [
        (None, "unknown or unsupported charset 'no-such-charset'; reading as UTF-8"),
        (2, "text after the closing quote is ignored")]


# --------------------------------------------------------------------------- corpus


def _corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.vmx")) if CORPUS.is_dir() else []


def _entry_key(line: bytes) -> str | None:
    entries = list(VmxDocument.parse(line).entries())
    return entries[0].key.lower() if entries else None


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: p.name)
def test_corpus_round_trips_and_edits_touch_only_their_lines(path: Path) -> None:
    original = path.read_bytes()
    doc = VmxDocument.parse(original, file=path.name)
    assert doc.to_bytes() == original

    desired = {"numa.vcpu.preferHT": "TRUE", "cpuid.coresPerSocket": doc.get("numvcpus") or "1"}
    before = doc.settings()
    changes = apply(doc, desired)
    after = doc.to_bytes()

    expected = {**before, **{k.lower(): v for k, v in desired.items()}}
    assert VmxDocument.parse(after).settings() == expected
    assert {c.key.lower() for c in changes} <= {k.lower() for k in desired}

    old_lines, new_lines = original.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    wanted = {k.lower() for k in desired}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for line in old_lines[i1:i2] + new_lines[j1:j2]:
            assert _entry_key(line) in wanted, line
    assert apply(VmxDocument.parse(after), desired) == []


def test_corpus_is_present_or_skipped() -> None:
    require_shared("corpus", "vmx")
    assert len(_corpus_files()) >= 30


# The line regex as it was before its runs became possessive: the possessive one must find the
# very same rows (giving characters back can never match, so it must never change a row).
_WS_GREEDY = r"[ \t\r\f\v]*"
_REGULAR_GREEDY = (_WS_GREEDY + r'(?:([^ \t\r\f\v\n="#][^ \t\r\f\v\n="]*)' + _WS_GREEDY + "=" + _WS_GREEDY
                   + r'(?:(")|(?![ \t\r\f\v"]))((?(2)[^"\n]*|[^\n]*?))(?(2)")|#[^\n]*)?' + _WS_GREEDY + r"$")


@pytest.mark.self_compare
@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=' \t\r\f\v\n="#ab|\u00e9', max_size=80))
def test_possessive_line_regex_finds_the_rows_the_greedy_one_did(text: str) -> None:
    import re

    from advisor.vmx import reader

    assert reader._REGULAR_LINE.findall(text) == re.findall("^" + _REGULAR_GREEDY, text, re.M)
    assert reader._ANY_LINE.findall(text) == re.findall(f"^(?:{_REGULAR_GREEDY}|([^\\n]*)$)", text, re.M)

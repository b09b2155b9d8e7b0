"""The folder `advisor collect vcenter` writes (issue 39): one file per host whatever the names,
written as a whole or not at all, earlier files named rather than lost."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.errors import InputError
from advisor.vcenter import specfiles
from advisor.vcenter.specfiles import MAPPING_FILE, file_stems, write_folder
from advisor.vcenter.to_spec import Mapping, SpecDoc

HOSTILE = ["h 1", "h/1", "h_1-2", "h_1", "Esx01-2", "esx01-2", "CON", "..", "", "é/é", "h" * 250, "H" * 250]


def _mapping(names: list[str]) -> Mapping:
    return Mapping(specs=[SpecDoc("ignored", {"host": {"name": name, "sockets": 2}, "vms": [{"name": "vm"}]})
                          for name in names])


def test_every_host_gets_its_own_portable_bounded_file() -> None:
    stems = file_stems(HOSTILE)
    assert len({s.lower() for s in stems}) == len(HOSTILE)  # unique on a case-blind file system
    for stem in stems:
        assert len(stem) + len(".yaml") <= 120 and stem.isascii() and "/" not in stem and stem[0] not in ".-"
    assert stems[HOSTILE.index("h_1-2")] == "h_1-2"  # a portable name that clashes with none is kept
    assert stems[HOSTILE.index("CON")].startswith("_")


def test_file_names_do_not_depend_on_the_order_of_hosts() -> None:
    shuffled = HOSTILE[:]
    random.Random(1).shuffle(shuffled)
    assert dict(zip(HOSTILE, file_stems(HOSTILE), strict=True)) == \
        dict(zip(shuffled, file_stems(shuffled), strict=True))


def test_a_kept_name_equal_to_a_suffixed_one_is_told_apart() -> None:
    suffixed = file_stems(["h 1", "h_1"])[0]  # "h_1-<12 digits>"
    stems = file_stems(["h 1", "h_1", suffixed])
    assert len({s.lower() for s in stems}) == 3


def test_folder_holds_one_file_per_host_and_the_mapping(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    written = write_folder(_mapping(HOSTILE), folder, "vc")
    files = sorted(p.name for p in folder.iterdir())
    assert len(written.files) == len(HOSTILE) and all(p.is_file() for p in written.files)
    index = json.loads((folder / MAPPING_FILE).read_text())
    assert index["schema"] == 1 and sorted(index["files"].values()) == sorted(HOSTILE)
    assert sorted(index["files"]) == sorted(f for f in files if f != MAPPING_FILE)
    assert [p for p in tmp_path.iterdir() if p.name != "out"] == []  # no staging folder left


def test_a_failure_midway_leaves_the_folder_as_it_was(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "old.yaml").write_text("old\n")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    real = Path.write_bytes
    calls = []

    def fail_third(self: Path, data: bytes) -> int:  # a mock of the file system's refusal
        calls.append(self)
        if len(calls) == 3:
            raise OSError(36, "File name too long")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", fail_third)
    with pytest.raises(InputError, match="nothing written"):
        write_folder(_mapping(["a", "b", "c", "d"]), folder, "vc")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_spec_name_taken_by_a_folder_stops_before_anything_is_written(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "a.yaml").write_text("old a\n")
    (folder / "b.yaml").mkdir()
    with pytest.raises(InputError, match=r"b\.yaml exists and is not a file"):
        write_folder(_mapping(["a", "b"]), folder, "vc")
    assert (folder / "a.yaml").read_text() == "old a\n"


def test_files_of_an_earlier_run_are_kept_and_named(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    write_folder(_mapping(["esx01", "esx02"]), folder, "vc")
    (folder / "notes.txt").write_text("mine\n")
    os.chmod(folder, 0o750)
    written = write_folder(_mapping(["esx01", "esx03"]), folder, "vc")
    assert written.kept == ["esx02.yaml", "notes.txt"]
    assert sorted(p.name for p in folder.iterdir()) == [MAPPING_FILE, "esx01.yaml", "esx02.yaml", "esx03.yaml",
                                                        "notes.txt"]
    assert (folder / "notes.txt").read_text() == "mine\n" and (folder.stat().st_mode & 0o777) == 0o750


def test_collect_counts_the_files_that_exist_and_names_stale_ones(tmp_path: Path, monkeypatch) -> None:
    """The command's report, with the vCenter read replaced by a fixed mapping (a mock: the
    real read runs against vcsim in tests/cli/test_vcenter.py, whose host names are fixed)."""
    from advisor.cli import group
    from advisor.commands import collect

    folder = tmp_path / "out"
    (folder).mkdir()
    (folder / "gone.yaml").write_text("old\n")
    monkeypatch.setattr(collect, "read_estates", lambda args, workloads: [collect.Estate(
        _mapping(["h 1", "h/1", "h_1-2", "Esx01-2", "esx01-2", "h_1"]), "vc", None)])
    result = CliRunner().invoke(group, ["collect", "vcenter", "-s", "vc", "-u", "u", "-o", str(folder)],
                                env={"ADVISOR_VCENTER_PASSWORD": "p"})
    assert result.exit_code == 0, result.output
    assert "6 spec files with 6 VMs written" in result.output
    assert len(list(folder.glob("*.yaml"))) == 7
    assert "gone.yaml" in result.output and "left as they were" in result.output


def test_staging_folder_name_is_bounded(tmp_path: Path) -> None:
    folder = tmp_path / ("o" * 250)
    write_folder(_mapping(["a"]), folder, "vc")
    assert (folder / "a.yaml").is_file()
    assert specfiles.MAX_STEM == 100

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


# --- advisor diff of two collected folders: VMs known by their instance UUIDs --------------------

_HOST = {"sockets": 2, "cores_per_socket": 10, "threads_per_core": 2, "numa_nodes_per_socket": 1,
         "memory": "256GB", "esxi": "8.0"}


def _collected(folder: Path, instance: str | None, hosts: dict[str, list[tuple[str, int, str, str]]]) -> Path:
    """A folder as `collect vcenter` writes it: host -> VMs (name, vCPUs, NIC adapter, instance UUID)."""
    specs = []
    for host, vms in hosts.items():
        doc = {"host": {"name": host, **_HOST},
               "vms": [{"name": n, "vcpus": c, "memory": "8GB", "nics": [{"adapter": a}]} for n, c, a, _ in vms]}
        specs.append(SpecDoc(host, doc, uuids={n: u for n, _, _, u in vms if u}))
    write_folder(Mapping(specs=specs), folder, "vc:443", instance)
    return folder


def test_diff_of_collected_folders_follows_instance_uuids(cli, tmp_path: Path) -> None:
    """A VM renamed and moved to another host is the same VM (reshaped), equal VM names on two
    hosts keep their own findings, and the same names in another vCenter are other VMs."""
    vc1, vc2 = "5a1e0000-0000-4000-8000-000000000001", "5a1e0000-0000-4000-8000-000000000002"
    old = _collected(tmp_path / "old", vc1, {"esx1": [("web", 2, "vmxnet3", "u-web"), ("db", 4, "e1000", "u-db1")],
                                             "esx2": [("db", 4, "vmxnet3", "u-db2")]})
    new = _collected(tmp_path / "new", vc1, {"esx1": [("db", 4, "vmxnet3", "u-db1")],
                                             "esx2": [("db", 4, "e1000", "u-db2"), ("web2", 2, "vmxnet3", "u-web")]})
    doc = json.loads(cli("diff", old, new, "--format", "json").out)
    assert doc["matched_by"] == "VM instance UUID"
    assert doc["vms"]["added"] == [] and doc["vms"]["removed"] == []
    assert doc["vms"]["reshaped"] == [{"name": "web2", "changes": {"host": ["esx1", "esx2"], "name": ["web", "web2"]}}]
    # NET001 moved from db on esx1 to db on esx2: one fixed, one new (matched by name, it would be "unchanged")
    assert [(f["rule"], f["file"].rsplit("/", 1)[-1]) for f in doc["findings"]["fixed"]] == [("NET001", "esx1.yaml")]
    assert [(f["rule"], f["file"].rsplit("/", 1)[-1]) for f in doc["findings"]["new"]] == [("NET001", "esx2.yaml")]
    other = _collected(tmp_path / "other", vc2, {"esx1": [("web", 2, "vmxnet3", "u-web"),
                                                          ("db", 4, "e1000", "u-db1")],
                                                 "esx2": [("db", 4, "vmxnet3", "u-db2")]})
    apart = json.loads(cli("diff", old, other, "--format", "json").out)
    assert len(apart["vms"]["added"]) == len(apart["vms"]["removed"]) == 3 and apart["findings"]["unchanged"] == 0


def test_diff_of_folders_without_every_uuid_matches_by_host_and_name(cli, tmp_path: Path) -> None:
    old = _collected(tmp_path / "old", None, {"esx1": [("web", 2, "vmxnet3", "u-web")]})  # an ESXi host: no UUID
    new = _collected(tmp_path / "new", "5a1e0000-0000-4000-8000-000000000001",
                     {"esx1": [("web", 4, "vmxnet3", "u-web"), ("app", 2, "vmxnet3", "")]})  # one VM without
    doc = json.loads(cli("diff", old, new, "--format", "json").out)
    assert doc["matched_by"] == "host and VM name"
    assert [vm["name"] for vm in doc["vms"]["added"]] == ["app"] and doc["vms"]["reshaped"][0]["name"] == "web"


@pytest.mark.parametrize("index", [b"{", b"[]", b'{"instance": 7, "uuids": {}}',
                                   b'{"instance": "x", "uuids": {"a.yaml": ["u"]}}'])
def test_a_broken_collect_index_is_one_line_exit_2(cli, tmp_path: Path, index: bytes) -> None:
    old = _collected(tmp_path / "old", "5a1e0000-0000-4000-8000-000000000001", {"esx1": [("web", 2, "vmxnet3", "u")]})
    (old / MAPPING_FILE).write_bytes(index)
    result = cli("diff", old, old)
    assert result.code == 2 and MAPPING_FILE in result.err and len(result.err.strip().splitlines()) == 1, result.err
    assert "Traceback" not in result.err

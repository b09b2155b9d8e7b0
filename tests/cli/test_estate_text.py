"""The text report of a running estate (an RVTools export here; `check --vcenter` in
tests/cli/test_vcenter.py) reads like ruff: it grows with the findings, not with the VMs, says where
each VM's predicted layout is, and names what was read truthfully (an export is one source with its
hosts and VMs, not a file per host). Spec files keep their topology line per VM."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO
from rvtools_gen import GenHost, GenVM, sheets, write_csv_folder

# Two hosts of 2 x 10 cores for the VMs with findings, eight of 2 x 32 for the clean VMs (at most 25
# single-vCPU VMs each: no host is oversubscribed, so host findings do not grow with them either).
HOSTS = [GenHost("esx00"), GenHost("esx01"), *(GenHost(f"big{i}", cores=32) for i in range(8))]
FINDINGS = [  # an emulated NIC, a VM wider than a node, high latency sensitivity without reservations
    GenVM("sql01", "esx00", cpus=24, memory_mb=131072, nics=["E1000"]),
    GenVM("app02", "esx01", cpus=8, memory_mb=65536, latency="high"),
]
HINT = "each VM's predicted vNUMA layout: --format table lists them, -v prints them here"


def _export(folder: Path, clean: int) -> Path:
    """FINDINGS and `clean` small VMs that raise nothing, spread over the same ten hosts."""
    vms = FINDINGS + [GenVM(f"web{i:03}", f"big{i % 8}", cpus=1, memory_mb=2048) for i in range(clean)]
    return write_csv_folder(folder, sheets(HOSTS, vms))


def test_an_estates_text_report_grows_with_its_findings_not_its_vms(cli, tmp_path: Path) -> None:
    small, large = _export(tmp_path / "small", 20), _export(tmp_path / "large", 200)
    few = cli("check", small, "--fail-on", "never").out.splitlines()
    many = cli("check", large, "--fail-on", "never").out.splitlines()
    assert few[-1].endswith(" in 1 RVTools export (10 hosts, 22 VMs)"), few[-1]
    assert many[-1].endswith(" in 1 RVTools export (10 hosts, 202 VMs)"), many[-1]
    # the same lines but for the folder's name and the count of VMs: none per clean VM
    assert [line.replace("large", "small") for line in many[:-1]] == few[:-1]
    assert {"NET001", "SCHED004"} <= {line.split()[1] for line in many if line.startswith(str(large))}
    assert not [line for line in many if "→" in line] and many[-2] == HINT
    # -v prints a line per VM checked, each with its predicted layout, and drops the hint
    verbose = cli("check", large, "-v", "--fail-on", "never").out.splitlines()
    assert len([line for line in verbose if ": vm " in line and " → " in line]) == 202
    assert HINT not in verbose and verbose[-1] == many[-1]


def test_what_was_read_is_named_in_every_summary(cli, tmp_path: Path) -> None:
    """Two exports and a spec file: the spec file keeps its topology line, the exports are counted
    as two sources with their hosts and VMs, in the text, Markdown, GitHub and HTML reports alike."""
    one, two = _export(tmp_path / "one", 3), _export(tmp_path / "two", 8)
    spec = REPO / "examples" / "hpc-node.yaml"
    args = ("check", one, two, spec, "--fail-on", "never")
    text = cli(*args).out.splitlines()
    read = "in 1 file and 2 RVTools exports (15 hosts, 15 VMs)"
    assert text[-1].endswith(read), text[-1]
    assert [line.split(":")[0] for line in text if "→" in line] == [str(spec)]
    assert f"**{text[-1]}**" in cli(*args, "--format", "markdown").out
    assert f"advisor: {text[-1]}" in cli(*args, "--format", "github").out.splitlines()
    html = cli(*args, "--format", "html").out
    assert ('<tr data-count="files"><th scope="row">files</th><td class="n">1</td></tr><tr data-count="RVTools '
            'exports"><th scope="row">RVTools exports</th><td class="n">2</td></tr>') in html
    assert read in html


def test_spec_files_keep_a_topology_line_per_vm_and_count_files(cli) -> None:
    specs = [REPO / "examples" / "hpc-node.yaml", REPO / "examples" / "java-tier.yaml"]
    text = cli("check", *specs, "--fail-on", "never").out.splitlines()
    assert text[-1].endswith(" in 2 files") and HINT not in text
    assert {line.split(":")[0] for line in text if ": vm " in line and " → " in line} == {str(s) for s in specs}

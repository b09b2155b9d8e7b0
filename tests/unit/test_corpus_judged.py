"""`advisor lint ../shared/corpus` judged file by file (issue 19): the misses the issue names are
raised, and nothing above info fires on the files judged clean.

JUDGED holds a verdict for every corpus file, made by reading the file and what advisor read from
it: the rules above info that must fire (none for a clean file) and a one-line reason. A file whose
values come from variables or a clone's source is clean when nothing written in it is wrong: what
advisor cannot see stays unknown, and no warning is built on it. The corpus is read in place.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import SHARED, require_shared

CORPUS = SHARED / "corpus"

_E1000 = "an emulated NIC on hardware that runs VMXNET3"
JUDGED: dict[str, tuple[tuple[str, ...], str]] = {
    "ovf/001": (("NET001",), f"E1000, hw 8: {_E1000}"),
    "ovf/002": (("NET001",), "VM 2 has E1000 at hw 8; VM 1 (PCNet32 at hw 4) cannot take VMXNET3"),
    "ovf/003": (("NET001",), "PCNet32 (Flexible) at hw 7, 64-bit Ubuntu"),
    "ovf/004": ((), "VMXNET3, one LSI Logic boot disk, hw 7: nothing wrong"),
    "ovf/005": (("NET001",), "four PCNet32/E1000 NICs and no hardware version (a new VM gets VMXNET3)"),
    "ovf/006": ((), "the same VM at vmx-6: hardware 6 has no VMXNET3, so no NIC change is possible"),
    "ovf/007": (("NET001",), f"E1000, hw 13: {_E1000}"),
    "ovf/008": ((), "VMXNET3 and PVSCSI at hw 17"),
    "ovf/009": (("LIM008", "NET001"), "4 MB of memory for Windows Server 2019 (below its minimum); E1000E"),
    "ovf/010": (("NET001",), f"E1000, hw 7: {_E1000}"),
    "ovf/011": ((), "Photon 5: VMXNET3 and PVSCSI"),
    "ovf/012": ((), "Ubuntu cloud image: VMXNET3 and PVSCSI"),
    "ovf/013": ((), "nested ESXi: VMXNET3 and PVSCSI at hw 20"),
    "ovf/014": ((), "an OVF 2 envelope with no hardware items: nothing to judge"),
    "ovf/015": (("STO001",), "two data disks on the LSI Logic boot controller (default configuration)"),
    "ovf/016": (("NET001",), f"E1000, hw 9: {_E1000}"),
    "ovf/017": ((), "CPU and memory only, hw 7"),
    "ovf/018": (("NET001",), f"E1000, hw 8: {_E1000}"),
    "ovf/019": (("NET001", "STO001"), "E1000, and a data disk on LSI Logic SAS"),
    "ovf/020": (("NET001",), "VirtualBox export with an E1000 and no hardware version"),
    "ovf/021": (("NET001",), "VirtualBox export with an E1000 and no hardware version"),
    "ovf/022": (("NET001",), "VirtualBox export with an E1000 and no hardware version"),
    "packer/001": ((), "vsphere-iso with VMXNET3 and PVSCSI"),
    "packer/002": ((), "vsphere-iso with VMXNET3 and PVSCSI"),
    "packer/003": ((), "vsphere-iso with VMXNET3 and PVSCSI"),
    "packer/004": ((), "vsphere-clone: CPUs and memory come from the source"),
    "packer/005": ((), "every size and device from variables defined in other files: unknown"),
    "packer/006": ((), "every size and device from variables defined in other files: unknown"),
    "packer/007": (("NET001",), "vmware-iso without network_adapter_type: the builder's E1000"),
    "packer/008": (("NET001",), "vmware-iso without network_adapter_type: the builder's E1000"),
    "packer/009": (("NET001",), "named in the issue: vmware-iso's default E1000"),
    "packer/010": ((), "bento: adapter and disk types from variables and locals with conditions"),
    "packer/011": ((), "adapter and disk types from variables defined elsewhere"),
    "packer/012": ((), "vmware-vmx clone: the source's devices"),
    "packer/013": (("NET001",), "named in the issue: vmware-iso's default E1000"),
    "packer/014": ((), "every size and device from variables defined in other files: unknown"),
    "packer/015": ((), "vmware-iso with network_adapter_type vmxnet3; one LSI Logic boot disk"),
    "packer/016": (("NET001",), "vsphere-iso network_card e1000 (OpenBSD i386)"),
    "packer/017": ((), "vsphere-iso with VMXNET3 and PVSCSI"),
    "packer/018": (("NUMA011",), "CPUs 1 with cpu_cores 2: cores per socket does not divide the vCPUs"),
    "packer/019": ((), "sizes and devices from variables defined in other files"),
    "packer/020": ((), "sizes and devices from user variables without defaults"),
    "packer/021": (("NET001",), "vmware-iso without network_adapter_type: the builder's E1000"),
    "packer/022": ((), "sizes and devices from variables defined in other files"),
    "packer/023": (("NET001",), "named in the issue: vmware-iso's default E1000"),
    "packer/024": ((), "adapter types from variables defined elsewhere"),
    "packer/025": (("NET001",), "named in the issue: vmware-iso's default E1000"),
    "packer/026": (("NET001",), "named in the issue: vmware-iso's default E1000"),
    "packer/027": ((), "vmware-vmx clone: the source's devices"),
    "packer/028": (("NET001",), "named in the issue: vmware-iso's default E1000"),
    "terraform/001": ((), "clone: sizes and adapter from variables and the template"),
    "terraform/002": ((), "content-library deploy: sizes from variables"),
    "terraform/003": ((), "a module: every argument is a variable"),
    "terraform/004": ((), "sizes and adapter from variables and the template"),
    "terraform/005": ((), "sizes from variables, OVF deploy"),
    "terraform/006": ((), "2 vCPU, 4 GB; adapter from the template"),
    "terraform/007": ((), "2 vCPU, 4 GB; adapter from the template"),
    "terraform/008": ((), "sizes and adapter from variables and the template"),
    "terraform/009": ((), "2 vCPU, 1 GB Ubuntu; adapter from the template"),
    "terraform/010": ((), "SAP HANA sizes and reservation from variables"),
    "terraform/011": ((), "three VMs sized by variables"),
    "terraform/012": ((), "sizes and adapter from variables and the template"),
    "terraform/013": ((), "provider default adapter VMXNET3; sizes from variables"),
    "terraform/014": ((), "two VMs sized by variables"),
    "terraform/015": ((), "for_each sizes; four VMXNET3 adapters (provider default)"),
    "terraform/016": ((), "4 vCPU as one socket of 4 cores, 4 * 1024 MB; devices from the template"),
    "terraform/017": ((), "every argument is a variable"),
    "terraform/018": ((), "sizes and adapter from variables and the template"),
    "terraform/019": ((), "sizes and adapter from variables and the template"),
    "terraform/020": ((), "1 vCPU, 2 GB FreeBSD; dynamic network_interface blocks: unknown adapters"),
    "vmx/001": ((), "21 disks on PVSCSI, VMXNET3"),
    "vmx/002": ((), "PVSCSI and VMXNET3"),
    "vmx/003": ((), "PVSCSI and VMXNET3"),
    "vmx/004": (("NET001",), f"E1000, hw 8: {_E1000}"),
    "vmx/005": (("NET001",), "E1000E, hw 11"),
    "vmx/006": ((), "NVMe and VMXNET3; the host CD-ROM is not connected at power-on"),
    "vmx/007": (("STO005",), "a data disk on SATA"),
    "vmx/008": (("MEM003", "SCHED001", "SCHED007"),
                "a 118 MB memory limit under 1000 MB, CPU affinity, and a CPU limit of 276 MHz a vCPU, below any "
                "server core's clock (issue 35, class 8)"),
    "vmx/009": ((), "VMXNET3; the serial port goes to a network vSPC, not a host device"),
    "vmx/010": (("NET001",), "named in the issue: two NICs without virtualDev (Flexible for XP)"),
    "vmx/011": ((), "E1000 at hw 4, which has no VMXNET3"),
    "vmx/012": (("NET001",), "named in the issue: ethernet1-3 without virtualDev (E1000 for 64-bit)"),
    "vmx/013": (("NET001",), "Workstation VM with an E1000"),
    "vmx/014": (("NET001",), "Workstation VM with an E1000"),
    "vmx/015": (("NET001",), "Workstation VM with an E1000"),
    "vmx/016": (("NET001",), "Workstation VM with an E1000"),
    "vmx/017": (("NET001",), "Workstation VM with an E1000E"),
    "vmx/018": (("NET001",), "Workstation VM with an E1000E"),
    "vmx/019": (("NET001",), "Workstation VM with an E1000"),
    "vmx/020": (("NET001",), "Workstation VM with an E1000"),
    "vmx/021": (("NET001",), "vmware-iso output with its default E1000"),
    "vmx/022": (("NET001",), "named in the issue: two NICs without virtualDev (Flexible for 32-bit)"),
    "vmx/023": (("NET001",), "Workstation VM with an E1000"),
    "vmx/024": (("NET001", "STO001"), "E1000, and a data disk on the LSI Logic SAS boot controller"),
    "vmx/025": (("NET001",), "Fusion VM with an E1000E"),
    "vmx/026": (("NET001",), "Workstation VM with an E1000"),
    "vmx/027": (("NET001",), "Workstation VM with an E1000E"),
    "vmx/028": (("NET001",), "Workstation VM with an E1000"),
    "vmx/029": ((), "PVSCSI and VMXNET3 at hw 20"),
    "vmx/030": ((), "PVSCSI and VMXNET3; the host CD-ROM is not connected at power-on"),
    "vmx/031": ((), "NVMe and VMXNET3; the host CD-ROM is not connected at power-on"),
    "vmx/032": (("NET001", "STO001"), "E1000E, and a data disk on LSI Logic SAS"),
    "vmx/033": ((), "GSX router at hw 4 (no VMXNET3); its host CD-ROM is not present"),
    "vmx/034": ((), "hw 4, a hosted VM; the CD-ROM is a client device not connected at power-on"),
    "vmx/035": ((), "VMXNET3, one boot disk; the host CD-ROM is not connected at power-on"),
    "vmx/036": ((), "hw 4, a hosted VM; the CD-ROM is not connected at power-on"),
    "vmx/037": (("NET001",), "macOS VM with an E1000E"),
    "vmx/038": (("NET001",), "macOS VM with an E1000E"),
    "vmx/039": (("NET001",), "encrypted: only the clear part (an E1000E) is read"),
}
NAMED_NET001 = ["vmx/010", "vmx/012", "vmx/022", "packer/009", "packer/013", "packer/023", "packer/025",
                "packer/026", "packer/028"]


@pytest.fixture(scope="module")
def corpus_report() -> dict:
    require_shared("corpus")
    done = subprocess.run([sys.executable, "-m", "advisor", "lint", str(CORPUS), "--format", "json",
                           "--fail-on", "never"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _short(file: str) -> str:
    """`ovf/001-govmomi-....ovf` -> `ovf/001`."""
    folder, name = file.split("corpus/", 1)[1].split("/", 1)
    return f"{folder}/{name[:3]}"


def _above_info(report: dict) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {_short(f): set() for f in report["files"]}
    for finding in report["findings"]:
        if finding["severity"] != "info":
            found[_short(finding["file"])].add(finding["rule"])
    return found


def test_every_corpus_file_is_judged(corpus_report):
    assert corpus_report["errors"] == []
    assert sorted(_above_info(corpus_report)) == sorted(JUDGED)


def test_nothing_above_info_fires_on_the_clean_files(corpus_report):
    found = _above_info(corpus_report)
    noisy = {name: sorted(found[name]) for name, (rules, _) in JUDGED.items() if not rules and found[name]}
    assert noisy == {}


def test_the_judged_problems_are_raised_and_nothing_else(corpus_report):
    found = _above_info(corpus_report)
    wrong = {name: (sorted(found[name]), list(rules)) for name, (rules, _) in JUDGED.items()
             if rules and found[name] != set(rules)}
    assert wrong == {}


def test_corpus_named_misses_are_raised(corpus_report):
    found = _above_info(corpus_report)
    assert [name for name in NAMED_NET001 if "NET001" not in found[name]] == []
    nic_fix = next(f for f in corpus_report["findings"] if f["rule"] == "NET001" and "vmx/012" in f["file"])
    assert sorted(nic_fix["fix"]["vmx"]) == ["ethernet1.virtualDev", "ethernet2.virtualDev", "ethernet3.virtualDev"]
    assert [n for n in corpus_report["notes"] if "vmx/039" in n and "encrypt" in n]

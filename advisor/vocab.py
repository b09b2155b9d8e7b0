"""advisor's vocabularies, each defined once: severities and their order, booleans as VMware
writes and reads them, the disk controller and network adapter types, and the report formats.

Every module that names one of these imports it from here, so two copies can never disagree
(they did: ``numa.vcpu.followcorespersocket = "yes"`` once changed the topology but not the
fact rules read). Readers keep their own tables from a *foreign* vocabulary (Packer's
``lsilogic-sas``, OVF's ``VirtualSCSI``, PowerCLI's ``ParaVirtual``) into these names.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal, get_args

# --------------------------------------------------------------------------- severities

SeverityName = Literal["error", "warning", "info"]
FailOnName = Literal["error", "warning", "info", "never"]

SEVERITIES: Final[tuple[SeverityName, ...]] = get_args(SeverityName)  # worst first
FAIL_ON: Final[tuple[FailOnName, ...]] = get_args(FailOnName)
# Higher is worse. "never" ranks above every severity so no finding reaches it.
SEVERITY_RANK: Final[dict[str, int]] = {"info": 1, "warning": 2, "error": 3}
FAIL_ON_RANK: Final[dict[str, int]] = {**SEVERITY_RANK, "never": 99}
# Findings that make a result "not clean" in JUnit and sizing (info is advice, not a defect).
BLOCKING: Final[frozenset[str]] = frozenset({"error", "warning"})


# --------------------------------------------------------------------------- booleans

# VMware writes "TRUE"/"FALSE"; readers compare case-insensitively and older writers used
# "true", "1" or "yes" (libvirt's VMX driver; ../shared/reference/vsphere-facts.md, ".vmx keys").
VMX_TRUE: Final = "TRUE"
VMX_FALSE: Final = "FALSE"
TRUE_WORDS: Final[frozenset[str]] = frozenset({"true", "yes", "1"})
FALSE_WORDS: Final[frozenset[str]] = frozenset({"false", "no", "0"})


def vmx_bool(value: bool) -> str:
    """A boolean the way VMware writes it."""
    return VMX_TRUE if value else VMX_FALSE


def read_bool(text: str | None) -> bool | None:
    """A .vmx/advanced-setting boolean: True, False, or None when absent or not a boolean word."""
    if text is None:
        return None
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return None


# --------------------------------------------------------------------------- devices

# Disk controllers and network adapters by advisor's names (the spec's values).
Controller = Literal["pvscsi", "lsilogic", "lsisas", "buslogic", "nvme", "sata", "ide"]
Adapter = Literal["vmxnet3", "vmxnet", "e1000", "e1000e", "vlance", "sriov", "passthrough"]
CONTROLLERS: Final[tuple[str, ...]] = get_args(Controller)
ADAPTERS: Final[tuple[str, ...]] = get_args(Adapter)
# SCSI controllers: advisor's name -> the .vmx scsiN.virtualDev value (VMware writes lsisas1068).
SCSI_VIRTUALDEV: Final[dict[str, str]] = {
    "pvscsi": "pvscsi", "lsilogic": "lsilogic", "lsisas": "lsisas1068", "buslogic": "buslogic",
}
SCSI_FROM_VIRTUALDEV: Final[dict[str, str]] = {v: k for k, v in SCSI_VIRTUALDEV.items()}
# Network adapters whose ethernetN.virtualDev value is advisor's name itself.
NIC_VIRTUALDEV: Final[frozenset[str]] = frozenset(ADAPTERS)


# --------------------------------------------------------------------------- report formats

class Format(StrEnum):
    """Report formats of `advisor check` and `advisor lint`; each has one module in advisor/output
    (a test fails when a member has none)."""

    TEXT = "text"
    JSON = "json"
    SARIF = "sarif"
    JUNIT = "junit"
    GITHUB = "github"
    MARKDOWN = "markdown"
    HTML = "html"
    SVG = "svg"
    TABLE = "table"  # one row per VM (a running estate's overview)
    CSV = "csv"  # the same rows for a spreadsheet
    XLSX = "xlsx"  # the same rows as an Excel workbook (binary: written to a file or a pipe)


FORMATS: Final[tuple[str, ...]] = tuple(f.value for f in Format)
# `advisor diff` writes every report format but the standalone SVG (a picture of one run's NUMA maps).
DIFF_FORMATS: Final[tuple[str, ...]] = tuple(f for f in FORMATS if f != Format.SVG)
# Formats whose report is bytes, not text: never written to a terminal.
BINARY_FORMATS: Final[frozenset[str]] = frozenset({Format.XLSX})
# -o FILE without --format: the suffix picks the format.
FORMAT_BY_SUFFIX: Final[dict[str, Format]] = {
    ".json": Format.JSON, ".sarif": Format.SARIF, ".xml": Format.JUNIT, ".md": Format.MARKDOWN, ".txt": Format.TEXT,
    ".html": Format.HTML, ".htm": Format.HTML, ".svg": Format.SVG, ".csv": Format.CSV,
    ".xlsx": Format.XLSX,
}


class EmitFormat(StrEnum):
    """What `advisor vmx --as` writes the recommended settings as; each has one module in
    advisor/emit (plus "vmx-full", the complete .vmx that `advisor vmx --full` writes)."""

    VMX = "vmx"
    TERRAFORM = "terraform"
    PACKER = "packer"
    PACKER_JSON = "packer-json"
    POWERCLI = "powercli"
    GOVC = "govc"
    ANSIBLE = "ansible"


EMIT_FORMATS: Final[tuple[str, ...]] = tuple(f.value for f in EmitFormat)

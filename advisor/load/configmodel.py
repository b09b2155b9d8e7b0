"""The configuration's settings as pydantic models, validated when a configuration file is
found (advisor.load.config); a run without one does not build them."""

from __future__ import annotations

import datetime as _dt
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from advisor.model.base import Workload, empty_dict, empty_list
from advisor.vocab import FailOnName, SeverityName

FailOn = FailOnName
Severity = SeverityName
_Short = Annotated[str, Field(max_length=1000)]
# Entries in one list or mapping of a configuration: a few dozen in practice; the bound keeps a
# huge one from costing minutes (each exclude pattern becomes a regular expression, each exemption
# is checked per finding). Here, with the settings it bounds, so the loader (advisor.load.config)
# and the model import in one direction only.
MAX_ITEMS = 1000


def _items(description: str) -> Any:
    """A list setting of at most MAX_ITEMS entries."""
    return Field(default_factory=empty_list, max_length=MAX_ITEMS, description=description)


class _Strict(BaseModel):
    # Built on first use: most runs have no configuration file to validate.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class ExemptionConfig(_Strict):
    rule: str = Field(min_length=1, description="Rule id or prefix, or '*'.")
    reason: str = Field(min_length=3, description="Why; required.")
    vms: list[_Short] = _items("VM name globs (empty: every VM).")
    paths: list[_Short] = _items("File globs (empty: every file).")
    until: _dt.date | None = Field(None, description="Expiry date.")


class WorkloadRule(_Strict):
    """Which VMs of a running estate (an RVTools export, `collect vcenter`, `check --vcenter`) run a
    workload: a VM takes the workload of the first rule whose every given test it matches; a VM no
    rule matches stays generic (nothing is guessed)."""

    workload: Workload = Field(description="The spec's workload value, e.g. sql-server.")
    vms: list[_Short] = _items("VM name globs.")
    folders: list[_Short] = _items("VM folder globs: the folder path below the datacenter's VM folder, "
                                       "e.g. prod/sql (RVTools: vInfo 'Folder' as written).")
    guest_os: list[_Short] = _items("Guest OS display name globs (RVTools 'OS according to the "
                                        "configuration file'; vCenter: the configured guest OS's full name).")
    attributes: dict[_Short, _Short] = Field(default_factory=empty_dict, max_length=MAX_ITEMS,
                                             description="Custom attribute name -> value glob (vSphere tags are not "
                                             "read).")


class EstateHostRule(_Strict):
    """What an RVTools export cannot state about a host: its NUMA nodes per socket (the BIOS's AMD
    NPS, Intel Sub-NUMA Clustering or Cluster-on-Die setting), for the hosts a rule matches: a host
    takes the value of the first rule whose every given test it matches; a host no rule matches
    keeps one node per socket, named as an assumption."""

    cpu: list[_Short] = _items("CPU model globs (vHost 'CPU Model', e.g. 'AMD EPYC 7543*').")
    hosts: list[_Short] = _items("Host name globs (vHost 'Host').")
    numa_nodes_per_socket: int = Field(ge=1, le=16, description="NUMA nodes each socket presents (NPS, SNC, COD).")


class Config(_Strict):
    """Every key is optional; command-line flags override what is set here."""

    select: list[_Short] = _items("Rule ids or prefixes to run (default: all).")
    ignore: list[_Short] = _items("Rule ids or prefixes to skip.")
    severity: dict[_Short, Severity] = Field(
        default_factory=empty_dict, max_length=MAX_ITEMS, description="Severity per rule id or prefix."
    )
    fail_on: FailOn | None = Field(None, description="Lowest severity that fails the run.")
    host: str | None = Field(None, description="Default host profile or file for `advisor lint`.")
    rules: list[_Short] = _items("Extra rule folders (organisation policies).")
    host_profiles: list[_Short] = _items("Extra host profile folders.")
    exclude: list[_Short] = _items("gitignore-style patterns the folder walks of `lint` and `check` skip.")
    respect_gitignore: bool | None = Field(
        None, description="Folder walks skip what git ignores (.gitignore, .git/info/exclude); default true."
    )
    exemptions: list[ExemptionConfig] = Field(default_factory=empty_list, max_length=MAX_ITEMS,
                                              description="Findings not reported, each with a reason.")
    workloads: list[WorkloadRule] = Field(default_factory=empty_list, max_length=MAX_ITEMS,
                                          description="Workloads of a running estate's VMs, by name, folder, "
                                          "guest OS or custom attribute.")
    estate_hosts: list[EstateHostRule] = Field(default_factory=empty_list, max_length=MAX_ITEMS,
                                               description="NUMA nodes per socket of an RVTools export's hosts, "
                                               "by CPU model or host name.")

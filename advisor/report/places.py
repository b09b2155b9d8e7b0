"""Findings of specs built from a running estate (an RVTools export's hosts, a vCenter's hosts)
pointed at what they are about, in one place for both readers: a spec built in memory has no file
and no lines, so each of its findings goes to its VM's place (the export's sheet and row, or
`vcenter SERVER/cluster/host/vm`), or its host's when it is about the host or a VM without one, and
each VM's place is kept in the run's `sources` for the one-row-per-VM report (advisor.report.vmrows).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from advisor.report.findings import Run, VmSource


class SpecPlaces(NamedTuple):
    """Where a generated spec's host and VMs are: (file or place, line or None) each, and the
    host's cluster (a spec names its cluster's hosts, not the cluster)."""

    host: tuple[str, int | None]
    vms: Mapping[str, tuple[str, int | None]]  # VM name in the spec -> its place
    cluster: str = ""


def relocate(run: Run, places: Mapping[str, SpecPlaces]) -> None:
    """Point the findings of the specs labelled in `places` at their places (no column: none is
    known), and record each VM's place in `run.sources`. Findings of other files are left alone."""
    for label, spec in places.items():
        for vm, (file, line) in spec.vms.items():
            run.sources[(label, vm)] = VmSource(file, line, spec.cluster)
    for finding in run.findings:
        found = places.get(finding.file or "")
        if found is None:
            continue
        finding.file, finding.line = found.vms.get(finding.vm, found.host) if finding.vm else found.host
        finding.column = None

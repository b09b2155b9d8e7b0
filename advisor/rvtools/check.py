"""`advisor check EXPORT.xlsx` (or the CSV folder): the export's hosts checked as spec files are, each
finding pointed back at the sheet and row of its VM (vInfo) or host (vHost)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from advisor.errors import InputError, printable
from advisor.rvtools.estate import Estate, EstateSpec, build
from advisor.rvtools.workbook import read_export


def _location(where: str) -> tuple[str, int | None]:
    """`export.xlsx#vInfo:12` -> ("export.xlsx#vInfo", 12); `RVTools_tabvInfo.csv:12` likewise."""
    file, _, row = where.rpartition(":")
    return (file, int(row)) if row.isdigit() else (where, None)


def _loaded(spec: EstateSpec, problems: list[Any]) -> Any:
    """The host's spec, validated; a value out of a spec's range is reported at its row (a VM's
    vInfo row, else the host's vHost row) with the spec field it would fill, and only that VM is
    left out. The VMs are validated one by one only once the whole spec has failed."""
    from advisor.load.specfile import spec_from_root
    from advisor.report.findings import InputProblem

    try:
        return spec_from_root(spec.doc, spec.label)
    except InputError as exc:
        first = exc
    kept = []
    for vm in spec.doc["vms"]:
        try:
            spec_from_root({**spec.doc, "vms": [vm]}, spec.label)
            kept.append(vm)
        except InputError as exc:
            if not (exc.field or "").startswith("vms[0]"):
                break  # the host's fault: every VM fails alike
            file, line = _location(spec.origin.vms[vm["name"]])
            field = (exc.field or "").removeprefix("vms[0]").lstrip(".") or None
            problems.append(InputProblem(file, line, field, printable(f"VM {vm['name']}: {exc.message}")))
    else:
        if len(kept) < len(spec.doc["vms"]):  # some VMs were to blame: the spec without them
            return _loaded(EstateSpec(spec.label, {**spec.doc, "vms": kept}, spec.assumptions, spec.origin),
                           problems) if kept else None
    file, line = _location(spec.origin.host)
    message = f"host {spec.doc['host']['name']}: {first.message}"
    problems.append(InputProblem(file, line, first.field, printable(message)))
    return None


def _export_of(path: str) -> str:
    """The export a path stands for: its workbook, or the folder of its CSV files (the folder or its
    vInfo file given), through links and `..`."""
    p = Path(path)
    return os.path.realpath(p.parent if p.suffix.lower() == ".csv" else p)


def check_exports(paths: list[str], catalog: Any, policy: Any, workloads: Sequence[Any] = (),
                  host_rules: Sequence[Any] = ()) -> Any:
    return evaluate(paths, catalog, policy, workloads, host_rules)[0]


def evaluate(paths: list[str], catalog: Any, policy: Any, workloads: Sequence[Any] = (),
             host_rules: Sequence[Any] = ()) -> tuple[Any, list[Estate]]:
    """The Run of every export's specs, and the estates (their VMs' identities, for `advisor diff`);
    `workloads` and `host_rules` are the configuration's `workloads:` and `estate_hosts:`."""
    from advisor.report.findings import RVTOOLS_EXPORT, EstateRead, InputProblem
    from advisor.report.places import SpecPlaces, relocate

    estates: list[Estate] = []
    read: list[EstateRead] = []
    problems: list[InputProblem] = []
    given: dict[str, str] = {}  # each export's first path
    again = []
    for path in paths:
        same = _export_of(path)
        if same in given:  # its hosts twice would be twice the findings, and its rows two specs each
            again.append(f"{path}: the export {given[same]} again, read once")
            continue
        given[same] = path
        try:
            estates.append(build(read_export(path), workloads, host_rules))
        except InputError as exc:
            problems.append(InputProblem(exc.file or path, exc.line, exc.field, exc.message))
            continue
        read.append(EstateRead(RVTOOLS_EXPORT, tuple(spec.label for spec in estates[-1].specs)))
        problems.extend(InputProblem(*_location(where), field, printable(message))
                        for where, field, message in estates[-1].problems)
    from advisor.engine.engine import Evaluator
    from advisor.engine.specs import evaluate_spec

    # The specs are built from the export's data, not written as YAML and parsed back: a 10,000-VM
    # export would spend most of its time in that round trip.
    evaluator = Evaluator(catalog, policy)
    evaluator.run.notes.extend(again)
    origins = {}
    for estate in estates:
        evaluator.run.notes.extend(estate.notes)
        for spec in estate.specs:
            evaluator.run.notes.extend(spec.notes)
            origins[spec.label] = spec.origin
            loaded = _loaded(spec, problems)
            if loaded is not None:
                evaluate_spec(loaded, evaluator)
    run = evaluator.finish()
    from advisor.rvtools.alternatives import settle
    from advisor.rvtools.vhost import HT_ASSUMED_OFF, UNCERTAIN_NODES

    # A finding that holds only under an assumption is capped (advisor.rvtools.alternatives).
    settle(run, [(spec.label, spec.doc, UNCERTAIN_NODES in spec.assumptions, HT_ASSUMED_OFF in spec.assumptions)
                 for estate in estates for spec in estate.specs], catalog, policy)
    assumed = {spec.label: spec.assumptions for estate in estates for spec in estate.specs}
    for host in run.hosts:
        if assumed.get(host.file):
            host.capacity["assumptions"] = assumed[host.file]
    run.errors[:0] = problems
    run.estates.extend(read)
    relocate(run, {label: SpecPlaces(_location(o.host), {vm: _location(w) for vm, w in o.vms.items()}, o.cluster)
                   for label, o in origins.items()})
    return run, estates

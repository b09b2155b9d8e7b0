"""`advisor check EXPORT.xlsx` (or the CSV folder): the export's hosts checked as spec files are, each
finding pointed back at the sheet and row of its VM (vInfo) or host (vHost)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from advisor.errors import InputError, printable
from advisor.rvtools.estate import Estate, build
from advisor.rvtools.workbook import read_export


def _location(where: str) -> tuple[str, int | None]:
    """`export.xlsx#vInfo:12` -> ("export.xlsx#vInfo", 12); `RVTools_tabvInfo.csv:12` likewise."""
    file, _, row = where.rpartition(":")
    return (file, int(row)) if row.isdigit() else (where, None)


def check_exports(paths: list[str], catalog: Any, policy: Any, workloads: Sequence[Any] = ()) -> Any:
    return evaluate(paths, catalog, policy, workloads)[0]


def evaluate(paths: list[str], catalog: Any, policy: Any, workloads: Sequence[Any] = ()) -> tuple[Any, list[Estate]]:
    """The Run of every export's specs, and the estates (their VMs' identities, for `advisor diff`)."""
    from advisor.report.findings import RVTOOLS_EXPORT, EstateRead, InputProblem
    from advisor.report.places import SpecPlaces, relocate

    estates: list[Estate] = []
    read: list[EstateRead] = []
    problems: list[InputProblem] = []
    for path in paths:
        try:
            estates.append(build(read_export(path), workloads))
        except InputError as exc:
            problems.append(InputProblem(exc.file or path, exc.line, exc.field, exc.message))
        else:
            read.append(EstateRead(RVTOOLS_EXPORT, tuple(spec.label for spec in estates[-1].specs)))
    from advisor.engine.engine import Evaluator
    from advisor.engine.specs import evaluate_spec
    from advisor.load.specfile import spec_from_root

    # The specs are built from the export's data, not written as YAML and parsed back: a 10,000-VM
    # export would spend most of its time in that round trip.
    evaluator = Evaluator(catalog, policy)
    origins = {}
    for estate in estates:
        evaluator.run.notes.extend(estate.notes)
        for spec in estate.specs:
            evaluator.run.notes.extend(spec.notes)
            origins[spec.label] = spec.origin
            try:
                loaded = spec_from_root(spec.doc, spec.label)
            except InputError as exc:
                problems.append(InputProblem(exc.file or spec.label, exc.line, exc.field, printable(exc.message)))
                continue
            evaluate_spec(loaded, evaluator)
    run = evaluator.finish()
    assumed = {spec.label: spec.assumptions for estate in estates for spec in estate.specs}
    for host in run.hosts:
        if assumed.get(host.file):
            host.capacity["assumptions"] = assumed[host.file]
    run.errors[:0] = problems
    run.estates.extend(read)
    relocate(run, {label: SpecPlaces(_location(o.host), {vm: _location(w) for vm, w in o.vms.items()}, o.cluster)
                   for label, o in origins.items()})
    return run, estates

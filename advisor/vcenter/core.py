"""The advisor internals this package uses, imported in this one place (the core's module paths
move as the code grows; only these lines follow them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from advisor.model.units import format_mib
from advisor.model.vmxkeys import SCALAR_KEYS
from advisor.vocab import read_bool

__all__ = ["SCALAR_KEYS", "SpecSource", "check_docs", "format_mib", "read_bool"]


class SpecSource(NamedTuple):
    """A spec built from vCenter: its label (where its host is), the document, where each of its VMs
    is (VM name -> label), to point findings at what they are about, and the host's cluster."""

    label: str
    doc: dict[str, Any]
    vms: dict[str, str]
    cluster: str = ""


def check_docs(sources: list[SpecSource], notes: list[str], catalog: Any, policy: Any,
               progress: Callable[[int], None] | None = None) -> Any:
    """Evaluate spec documents as `advisor check` evaluates files; returns the Run, each finding
    at its VM's place (or its host's), without a line: there is no file behind it
    (advisor.report.places, as for an RVTools export).
    The documents are validated as parsed files are, but not written as YAML and read back.
    `progress`: called with 1 after each document."""
    from advisor.engine.engine import Evaluator
    from advisor.engine.specs import evaluate_spec
    from advisor.errors import InputError, printable, problems
    from advisor.load.specfile import spec_from_root
    from advisor.report.findings import InputProblem
    from advisor.report.places import SpecPlaces, relocate

    evaluator = Evaluator(catalog, policy)
    for source in sources:
        try:
            loaded = spec_from_root(source.doc, source.label)
        except InputError as exc:
            evaluator.run.errors.extend(InputProblem(e.file or source.label, None, e.field, printable(e.message))
                                        for e in problems(exc))
        else:
            evaluate_spec(loaded, evaluator)
        if progress is not None:
            progress(1)
    evaluator.run.notes.extend(notes)
    run = evaluator.finish()
    relocate(run, {source.label: SpecPlaces((source.label, None), {vm: (place, None) for vm, place in
                                                                    source.vms.items()}, source.cluster)
                   for source in sources})
    return run

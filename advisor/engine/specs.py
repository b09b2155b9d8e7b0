"""Specs into the engine: a Subject per VM of a loaded spec, with the lines of its fields
(advisor.load.speclines), and the whole check of a list of spec files."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from advisor.collector import gc_paused
from advisor.engine.catalog import Catalog, Rule
from advisor.engine.engine import Evaluator, Subject
from advisor.engine.policy import Exemption, Policy
from advisor.load.hosts import BUNDLED, HostProfiles
from advisor.load.specfile import LoadedSpec
from advisor.load.speclines import SpecLines
from advisor.report.findings import Run

# -- specs ---------------------------------------------------------------------------------

def _subjects(loaded: LoadedSpec, lines: SpecLines) -> list[Subject]:
    """A Subject for every VM of a loaded spec, each locating its findings through its own
    lines (advisor.load.speclines), taken from the tree once."""
    out = []
    for index, vm in enumerate(loaded.spec.vms):
        # The VM's own part of the tree, not the whole file's: check_files lets each VM's part
        # go after its turn (evaluate_spec's `release`).
        place = lines.vm(index)
        exemptions = [
            Exemption(s.rule, s.reason, "spec", s.until, loaded.file, place.line_at("ignore", i))
            for i, s in enumerate(vm.ignore)
        ] if vm.ignore else []
        out.append(Subject(vm, loaded.file, place.line, place.locate, exemptions))
    return out


def evaluate_spec(loaded: LoadedSpec, evaluator: Evaluator, release: bool = False) -> None:
    """Evaluate a loaded spec. release: the caller does not read `loaded`'s VMs afterwards, so
    each VM's model and part of the tree are freed after its turn instead of at the end (a
    100,000-VM spec's are about half the run's peak memory)."""
    evaluator.run.files.append(loaded.file)
    lines = SpecLines(loaded.root)
    with gc_paused(kept=True):  # thousands of small objects that live as long as the run
        subjects = _subjects(loaded, lines)
    if release:  # from here on the subjects hold the only references to each VM and its lines
        loaded.spec.vms.clear()
        vms = loaded.root.get("vms") if isinstance(loaded.root, dict) else None
        if isinstance(vms, list):
            vms.clear()
    evaluator.evaluate(subjects, loaded.host, loaded.version, loaded.file, lines.host_line, loaded.cluster, release)


def check_files(files: Iterable[str], catalog: Catalog, policy: Policy, profiles: HostProfiles = BUNDLED,
                given: dict[str, bytes] | None = None) -> Run:
    """Load and evaluate spec files; a bad file is an input error and the others still run.
    `given`: the bytes of inputs already read (standard input), by the name they are reported under."""
    from advisor.errors import InputError, problems
    from advisor.load.specfile import load_spec, parse_spec
    from advisor.report.findings import InputProblem

    evaluator = Evaluator(catalog, policy, keep_recommendations=False)  # the report reads the VM results
    for file in files:
        try:
            loaded = parse_spec(given[file], file, profiles) if given and file in given else load_spec(file, profiles)
        except InputError as exc:
            evaluator.run.errors.extend(InputProblem(e.file or file, e.line, e.field, e.message) for e in problems(exc))
            evaluator.run.files.append(file)
            continue
        evaluate_spec(loaded, evaluator, release=True)
        del loaded
    return evaluator.finish()



def run_example(catalog: Catalog, rule: Rule, example: dict[str, Any], label: str) -> Run:
    """Evaluate one of a rule's examples with only that rule enabled (tests, `advisor explain`)."""
    from advisor.load.specfile import spec_from_root

    loaded = spec_from_root(example, label, lenient_shape=True)
    evaluator = Evaluator(catalog, Policy(select=(rule.id,)))
    evaluate_spec(loaded, evaluator)
    return evaluator.finish()

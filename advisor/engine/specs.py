"""Specs into the engine: a Subject per VM of a loaded spec, with the line of each field, and
the whole check of a list of spec files."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from advisor.collector import gc_paused
from advisor.engine.catalog import Catalog, Rule
from advisor.engine.engine import Evaluator, Subject
from advisor.engine.policy import Exemption, Policy
from advisor.load.hosts import BUNDLED, HostProfiles
from advisor.load.specfile import LoadedSpec, VmPlace
from advisor.load.yamlloc import LocDict, LocList
from advisor.report.findings import Run

# -- specs ---------------------------------------------------------------------------------

def spec_subjects(loaded: LoadedSpec) -> list[Subject]:
    """Subjects for every VM of a loaded spec (advisor.load.specfile.LoadedSpec)."""
    out = []
    vms = loaded.root.get("vms") if isinstance(loaded.root, LocDict) else None
    if not (isinstance(vms, LocList) and len(vms) == len(loaded.spec.vms)):
        vms = None
    for index, vm in enumerate(loaded.spec.vms):
        exemptions = [
            Exemption(s.rule, s.reason, "spec", s.until, loaded.file, loaded.line("vms", index, "ignore", i))
            for i, s in enumerate(vm.ignore)
        ] if vm.ignore else []
        # The VM's own part of the tree, not the whole file's: check_files lets each VM's part
        # go after its turn (evaluate_spec's `release`). (vm_place, less its walk from the root.)
        place = VmPlace(vms.lines[index], vms[index]) if vms is not None else loaded.vm_place(index)
        out.append(Subject(vm, loaded.file, place.line, _spec_locator(loaded, place), exemptions))
    return out


def _spec_locator(loaded: LoadedSpec, place: VmPlace) -> Callable[[str], int | None]:
    def locate(path: str) -> int | None:
        if path.startswith("advanced."):
            return place.field_line(path[len("advanced."):])
        if path.startswith("host."):
            return loaded.line("host", path[5:]) or loaded.line("host") or place.line
        parts = path.split(".")
        line = place.line_at(*parts)
        if line is None and len(parts) > 1:
            line = place.line_at(parts[0])
        return line or place.field_line(parts[0])
    return locate


def evaluate_spec(loaded: LoadedSpec, evaluator: Evaluator, release: bool = False) -> None:
    """Evaluate a loaded spec. release: the caller does not read `loaded`'s VMs afterwards, so
    each VM's model and part of the tree are freed after its turn instead of at the end (a
    100,000-VM spec's are about half the run's peak memory)."""
    def host_line(path: str) -> int | None:
        if path.startswith("host."):
            return loaded.line("host", path[5:]) or loaded.line("host")
        return loaded.line("host")

    evaluator.run.files.append(loaded.file)
    with gc_paused(kept=True):  # thousands of small objects that live as long as the run
        subjects = spec_subjects(loaded)
    if release:  # from here on the subjects hold the only references to each VM and its lines
        loaded.spec.vms.clear()
        vms = loaded.root.get("vms") if isinstance(loaded.root, dict) else None
        if isinstance(vms, list):
            vms.clear()
    evaluator.evaluate(subjects, loaded.host, loaded.version, loaded.file, host_line, loaded.cluster, release)


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

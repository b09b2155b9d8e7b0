"""Linting templates: each VM a reader finds becomes a Subject for the same rules engine.

Readers (advisor.readers) turn .vmx, OVF/OVA, Packer and Terraform files into `.vmx`-style
settings with lines; advisor.model.vmxkeys maps those onto the VM model. Values a template leaves to
variables stay unknown, and the rules that need them are skipped with a note.

Work is split across processes when there are many files. Each worker loads the catalog once
and returns plain findings; the parent sorts them, so output never depends on scheduling.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from advisor.collector import gc_paused
from advisor.engine.engine import Evaluator, Exemption, Policy, Subject
from advisor.errors import InputError
from advisor.load.hosts import BUNDLED, HostProfiles
from advisor.load.validation import to_input_errors
from advisor.model.spec import VM
from advisor.model.template import template_vm
from advisor.model.vmxkeys import ADVANCED_INDEX
from advisor.report.findings import InputProblem, Run
from advisor.vmx.templatefields import RECONCILED, template_fields

if TYPE_CHECKING:
    from advisor.readers.folder import Folder, Folders

PARALLEL_THRESHOLD = 64  # below this, starting processes costs more than it saves


@dataclass(slots=True)
class LintJob:
    """Everything a worker needs to rebuild the evaluator (catalogs do not pickle)."""

    rule_dirs: list[str]
    policy: Policy
    host_ref: str | None
    vsphere: str | None
    workload: str | None = None
    config_dir: str | None = None
    profiles: HostProfiles = BUNDLED
    # Files the user named (not found in a folder walk): a named Packer file is read alone.
    named: frozenset[str] = frozenset()
    # --var-file values (path, bytes), applied to Packer and Terraform templates in this order.
    var_files: tuple[tuple[str, bytes], ...] = ()
    # Standard input (`-`): (the name it is reported under, its bytes).
    stdin: tuple[str, bytes] | None = None


def host_and_version(job: LintJob) -> tuple[Any, Any]:
    from advisor.model.versions import Version

    host = None
    if job.host_ref:
        host = job.profiles.resolve(
            job.host_ref, Path(job.config_dir) if job.config_dir else Path.cwd(), "--host", None
        )
    try:
        version = Version.parse(job.vsphere) if job.vsphere else (host.esxi if host else None)
    except ValueError as exc:
        raise InputError(str(exc), field="--vsphere") from None
    return host, version


def template_subject(t: Any, workload: str | None = None) -> Subject:
    """A reader's TemplateVM as an engine Subject (raises InputError for invalid values)."""
    data, unknown, lines = template_fields(t)
    slots = data.pop("_nic_slots", None)
    keys = data.pop(RECONCILED)
    context = {"lenient_shape": True, ADVANCED_INDEX: data.pop(ADVANCED_INDEX)}
    if workload:
        data["workload"] = workload
    if t.count is None:  # `count = var.n`, for_each: how many VMs share the host is not known
        unknown = {*unknown, "count"}
    elif t.count > 1:  # Terraform `count = 8`: eight VMs on the host
        data["count"] = t.count
    try:
        vm = template_vm(data, keys, context)
    except ValidationError as exc:
        first = to_input_errors(exc, VM, None, t.file)[0]
        key = _field_key(first.field or "")
        raise InputError(first.message, file=t.file, line=lines.get(key) or _key_line(t, key) or t.line,
                         field=t.spelling.get(key.lower(), first.field)) from None
    vm._unknown = frozenset(unknown)
    vm._nic_slots = slots
    for rule, reason, line in t.suppressions:
        if not reason:  # the README's promise: every suppression says why; one that does not is refused
            raise InputError(f"a suppression needs a reason: write 'advisor: ignore {rule} -- why it does not "
                             "apply'", file=t.file, line=line or t.line)
    exemptions = [
        Exemption(rule.upper(), reason, "inline", None, t.file, line) for rule, reason, line in t.suppressions
    ]

    def locate(path: str) -> int | None:
        if path.startswith("advanced."):
            return _key_line(t, path[len("advanced."):]) or t.line
        return lines.get(path.split(".")[0]) or t.line

    def column(path: str) -> int | None:
        """The column of the value a finding points at, where the format has columns."""
        top = path.split(".")[0]
        key = path[len("advanced."):] if path.startswith("advanced.") else _field_keys().get(top)
        setting = t.settings.get(key.lower()) if key else None
        if setting is None and top in _DEVICE_KEYS and top in lines:  # the device key on the line pointed at
            here = _on_line(t.settings, lines[top], _DEVICE_KEYS[top])
            setting = next((s for s in here if getattr(s, "column", None)), here[0] if here else None)
        if setting is None:
            return None
        found = getattr(setting, "column", None)
        if found is None and t.value_column is not None and setting.line:
            found = t.value_column(setting.line)
        return found

    return Subject(vm, t.file, t.line, locate, exemptions, frozenset(unknown), list(t.notes), column)


# The keys a NIC or disk finding's line comes from (advisor.vmx.templatefields template_fields).
_DEVICE_KEYS = {"nics": ("ethernet",), "disks": ("scsi", "sata", "ide", "nvme")}


def _on_line(settings: Any, line: int | None, prefixes: tuple[str, ...]) -> list[Any]:
    """The settings of keys starting with one of `prefixes` that are on `line`, in file order."""
    # The .vmx reader's settings know every key's line without making its entry.
    line_of: dict[str, int] | None = getattr(settings, "lines", None)
    if line_of is not None:
        return [settings[k] for k, at in line_of.items() if at == line and k.startswith(prefixes)]
    return [s for k, s in settings.items() if s.line == line and k.startswith(prefixes)]


@lru_cache(maxsize=1)
def _field_keys() -> dict[str, str]:
    """Structured field -> the .vmx key it is read from (vcpus -> numvcpus)."""
    from advisor.model.vmxkeys import SCALAR_KEYS

    return {fld: key for key, (fld, _) in SCALAR_KEYS.items()}


def _key_line(t: Any, key: str) -> int | None:
    setting = t.settings.get(key.lower())
    return setting.line if setting is not None else None


def _field_key(field: str) -> str:
    if field.startswith("advanced."):
        return field[len("advanced."):]
    return field


def _problem(exc: InputError, path: str) -> InputProblem:
    return InputProblem(exc.file or path, exc.line, exc.field, exc.message)


def lint_paths(files: Sequence[str | Path], job: LintJob, evaluator: Evaluator | None = None,
               folders: Folders | None = None) -> Run:
    """Read and evaluate templates in this process. `folders`: what this run has read of the
    templates' folders (advisor.readers.folder), kept from one chunk of files to the next."""
    from advisor.engine.catalog import load_catalog
    from advisor.readers.folder import Folder, Folders

    if evaluator is None:
        evaluator = Evaluator(load_catalog(job.rule_dirs), job.policy, full_vmx=False, keep_recommendations=False,
                              typed=False)
    host, version = host_and_version(job)
    folders = folders if folders is not None else Folders()
    var_files = Folder.given((Path(name), data) for name, data in job.var_files)
    # The cyclic collector would rescan the results kept so far every few hundred
    # allocations (a third of the time per file); reading and evaluating a chunk of files
    # makes almost no cycles, and the collector runs again between chunks.
    with gc_paused():
        for path in files:
            _lint_file(path, job, evaluator, host, version, folders, var_files)
    return evaluator.run


def _lint_file(file: str | Path, job: LintJob, evaluator: Evaluator, host: Any, version: Any, folders: Folders,
               var_files: Folder) -> None:
    from advisor.readers import read_template

    # Files travel as text (to workers too): the reader makes the one Path a file needs.
    path = str(file)
    evaluator.run.files.append(path)
    try:
        data = job.stdin[1] if job.stdin is not None and path == job.stdin[0] else None
        # Unnamed standard input (`-`) belongs to no folder: no sibling files supply its variables.
        templates = read_template(path, data, () if path == "-" else None, named=path in job.named,
                                  var_files=var_files, folders=folders)
        subjects = [template_subject(t, job.workload) for t in templates if t.count != 0]
    except InputError as exc:
        evaluator.run.errors.append(_problem(exc, path))
        return
    evaluator.run.notes.extend(f"{path}: {t.name}: count = 0: no instance is created; not checked"
                               for t in templates if t.count == 0)
    if not subjects:
        evaluator.run.notes.append(f"{path}: no virtual machine found in this template")
        return
    start = len(evaluator.run.findings)
    evaluator.evaluate(subjects, host, version, path)
    _fixes_in_template_language(evaluator.run.findings[start:], templates)
    for s in subjects:
        evaluator.run.unknowns.extend((s.file, f"{s.vm.name}: {n}") for n in s.notes
                                      if "unknown" in n or "not an option" in n)


def _fixes_in_template_language(findings: list[Any], templates: list[Any]) -> None:
    """Add each fix in the form the template is written in (Terraform arguments, Packer options,
    OVF elements) beside its `.vmx` keys, which stay for `advisor fix` and for JSON readers."""
    from advisor.readers.fixes import template_fix

    by_name = {t.name: t for t in templates}
    for finding in findings:
        t = by_name.get(finding.vm)
        vmx = finding.fix.get("vmx")
        if t is not None and vmx:
            translated = template_fix(t, vmx)
            if translated:
                finding.fix["template"] = translated


def _lint_chunk(files: list[str], job: LintJob, kept: dict[str, Any]) -> Run:
    """One chunk of a worker (advisor.cost.workers), with the evaluator the worker keeps."""
    from advisor.engine.catalog import load_catalog
    from advisor.readers.folder import Folders

    evaluator = kept.get("evaluator")
    if evaluator is None:
        evaluator = kept["evaluator"] = Evaluator(load_catalog(job.rule_dirs), job.policy, full_vmx=False,
                                                  keep_recommendations=False, typed=False)
        kept["folders"] = Folders()
    # Each chunk's results alone; the rules stay out (the parent's evaluator holds the same
    # catalog's: a fifth of what is sent back).
    evaluator.run = Run()
    return lint_paths(files, job, evaluator, kept["folders"])


def lint(files: Sequence[str | Path], job: LintJob, jobs: int | None = None,
         progress: Callable[[int], None] | None = None) -> Run:
    """Lint every file, in parallel when there are many; merged in a deterministic order."""
    from advisor.engine.catalog import load_catalog

    catalog = load_catalog(job.rule_dirs)  # load errors surface here, before any work
    workers = jobs if jobs is not None else (min(os.cpu_count() or 1, 8) if len(files) >= PARALLEL_THRESHOLD else 1)
    if workers <= 1 or len(files) < 2:
        from advisor.readers.folder import Folders

        evaluator = Evaluator(catalog, job.policy, full_vmx=False, keep_recommendations=False, typed=False)
        folders = Folders()
        chunk = 50
        for start in range(0, len(files), chunk):
            lint_paths(files[start:start + chunk], job, evaluator, folders)
            if progress:
                progress(min(chunk, len(files) - start))
        return evaluator.finish()

    from advisor.cost.workers import in_workers

    parts = in_workers([str(p) for p in files], job, _lint_chunk, workers, progress)
    return merge(parts, Evaluator(catalog, job.policy, full_vmx=False, keep_recommendations=False, typed=False))


def merge(parts: list[Run], evaluator: Evaluator) -> Run:
    """The workers' runs as one, taken in the order of their chunks: chunks are consecutive
    slices of the files, so files, VMs, errors and notes come out in the order one process
    reads them, whatever the number of workers (sorting them instead made the output depend on
    --jobs, and so on the machine's CPU count)."""
    run = evaluator.run
    for part in parts:
        run.absorb(part)
    return evaluator.finish()

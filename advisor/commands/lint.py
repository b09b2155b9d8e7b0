"""`advisor lint`: lint .vmx, OVF/OVA, Packer and Terraform templates, for CI."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from advisor.commands.common import STDIN, display, emit, report_options, settings, stdin_inputs, stdin_option
from advisor.errors import EXIT_CODES_HELP
from advisor.model.base import WORKLOADS

if TYPE_CHECKING:
    from advisor.engine.lint import LintJob
    from advisor.report.findings import Run


@click.command("lint", epilog=EXIT_CODES_HELP)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--host", "host_ref", help="Host profile or file: also run the host-aware (NUMA, placement) rules.")
@click.option("--vsphere", help="vSphere version the templates target (default: the host's).")
@click.option("--workload", type=click.Choice(WORKLOADS), help="Workload kind of the templates (default: generic).")
@click.option("--exclude", multiple=True, help="gitignore-style pattern to skip (repeatable; adds to the config's).")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None,
              help="Skip what git ignores (.gitignore files, .git/info/exclude) in folder walks (default: on, "
                   "or the config's respect_gitignore); named files are always linted.")
@click.option("--baseline", type=click.Path(dir_okay=False), help="Only report findings not in this baseline file.")
@click.option(
    "--write-baseline", type=click.Path(dir_okay=False), help="Write the current findings as a baseline and exit 0."
)
@click.option(
    "--var-file",
    "var_files",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Packer/Terraform variable values file (.pkrvars.hcl, .tfvars); repeatable, later ones win.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(1, 64),
    default=None,
    help="Worker processes (default: all cores for large runs).",
)
@report_options
@stdin_option
def command(paths, host_ref, vsphere, workload, exclude, respect_gitignore, baseline, write_baseline, var_files, jobs,
            formats, outputs, fail_on, select, ignore_, config_file, rule_dirs, quiet, show_sources, show_skipped,
            verbose, color, stdin_filename) -> None:
    """Lint VM templates: .vmx, OVF/OVA, Packer (JSON/HCL2) and Terraform vsphere_virtual_machine.

    Folders are walked (skipping .git, .terraform, what git ignores and the config's `exclude:`
    patterns); each file follows its nearest configuration. Each finding is one line, its fix
    and its rule's page. Without --host only the rules that need no host run: one summary line
    counts the others (--show-skipped lists them per VM, as JSON does).
    Suppress a finding inline with `# advisor: ignore RULE -- reason`. `-` reads one template
    from standard input; --stdin-filename gives its path (its extension picks the reader).
    """
    from pathlib import Path

    from advisor.commands.scopes import merge, note_unused_exemptions
    from advisor.engine.lint import LintJob
    from advisor.errors import InputError
    from advisor.report.findings import InputProblem, Run

    if not paths and stdin_filename is None:
        raise click.UsageError("give template files or folders (or - for standard input)")
    paths, given = stdin_inputs(list(paths), stdin_filename)
    if given is not None and stdin_filename is None:
        _note_stdin_format(given[1])
    s = settings(list(paths), formats, outputs, fail_on, select, ignore_, config_file, rule_dirs, quiet, color)
    s.display = display(show_sources, show_skipped, verbose)
    stdin_name = given[0] if given else None
    missing = [p for p in paths if p != stdin_name and not Path(p).exists()]  # reported with the other input errors
    named = frozenset(str(Path(p)) for p in paths if p == stdin_name or Path(p).is_file())
    walk_notes: list[str] = []
    groups = _groups(paths, stdin_name, named, s, exclude, respect_gitignore, walk_notes)
    files = [f for scope in groups for f in scope.files]
    var_values = _refuse_outputs_read(s, files, baseline, write_baseline, var_files)
    jobs_by_group = []
    for scope in groups:
        job = _job(scope, host_ref, vsphere, workload, rule_dirs, named, given, var_values)
        _check_host(job, vsphere)  # fail fast on a bad --host (or config host:), before any file is read
        jobs_by_group.append((scope, job))
    runs = []
    for scope, job in jobs_by_group:
        runs.append(_run_with_progress(scope.files, job, jobs,
                                       show=not quiet and len(scope.files) > 20))
        note_unused_exemptions(scope, runs[-1])
    if not groups:
        _check_host(LintJob(rule_dirs=[], policy=s.policy, host_ref=host_ref, vsphere=vsphere, profiles=s.profiles),
                    vsphere)
    run = merge(runs) if runs else Run()
    run.command = "lint"
    run.notes.extend(walk_notes)
    if missing:
        run.errors.extend(InputProblem(p, None, None, "no such file or folder") for p in missing)
    place = _baseline_place(s)
    if write_baseline:
        _write_baseline(run, write_baseline, place)
    if baseline:
        _apply_baseline(run, baseline, place)
    if not files and not missing:
        raise InputError("no templates found (.vmx, .ovf, .ova, .pkr.hcl, .pkr.json, .json, .tf, .tf.json)",
                         file=", ".join(paths))
    sys.exit(emit(run, s))


def _groups(paths: list[str], stdin_name: str | None, named: frozenset[str], s, exclude: tuple[str, ...],
            respect_gitignore: bool | None, walk_notes: list[str]) -> list[Any]:
    """The templates found, grouped by the configuration each follows (notes of the walk into
    `walk_notes`)."""
    from advisor.commands.scopes import not_excluded, pick
    from advisor.readers import template_files

    found = template_files([Path(p) for p in paths if p == stdin_name or Path(p).exists()], list(exclude),
                           pick(respect_gitignore, s.loaded.config.respect_gitignore, True), walk_notes)
    groups = s.scopes.group(found)
    for scope in groups:  # each configuration's `exclude:` is relative to its own folder
        scope.files = not_excluded(scope, scope.files, named)
    return groups


def _refuse_outputs_read(s, files: list[str], baseline: str | None, write_baseline: str | None,
                         var_files: tuple[str, ...]) -> tuple[tuple[str, bytes], ...]:
    """The --var-file values; refused first, an output that is also an input of the run."""
    from advisor.overwrites import refuse_inputs, refuse_read, refuse_shared
    from advisor.readers import variable_siblings

    outputs_ = [write_baseline, *(t for _, t in s.pairs)]
    refuse_shared(outputs_)
    # The Packer/Terraform files beside a template are read for its variables (terraform.tfvars,
    # *.auto.tfvars, ...), by the workers: inputs of the run as much as the templates themselves.
    refuse_inputs(outputs_, [*files, *([baseline] if baseline else []), *variable_siblings(files)])
    var_values = tuple((name, _var_file(name)) for name in var_files)
    refuse_read(outputs_)  # the --var-files, the configuration and rule files read so far
    return var_values


def _job(scope, host_ref: str | None, vsphere: str | None, workload: str | None, rule_dirs: tuple[str, ...],
         named: frozenset[str], given: tuple[str, bytes] | None, var_values: tuple[tuple[str, bytes], ...]) -> LintJob:
    """The lint job of one configuration's files (its rules, policy and host)."""
    from advisor.engine.lint import LintJob

    cfg = scope.loaded.config
    return LintJob(
        rule_dirs=[scope.loaded.path(f) for f in cfg.rules] + list(rule_dirs),
        policy=scope.policy,
        host_ref=host_ref
        or (scope.loaded.path(cfg.host) if cfg.host and cfg.host.endswith((".yaml", ".yml")) else cfg.host),
        vsphere=vsphere,
        workload=workload,
        profiles=scope.profiles,
        named=named,
        stdin=given,
        var_files=var_values,
    )


def _apply_baseline(run: Run, baseline: str, place: Any) -> None:
    """Mark the run's findings that the baseline accepted (advisor.engine.baseline)."""
    from advisor.engine.baseline import Baseline

    Baseline.load(baseline, place).apply(run, place)


def _write_baseline(run: Run, write_baseline: str, place: Any) -> NoReturn:
    """Write the run's findings as the baseline; exit 2 if a file could not be read, else 0."""
    from advisor.atomic import write_atomic
    from advisor.engine.baseline import Baseline
    from advisor.errors import printable

    for problem in run.errors:
        click.echo(f"advisor: {printable(str(problem))}", err=True)
    write_atomic(Path(write_baseline), Baseline.dump(run, place))
    click.echo(f"advisor: wrote {write_baseline} ({sum(1 for f in run.findings if f.suppressed is None)} findings)",
               err=True)
    sys.exit(2 if run.errors else 0)


def _check_host(job, vsphere: str | None) -> None:
    from advisor.errors import InputError

    if job.host_ref:
        from advisor.engine.lint import host_and_version

        host_and_version(job)
    elif vsphere:
        from advisor.model.versions import Version

        try:
            Version.parse(vsphere)
        except ValueError as exc:
            raise InputError(str(exc), field="--vsphere") from None


def _baseline_place(s):
    """A finding's file as a baseline keys it: relative to the repository's root, else to the
    folder of the configuration governing it, else to the current folder."""
    from advisor.commands.scopes import project_path

    def place(file: str) -> str:
        scope = s.scopes.of_file(file)
        return project_path(file, scope.loaded.file if scope is not None else s.loaded.file)

    return place


def _note_stdin_format(data: bytes) -> None:
    """Standard input without --stdin-filename: the reader is chosen by content alone, said on
    standard error; content no reader recognises stops the run with the flag to add."""
    from advisor.errors import InputError
    from advisor.readers import HEAD_BYTES, detect

    kind = detect(Path(STDIN), data[:HEAD_BYTES])
    if kind is None:
        raise InputError("not recognisable as a template by its content; give its path with --stdin-filename "
                         "(e.g. --stdin-filename main.tf) so the extension picks the reader", file=STDIN)
    names = {"vmxfile": ".vmx", "ovf": "OVF", "packer": "Packer", "terraform": "Terraform"}
    click.echo(f"advisor: -: read as {names[kind]} (recognised by content; --stdin-filename names the format)",
               err=True)


def _run_with_progress(files, job, jobs, show: bool):
    from advisor.commands.progress import progress, wanted
    from advisor.engine.lint import lint

    if not (show and wanted()):
        return lint(files, job, jobs)
    with progress("linting", len(files)) as advance:
        return lint(files, job, jobs, progress=advance)


def _var_file(name: str) -> bytes:
    """A --var-file's bytes; one that cannot be read stops the run (its values were asked for)."""
    from advisor.errors import InputError
    from advisor.load.yamlfile import read_bytes

    try:
        return read_bytes(Path(name))
    except InputError as exc:
        raise InputError(exc.message, file=name, field="--var-file") from None

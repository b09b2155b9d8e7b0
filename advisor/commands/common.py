"""What `advisor check` and `advisor lint` share: report options, policy, output, exit codes."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from advisor.errors import printable
from advisor.output import Display
from advisor.vocab import BINARY_FORMATS, FAIL_ON, FAIL_ON_RANK, FORMAT_BY_SUFFIX, FORMATS

if TYPE_CHECKING:  # imported when a command runs, not when the CLI starts
    from advisor.commands.scopes import Scopes
    from advisor.engine.catalog import Catalog
    from advisor.engine.engine import Policy
    from advisor.load.config import LoadedConfig
    from advisor.load.hosts import HostProfiles
    from advisor.report.findings import Run


def report_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Options every reporting command takes, in the order --help shows them."""
    options = [
        click.option("--format", "formats", multiple=True, type=click.Choice(FORMATS),
                     help="Output format; repeat with --output to write several reports in one run."),
        click.option("--output", "-o", "outputs", multiple=True, type=click.Path(dir_okay=False),
                     help="Write the report for the matching --format to FILE (atomically). "
                          "Without --format the suffix picks it (.json .sarif .xml .md)."),
        click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
                     help="Lowest severity that makes the exit code 1 (default: error)."),
        click.option("--select", multiple=True, help="Only these rule ids or prefixes (comma-separated, repeatable)."),
        click.option("--ignore", "ignore_", multiple=True, help="Skip these rule ids or prefixes."),
        click.option("--config", "config_file", type=click.Path(dir_okay=False),
                     help="Configuration file (default: nearest .advisor.yaml or pyproject.toml [tool.advisor])."),
        click.option("--rules", "rule_dirs", multiple=True, type=click.Path(file_okay=False),
                     help="Extra folder of rule files (organisation policies); repeatable."),
        click.option("--quiet", "-q", is_flag=True, help="Print findings only, one line each."),
        click.option("--show-sources", is_flag=True,
                     help="Text: every source of each finding instead of its rule's page (`advisor explain RULE` "
                          "has them too)."),
        click.option("--show-skipped", is_flag=True,
                     help="Text: each VM's rules that could not be evaluated and every unknown template value "
                          "(by default a summary line; JSON lists them per VM)."),
        click.option("--verbose", "-v", is_flag=True,
                     help="Text: --show-sources and --show-skipped, each host's capacity, each VM's topology, "
                          "each fix's instruction and the suggestions advisor does not write."),
        click.option("--color/--no-color", default=None,
                     help="Colour text output (default: on a terminal; FORCE_COLOR or NO_COLOR, when not empty, "
                          "decide otherwise)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


STDIN = "-"


def stdin_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--stdin-filename", metavar="PATH",
        help="The path standard input (`-`) stands for: reported in findings, used to find the configuration "
             "and, for lint, to pick the reader by its extension (as ruff's --stdin-filename).")(func)


def stdin_inputs(inputs: list[str], stdin_filename: str | None) -> tuple[list[str], tuple[str, bytes] | None]:
    """The inputs with `-` replaced by the name standard input is reported under, and that
    input's (name, bytes), read up to the limit every input file has."""
    from advisor.errors import InputError
    from advisor.load.yamlfile import MAX_FILE_BYTES

    dashes = inputs.count(STDIN)
    if dashes > 1:
        raise click.UsageError("standard input (-) can be read only once")
    if stdin_filename is not None and not dashes:
        if inputs:
            raise click.UsageError("--stdin-filename names standard input: add - to the inputs")
        inputs, dashes = [STDIN], 1
    if not dashes:
        return inputs, None
    if stdin_filename is not None and (not stdin_filename or Path(stdin_filename).is_dir()):
        raise click.UsageError("--stdin-filename names a file (the path standard input stands for)")
    name = str(Path(stdin_filename)) if stdin_filename else STDIN
    if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:  # started with standard input closed (<&-)
        raise InputError("standard input is closed: nothing to read for -", file=name)
    try:
        data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    except OSError as exc:  # a descriptor that cannot be read (a folder, a write-only pipe)
        raise InputError(f"standard input cannot be read: {exc.strerror or exc}", file=name) from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"standard input is larger than the {MAX_FILE_BYTES >> 20} MiB limit every input has",
                         file=name)
    return [name if i == STDIN else i for i in inputs], (name, data)


def split_csv(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        p.strip().upper() if p.strip().upper() != "ALL" else "ALL" for v in values for p in v.split(",") if p.strip()
    )


# A plain class, as advisor.commands.scopes's: creating a dataclass runs generated code at
# every start-up, for features this does not use.
class Settings:
    """Command-line options merged with the configuration file."""

    __slots__ = ("catalog", "color", "display", "fail_on", "loaded", "pairs", "policy", "profiles", "quiet", "scopes")

    def __init__(self, loaded: LoadedConfig, catalog: Catalog, policy: Policy, profiles: HostProfiles, fail_on: str,
                 pairs: list[tuple[str, str | None]], quiet: bool, color: bool, scopes: Scopes) -> None:
        self.loaded = loaded
        self.catalog = catalog
        self.policy = policy
        self.profiles = profiles
        self.fail_on = fail_on
        self.pairs = pairs  # (format, file or None for stdout)
        self.quiet = quiet
        self.color = color
        self.scopes = scopes  # a configuration per input file (the fields above are the first input's)
        self.display = Display()  # what the text report shows beyond a finding's three lines


def display(show_sources: bool, show_skipped: bool, verbose: bool, topology: bool = False) -> Display:
    """The text report's --show-sources, --show-skipped and -v (which turns every part on);
    `topology`: the command's own default for VM topologies (check shows them)."""
    return Display(sources=show_sources or verbose, skipped=show_skipped or verbose, topology=topology or verbose,
                   verbose=verbose)


def output_pairs(formats: tuple[str, ...], outputs: tuple[str, ...]) -> list[tuple[str, str | None]]:
    pairs: list[tuple[str, str | None]] = []
    if len(outputs) > len(formats):
        formats = formats + tuple(FORMAT_BY_SUFFIX.get(Path(o).suffix.lower(), "") for o in outputs[len(formats):])
        bad = [o for o, f in zip(outputs, formats, strict=False) if not f]
        if bad:
            raise click.UsageError(f"cannot tell the format of --output {bad[0]}; add --format before it")
    for index, fmt in enumerate(formats or ("text",)):
        pairs.append((fmt, outputs[index] if index < len(outputs) else None))
    if sum(1 for _, o in pairs if o is None) > 1:
        raise click.UsageError("only one --format can go to standard output; give the others an --output file")
    return pairs


def settings(inputs: list[str], formats: tuple[str, ...], outputs: tuple[str, ...], fail_on: str | None,
             select: tuple[str, ...], ignore_: tuple[str, ...], config_file: str | None,
             rule_dirs: tuple[str, ...], quiet: bool, color: bool | None) -> Settings:
    from advisor.collector import gc_paused

    # What is built here (the modules the command imports, its rules, policy and host profiles)
    # lives as long as the run: collections while it is made would walk it, only to promote it,
    # about a twentieth of a small check's own start-up.
    with gc_paused(kept=True, kept_min=0):
        return _settings(inputs, formats, outputs, fail_on, select, ignore_, config_file, rule_dirs, quiet, color)


def _settings(inputs: list[str], formats: tuple[str, ...], outputs: tuple[str, ...], fail_on: str | None,
              select: tuple[str, ...], ignore_: tuple[str, ...], config_file: str | None,
              rule_dirs: tuple[str, ...], quiet: bool, color: bool | None) -> Settings:
    from advisor.atomic import check_target
    from advisor.commands.scopes import Options, Scopes
    from advisor.load.config import load_config
    from advisor.output.terminal import use_color
    from advisor.overwrites import refuse_inputs, refuse_shared

    pairs = output_pairs(formats, outputs)
    refuse_shared([t for _, t in pairs])
    for _, target in pairs:  # a bad --output fails now, before any work and before any other output
        if target is not None:
            check_target(target)
    refuse_inputs([t for _, t in pairs], [*inputs, *([config_file] if config_file else [])])
    _binary_targets(pairs)
    scopes = Scopes(Options(split_csv(select), split_csv(ignore_), rule_dirs, fail_on, config_file))
    first = scopes.of(load_config(config_file, inputs, scopes.found))
    return Settings(first.loaded, first.catalog, first.policy, first.profiles, first.fail_on, pairs, quiet,
                    use_color(color, sys.stdout), scopes)


def _binary_targets(pairs: list[tuple[str, str | None]]) -> None:
    """A workbook goes to a file or a pipe, never a terminal; and its writer must be installed."""
    for fmt, target in pairs:
        if fmt not in BINARY_FORMATS:
            continue
        if target is None and sys.stdout.isatty():
            raise click.UsageError(f"--format {fmt} writes a binary workbook: give --output FILE.{fmt}")
        from advisor.output import xlsx

        if not xlsx.available():
            raise click.UsageError(xlsx.MISSING)


def exit_code(run: Run, fail_on: str, scopes: Scopes | None = None) -> int:
    """2 for input errors, else 1 when a finding reaches --fail-on (or, without the flag, the
    fail_on of the configuration governing the finding's file)."""
    if run.errors:
        return 2
    for f in run.findings:
        threshold = scopes.fail_on(f.file, fail_on) if scopes is not None else fail_on
        if f.suppressed is None and FAIL_ON_RANK[f.severity] >= FAIL_ON_RANK[threshold]:
            return 1
    return 0


def emit(run: Run, s: Settings) -> int:
    """Render every requested format, write files atomically, and return the exit code.

    When no input could be evaluated at all, no report file is written (a report of nothing
    would overwrite a useful one); input errors still go to stderr.
    """
    from advisor.atomic import write_atomic
    from advisor.collector import gc_paused
    from advisor.output import render_pieces
    from advisor.output.terminal import width as terminal_width
    from advisor.overwrites import refuse_read

    # Inputs found while running (a spec's host file, the configuration, a --var-file) are known
    # now: no output may replace one, and none is written when any would.
    refuse_read([target for _, target in s.pairs])
    for problem in run.errors:
        click.echo(f"advisor: {printable(str(problem))}", err=True)
    evaluated = bool(run.vms or run.hosts)
    for fmt, target in s.pairs:
        if target is None and fmt == "text" and not evaluated and run.errors:
            continue
        if target is not None and not evaluated:
            continue
        if fmt in BINARY_FORMATS:
            _emit_binary(fmt, run, target)
            continue
        # A report of a large run is hundreds of thousands of small strings and no cycles.
        with gc_paused():
            width = terminal_width(sys.stdout) if target is None else None
            blocks = _blocks(render_pieces(fmt, run, color=s.color and target is None, quiet=s.quiet, width=width,
                                           display=s.display))
            if target is None:
                last = ""
                for last in blocks:
                    # color= stops click from stripping the codes we were asked for (--color on a pipe),
                    # and from searching a block without an escape character for them (a JSON report
                    # has none: for 10,000 templates, 10 ms of regular expression over 40 MB).
                    click.echo(last, nl=False, color=s.color or "\x1b" not in last)
                if not last.endswith("\n"):
                    click.echo("", color=s.color)
            else:
                write_atomic(Path(target), (block.encode("utf-8") for block in blocks))
        if fmt == "github":
            _step_summary(run)
    return exit_code(run, s.fail_on, s.scopes)


def _emit_binary(fmt: str, run: Run, target: str | None) -> None:
    """A workbook to its file, or to standard output when that is a pipe (_settings refused a terminal)."""
    from advisor.atomic import write_atomic
    from advisor.output import render_binary

    data = render_binary(fmt, run)
    if target is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        write_atomic(Path(target), data)


def _step_summary(run: Run) -> None:
    """Append the run's summary to the job's summary page when GitHub Actions names one
    (GITHUB_STEP_SUMMARY: a file a step appends Markdown to)."""
    import os

    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    from advisor.output.github import step_summary

    try:
        with open(target, "a", encoding="utf-8") as file:
            file.write(step_summary(run))
    except OSError as exc:
        click.echo(f"advisor: GITHUB_STEP_SUMMARY: cannot append the summary ({printable(exc.strerror or str(exc))})",
                   err=True)


def _blocks(pieces: Iterator[str], size: int = 1 << 20) -> Iterator[str]:
    """Pieces of a report joined into blocks of about `size` characters: few writes, and never
    the whole report of a large run in memory at once."""
    held: list[str] = []
    length = 0
    for piece in pieces:
        held.append(piece)
        length += len(piece)
        if length >= size:
            yield "".join(held)
            held, length = [], 0
    if held:
        yield "".join(held)


"""The `advisor` command line: a Click group whose subcommands are imported only when used.

Start-up time is part of a CI linter's cost, so `advisor --version` imports nothing heavy and
each subcommand module (advisor/commands/<name>.py) is loaded on demand.
"""

from __future__ import annotations

import atexit
import errno
import gc
import importlib
import os
import sys
from typing import NoReturn

from advisor import __version__
from advisor.collector import gc_paused
from advisor.errors import EXIT_CODES_HELP

# Click, and below a command's modules, live as long as the run: collections while they load
# would walk them only to promote them (about 2% of a small check's start-up).
with gc_paused(kept=True, kept_min=0):
    import click

# name -> (module under advisor.commands, one-line help shown in `advisor --help`)
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("check", "Predict vNUMA layout and check proposed VMs (spec YAML) against the rules."),
    "lint": ("lint", "Lint existing templates: .vmx, OVF/OVA, Packer, Terraform."),
    "vmx": ("vmx", "Print the recommended settings as .vmx, Terraform, Packer, PowerCLI, govc or Ansible."),
    "fix": ("fix", "Apply the recommended keys to an existing .vmx (diff, or --write)."),
    "size": ("size", "Propose VM shapes that fit a host's NUMA nodes for a workload."),
    "collect": ("collect", "Read a running vCenter into spec files (pyVmomi: the 'vcenter' extra)."),
    "topology": ("topology", "Draw the virtual and physical NUMA layout of each VM."),
    "diff": ("diff", "What changed between two estate snapshots (RVTools exports, collected spec folders)."),
    "verify": ("verify", "Compare the NUMA layout ESXi logged (vmware.log, sched-stats) with the prediction."),
    "hosts": ("hosts", "List the bundled host profiles."),
    "rules": ("rules", "List the rule catalog."),
    "explain": ("explain", "Explain one rule: rationale, evidence, fix, examples."),
    "schema": ("schema", "Print the JSON Schema of the spec format (for editors), or its reference."),
    "init": ("init", "Write a commented spec and an .advisor.yaml to start from."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        with gc_paused(kept=True, kept_min=0):
            module = importlib.import_module(f"advisor.commands.{COMMANDS[name][0]}")
        return module.command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing help must not import every command module.
        rows = [(name, help_text) for name, (_, help_text) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, epilog=EXIT_CODES_HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="advisor")
@click.option("--debug", is_flag=True, envvar="ADVISOR_DEBUG", help="Show Python tracebacks for internal errors.")
@click.pass_context
def group(ctx: click.Context, debug: bool) -> None:
    """VM sizing and configuration advisor for VMware vSphere.

    advisor predicts the virtual NUMA topology ESXi builds for a VM, checks sizing and settings
    against VMware's published performance studies, and prints the exact fix.
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def main() -> None:
    """Entry point: input errors exit 2 with one line; an internal error never dumps a
    traceback unless --debug (or ADVISOR_DEBUG=1) asks for it."""
    from advisor.errors import InputError, printable, problems

    # The interpreter's exit collects garbage several times over every object still alive (the
    # modules, the rules, the run): about a sixth of a small check's CPU. Frozen when the exit
    # begins, they are skipped, and freed with the process as they would be anyway;
    # atexit handlers, stdio flushing and module teardown run as before. At exit, not now, so
    # a caller running main() in its own process keeps its collector until then; registered
    # once however often it is called.
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    debug = "--debug" in sys.argv[1:] or os.environ.get("ADVISOR_DEBUG") == "1"
    from advisor.overwrites import forget_reads

    forget_reads()  # a run's inputs are its own (main() may run several times in one process)
    try:
        code = group.main(prog_name="advisor", standalone_mode=False)
    except click.ClickException as exc:
        # A usage error quotes what the user typed (or a config value): printed through the same
        # filter as every other message, so it stays one line without terminal controls.
        if type(exc).__name__ != "NoArgsIsHelpError":  # that one carries the help text only
            setattr(exc, "message", printable(exc.message))  # noqa: B010 - click declares it Final
        exc.show()
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(1)
    except InputError as exc:
        for problem in problems(exc):
            click.echo(f"advisor: {printable(str(problem))}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("advisor: interrupted", err=True)
        sys.exit(130)
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG or debug:
            _internal_error(exc, debug)
        # A path the user gave that the file system cannot hold (a component over NAME_MAX, or a
        # path over PATH_MAX): the user's to fix, wherever it was first used.
        click.echo(f"advisor: {_clipped(exc.filename)}: file name too long for the file system", err=True)
        sys.exit(2)
    except Exception as exc:
        _internal_error(exc, debug)
    sys.exit(code if isinstance(code, int) else 0)


def _clipped(name: object) -> str:
    """A path for a message: escaped, and its middle left out past 120 characters."""
    from advisor.errors import printable

    text = printable(os.fsdecode(name) if isinstance(name, bytes) else str(name))
    return text if len(text) <= 120 else f"{text[:60]}...{text[-40:]} ({len(text):,} characters)"


def _internal_error(exc: Exception, debug: bool) -> NoReturn:
    from advisor.errors import printable

    if debug:
        raise exc
    click.echo(
        f"advisor: internal error: {type(exc).__name__}: {printable(str(exc))} "
        "(run with --debug for a traceback, and please report it)",
        err=True,
    )
    sys.exit(3)


def run() -> None:
    """The `advisor` program (its console script and `python -m advisor`): main(), then the exit
    the interpreter would make, less its teardown (see _exit_now). Tearing down frees every object
    one by one, the modules and a large lint's whole run: for 10,000 templates about 26 ms of the
    parent's time on one core, after all output is written (mypy exits this way too). main()
    itself exits as usual, for callers running it in their own process."""
    # advisor validates its own inputs with pydantic and uses no pydantic plugin. Plugins are
    # found through every installed distribution's entry points when the first validator is
    # built (2-3 ms of CPU on each run with a few dozen distributions installed, and whatever an
    # installed plugin costs to import); PYDANTIC_DISABLE_PLUGINS is pydantic's setting for
    # skipping that. A value the user set is kept; main() leaves a calling process's alone.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        main()
    except SystemExit as exc:
        # Still inside the handler: its traceback holds the command's frames and through them
        # the run, which leaving the handler would free object by object first.
        if exc.code is None or type(exc.code) is int:
            _exit_now(exc.code or 0)
        raise


def _exit_now(code: int) -> None:
    """End the process with `code` as the interpreter's exit would, without freeing its objects:
    the atexit handlers run, then stdout and stderr are flushed. Returns, for the usual exit, while
    another thread that the exit waits for still runs, or when a flush fails (a closed pipe: the
    interpreter reports it as it always has)."""
    threading = sys.modules.get("threading")
    if threading is not None and any(t.is_alive() and not t.daemon and t is not threading.main_thread()
                                     for t in threading.enumerate()):
        return
    run_handlers = getattr(atexit, "_run_exitfuncs", None)  # CPython's, as the exit calls them
    if run_handlers is None:
        return
    run_handlers()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(code)

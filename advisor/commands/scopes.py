"""One configuration per input file, as ruff finds its own: the inputs of a run grouped by the
configuration that governs each (advisor.load.config.discover), every group with its own
catalog, policy, host profiles and --fail-on. `--config` makes one group of everything.

Also here, because they need the groups: the path a baseline keys a finding by (relative to
the repository's root, else the configuration's folder, else the current folder), and the
configuration exemptions that matched no finding of the run.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from advisor.engine.catalog import Catalog
    from advisor.engine.engine import Policy
    from advisor.load.config import LoadedConfig
    from advisor.load.hosts import HostProfiles
    from advisor.report.findings import Run


# Plain slotted classes: see CONTRIBUTING.md, "Add a class on `check`'s path".
class Scope:
    """A configuration and the input files it governs."""

    __slots__ = ("catalog", "fail_on", "files", "loaded", "policy", "profiles")

    def __init__(self, loaded: LoadedConfig, catalog: Catalog, policy: Policy, profiles: HostProfiles,
                 fail_on: str) -> None:
        self.loaded = loaded
        self.catalog = catalog
        self.policy = policy
        self.profiles = profiles
        self.fail_on = fail_on
        self.files: list[str] = []


class Options:
    """What the command line says for every group (it overrides each configuration)."""

    __slots__ = ("explicit", "fail_on", "ignore", "rule_dirs", "select")

    def __init__(self, select: tuple[str, ...], ignore: tuple[str, ...], rule_dirs: tuple[str, ...],
                 fail_on: str | None, explicit: str | None) -> None:
        self.select = select
        self.ignore = ignore
        self.rule_dirs = rule_dirs
        self.fail_on = fail_on
        self.explicit = explicit  # --config


class Scopes:
    __slots__ = ("_by_config", "_catalogs", "_of_file", "found", "options")

    def __init__(self, options: Options) -> None:
        self.options = options
        self._by_config: dict[str | None, Scope] = {}
        self.found: dict[Path, LoadedConfig] = {}  # advisor.load.config.discover's cache
        self._catalogs: dict[tuple[str, ...], Catalog] = {}
        self._of_file: dict[str, Scope] = {}

    def of(self, loaded: LoadedConfig) -> Scope:
        """The group of one configuration (built once: its catalog, policy and profiles)."""
        scope = self._by_config.get(loaded.file)
        if scope is None:
            scope = self._by_config[loaded.file] = self._build(loaded)
        return scope

    def group(self, files: list[str]) -> list[Scope]:
        """`files` grouped by their configuration, groups in the order of their first file."""
        from advisor.load.config import discover

        if self.options.explicit:
            (only,) = self._by_config.values()  # settings() built it before any file was read
            chosen = [only] * len(files)
        else:
            # One discovery per folder as spelled: a walk's files share a few folders, and
            # resolving each file's path would cost system calls per file.
            by_folder: dict[str, Scope] = {}
            chosen = []
            for file, folder in zip(files, map(_folder_key, files), strict=True):
                scope = by_folder.get(folder)
                if scope is None:
                    scope = by_folder[folder] = self.of(discover(Path(file), self.found))
                chosen.append(scope)
        self._of_file.update(zip(files, chosen, strict=True))
        groups = list({id(scope): scope for scope in chosen}.values())
        if len(groups) == 1:  # one configuration for every file (the usual case): no sorting out
            groups[0].files = list(files)
            return groups
        for scope in groups:
            scope.files = []
        for file, scope in zip(files, chosen, strict=True):
            scope.files.append(file)
        return groups

    def of_file(self, file: str) -> Scope | None:
        return self._of_file.get(file)

    def fail_on(self, file: str | None, default: str) -> str:
        scope = self._of_file.get(file or "")
        return scope.fail_on if scope is not None else default

    def _build(self, loaded: LoadedConfig) -> Scope:
        from advisor.engine.catalog import load_catalog
        from advisor.engine.engine import Exemption, Policy
        from advisor.load.hosts import HostProfiles

        cfg, o = loaded.config, self.options
        profiles = HostProfiles.with_folders(loaded.path(folder) for folder in cfg.host_profiles)
        folders = tuple([loaded.path(f) for f in cfg.rules] + list(o.rule_dirs))
        if folders not in self._catalogs:
            self._catalogs[folders] = load_catalog(list(folders))
        lines = loaded.exemption_lines or (None,) * len(cfg.exemptions)
        policy = Policy(
            select=o.select or tuple(s.upper() for s in cfg.select),
            ignore=o.ignore + tuple(s.upper() for s in cfg.ignore),
            severity=dict(cfg.severity),
            exemptions=[Exemption(e.rule.upper() if e.rule != "*" else "*", e.reason, "config", e.until, loaded.file,
                                  line, tuple(e.vms), tuple(e.paths)) for e, line in zip(cfg.exemptions, lines,
                                                                                        strict=True)],
        )
        catalog = self._catalogs[folders]
        _check_known(catalog, policy.select + policy.ignore + tuple(policy.severity), loaded.file)
        return Scope(loaded, catalog, policy, profiles, o.fail_on or cfg.fail_on or "error")


def not_excluded(scope: Scope, files: list[str], named: frozenset[str]) -> list[str]:
    """The files a configuration's `exclude:` patterns (relative to its folder) leave; files the
    user named are kept, as with every pattern. (lint's templates and check's specs alike.)"""
    patterns = list(scope.loaded.config.exclude)
    if not patterns or scope.loaded.file is None:
        return files
    from advisor.readers.ignore import compile_patterns

    spec = compile_patterns(patterns, scope.loaded.file)
    root = Path(scope.loaded.file).parent.resolve()
    folders: dict[str, Path] = {}
    kept = []
    for file in files:
        head, name = os.path.split(file)
        if head not in folders:
            folders[head] = Path(head or ".").resolve()
        relative = os.path.relpath(folders[head] / name, root).replace(os.sep, "/")
        if file in named or relative.startswith("../") or not spec.match_file(relative):
            kept.append(file)
    return kept


def pick(*choices: bool | None) -> bool:
    """The first of the choices that is set (a flag, then the configuration, then the default)."""
    return next(c for c in choices if c is not None)


def _folder_key(file: str) -> str:
    """A key naming the folder of `file`: files with the same key are in the same folder (one
    folder may have several keys, "a//b" and "a/c": one discovery more, from its cache). Where a
    path has one separator, the text up to and including its last one ("/" for "/a", "" for "a"),
    without os.path.dirname's per-call Python steps (a third of grouping ten thousand files)."""
    return os.path.dirname(file) if os.altsep else file[:file.rfind(os.sep) + 1]


def _check_known(catalog: Catalog, prefixes: tuple[str, ...], config: str | None) -> None:
    ids = catalog.ids()
    for prefix in prefixes:
        if prefix != "ALL" and not any(i.startswith(prefix) for i in ids):
            import difflib

            close = difflib.get_close_matches(prefix, ids, n=1)
            where = f" (in {config})" if config else ""
            raise click.UsageError(f"no rule matches '{prefix}'{where}"
                                   + (f"; did you mean '{close[0]}'?" if close else ""))


def merge(runs: list[Run], order: list[str] | None = None) -> Run:
    """The runs of several groups as one, findings sorted as one run sorts them and VMs, hosts
    and files in the order of `order` (the inputs as given)."""
    if len(runs) == 1:
        return runs[0]
    from advisor.report.findings import Run

    out = Run()
    for run in runs:
        out.absorb(run)
    rank = {file: index for index, file in enumerate(order or sorted(out.files))}
    out.vms.sort(key=lambda v: rank.get(v.file, len(rank)))
    out.hosts.sort(key=lambda h: rank.get(h.file, len(rank)))
    out.files.sort(key=lambda f: rank.get(f, len(rank)))
    out.errors.sort(key=lambda e: (rank.get(e.file, len(rank)), e.line or 0))
    out.sort()
    return out


def note_unused_exemptions(scope: Scope, run: Run) -> None:
    """A note for each configuration exemption that suppressed no finding of `run` although
    the run reached what it names (some file its `paths:` match, or any file without paths):
    like ruff's unused `noqa` (RUF100), reported and never a failure, so exit codes stay as
    documented. Worked out from the findings, so it holds for parallel runs too (the workers'
    exemptions are copies)."""
    live = [ex for ex in scope.policy.exemptions if not (ex.until and ex.until < scope.policy.today)]
    if not live:
        return
    used: set[int] = set()
    for finding in run.findings:
        if finding.suppressed is not None and finding.suppressed.kind == "config":
            first = next((ex for ex in live if ex.covers(finding.rule, finding.vm, finding.file)), None)
            if first is not None:
                used.add(id(first))
    for ex in live:
        if id(ex) in used or (ex.paths and not any(replace(ex, vms=()).covers(ex.rule, None, f) for f in run.files)):
            continue
        run.notes.append(f"{ex.describe()}: unused exemption (no {ex.rule} finding"
                         + (f" in {', '.join(ex.paths)}" if ex.paths else "")
                         + (f" for {', '.join(ex.vms)}" if ex.vms else "") + " in this run)")


_ROOTS: dict[Path, Path | None] = {}


def project_path(file: str, config: str | None) -> str:
    """`file` relative to its repository's root (else the folder of its configuration, else the
    current folder), in `/` form: the same key however the path was spelled and wherever
    advisor ran from."""
    from advisor.readers.ignore import repository_root

    path = Path(os.path.abspath(file))
    with contextlib.suppress(OSError, RuntimeError):
        path = path.resolve()
    folder = path.parent
    if folder not in _ROOTS:
        _ROOTS[folder] = repository_root(folder)
    root = _ROOTS[folder] or (Path(config).parent.resolve() if config else Path.cwd().resolve())
    return Path(os.path.relpath(path, root)).as_posix()

"""Project configuration: `.advisor.yaml`, or `[tool.advisor]` in pyproject.toml.

Found the way ruff finds its own, for each input file: walking up from the file's folder, the
nearest folder holding either file wins (`.advisor.yaml` before pyproject.toml in the same
folder). The walk stops at the repository's root (the folder holding `.git`), so a checkout
never picks up a configuration from the folders it was cloned into; outside a repository only
the input's own folder is looked in. A configuration found this way is used only when it is
owned by the user running advisor and not writable by others (as git trusts a repository).
`--config FILE` names one for every input. Paths inside the
configuration (rule folders, host profile folders, `exclude:` patterns) are relative to the
file that states them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from advisor.errors import InputError, one_or_all

if TYPE_CHECKING:
    from advisor.load.configmodel import Config

CONFIG_NAMES = (".advisor.yaml", ".advisor.yml")


# A configuration is a few dozen lines; this bound, and MAX_ITEMS per list (advisor.load.configmodel),
# keep a huge one from costing minutes (each exclude pattern is compiled to a regular expression,
# each exemption is checked per finding).
MAX_CONFIG_BYTES = 1 << 20


class Unset:
    """The settings of a folder without a configuration: every one of Config's at its default.
    A plain object, so a run without a configuration file builds none of the model classes
    (advisor.load.configmodel: a millisecond of every start-up); tests/unit/test_config_unset.py
    holds it to Config's defaults."""

    __slots__ = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = MappingProxyType({})
    fail_on: str | None = None
    host: str | None = None
    rules: tuple[str, ...] = ()
    host_profiles: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    respect_gitignore: bool | None = None
    exemptions: tuple[()] = ()
    workloads: tuple[()] = ()
    estate_hosts: tuple[()] = ()


UNSET = Unset()


class LoadedConfig:
    """A configuration and the file it came from (None: the defaults). A plain class: creating
    a dataclass runs generated code at every start-up, for features this does not use."""

    __slots__ = ("config", "exemption_lines", "file")

    def __init__(self, config: Config | None = None, file: str | None = None,
                 exemption_lines: tuple[int | None, ...] = ()) -> None:
        self.config: Config | Unset = UNSET if config is None else config
        self.file = file
        # The line of each `exemptions:` item (YAML); None where the format has none (TOML).
        self.exemption_lines = exemption_lines

    def path(self, relative: str) -> str:
        """A path from the config, relative to the config file's folder."""
        if self.file is None or Path(relative).is_absolute():
            return relative
        return str(Path(self.file).parent / relative)


def _from_yaml(path: Path) -> LoadedConfig:
    from pydantic import ValidationError

    from advisor.load.configmodel import Config
    from advisor.load.validation import to_input_errors
    from advisor.load.yamlfile import loads, read_bytes

    root = loads(read_bytes(path, MAX_CONFIG_BYTES), str(path))
    if root is None:
        return LoadedConfig(file=str(path))
    if not isinstance(root, dict):
        raise InputError("the configuration is a mapping of settings", file=str(path), line=getattr(root, "line", 1))
    try:
        config = Config.model_validate(root)
    except ValidationError as exc:
        raise one_or_all(to_input_errors(exc, Config, root, str(path))) from None
    lines = getattr(root.get("exemptions"), "lines", ())
    return LoadedConfig(config, str(path), tuple(lines[i] if i < len(lines) else None
                                                 for i in range(len(config.exemptions))))


# The spellings of the keys `tool` and `advisor` in TOML without escapes: bare, "basic" or 'literal'.
_TOOL = rb"""(?:tool|"tool"|'tool')"""
_ADVISOR = rb"""(?:advisor|"advisor"|'advisor')"""
# The dotted key tool.advisor anywhere: a [tool.advisor...] header or a top-level dotted key.
_TOOL_DOT_ADVISOR = re.compile(_TOOL + rb"[ \t]*\.[ \t]*" + _ADVISOR)
# A [tool] (or [[tool]]) table, whose own keys may be `advisor`, or a top-level `tool = {...}`.
_TOOL_ITSELF = re.compile(rb"\[\[?[ \t]*" + _TOOL + rb"[ \t]*\]|" + _TOOL + rb"[ \t]*=")


def may_hold_advisor(raw: bytes) -> bool:
    """Whether a pyproject.toml could define [tool.advisor] (never False when it does).

    Without a backslash no key is spelled with escapes, so the table needs the key `advisor`
    written out: after `tool.` (the header [tool.advisor], the key tool.advisor.select), or
    anywhere in a file that defines `tool` itself ([tool] holding `advisor = ...`, or
    tool = {advisor = ...}). Matches inside strings and comments only mean the file is parsed.
    A project's own pyproject.toml names advisor as a dependency or a script, and is skipped.
    """
    if b"\\" in raw:
        return True
    return bool(_TOOL_DOT_ADVISOR.search(raw)) or (b"advisor" in raw and bool(_TOOL_ITSELF.search(raw)))


def _from_pyproject(path: Path) -> LoadedConfig | None:
    from advisor.load.yamlfile import long_number_line, read_bytes

    raw = read_bytes(path)
    if not may_hold_advisor(raw):  # not parsed at all: tomllib is pure Python, a millisecond or two
        return None
    import tomllib

    from pydantic import ValidationError

    from advisor.load.configmodel import Config
    from advisor.load.validation import to_input_errors

    if len(raw) > MAX_CONFIG_BYTES:
        raise InputError(f"a pyproject.toml with an advisor section is read up to {MAX_CONFIG_BYTES >> 20} MiB",
                         file=str(path))
    text = ""
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid TOML: {exc}", file=str(path)) from None
    except ValueError:  # tomllib's int() refuses integers of more than 4300 digits
        raise InputError("not valid TOML: a number has more digits than advisor reads", file=str(path),
                         line=long_number_line(text)) from None
    tool = data.get("tool")
    section = tool.get("advisor") if isinstance(tool, dict) else None
    if section is None:
        return None
    try:
        return LoadedConfig(config=Config.model_validate(section), file=str(path))
    except ValidationError as exc:
        raise one_or_all(to_input_errors(exc, Config, section, str(path), ("tool", "advisor"))) from None


def discover(start: Path, cache: dict[Path, LoadedConfig] | None = None) -> LoadedConfig:
    """The nearest configuration at or above `start` (a file or folder) within its repository,
    as git finds a repository's own settings; empty when none. Outside a repository (no `.git`
    in any folder above) only `start`'s own folder is looked in: a walk to `/` would let anyone
    who can write a folder above (`/tmp/.advisor.yaml`) configure the run. The path is followed
    as given (`os.path.abspath`, not `resolve`): a symlinked folder inside a repository belongs
    to the repository it is reached through, not to its target's parents. `cache` (folder ->
    configuration, filled for every folder the walk passes) spares a run of many files the same
    walks and the same parses."""
    folder = Path(os.path.abspath(start))
    if not _is_dir(folder):
        folder = folder.parent
    cache = {} if cache is None else cache
    if folder in cache:
        return cache[folder]
    chain = [folder, *folder.parents]
    top = next((i for i, candidate in enumerate(chain) if _exists(candidate / ".git")), None)
    candidates = chain[:top + 1] if top is not None else [folder]
    passed: list[Path] = []
    found = LoadedConfig()
    for candidate in candidates:
        if candidate in cache:
            found = cache[candidate]
            break
        passed.append(candidate)
        here = _here(candidate)
        if here is not None:
            found = here
            break
    for candidate in passed:
        cache[candidate] = found
    return found


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long for the file system: not a folder advisor can look in
        return False


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def _here(candidate: Path) -> LoadedConfig | None:
    """The configuration a folder holds itself, if any and if trusted."""
    for name in CONFIG_NAMES:
        path = candidate / name
        if _is_file(path) and _trusted(path):
            return _inside(_from_yaml(_own(path)))
    pyproject = candidate / "pyproject.toml"
    if _is_file(pyproject) and _trusted(pyproject):
        found = _from_pyproject(_own(pyproject))
        if found is not None:
            return _inside(found)
    return None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


_SKIPPED: set[str] = set()  # each skipped file is named once per run


def _trusted(path: Path) -> bool:
    """Whether a configuration found by itself may configure the run: owned by the user running
    advisor and not writable by others, as git refuses a repository owned by someone else
    (safe.directory, CVE-2022-24765). A skipped file is named on standard error with the reason.
    On a system without user ids (Windows) every file is trusted."""
    import stat

    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:
        return True
    try:
        info = path.stat()
    except OSError:
        return False
    if info.st_uid != geteuid():
        reason = f"owned by another user (uid {info.st_uid})"
    elif info.st_mode & stat.S_IWOTH:
        reason = "writable by every user"
    else:
        return True
    if str(path) not in _SKIPPED:
        import click

        from advisor.errors import printable

        _SKIPPED.add(str(path))
        click.echo(f"advisor: {printable(str(path))}: configuration skipped: {reason}; name it with --config "
                   "to use it anyway", err=True)
    return False


_EXPLICIT = "; name it with --config to use it anyway"


def _own(path: Path) -> Path:
    """A configuration advisor found by itself must be a file of that folder, not a symlink
    leading elsewhere (a repository's `.advisor.yaml -> /etc/shadow`)."""
    if path.is_symlink() and path.resolve().parent != path.parent.resolve():
        raise InputError("is a symlink to a file outside its folder; advisor does not follow it" + _EXPLICIT,
                         file=str(path))
    return path


def _inside(loaded: LoadedConfig) -> LoadedConfig:
    """Paths in a configuration found by itself stay within the configuration's folder: a
    repository's config does not make advisor read elsewhere unless the user names it."""
    root = Path(loaded.file).parent.resolve() if loaded.file else None
    cfg = loaded.config
    # `host:` whatever its suffix: a bundled profile's name resolves inside the folder anyway,
    # while `host: ../../etc/passwd` would have been read.
    for key, values in (("host", [cfg.host] if cfg.host else []),
                        ("rules", list(cfg.rules)), ("host_profiles", list(cfg.host_profiles))):
        for value in values:
            target = Path(loaded.path(value)).resolve()
            if root is not None and root != target and root not in target.parents:
                raise InputError(f"'{value[:80]}' is outside the configuration's folder" + _EXPLICIT,
                                 file=loaded.file, field=key)
    return loaded


def load_config(explicit: str | None, inputs: list[str], found: dict[Path, LoadedConfig] | None = None) -> LoadedConfig:
    """The configuration `--config` names, else the one of the first input (of the current
    folder without inputs); advisor.commands.scopes finds one per input file, sharing `found`
    (discover's cache) so the first input's folders are not walked and parsed twice."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise InputError("configuration file not found", file=explicit)
        if path.name == "pyproject.toml":
            return _from_pyproject(path) or LoadedConfig(file=str(path))
        return _from_yaml(path)
    return discover(Path(inputs[0]) if inputs else Path.cwd(), found)


def schema() -> dict[str, Any]:
    from advisor.load.configmodel import Config

    return Config.model_json_schema()

"""Project configuration: `.advisor.yaml`, or `[tool.advisor]` in pyproject.toml.

Found the way ruff and yamllint find theirs: walking up from the first input path to the
filesystem root, the nearest folder holding either file wins (`.advisor.yaml` before
pyproject.toml in the same folder). `--config FILE` names one explicitly. Paths inside the
configuration (rule folders, host profile folders) are relative to the file that states them.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from advisor.errors import InputError
from advisor.load.validation import to_input_errors
from advisor.vocab import FailOnName, SeverityName

CONFIG_NAMES = (".advisor.yaml", ".advisor.yml")
FailOn = FailOnName
Severity = SeverityName


class _Strict(BaseModel):
    # Built on first use: most runs have no configuration file to validate.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class ExemptionConfig(_Strict):
    rule: str = Field(min_length=1, description="Rule id or prefix, or '*'.")
    reason: str = Field(min_length=3, description="Why; required.")
    vms: list[str] = Field(default_factory=list, description="VM name globs (empty: every VM).")
    paths: list[str] = Field(default_factory=list, description="File globs (empty: every file).")
    until: _dt.date | None = Field(None, description="Expiry date.")


class Config(_Strict):
    """Every key is optional; command-line flags override what is set here."""

    select: list[str] = Field(default_factory=list, description="Rule ids or prefixes to run (default: all).")
    ignore: list[str] = Field(default_factory=list, description="Rule ids or prefixes to skip.")
    severity: dict[str, Severity] = Field(default_factory=dict, description="Severity per rule id or prefix.")
    fail_on: FailOn | None = Field(None, description="Lowest severity that fails the run.")
    host: str | None = Field(None, description="Default host profile or file for `advisor lint`.")
    rules: list[str] = Field(default_factory=list, description="Extra rule folders (organisation policies).")
    host_profiles: list[str] = Field(default_factory=list, description="Extra host profile folders.")
    exclude: list[str] = Field(default_factory=list, description="gitignore-style patterns `advisor lint` skips.")
    exemptions: list[ExemptionConfig] = Field(default_factory=list)


@dataclass(slots=True)
class LoadedConfig:
    config: Config = field(default_factory=lambda: Config.model_construct())
    file: str | None = None

    def path(self, relative: str) -> str:
        """A path from the config, relative to the config file's folder."""
        if self.file is None or Path(relative).is_absolute():
            return relative
        return str(Path(self.file).parent / relative)


def _from_yaml(path: Path) -> LoadedConfig:
    from advisor.load.yamlfile import load

    root = load(path)
    if root is None:
        return LoadedConfig(file=str(path))
    if not isinstance(root, dict):
        raise InputError("the configuration is a mapping of settings", file=str(path), line=getattr(root, "line", 1))
    try:
        return LoadedConfig(config=Config.model_validate(root), file=str(path))
    except ValidationError as exc:
        raise to_input_errors(exc, Config, root, str(path))[0] from None


def _from_pyproject(path: Path) -> LoadedConfig | None:
    import tomllib

    from advisor.load.yamlfile import long_number_line, read_bytes

    try:
        text = read_bytes(path).decode("utf-8")
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
        error = to_input_errors(exc, Config, section, str(path), ("tool", "advisor"))[0]
        raise error from None


def discover(start: Path) -> LoadedConfig:
    """The nearest configuration at or above `start` (a file or folder); empty when none."""
    try:
        folder = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop: reading the input will report it
        folder = Path(os.path.abspath(start))
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        for name in CONFIG_NAMES:
            path = candidate / name
            if path.is_file():
                return _from_yaml(path)
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            found = _from_pyproject(pyproject)
            if found is not None:
                return found
    return LoadedConfig()


def load_config(explicit: str | None, inputs: list[str]) -> LoadedConfig:
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise InputError("configuration file not found", file=explicit)
        if path.name == "pyproject.toml":
            return _from_pyproject(path) or LoadedConfig(file=str(path))
        return _from_yaml(path)
    return discover(Path(inputs[0]) if inputs else Path.cwd())


def schema() -> dict[str, Any]:
    return Config.model_json_schema()

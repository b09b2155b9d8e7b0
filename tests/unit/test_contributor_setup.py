"""The contributor's entry points agree with each other: README, .ci/run and the version."""

from __future__ import annotations

import importlib.metadata
import tomllib

from conftest import REPO

import advisor


def test_readme_test_command_is_what_ci_runs() -> None:
    ci_command = (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = readme.split("```sh\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert commands[1] == ci_command
    for step in ("-m pytest", "-m slow", "ruff check", "mypy"):
        assert step in ci_command


def test_version_is_written_once() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "advisor.__version__"
    assert importlib.metadata.version("vsphere-advisor") == advisor.__version__

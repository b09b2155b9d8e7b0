"""The wheel must carry every subpackage and the data folders (rules/, hosts/)."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "advisor").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_data_folders_are_mapped():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"]["advisor._data.rules"] == "rules"
    assert config["package-dir"]["advisor._data.hosts"] == "hosts"
    subdirs = {p.relative_to(REPO / "rules").as_posix() for p in (REPO / "rules").rglob("*") if p.is_dir()}
    for sub in subdirs - {"__pycache__"}:
        assert f"advisor._data.rules.{sub.replace('/', '.')}" in config["packages"], sub


def test_schema_command_matches_models():
    from advisor.model.jsonschema import spec_schema
    from advisor.model.spec import Spec

    schema = spec_schema()
    assert schema["properties"].keys() == Spec.model_json_schema()["properties"].keys()
    assert schema["additionalProperties"] is False


def test_every_listed_package_exists():
    """setuptools refuses to build when a listed package directory is missing (git drops empty dirs)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = config.get("package-dir", {})
    for name in config["packages"]:
        folder = REPO / mapped.get(name, name.replace(".", "/"))
        assert folder.is_dir(), f"{name}: {folder} does not exist"
        if name not in mapped:
            assert (folder / "__init__.py").is_file(), f"{name}: no __init__.py"


def test_shipped_editor_schemas_are_current():
    """advisor/schemas/*-v1.schema.json are generated from the Pydantic models, never edited."""
    import json

    from advisor.model.jsonschema import host_schema, spec_schema

    for name, build in (("spec-v1.schema.json", spec_schema), ("host-v1.schema.json", host_schema)):
        shipped = json.loads((REPO / "advisor" / "schemas" / name).read_text())
        assert shipped == build(), f"regenerate: advisor schema > advisor/schemas/{name}"

"""Where the bundled data folders (rules/, hosts/) are, in a checkout and when installed, and
the data tables they hold (rules/limits/*.yaml) as plain data."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any


@cache
def data_path(name: str) -> Path:
    """Path of the bundled `rules` or `hosts` folder.

    In a source checkout (and an editable install) the folders sit beside the package; a wheel
    carries them inside the package as advisor/_data/<name> (see pyproject.toml).
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "_data" / name, here.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"advisor's bundled '{name}' folder is missing from the installation")


def limits_table(name: str) -> Any:
    """rules/limits/<name>.yaml as plain data (dicts, lists and scalars; no line numbers)."""
    return _limits_tables()[name]


@cache
def _limits_tables() -> dict[str, Any]:
    """Every table of rules/limits by name, parsed once for each content of the files and of
    the loader, then read from the cache (advisor.cost.disk) as JSON: a tenth of the time
    parsing the YAML takes, most of a millisecond of a small check's start-up. The YAML goes
    through JSON on the first run too, so every run reads the same data (a test holds each
    table to being plain JSON)."""
    from advisor.cost.disk import cached
    from advisor.load import yamlfile

    paths = sorted((data_path("rules") / "limits").glob("*.yaml"))
    sources = [(str(path), yamlfile.read_bytes(path)) for path in paths]
    # The loader's modules read as files beside yamlfile, not imported: a cache hit needs no PyYAML.
    here = Path(str(yamlfile.__file__)).parent
    loader = [(f"advisor.load.{name}", (here / f"{name}.py").read_bytes())
              for name in ("yamlfile", "yamlloc", "yamltree", "yamlnodes")]

    def parse() -> dict[str, Any]:
        import json

        tables = {Path(file).stem: yamlfile.loads(data, file) for file, data in sources}
        return dict(json.loads(json.dumps(tables, allow_nan=False)))

    return cached("limits", [*sources, *loader], parse, plain=True)

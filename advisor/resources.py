"""Where the bundled data folders (rules/, hosts/) are, in a checkout and when installed."""

from __future__ import annotations

from functools import cache
from pathlib import Path


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

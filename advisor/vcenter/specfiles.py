"""Spec documents as YAML text, and the folder of spec files `advisor collect vcenter` writes."""

from __future__ import annotations

from pathlib import Path

import yaml

from advisor.atomic import write_atomic
from advisor.errors import InputError, printable
from advisor.vcenter.to_spec import Mapping, SpecDoc


def render(spec: SpecDoc, server: str) -> str:
    head = [f"# Read from vCenter {printable(server)} by `advisor collect vcenter`; check it with `advisor check`."]
    head += [f"# Left out: {printable(note)}" for note in spec.notes]
    body = yaml.safe_dump(spec.doc, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    return "\n".join(head) + "\n" + body


def write_folder(mapping: Mapping, folder: Path, server: str) -> list[Path]:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder: {exc.strerror}", file=str(folder), field="--output-dir") from None
    written: list[Path] = []
    for spec, stem in zip(mapping.specs, stems(mapping), strict=True):
        path = folder / f"{stem}.yaml"
        write_atomic(path, render(spec, server).encode("utf-8"))
        written.append(path)
    return written


def stems(mapping: Mapping) -> list[str]:
    """File stems, unique even when two names differ only in characters a file name drops."""
    seen: dict[str, int] = {}
    out = []
    for spec in mapping.specs:
        key = spec.stem.lower()
        seen[key] = seen.get(key, 0) + 1
        out.append(spec.stem if seen[key] == 1 else f"{spec.stem}-{seen[key]}")
    return out

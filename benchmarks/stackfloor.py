"""The floor of advisor's stack on a target's own input: what any program built like advisor
(Python, click, PyYAML, the CEL runtime, pydantic with advisor's spec models) spends before it
evaluates a single rule.

    python benchmarks/stackfloor.py check SPEC...          # parse and validate each spec
    python benchmarks/stackfloor.py lint FOLDER SUFFIX...  # read-and-split (floor.py), one VM model per file
    python benchmarks/stackfloor.py estate EXPORT.xlsx     # read the sheets, one spec model per host

run.py pairs each with the baseline of the goal it bounds (yamllint, floor.py, reading the
workbook with calamine): when this floor alone costs more than the goal allows, the goal is out of
reach on this stack, however little advisor adds. It holds no rule, no topology and no report, so
it is lower than any check advisor could make; the imports are those of the start-up floor
(run.py's _STACK_FLOOR) and plugins are not looked up, as in advisor's program.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"

import cel_expr_python.cel  # noqa: F401 - imported, as advisor's check imports it
import click  # noqa: F401
import yaml
from pydantic import ValidationError

from advisor.model.spec import VM, Spec

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import floor  # noqa: E402
import rvtools_export  # noqa: E402


def check(paths: list[str]) -> int:
    """Each spec read, parsed with PyYAML's C loader and validated: the least `check` does per file."""
    valid = 0
    for path in paths:
        with open(path, "rb") as handle:
            data = yaml.load(handle.read(), Loader=yaml.CSafeLoader)
        try:
            Spec.model_validate(data)
            valid += 1
        except ValidationError:
            pass
    return valid


def lint(folder: str, suffixes: tuple[str, ...]) -> int:
    """floor.py's read-and-split of every template, and the VM model each template becomes: the
    least `lint` does per file (it validates one VM per template: advisor.model.template)."""
    models = 0
    for name, tokens in floor.split_files(folder, suffixes):
        VM.model_validate({"name": name, "vcpus": 1 + len(tokens) % 8, "memory": "4GB"})
        models += 1
    return models


def estate(path: str) -> int:
    """The sheets rvtools_export.py reads, then each host's VMs (name, vCPUs, memory from vInfo)
    validated as one spec: the least a check of the export does per VM."""
    sheets = rvtools_export.sheets(Path(path))
    rows = sheets["vInfo"]
    head = rows[0]
    name, cpus, memory, host = (head.index(c) for c in ("VM", "CPUs", "Memory", "Host"))
    by_host: dict[str, list[dict]] = {}
    for row in rows[1:]:
        by_host.setdefault(str(row[host]), []).append(
            {"name": str(row[name]), "vcpus": int(row[cpus]), "memory": f"{int(row[memory])}MB"}
        )
    return sum(len(Spec.model_validate({"host": "floor", "vms": vms}).vms) for vms in by_host.values())


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("check", "lint", "estate"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, args = argv[0], argv[1:]
    count = check(args) if mode == "check" else lint(args[0], tuple(args[1:])) if mode == "lint" else estate(args[0])
    print(f"{count} validated")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

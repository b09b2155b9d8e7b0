"""Snapshot every output advisor writes for a fixed set of inputs, to show a refactor changed none.

Issue 36 asks that outputs stay byte-identical while the design changes underneath. This script
runs the installed advisor over

* every bundled example (check, topology, vmx in each emitted form, in every output format),
* the shared corpus of third-party templates, read in place (lint, every format, with and
  without a host),
* 2,000 generated spec files (benchmarks/generate.py, fixed seed: check in every format),
* RVTools exports: the bundled CSV folder (examples/rvtools) and a generated 2,000-VM workbook
  (benchmarks/rvtools_export.py, fixed seed), checked in every format but xlsx (a workbook's zip
  carries its write time),

and writes each output (stdout, stderr and exit code) to one file under OUT. Two snapshots, taken
before and after a change, are compared with `--compare OLD NEW` (or `diff -r`). Inputs are named
relative to the folder they are read from, so two checkouts in different places compare equal.

    python benchmarks/identical.py OUT [--specs 2000] [--only examples|corpus|specs|rvtools ...]
    python benchmarks/identical.py --compare OLD NEW
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS = REPO.parent / "shared" / "corpus"
sys.path.insert(0, str(HERE))

import generate  # noqa: E402  (a sibling script, not a package)

FORMATS = ("text", "json", "sarif", "junit", "github", "markdown", "html", "svg", "csv", "table")
TOPOLOGY_FORMATS = ("text", "json", "html", "svg")
EMIT = ("vmx", "terraform", "packer", "powercli", "govc", "ansible")


def _run(out: Path, name: str, argv: list[str], cwd: Path) -> None:
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb"}
    result = subprocess.run([sys.executable, "-m", "advisor", *argv], cwd=cwd, capture_output=True, env=env)
    body = b"argv: %s\nexit: %d\n--- stdout\n%s\n--- stderr\n%s" % (
        " ".join(argv).encode(), result.returncode, result.stdout, result.stderr)
    (out / (name.replace("/", "_") + ".out")).write_bytes(body)


PARTS = ("examples", "corpus", "specs", "rvtools")


def snapshot(out: Path, n_specs: int, parts: tuple[str, ...] = PARTS, n_vms: int = 2000) -> None:
    out.mkdir(parents=True, exist_ok=True)
    if "examples" in parts:
        _examples(out)
    if "corpus" in parts:
        _corpus(out)
    if "specs" in parts:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            generate.make_specs(root / "specs", n_specs)
            for fmt in ("text", "json", "sarif", "junit", "github", "csv"):
                _run(out, f"specs-check-{fmt}", ["check", "specs", "--format", fmt, "--fail-on", "never"], root)
    if "rvtools" in parts:
        _rvtools(out, n_vms)
    digest = hashlib.sha256()
    for path in sorted(out.glob("*.out")):
        digest.update(path.name.encode() + path.read_bytes())
    print(f"{len(list(out.glob('*.out')))} outputs in {out}, sha256 {digest.hexdigest()[:16]}")


def _rvtools(out: Path, n_vms: int) -> None:
    """The bundled RVTools CSV folder and a generated workbook of `n_vms` VMs (one host per 40 VMs,
    clusters of 16 hosts of one kind: many hosts sharing a few geometries and VM shapes)."""
    import rvtools_export

    for fmt in FORMATS:
        _run(out, f"rvtools-bundled-check-{fmt}", ["check", "rvtools", "--format", fmt, "--fail-on", "never"],
             REPO / "examples")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rvtools_export.write(root / "estate.xlsx", n_vms)
        for fmt in FORMATS:
            _run(out, f"rvtools-generated-check-{fmt}", ["check", "estate.xlsx", "--format", fmt, "--fail-on", "never"],
                 root)


def _examples(out: Path) -> None:
    examples = sorted(p.name for p in (REPO / "examples").glob("*.yaml"))
    ex = REPO / "examples"
    for fmt in FORMATS:
        _run(out, f"examples-check-{fmt}", ["check", *examples, "--format", fmt, "--fail-on", "never"], ex)
    for fmt in TOPOLOGY_FORMATS:
        _run(out, f"examples-topology-{fmt}", ["topology", *examples, "--format", fmt], ex)
    for example in examples:
        for form in EMIT:
            _run(out, f"vmx-{example}-{form}", ["vmx", example, "--as", form], ex)
        _run(out, f"check-{example}", ["check", example], ex)


def _corpus(out: Path) -> None:
    if CORPUS.is_dir():
        for fmt in FORMATS:
            _run(out, f"corpus-lint-{fmt}", ["lint", ".", "--format", fmt, "--fail-on", "never"], CORPUS)
            _run(out, f"corpus-lint-host-{fmt}",
                 ["lint", ".", "--host", "intel-xeon-6248r-2s", "--format", fmt, "--fail-on", "never"], CORPUS)
    else:
        print(f"note: {CORPUS} is missing; the corpus cases are left out", file=sys.stderr)


def compare(old: Path, new: Path) -> int:
    names = sorted({p.name for p in old.glob("*.out")} | {p.name for p in new.glob("*.out")})
    differ = [n for n in names if not (old / n).is_file() or not (new / n).is_file()
              or (old / n).read_bytes() != (new / n).read_bytes()]
    for name in differ:
        print(f"differs: {name}")
    print(f"{len(names) - len(differ)} of {len(names)} outputs byte-identical")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--specs", type=int, default=2000, help="how many generated spec files")
    parser.add_argument("--vms", type=int, default=2000, help="how many VMs in the generated RVTools export")
    parser.add_argument("--only", action="append", choices=PARTS, help="only these parts (repeatable; default all)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give OUT, or --compare OLD NEW")
    if args.out.exists():
        shutil.rmtree(args.out)
    snapshot(args.out, args.specs, tuple(args.only or PARTS), args.vms)
    return 0


if __name__ == "__main__":
    sys.exit(main())

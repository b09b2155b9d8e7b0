"""`advisor lint` on a Terraform folder beside `checkov -d` on the same folder, paired in one run.

    python benchmarks/bench_terraform.py [--folder DIR] [--repeats N] [--checkov PATH]

The folders: ../shared/corpus/terraform (real third-party files) when it exists, and the seeded
generated folder of benchmarks/generate.py. The cases alternate (advisor, checkov, advisor, ...)
so machine load falls on both alike; each figure is the median of the timed runs after a warm-up
(benchmarks/harness.py). Goal: advisor <= 0.2x checkov.

checkov is not a dependency of advisor: it pins its own HCL parser, so it lives in a virtual
environment of its own (benchmarks/.venv-checkov, built by `python benchmarks/run.py`, or any
given with --checkov / $CHECKOV). Without it the benchmark says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import run_once  # noqa: E402 - benchmarks/ is not a package

GOAL = 0.2
CORPUS = HERE.parent.parent / "shared" / "corpus" / "terraform"


def find_checkov(given: str | None) -> str | None:
    for candidate in (given, os.environ.get("CHECKOV"), str(HERE / ".venv-checkov" / "bin" / "checkov"),
                      shutil.which("checkov")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def paired(folder: Path, advisor: list[str], checkov: str, repeats: int) -> tuple[float, float]:
    """Median seconds of advisor and of checkov over `repeats` alternating runs (after a warm-up each)."""
    ours = [*advisor, "lint", str(folder), "--format", "json", "--fail-on", "never", "--jobs", "1"]
    theirs = [checkov, "-d", str(folder), "--framework", "terraform", "--skip-download", "--quiet",
              "--compact", "--soft-fail"]
    for command in (ours, theirs):
        warm = run_once(command, None, None, False)
        if warm.returncode not in (0, 1):
            raise SystemExit(f"{command[0]} failed on {folder} (exit {warm.returncode})")
    a_runs, c_runs = [], []
    for _ in range(repeats):
        a_runs.append(run_once(ours, None, None, False).wall_s)
        c_runs.append(run_once(theirs, None, None, False).wall_s)
    return statistics.median(a_runs), statistics.median(c_runs)


def generated_folder() -> Path:
    import generate

    root = generate.DATA / "bench-terraform"
    if not (root.is_dir() and any(root.rglob("*.tf"))):
        generate.make_terraform(root, 200)  # seeded: the same 200 files every time
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, action="append", help="Terraform folder (repeatable)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--checkov", help="checkov executable (default: benchmarks/.venv-checkov, $CHECKOV, PATH)")
    args = parser.parse_args(argv)
    checkov = find_checkov(args.checkov)
    if checkov is None:
        print("skipped: checkov is not installed (python benchmarks/run.py builds benchmarks/.venv-checkov, "
              "or pass --checkov / set CHECKOV)")
        return 0
    advisor = [sys.executable, "-m", "advisor"]
    folders = args.folder or ([CORPUS] if CORPUS.is_dir() else []) + [generated_folder()]
    worst = 0.0
    print(f"{'folder':48} {'.tf':>5} {'advisor s':>10} {'checkov s':>10} {'ratio':>7}")
    for folder in folders:
        ours, theirs = paired(folder, advisor, checkov, args.repeats)
        ratio = ours / theirs
        worst = max(worst, ratio)
        count = sum(1 for _ in folder.rglob("*.tf"))
        print(f"{str(folder)[-48:]:48} {count:>5} {ours:>10.3f} {theirs:>10.3f} {ratio:>7.3f}")
    verdict = "met" if worst <= GOAL else "NOT met"
    print(f"goal advisor <= {GOAL}x checkov: {verdict} (worst ratio {worst:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

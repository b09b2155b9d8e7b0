"""Does each saving of the cost layer (advisor.cost) pay for itself? Paired runs, in CPU time.

    python benchmarks/savings.py [--repeats 5] [--only memo,packed] [--copies 10] [--specs 1000] [--estate 10000]

Each case runs advisor with every saving on and with one saving off (ADVISOR_SAVINGS_OFF=NAME),
in alternating turns after a warm-up of each, and reports the median of the per-pair ratios
off/on of the child's CPU time (user + system, from wait4) with their range: above 1, the saving
saves that share. The cases, on real and on generated inputs:

- lint-corpus: `advisor lint --jobs 1` on the shared corpus's templates (../shared/corpus: .vmx,
  OVF, Packer, Terraform), copied `--copies` times into a temporary folder (10: 1,090 files);
- lint-generated: `advisor lint --jobs 1` on 2,000 generated .vmx files (benchmarks/generate.py);
- check-examples: `advisor check` on the bundled examples, repeated to 100 files;
- check-generated: `advisor check` on one generated spec of `--specs` VMs;
- check-estate: `advisor check` on a generated RVTools export of `--estate` VMs
  (benchmarks/rvtools_export.py: one host per 40 VMs, a few kinds of host).

Every process uses one cache folder private to this run (warmed by the first run). Inputs are
written under a temporary folder, never into the repository.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402 - benchmarks/ is not a package

CORPUS = ROOT.parent / "shared" / "corpus"
SAVINGS = ("batch", "packed", "memo", "shapes", "freeze", "disk")


def cpu_of(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """The CPU seconds (user + system) of one run of `argv` and its children."""
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read() if proc.stderr else b""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[:4])} ...: exit {proc.returncode}: {err.decode()[-300:]}")
    return usage.ru_utime + usage.ru_stime


def inputs(work: Path, copies: int, n_vms: int, estate_vms: int) -> dict[str, list[str]]:
    """The argument lists (after `advisor`) of every case."""
    corpus = work / "corpus"
    for index in range(copies):
        for kind in ("vmx", "ovf", "packer", "terraform"):
            if (CORPUS / kind).is_dir():
                shutil.copytree(CORPUS / kind, corpus / f"{index:03d}" / kind)
    examples = sorted((ROOT / "examples").glob("*.yaml"))
    specs = work / "examples"
    specs.mkdir()
    for index in range(100):
        source = examples[index % len(examples)]
        (specs / f"{index:03d}-{source.name}").write_bytes(source.read_bytes())
    vmx, _ = generate.make_vmx(work / "vmx", 2000)
    spec = generate.make_engine_spec(work / "engine.yaml", n_vms)
    import rvtools_export

    rvtools_export.write(work / "estate.xlsx", estate_vms)
    out = ["--format", "json", "-o", str(work / "report.json")]
    return {
        "lint-corpus": ["lint", "--jobs", "1", *out, str(corpus)],
        "lint-generated": ["lint", "--jobs", "1", *out, str(vmx[0].parent.parent if vmx else work / "vmx")],
        "check-examples": ["check", *out, *map(str, sorted(specs.iterdir()))],
        "check-generated": ["check", *out, str(spec)],
        "check-estate": ["check", *out, str(work / "estate.xlsx")],
    }


def measure(args: list[str], saving: str, repeats: int, env: dict[str, str], cwd: Path) -> tuple[float, list[float]]:
    argv = [sys.executable, "-m", "advisor", *args]
    without = dict(env, ADVISOR_SAVINGS_OFF=saving)
    cpu_of(argv, env, cwd), cpu_of(argv, without, cwd)  # warm-up (and the cache entry)
    ratios = []
    for index in range(repeats):
        turns = [(env, "on"), (without, "off")]
        times = {}
        for run_env, name in turns if index % 2 == 0 else turns[::-1]:
            times[name] = cpu_of(argv, run_env, cwd)
        ratios.append(times["off"] / times["on"])
        times_on.append(times["on"])
    return statistics.median(ratios), ratios


times_on: list[float] = []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--copies", type=int, default=10, help="copies of the corpus (10: about 1,090 files)")
    parser.add_argument("--specs", type=int, default=1000, help="VMs of the generated spec")
    parser.add_argument("--estate", type=int, default=10000, help="VMs of the generated RVTools export")
    parser.add_argument("--only", default=",".join(SAVINGS), help="savings to measure, comma-separated")
    parser.add_argument("--cases", default="", help="cases to run, comma-separated (default: all)")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="advisor-savings-") as temp:
        work = Path(temp)
        cases = inputs(work, options.copies, options.specs, options.estate)
        files = sum(1 for p in (work / "corpus").rglob("*") if p.is_file())
        print(f"corpus set: {files} files ({options.copies} copies of {CORPUS}); generated: 2,000 .vmx, "
              f"a spec of {options.specs} VMs, an RVTools export of {options.estate} VMs; examples: 100 files; "
              f"CPU time, {options.repeats} pairs")
        env = dict(os.environ, ADVISOR_CACHE_DIR=str(work / "cache"), NO_COLOR="1")
        env.pop("ADVISOR_SAVINGS_OFF", None)
        env.pop("ADVISOR_NO_CACHE", None)
        chosen = [c for c in options.cases.split(",") if c] or list(cases)
        print(f"{'saving':<8} {'case':<16} {'on (s)':>7} {'off/on':>7}  range")
        for saving in options.only.split(","):
            for case in chosen:
                times_on.clear()
                median, ratios = measure(cases[case], saving, options.repeats, env, work)
                print(f"{saving:<8} {case:<16} {statistics.median(times_on):7.2f} {median:7.3f}  "
                      f"{min(ratios):.3f}-{max(ratios):.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

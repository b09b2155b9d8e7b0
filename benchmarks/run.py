"""advisor's benchmarks in one command: advisor beside the tools a pipeline would otherwise run.

    python benchmarks/run.py [--quick] [--profile] [--json benchmarks/out/results.json]

On a fresh machine this builds benchmarks/.venv (advisor editable + yamllint) and
benchmarks/.venv-checkov (checkov pins its own HCL parser), generates seeded inputs under
benchmarks/.data/, then measures, each case as the median of several runs after a warm-up:

1. start-up: `python -c pass`, `advisor --version`, `advisor check` on a 10-VM spec,
   `advisor lint` on one .vmx and `yamllint` on the same spec, as ratios to `python -c pass`;
2. per-file CI cost: `advisor check` and `yamllint` over the same N spec files, generated ones
   and the bundled examples copied to 100 files (its target in CPU time);
3. template linting at scale: `advisor lint` over 10,000 .vmx files and a Terraform folder,
   beside a plain-Python read-and-split floor and `checkov -d` on the same folder; and
   `advisor lint --jobs 1` on real templates (the shared corpus, copied to >= 1,000 files: its .vmx,
   and all its formats) beside the floor on the same files;
4. engine throughput: the whole catalog over one spec of 10,000 and 100,000 VMs;
5. the text report at scale: `advisor check` on one large spec as text and as JSON.

Every case runs in turns with its baseline (harness.measure_pair) and is reported as the median
of the per-pair ratios with their spread, of wall time and of CPU time (summed over cores): only
ratios within one run mean anything on a shared machine. Every advisor process uses a cache folder
private to this run. The JSON keeps every run's time, every pair's ratios and the machine facts.
`--profile` adds a cProfile summary of the slowest advisor case.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402 - benchmarks/ is not a package
import setup_env  # noqa: E402
from harness import Measurement, Pair, measure_pair  # noqa: E402

OUT = HERE / "out"
FLOOR_SUFFIXES = (".vmx", ".ovf", ".json", ".hcl", ".tf")  # floor.TEMPLATE_SUFFIXES


@dataclass(frozen=True)
class Sizes:
    """How hard one mode works: runs per case and the N of the per-file comparison."""

    startup_repeats: int
    repeats: int
    big_repeats: int
    per_file_n: tuple[int, ...]
    budget_s: float  # per case, after the warm-up
    corpus_files: int = 1000  # the shared corpus copied to at least this many files

    @classmethod
    def full(cls) -> Sizes:
        return cls(startup_repeats=15, repeats=5, big_repeats=3, per_file_n=(1, 100, 1000), budget_s=60)

    @classmethod
    def quick(cls) -> Sizes:
        return cls(startup_repeats=5, repeats=3, big_repeats=1, per_file_n=(1, 10, 100), budget_s=6)


@dataclass
class Row:
    section: str
    label: str
    m: Measurement | None
    derived: str = ""


@dataclass
class Target:
    name: str
    goal: str
    value: str
    passed: bool | None  # None: not measured in this mode or the case failed


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    derived: dict[str, object] = field(default_factory=dict)
    measurements: dict[str, Measurement] = field(default_factory=dict)
    pairs: dict[str, Pair] = field(default_factory=dict)


# What `advisor check` cannot start faster than: the libraries it is built on, imported and used
# the way check uses them (the CEL runtime, click, PyYAML), and advisor's spec models built and one
# spec validated (pydantic builds a model's validator at first use).
# Everything `advisor check` does beyond this is advisor's own start-up. Rich is not in it: a report
# without colour is written without importing Rich (tests/cli/test_startup_imports.py), and a floor
# holding work that check skips would credit advisor with the time Rich takes to import. Nor does
# it look for pydantic plugins: advisor's program does not (advisor.cli.run).
_STACK_FLOOR = (
    "import os; os.environ['PYDANTIC_DISABLE_PLUGINS'] = '__all__'\n"
    "import click, yaml, cel_expr_python.cel\n"
    "from advisor.model.spec import Spec\n"
    "Spec.model_validate({'host': 'floor', 'vms': [{'name': 'a', 'vcpus': 2, 'memory': '4GB'}]})\n"
)


class Bench:
    """Runs the cases, each paired with its baseline, and keeps what they measured."""

    def __init__(self, bins: dict[str, Path], data: generate.DataSet, sizes: Sizes, log, cache_dir: Path) -> None:
        self.bins = bins
        self.data = data
        self.sizes = sizes
        self.log = log
        self.report = Report()
        main = bins["main"]
        self.python = str(setup_env.venv_python(setup_env.MAIN_VENV))
        self.advisor = str(main / "advisor")
        self.yamllint = str(main / "yamllint")
        self.checkov = str(bins["checkov"] / "checkov") if "checkov" in bins else None
        # Nothing from the caller's environment may change how the measured tools start or write.
        dropped = ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONPROFILEIMPORTTIME", "PYTHONUNBUFFERED", "PYTHONDEVMODE",
                   "PYTHONWARNINGS", "PYTHONTRACEMALLOC", "PYTHONDONTWRITEBYTECODE", "ADVISOR_NO_CACHE")
        env = {k: v for k, v in os.environ.items() if k not in dropped}
        # A cache folder of this run's own: another advisor installation sharing the user's
        # folder would evict this one's entries (and the reverse) between runs.
        env.update(NO_COLOR="1", COLUMNS="100", ADVISOR_CACHE_DIR=str(cache_dir))
        self.env = env

    # -- helpers --------------------------------------------------------------------------
    def pair(self, key: str, command: list[str], base_key: str, base_command: list[str], repeats: int,
             ok_codes: tuple[int, ...] = (0, 1), base_ok_codes: tuple[int, ...] = (0, 1),
             capture_stdout: bool = False, budget_s: float | None = None) -> Pair:
        budget_s = self.sizes.budget_s if budget_s is None else budget_s
        p = measure_pair(key, command, base_key, base_command, repeats=repeats, budget_s=budget_s,
                         ok_codes=ok_codes, base_ok_codes=base_ok_codes, env=self.env, cwd=generate.REPO,
                         capture_stdout=capture_stdout, log=self.log)
        for m in (p.base, p.case):
            if m.error:
                self.log(f"    FAILED: {m.name}: {m.error}")
        self.report.measurements[key] = p.case
        self.report.measurements[f"{key}@{base_key}"] = p.base
        self.report.pairs[key] = p
        return p

    def add(self, section: str, label: str, m: Measurement | None, derived: str = "") -> None:
        self.report.rows.append(Row(section, label, m, derived))

    def add_pair(self, section: str, label: str, p: Pair, base_label: str, extra: str = "") -> None:
        """The case's row: its ratio to the baseline measured in turns with it, and the spread."""
        m = p.base if p.base.error else p.case
        note = (f"{p.text()} {base_label}, CPU {p.text(cpu=True)}, base {_seconds(p.base.median_s)} "
                f"(CPU {_seconds(p.base.median_cpu_s)})" if p.ok else "")
        self.add(section, label, m, note + (f"; {extra}" if extra else ""))

    def target(self, name: str, goal: str, value: float | None, limit: float, higher_is_better: bool = False,
               fmt: str = "{:.2f}", spread: str = "") -> None:
        if value is None:
            self.report.targets.append(Target(name, goal, "n/a", None))
            return
        passed = value >= limit if higher_is_better else value <= limit
        self.report.targets.append(Target(name, goal, fmt.format(value) + (f" {spread}" if spread else ""), passed))

    @staticmethod
    def _range(p: Pair, cpu: bool = False) -> str:
        spread = p.spread(cpu)
        return f"({spread[0]:.2f}-{spread[3]:.2f})" if spread else ""

    # -- 1. start-up ----------------------------------------------------------------------
    def startup(self) -> None:
        r = self.sizes.startup_repeats
        spec = str(self.data.specs[0])
        vmx = str(generate.vmx_path(self.data.vmx_dir, 0))
        python = [self.python, "-c", "pass"]
        floor = [self.python, "-c", _STACK_FLOOR]
        cases = [
            ("startup.version", "advisor --version", [self.advisor, "--version"]),
            ("startup.check", "advisor check (10-VM spec)", [self.advisor, "check", spec]),
            ("startup.lint", "advisor lint (one .vmx)", [self.advisor, "lint", vmx]),
            ("startup.yamllint", "yamllint (same spec)", [self.yamllint, spec]),
            ("startup.floor", "floor: libraries + spec models", floor),
        ]
        ratios: dict[str, float | None] = {}
        for key, label, command in cases:
            p = self.pair(key, command, "python", python, r, base_ok_codes=(0,))
            ratios[key] = p.ratio
            self.add_pair("start-up", label, p, "python -c pass")
        # The start-up target: advisor check against the floor of what it is built on, in turns.
        on_floor = self.pair("startup.check_vs_floor", [self.advisor, "check", spec], "floor", floor, r,
                             base_ok_codes=(0,))
        self.add_pair("start-up", "advisor check (10-VM spec)", on_floor, "floor")
        self.report.derived["startup_ratio_to_python"] = ratios
        self.report.derived["startup_check_to_floor"] = on_floor.as_dict()
        self.target("advisor --version start-up", "<= 6x python -c pass", ratios["startup.version"], 6, fmt="{:.1f}x",
                    spread=self._range(self.report.pairs["startup.version"]))
        self.target("advisor check (10 VMs) start-up", "<= 1.1x libraries + spec models", on_floor.ratio, 1.1,
                    fmt="{:.2f}x", spread=self._range(on_floor))

    # -- 2. per-file CI cost --------------------------------------------------------------
    def per_file(self) -> None:
        out: dict[int, dict[str, float | None]] = {}
        for n in self.sizes.per_file_n:
            files = [str(p) for p in self.data.spec_subset(n)]
            if len(files) < n:
                continue
            repeats = self.sizes.repeats if n < 1000 else self.sizes.big_repeats
            p = self.pair(f"per_file.check.{n}", [self.advisor, "check", *files], f"yamllint.{n}",
                          [self.yamllint, *files], repeats)
            a_ms = p.case.median_s * 1000 / n if p.case.ok else None
            y_ms = p.base.median_s * 1000 / n if p.base.ok else None
            out[n] = {"advisor_ms_per_file": a_ms, "yamllint_ms_per_file": y_ms, "ratio": p.ratio,
                      "pair": p.as_dict()}
            self.add_pair("per-file", f"advisor check, N={n}", p, "yamllint",
                          f"{a_ms:.1f} vs {y_ms:.1f} ms/file" if a_ms and y_ms else "")
        self.report.derived["per_file"] = out
        at100 = self.report.pairs.get("per_file.check.100")
        self.target("advisor check per file at N=100", "<= yamllint's per-file cost (ratio <= 1)",
                    at100.ratio if at100 else None, 1.0, spread=self._range(at100) if at100 else "")
        self.per_file_examples()

    def per_file_examples(self, n: int = 100) -> None:
        """`advisor check` on real specs, the bundled examples copied to `n` files, in turns with
        yamllint on the same files; the target is in CPU time (issue 36): generated specs are
        regular by construction and larger than most hand-written ones, so they alone flatter
        advisor's start-up, which a CI job pays once per run."""
        files = [str(p) for p in _example_copies(self.data.root / "examples-copies", n)]
        p = self.pair(f"per_file.check.examples{n}", [self.advisor, "check", *files], f"yamllint.examples{n}",
                      [self.yamllint, *files], self.sizes.repeats)
        self.add_pair("per-file", f"advisor check, the examples x{n} files", p, "yamllint")
        self.report.derived["per_file_examples"] = {"files": len(files), "pair": p.as_dict()}
        self.target(f"advisor check, the examples x{n} files", "<= 0.5x yamllint on the same files, CPU",
                    p.cpu_ratio, 0.5, spread=f"{self._range(p, cpu=True)}, wall {p.text()}")
        self.stack_floor("per-file", f"per_file.examples{n}", f"the examples x{n}", ["check", *files], p, "yamllint",
                         0.5, len(files), "file")

    # -- 3. template linting at scale -----------------------------------------------------
    def lint_at_scale(self) -> None:
        big = self.sizes.big_repeats
        floor = str(HERE / "floor.py")
        vmx_dir, small_dir, tf_dir = str(self.data.vmx_dir), str(self.data.vmx_small_dir), str(self.data.tf_dir)
        n_vmx = sum(1 for _ in self.data.vmx_dir.rglob("*.vmx"))
        n_small = sum(1 for _ in self.data.vmx_small_dir.rglob("*.vmx"))
        n_tf = sum(1 for _ in self.data.tf_dir.rglob("*.tf"))
        # Exit 2 would mean a generated file was refused as input: that is a finding of the
        # benchmark, so it fails the case instead of being timed.
        json_out = ["--format", "json"]
        floor_vmx = [self.python, floor, vmx_dir, ".vmx"]
        l_vmx = self.pair("lint.vmx", [self.advisor, "lint", vmx_dir, *json_out], "floor", floor_vmx, big,
                          base_ok_codes=(0,))
        l_vmx1 = self.pair("lint.vmx.jobs1", [self.advisor, "lint", vmx_dir, "--jobs", "1", *json_out], "floor",
                           floor_vmx, big, base_ok_codes=(0,))
        # Memory against file count: the same run over a tenth of the files, in turns with it.
        l_small1 = self.pair("lint.vmx_small.jobs1", [self.advisor, "lint", small_dir, "--jobs", "1", *json_out],
                             "lint.vmx.jobs1", [self.advisor, "lint", vmx_dir, "--jobs", "1", *json_out], big)

        def rate(m: Measurement, n: int) -> float | None:
            return n / m.median_s if m.ok else None

        fps, fps1 = rate(l_vmx.case, n_vmx), rate(l_vmx1.case, n_vmx)
        self.add_pair("lint", f"advisor lint, {n_vmx:,} .vmx (default jobs)", l_vmx, "floor",
                      f"{fps:,.0f} files/s" if fps else "")
        self.add_pair("lint", f"advisor lint, {n_vmx:,} .vmx (--jobs 1)", l_vmx1, "floor",
                      f"{fps1:,.0f} files/s" if fps1 else "")
        growth = None
        if l_small1.ok:
            growth = l_small1.base.peak_rss_bytes / l_small1.case.peak_rss_bytes
            per_file_kb = (l_small1.base.peak_rss_bytes - l_small1.case.peak_rss_bytes) / max(1, n_vmx - n_small) / 1024
            self.add("lint", f"advisor lint, {n_small:,} .vmx (--jobs 1)", l_small1.case,
                     f"peak RSS x{growth:.2f} for x{n_vmx / n_small:.0f} files ({per_file_kb:.1f} KiB/file)")
        else:
            self.add("lint", f"advisor lint, {n_small:,} .vmx (--jobs 1)", l_small1.case)

        vs_checkov = None
        if self.checkov:
            checkov = [self.checkov, "-d", tf_dir, "--framework", "terraform", "--skip-download", "--quiet",
                       "--compact", "--soft-fail"]
            l_tf = self.pair("lint.tf", [self.advisor, "lint", tf_dir, *json_out], "checkov", checkov, big)
            vs_checkov = l_tf.ratio
            self.add_pair("lint", f"advisor lint, {n_tf} .tf files", l_tf, "checkov -d")
        self.report.derived["lint"] = {
            "vmx_files": n_vmx, "vmx_files_per_s": fps, "vmx_files_per_s_jobs1": fps1,
            "vmx_ratio_to_floor": l_vmx.ratio, "vmx_ratio_to_floor_jobs1": l_vmx1.ratio,
            "vmx_rss_growth_small_to_big_jobs1": growth, "tf_files": n_tf, "tf_ratio_to_checkov": vs_checkov,
        }
        full_size = n_vmx >= 10_000
        self.target(f"lint {n_vmx:,} .vmx throughput", ">= 5,000 files/s", fps if full_size else None, 5000,
                    higher_is_better=True, fmt="{:,.0f} files/s")
        self.target(f"lint {n_vmx:,} .vmx vs floor", "<= 3x read-and-split floor", l_vmx.ratio, 3.0, fmt="{:.1f}x",
                    spread=self._range(l_vmx))
        self.target("lint memory vs file count", f"peak RSS x{n_vmx // max(1, n_small)} files < 2x", growth, 2.0,
                    fmt="{:.2f}x")
        if self.checkov:
            self.target("lint Terraform folder vs checkov", "<= 1/5 of checkov -d (ratio <= 0.2)", vs_checkov, 0.2,
                        spread=self._range(self.report.pairs["lint.tf"]))

    def lint_corpus(self) -> None:
        """`advisor lint --jobs 1` on real templates, the shared corpus copied to >= 1,000 files,
        in turns with the floor on the same files: its .vmx alone, and every format the floor
        splits. Generated files are regular by construction; real ones carry the odd lines,
        charsets and sizes that decide which of a reader's paths run."""
        floor = str(HERE / "floor.py")
        json_out = ["--format", "json"]
        out: dict[str, object] = {}
        self.report.derived["lint_corpus"] = out
        for key, kinds, label in (("vmx", ("vmx",), ".vmx"), ("all", generate.CORPUS_KINDS, "templates")):
            folder = self.data.root / f"corpus-{key}"
            n = generate.corpus_copies(folder, kinds, self.sizes.corpus_files)
            if not n:
                self.log(f"    no shared corpus at {generate.CORPUS}: the real-file case is not run")
                return
            p = self.pair(f"lint.corpus.{key}", [self.advisor, "lint", str(folder), "--jobs", "1", *json_out],
                          "floor", [self.python, floor, str(folder), *FLOOR_SUFFIXES], self.sizes.repeats,
                          base_ok_codes=(0,), budget_s=max(self.sizes.budget_s, 60))
            self.add_pair("lint", f"advisor lint, {n:,} corpus {label} (--jobs 1)", p, "floor")
            out[key] = {"files": n, "pair": p.as_dict()}
            self.target(f"lint {n:,} corpus {label} vs floor", "<= 3x read-and-split floor (CPU)",
                        p.cpu_ratio, 3.0, fmt="{:.1f}x", spread=f"{self._range(p, cpu=True)}, wall {p.text()}")
            self.stack_floor("lint", f"lint.corpus.{key}", f"{n:,} corpus {label}",
                             ["lint", str(folder), *FLOOR_SUFFIXES], p, "read-and-split floor", 3.0, n, "file")

    # -- 4. engine throughput -------------------------------------------------------------
    def engine(self) -> None:
        script = str(HERE / "bench_engine.py")
        small, large = sorted(self.data.engine)[-2:]

        def command(n: int) -> list[str]:
            return [self.python, script, "--spec", str(self.data.engine[n]), "--json"]

        # The larger spec in turns with the smaller: their ratio is the growth, measured in pairs.
        p = self.pair(f"engine.{large}", command(large), f"engine.{small}", command(small), self.sizes.big_repeats,
                      (0,), (0,), capture_stdout=True)
        phases = {n: json.loads(m.stdout) for n, m in ((small, p.base), (large, p.case)) if m.ok and m.stdout}
        for n, m in ((small, p.base), (large, p.case)):
            ph = phases.get(n)
            self.add("engine", f"catalog over {n:,} VMs (one spec)", m,
                     f"load {ph['load_s']:.2f} s + evaluate {ph['evaluate_s']:.2f} s (CPU {ph['cpu_s']:.2f} s), "
                     f"{ph['rules']} rules, {ph['findings']:,} findings" if ph else "")
        growth = None
        if p.ok:
            n_ratio = large / small
            rss_ratio = p.case.peak_rss_bytes / p.base.peak_rss_bytes
            linear = 0.7 * n_ratio <= p.ratio <= 1.3 * n_ratio
            growth = {"vms_ratio": n_ratio, "time_ratio": p.ratio, "rss_ratio": rss_ratio, "time_linear": linear,
                      "pair": p.as_dict()}
            self.add("engine", f"growth {small:,} -> {large:,} VMs", None,
                     f"time x{p.text('')}, peak RSS x{rss_ratio:.1f} for x{n_ratio:.0f} VMs: "
                     + ("linear" if linear else ("super-linear" if p.ratio > n_ratio else "sub-linear")))
        self.report.derived["engine"] = {"phases": phases, "growth": growth}
        for n, limit in ((10_000, 2.0), (100_000, 20.0)):
            ph = phases.get(n)
            self.target(f"engine, {n:,} VMs (load + evaluate)", f"<= {limit:g} s", ph["total_s"] if ph else None,
                        limit, fmt="{:.2f} s", spread=f"(CPU {ph['cpu_s']:.2f} s)" if ph else "")
        if 100_000 in self.data.engine:
            self.target("engine, 100,000 VMs peak memory", "< 1 GB", p.case.peak_rss_mb if p.case.ok else None, 1024,
                        fmt="{:.0f} MiB")
        self.target(f"engine growth {small:,} -> {large:,} VMs", "time x7-x13 for x10 VMs (linear)",
                    p.ratio if p.ok else None, 1.3 * large / small, fmt="x{:.1f}", spread=self._range(p))

    # -- 5. the text report at scale ------------------------------------------------------
    def report_at_scale(self) -> None:
        """`advisor check` on one large spec, the text report in turns with the JSON one, at two
        sizes: JSON is written as it is produced, so if text/JSON does not grow with the VM count
        the text report is linear too."""
        sizes = sorted(self.data.engine)[:2]
        ratios = {}
        for n in sizes:
            spec = str(self.data.engine[n])
            p = self.pair(f"report.text.{n}", [self.advisor, "check", spec], f"report.json.{n}",
                          [self.advisor, "check", spec, "--format", "json"], self.sizes.big_repeats)
            ratios[n] = p.ratio
            self.add_pair("report", f"advisor check, {n:,}-VM spec, text", p, "the same as JSON")
        small, large = sizes
        growth = ratios[large] / ratios[small] if ratios.get(small) and ratios.get(large) else None
        self.report.derived["report"] = {"text_over_json": ratios, "growth": growth}
        self.target(f"text report {small:,} -> {large:,} VMs", "text/JSON ratio grows <= 1.3x (linear)", growth, 1.3,
                    fmt="x{:.2f}")

    def estate(self) -> None:
        """`advisor check` on a generated RVTools export (benchmarks/rvtools_export.py), in turns with
        reading the same workbook's sheets with python-calamine alone: the ratio is what advisor adds
        to reading the file (goal: within 3x), and its peak memory (goal: under 500 MB)."""
        vms = 1_000 if self.sizes.repeats < 5 else 10_000
        script = str(HERE / "rvtools_export.py")
        export = self.data.root / f"rvtools-{vms}.xlsx"
        if not export.is_file():  # seeded: the same file every time; generated once per mode
            subprocess.run([self.python, script, "write", str(export), "--vms", str(vms)], check=True)
        p = self.pair(f"estate.check.{vms}", [self.advisor, "check", str(export), "--format", "json"],
                      f"estate.read.{vms}", [self.python, script, "read", str(export)], self.sizes.big_repeats)
        self.add_pair("estate", f"advisor check, {vms:,}-VM RVTools export", p, "calamine reading it")
        self.report.derived["estate"] = {"vms": vms, "check_over_read": p.ratio}
        self.target(f"RVTools export, {vms:,} VMs: check / read", "<= 3x reading the workbook (paired)", p.ratio, 3.0,
                    fmt="{:.2f}x", spread=self._range(p))
        peak = p.case.peak_rss_mb
        self.target(f"RVTools export, {vms:,} VMs: peak memory", "< 500 MB", peak, 500, fmt="{:.0f} MiB")
        self.stack_floor("estate", f"estate.{vms}", f"the {vms:,}-VM export", ["estate", str(export)], p,
                         "calamine reading it", 3.0, vms, "VM")

    def stack_floor(self, section: str, key: str, label: str, args: list[str], target: Pair, base_label: str,
                    goal: float, count: int, unit: str) -> None:
        """benchmarks/stackfloor.py on a target's input, in turns with the target's baseline: the
        least a program on advisor's stack spends there before any rule. A goal below this floor is
        out of reach however little advisor adds; above it, the difference is what the goal leaves
        advisor for its rules, topology and report, set beside what advisor spends on them now."""
        p = self.pair(f"stackfloor.{key}", [self.python, str(HERE / "stackfloor.py"), *args], target.base.name,
                      target.base.command,
                      self.sizes.repeats if count < 10_000 else self.sizes.big_repeats, ok_codes=(0,),
                      base_ok_codes=(0, 1), budget_s=max(self.sizes.budget_s, 60))
        left = spent = ""
        base_cpu, floor_cpu, advisor_cpu = p.base.median_cpu_s, p.case.median_cpu_s, target.case.median_cpu_s
        if p.ok and base_cpu and floor_cpu and advisor_cpu:
            room = goal * base_cpu - floor_cpu
            left = (f"the goal leaves advisor {room * 1e6 / count:.0f} us per {unit}" if room > 0
                    else "the goal is below this floor")
            spent = f", advisor spends {(advisor_cpu - floor_cpu) * 1e6 / count:.0f} us per {unit} above it"
        self.add_pair(section, f"stack floor, {label}", p, base_label, left + spent)
        self.report.derived[f"stackfloor.{key}"] = {"count": count, "pair": p.as_dict(), "goal": goal}
        self.target(f"stack floor, {label}", f"< {goal:g}x {base_label}, CPU (else out of reach)", p.cpu_ratio, goal,
                    fmt="{:.2f}x", spread=self._range(p, cpu=True))

    # -- 5. profile -----------------------------------------------------------------------
    def profile(self) -> Path | None:
        """cProfile the slowest advisor case (single process, so the profile sees all the work)."""
        advisor_cases = {k: m for k, m in self.report.measurements.items()
                         if m.ok and "@" not in k and k != "startup.floor"
                         and k.startswith(("per_file.check", "lint.vmx", "lint.tf", "engine.", "startup.", "report."))}
        if not advisor_cases:
            return None
        key = max(advisor_cases, key=lambda k: advisor_cases[k].median_s or 0)
        m = advisor_cases[key]
        OUT.mkdir(parents=True, exist_ok=True)
        dump = OUT / f"profile-{key}.prof"
        if key.startswith("engine."):
            command = [*m.command[:-1], "--profile", str(dump)]  # drop --json; bench_engine profiles itself
        else:
            args = m.command[1:]
            if args[0] == "lint" and "--jobs" not in args:
                args = [*args, "--jobs", "1"]
            command = [self.python, "-m", "cProfile", "-o", str(dump), "-m", "advisor", *args]
        self.log(f"profiling the slowest case, {key}")
        subprocess.run(command, env=self.env, cwd=generate.REPO, stdout=subprocess.DEVNULL, check=False)
        text_path = OUT / f"profile-{key}.txt"
        summary = subprocess.run([self.python, "-c", _PSTATS, str(dump), str(generate.REPO)], capture_output=True,
                                 text=True, check=True).stdout
        text_path.write_text(f"# cProfile of {' '.join(command)}\n\n{summary}")
        self.report.derived["profile"] = {"case": key, "summary": str(text_path.relative_to(generate.REPO))}
        return text_path


def _example_copies(dest: Path, n: int) -> list[Path]:
    """The bundled example specs (examples/*.yaml) copied in turn to `n` files under `dest`
    (benchmarks/.data, ignored by git), each name kept after a number."""
    sources = sorted((generate.REPO / "examples").glob("*.yaml"))
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    out = []
    for index in range(n):
        source = sources[index % len(sources)]
        target = dest / f"{index:03d}-{source.name}"
        shutil.copyfile(source, target)
        out.append(target)
    return out


# Top 15 by cumulative time among advisor's own functions (the CLI and runpy frames above them
# say nothing), then the top 15 by own time over everything, libraries included.
_PSTATS = """
import io, pstats, sys
dump, repo = sys.argv[1], sys.argv[2]
for order, restrict in (("cumulative", "/advisor/"), ("tottime", "")):
    buf = io.StringIO()
    stats = pstats.Stats(dump, stream=buf).sort_stats(order)
    stats.print_stats(restrict, 15) if restrict else stats.print_stats(15)
    body = buf.getvalue().replace(repo + "/", "")
    where = " in advisor/" if restrict else ""
    print(f"== top 15 by {order}{where} ==")
    print(body[body.find("   ncalls"):] if "   ncalls" in body else body)
"""


# -- machine facts, table, JSON ---------------------------------------------------------------

# A fixed pure-Python workload whose CPU time says how fast this machine runs Python right now.
# The engine's targets are absolute seconds; a shared VM's speed drifts by 2-3x over a day (the
# read-and-split floor of 10,000 .vmx took 0.55 s at one time and 1.25 s at another on this
# machine, both at idle), so a run records this beside its figures, at its start and its end.
_SPEED_PROBE = (
    "import time\n"
    "best = None\n"
    "for _ in range(3):\n"
    "    t = time.process_time(); s = 0\n"
    "    for i in range(3_000_000): s += i & 7\n"
    "    t = time.process_time() - t; best = t if best is None else min(best, t)\n"
    "print(best)\n"
)


def python_speed(python: str) -> float:
    """CPU seconds of the probe loop (best of three) in the benchmark's interpreter."""
    probe = subprocess.run([python, "-c", _SPEED_PROBE], capture_output=True, text=True, check=True)
    return float(probe.stdout.strip())


def machine_facts(python: str, advisor: str) -> dict:
    probe = subprocess.run([python, "-c", "import platform, sys; print(sys.version.split()[0]); "
                            "print(platform.python_implementation())"], capture_output=True, text=True, check=True)
    version, impl = probe.stdout.split()
    adv = subprocess.run([advisor, "--version"], capture_output=True, text=True).stdout.strip()
    facts = {
        "timestamp": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "python": version,
        "python_implementation": impl,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "advisor_version": adv.rsplit(" ", 1)[-1] if adv else None,
        "python_probe_cpu_s": {"start": round(python_speed(python), 4)},
    }
    cpu = Path("/proc/cpuinfo")
    if cpu.is_file():
        names = [ln.split(":", 1)[1].strip() for ln in cpu.read_text().splitlines() if ln.startswith("model name")]
        facts["cpu"] = names[0] if names else None
    mem = Path("/proc/meminfo")
    if mem.is_file():
        total = next((ln.split()[1] for ln in mem.read_text().splitlines() if ln.startswith("MemTotal")), None)
        facts["memory_gib"] = round(int(total) / 2**20, 1) if total else None
    return facts


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def table(report: Report, facts: dict, mode: str) -> str:
    lines = [f"advisor benchmarks ({mode}) - {facts['timestamp']}",
             f"{facts['cores']} cores, {facts.get('cpu') or facts['machine']}, Python {facts['python']}, "
             f"{facts['platform']}, advisor {facts['advisor_version']}",
             "speed probe (3M-step pure-Python loop, CPU, best of 3): "
             + " / ".join(f"{k} {v * 1000:.0f} ms" for k, v in facts["python_probe_cpu_s"].items()), ""]
    header = f"{'case':<44} {'median':>9} {'CPU':>9} {'runs':>4} {'peak RSS':>9}  notes"
    section = None
    for row in report.rows:
        if row.section != section:
            section = row.section
            lines += ["", f"[{section}]", header, "-" * len(header)]
        m = row.m
        if m is not None and m.error:
            lines.append(f"{row.label:<44} {'FAILED':>9} {'':>9} {'':>4} {'':>9}  {m.error}")
            continue
        median = _seconds(m.median_s) if m else ""
        cpu = _seconds(m.median_cpu_s) if m and m.cpu_runs_s else ""
        runs = str(len(m.runs_s)) if m else ""
        rss = f"{m.peak_rss_mb:.0f} MiB" if m and m.peak_rss_mb else ""
        lines.append(f"{row.label:<44} {median:>9} {cpu:>9} {runs:>4} {rss:>9}  {row.derived}")
    lines += ["", "[targets]", f"{'target':<40} {'goal':<40} {'measured':>14}  result", "-" * 104]
    for t in report.targets:
        verdict = "n/a" if t.passed is None else ("PASS" if t.passed else "MISS")
        lines.append(f"{t.name:<40} {t.goal:<40} {t.value:>14}  {verdict}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run advisor's benchmarks and print a table.")
    parser.add_argument("--quick", action="store_true", help="small inputs and fewer runs (a smoke run, < 2 min)")
    parser.add_argument("--json", type=Path, default=OUT / "results.json", help="where to write the results")
    parser.add_argument("--profile", action="store_true", help="also profile the slowest advisor case")
    parser.add_argument("--only", choices=("startup", "per-file", "lint", "corpus", "engine", "report", "estate"),
                        action="append", help="run only these sections (repeatable)")
    args = parser.parse_args(argv)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    bins = setup_env.ensure_venvs(log)
    python = str(setup_env.venv_python(setup_env.MAIN_VENV))
    plan = generate.Plan.quick() if args.quick else generate.Plan()
    # Generation reads host profiles through advisor, so it runs in the venv; ensure() below
    # then only finds the manifest it wrote and returns the layout.
    # One folder per mode, so switching between --quick and a full run does not regenerate.
    root = generate.DATA / ("quick" if args.quick else "full")
    subprocess.run([python, str(HERE / "generate.py"), "--out", str(root), *(["--quick"] if args.quick else [])],
                   check=True, stdout=subprocess.DEVNULL)
    data = generate.ensure(plan, root)
    sizes = Sizes.quick() if args.quick else Sizes.full()
    cache_dir = Path(tempfile.mkdtemp(prefix="advisor-bench-cache-"))
    bench = Bench(bins, data, sizes, log, cache_dir)
    facts = machine_facts(python, bench.advisor)
    sections = {"startup": bench.startup, "per-file": bench.per_file, "lint": bench.lint_at_scale,
                "corpus": bench.lint_corpus, "engine": bench.engine, "report": bench.report_at_scale,
                "estate": bench.estate}
    try:
        for name, run_section in sections.items():
            if not args.only or name in args.only:
                log(f"[{name}]")
                run_section()
        profile_path = bench.profile() if args.profile else None
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    facts["python_probe_cpu_s"]["end"] = round(python_speed(python), 4)

    mode = "quick" if args.quick else "full"
    text = table(bench.report, facts, mode)
    print(text)
    if profile_path:
        print(f"profile of the slowest case: {profile_path.relative_to(generate.REPO)}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "schema": "advisor-benchmarks/v1",
        "mode": mode,
        "machine": facts,
        "data": {
            "seed": plan.seed,
            "vmx_origin": data.vmx_origin,
            "plan": plan.__dict__ | {"engine_vms": list(plan.engine_vms)},
        },
        "measurements": {k: m.as_dict() for k, m in bench.report.measurements.items()},
        "pairs": {k: p.as_dict() for k, p in bench.report.pairs.items()},
        "derived": bench.report.derived,
        "targets": [t.__dict__ for t in bench.report.targets],
    }
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

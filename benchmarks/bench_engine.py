"""Time the whole rule catalog over one big spec, in-process: the quick loop for engine work.

    python benchmarks/bench_engine.py                 # 10,000 VMs, generated on the fly (seeded)
    python benchmarks/bench_engine.py --vms 100000
    python benchmarks/bench_engine.py --spec FILE --json   # what benchmarks/run.py calls

Phases are timed separately because they scale differently: loading the catalog is a constant,
reading the spec (YAML + validation) and evaluating the rules both grow with the VM count.
`--profile FILE` writes a cProfile dump of the load + evaluate phases.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def measure(spec: Path, profile: Path | None = None) -> dict:
    """Phase times (s) of one run over `spec`, and the run's size (VMs, findings)."""
    start = time.perf_counter()
    from advisor.engine.catalog import load_catalog
    from advisor.engine.engine import Evaluator, Policy
    from advisor.engine.specs import evaluate_spec
    from advisor.load.specfile import load_spec

    catalog = load_catalog([])
    catalog_s = time.perf_counter() - start

    profiler = None
    if profile is not None:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t0, c0 = time.perf_counter(), time.process_time()
    loaded = load_spec(spec)
    t1 = time.perf_counter()
    evaluator = Evaluator(catalog, Policy(), keep_recommendations=False)  # as check_files
    evaluate_spec(loaded, evaluator, release=True)  # as advisor check does: each VM freed after its turn
    del loaded
    run = evaluator.finish()
    t2, c2 = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(profile))
    return {
        "vms": len(run.vms),
        "rules": len(catalog.rules),
        "findings": len(run.findings),
        "catalog_s": catalog_s,
        "load_s": t1 - t0,
        "evaluate_s": t2 - t1,
        "total_s": t2 - t0,
        # CPU time of the two phases: on a machine shared with other work, wall time includes
        # the waits for a core; this does not (it still carries cache and SMT contention).
        "cpu_s": c2 - c0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time the rule catalog over one spec with many VMs.")
    parser.add_argument("--vms", type=int, default=10_000, help="VMs to generate when no --spec is given")
    parser.add_argument("--spec", type=Path, help="an existing spec file (e.g. from benchmarks/generate.py)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (for benchmarks/run.py)")
    parser.add_argument("--profile", type=Path, help="write a cProfile dump of load + evaluate here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        spec = args.spec
        if spec is None:
            import generate

            spec = generate.make_engine_spec(Path(tmp) / f"engine-{args.vms}.yaml", args.vms)
        from advisor.errors import InputError

        try:
            result = measure(spec, args.profile)
        except InputError as exc:  # the spec was refused: say why in one line, as advisor would
            print(f"bench_engine: advisor refused the spec: {exc}", file=sys.stderr)
            return 2

    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['vms']:,} VMs x {result['rules']} rules -> {result['findings']:,} findings")
        print(f"  catalog load {result['catalog_s']:.3f} s (once per process)")
        print(f"  spec load    {result['load_s']:.3f} s")
        print(f"  evaluate     {result['evaluate_s']:.3f} s")
        print(f"  load + eval  {result['total_s']:.3f} s  ({result['vms'] / result['total_s']:,.0f} VMs/s), "
              f"CPU {result['cpu_s']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

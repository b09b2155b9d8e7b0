"""Reading 1,000 VMs from vCenter: advisor's paged PropertyCollector read beside one call per VM.

    python benchmarks/vcenter.py [--vms 1000] [--repeats 3] [--delay MS]

Starts tests/vcsim (govmomi's simulator, DL580 G7-shaped hosts; the first build on a machine
takes minutes) with that many VMs, then measures in this process, on one logged-in session:

1. advisor's read (advisor.vcenter.collect.read_inventory: one container view, RetrievePropertiesEx
   pages of 500) plus the mapping to specs;
2. the baseline: list the VMs, then one RetrieveProperties per VM for the same properties;
3. `advisor check --vcenter` end to end as a user runs it (a new process: start-up, login, read,
   map, check all rules, text report).

Cases 1 and 2 run once each to warm up, then alternate `--repeats` times (so a change in the
machine's load hits both); medians of wall time and of this process's CPU time (pyVmomi's XML
parsing, advisor's mapping) are reported with the SOAP calls counted through pyVmomi's stub.
Wall time includes vcsim's own work on the same 2 cores; only ratios within one run mean much.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "vcsim"))

import launch  # noqa: E402 - tests/vcsim is not a package


def sample(func) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def alternate(cases: dict, repeats: int) -> dict[str, tuple[float, float, object]]:
    """Median wall and CPU seconds of each case, the cases run in turn after one warm-up each."""
    for func in cases.values():
        func()
    runs: dict[str, list[tuple[float, float, object]]] = {name: [] for name in cases}
    for _ in range(repeats):
        for name, func in cases.items():
            runs[name].append(sample(func))
    return {name: (statistics.median(r[0] for r in got), statistics.median(r[1] for r in got), got[-1][2])
            for name, got in runs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vms", type=int, default=1000)
    parser.add_argument("--hosts", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--delay", type=int, default=0,
                        help="milliseconds vcsim adds to every call (localhost has next to no latency; a real "
                             "vCenter adds network and server time to each call)")
    args = parser.parse_args()

    from advisor.vcenter.collect import read_inventory, read_one_by_one
    from advisor.vcenter.session import connect
    from advisor.vcenter.to_spec import map_inventory

    go = launch.find_go()
    if go is None:
        sys.exit("Go is needed to build tests/vcsim")
    binary = launch.build(go, launch.temp_dir())
    sim = launch.start(binary, "-cluster", "1", "-host", str(args.hosts), "-standalone-host", "0", "-vm", str(args.vms),
                       "-delay", str(args.delay))
    try:
        session = connect(sim.server, launch.USER, launch.PASSWORD, ca_file=sim.cert)

        def ours() -> tuple[int, int]:
            before = session.total_calls()
            mapping = map_inventory(read_inventory(session))
            return session.total_calls() - before, sum(len(s.doc["vms"]) for s in mapping.specs)

        def baseline() -> tuple[int, int]:
            before = session.total_calls()
            count = read_one_by_one(session)
            return session.total_calls() - before, count

        results = alternate({"ours": ours, "baseline": baseline}, args.repeats)
        ours_s, ours_cpu, (ours_calls, ours_vms) = results["ours"]
        base_s, base_cpu, (base_calls, base_vms) = results["baseline"]
        session.close()

        env = dict(os.environ, ADVISOR_VCENTER_PASSWORD=launch.PASSWORD, NO_COLOR="1")
        command = [sys.executable, "-m", "advisor", "check", "--vcenter", sim.server, "--user", launch.USER,
                   "--ca-file", sim.cert, "--fail-on", "never", "-q"]

        def end_to_end() -> int:
            return subprocess.run(command, env=env, capture_output=True, check=True).returncode

        e2e = alternate({"e2e": end_to_end}, max(1, args.repeats // 2))["e2e"]
    finally:
        sim.stop()

    print(f"vcsim: {args.hosts} DL580 G7 hosts, {args.vms} VMs, {args.delay} ms added per call; "
          f"medians of {args.repeats} runs after a warm-up")
    print(f"{'case':46} {'wall':>8} {'client CPU':>11} {'SOAP calls':>11}")
    print(f"{'advisor read + map (' + str(ours_vms) + ' VMs)':46} {ours_s:7.2f}s {ours_cpu:10.2f}s {ours_calls:>11}")
    label = f"one RetrieveProperties per VM ({base_vms} VMs)"
    print(f"{label:46} {base_s:7.2f}s {base_cpu:10.2f}s {base_calls:>11}")
    print(f"{'advisor check --vcenter, end to end':46} {e2e[0]:7.2f}s {'(new process)':>11}")
    print(
        f"advisor / one-call-per-VM: wall {ours_s / base_s:.2f}x, client CPU {ours_cpu / base_cpu:.2f}x, "
        f"calls {ours_calls} / {base_calls}"
    )


if __name__ == "__main__":
    main()

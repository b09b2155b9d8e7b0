"""Reading 1,000 VMs from vCenter: advisor's paged PropertyCollector read beside one call per VM.

    python benchmarks/vcenter.py [--vms 1000] [--repeats 3] [--delay MS]

Starts tests/vcsim (govmomi's simulator, DL580 G7-shaped hosts; the first build on a machine
takes minutes) with that many VMs, then measures in this process, on one logged-in session:

1. advisor's read (advisor.vcenter.collect.read_inventory: one container view, RetrievePropertiesEx
   pages of 500) plus the mapping to specs;
2. the baseline: list the VMs, then one RetrieveProperties per VM for the same properties;
3. `advisor check --vcenter` end to end as a user runs it (a new process: start-up, login, read,
   map, check all rules, text report).

Each case runs once to warm up, then `--repeats` times; the median is reported with the SOAP
calls counted through pyVmomi's stub. Only the ratio of 1 to 2 in the same run means much.
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


def timed(func, repeats: int) -> tuple[float, object]:
    func()  # warm-up
    runs, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), result


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

        ours_s, (ours_calls, ours_vms) = timed(ours, args.repeats)
        base_s, (base_calls, base_vms) = timed(baseline, args.repeats)
        session.close()

        env = dict(os.environ, ADVISOR_VCENTER_PASSWORD=launch.PASSWORD, NO_COLOR="1")
        command = [sys.executable, "-m", "advisor", "check", "--vcenter", sim.server, "--user", launch.USER,
                   "--ca-file", sim.cert, "--fail-on", "never", "-q"]

        def end_to_end() -> int:
            return subprocess.run(command, env=env, capture_output=True, check=True).returncode

        e2e_s, _ = timed(end_to_end, max(1, args.repeats // 2))
    finally:
        sim.stop()

    print(f"vcsim: {args.hosts} DL580 G7 hosts, {args.vms} VMs, {args.delay} ms added per call; "
          f"medians of {args.repeats} runs after a warm-up")
    print(f"{'case':52} {'median':>9} {'SOAP calls':>11}")
    print(f"{'advisor read + map (' + str(ours_vms) + ' VMs)':52} {ours_s:8.2f}s {ours_calls:>11}")
    print(f"{'one RetrieveProperties per VM (' + str(base_vms) + ' VMs)':52} {base_s:8.2f}s {base_calls:>11}")
    print(f"{'advisor check --vcenter, end to end':52} {e2e_s:8.2f}s")
    print(f"advisor / one-call-per-VM: time {ours_s / base_s:.2f}x, calls {ours_calls}/{base_calls}")


if __name__ == "__main__":
    main()

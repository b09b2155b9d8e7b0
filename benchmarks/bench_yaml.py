"""Does the event-based YAML builder (advisor/load/yamltree.py) pay for itself beside the
node-based loader (advisor/load/yamlnodes.py) it falls back to? Issue 36 keeps a second reader
only where a paired measurement on real inputs says so.

    python benchmarks/bench_yaml.py [--repeats 7] FILE_OR_FOLDER...

Each set of files is parsed in turns by the two (builder, node loader, node loader, builder,
...), one set at a time in this process, and reported as the median CPU time (time.process_time)
of each, the median and range of the per-pair ratios, and each one's peak traced memory
(tracemalloc, one extra pass) over what it keeps.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from advisor.collector import gc_paused
from advisor.load.yamlnodes import Loader
from advisor.load.yamltree import build


def _node_load(text: str) -> Any:
    return yaml.load(text, Loader=Loader)  # Loader derives from SafeLoader


def _cpu(load: Callable[[str], Any], texts: list[str]) -> float:
    gc.collect()
    start = time.process_time()
    with gc_paused(kept=True):  # as advisor.load.yamlfile.loads builds a tree
        trees = [load(text) for text in texts]
    spent = time.process_time() - start
    del trees
    return spent


def _peak_over_kept(load: Callable[[str], Any], texts: list[str]) -> tuple[int, int]:
    gc.collect()
    peak = kept = 0
    for text in texts:  # one file at a time, as `advisor check` reads them
        tracemalloc.start()
        tree = load(text)
        now, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del tree
        peak, kept = max(peak, top), max(kept, now)
    return peak, kept


def measure(name: str, texts: list[str], repeats: int) -> str:
    builder, nodes, ratios = [], [], []
    _cpu(build, texts[:1]), _cpu(_node_load, texts[:1])  # warm-up: imports, caches
    for i in range(repeats):
        order = (build, _node_load) if i % 2 == 0 else (_node_load, build)
        got = {load: _cpu(load, texts) for load in order}
        builder.append(got[build])
        nodes.append(got[_node_load])
        ratios.append(got[build] / got[_node_load])
    b_peak, b_kept = _peak_over_kept(build, texts)
    n_peak, _ = _peak_over_kept(_node_load, texts)
    size = sum(len(t) for t in texts)
    return (f"{name}: {len(texts)} files, {size / 1024:,.0f} KiB | CPU builder "
            f"{statistics.median(builder) * 1000:,.1f} ms, node loader {statistics.median(nodes) * 1000:,.1f} ms, "
            f"builder/node {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}) | "
            f"peak memory of the largest file: builder {b_peak / 1024:,.0f} KiB, node loader "
            f"{n_peak / 1024:,.0f} KiB (tree kept {b_kept / 1024:,.0f} KiB)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("inputs", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for given in args.inputs:
        files = sorted(given.rglob("*.yaml")) if given.is_dir() else [given]
        texts = [f.read_text(encoding="utf-8") for f in files]
        print(measure(str(given), texts, args.repeats), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

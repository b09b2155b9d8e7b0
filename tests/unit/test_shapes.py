"""The shared topology caches of advisor.cost.shapes: hosts equal in all but their name share one
cache, so each VM shape is predicted once per kind of host in a run (counted: predict() calls),
the hosts' own names still reach their facts, and the run without it reports the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rvtools_gen import GenHost, GenVM, sheets, write_csv_folder

from advisor.cost import shapes
from advisor.engine.catalog import load_catalog
from advisor.engine.engine import Policy
from advisor.facts import cluster as cluster_facts
from advisor.facts import topology as topology_facts
from advisor.model.spec import Host
from advisor.model.versions import Version
from advisor.rvtools.check import evaluate

_KINDS = [(2, 10, "Intel(R) Xeon(R) CPU E5-2660 v2 @ 2.20GHz"), (2, 16, "Intel(R) Xeon(R) Gold 6142 CPU @ 2.60GHz")]
_SHAPES = [(2, 1, 8192), (8, 2, 32768), (16, 4, 65536), (24, 8, 131072), (12, 1, 16384)]


def _estate(tmp_path: Path) -> Path:
    """Eight hosts of two kinds (two clusters), each running the same five VM shapes."""
    hosts = [GenHost(f"esx{i:02d}", sockets=_KINDS[i // 4][0], cores=_KINDS[i // 4][1], cpu_model=_KINDS[i // 4][2],
                     cluster=f"cl{i // 4}") for i in range(8)]
    vms = [GenVM(f"vm{h}-{v}", host.name, cpus=cpus, cps=cps, memory_mb=memory)
           for h, host in enumerate(hosts) for v, (cpus, cps, memory) in enumerate(_SHAPES)]
    return write_csv_folder(tmp_path / "estate", sheets(hosts, vms))


def _counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"predict": 0}
    predict = topology_facts.predict

    def counted(*args: object) -> object:
        calls["predict"] += 1
        return predict(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(topology_facts, "predict", counted)
    monkeypatch.setattr(cluster_facts, "predict", counted)
    return calls


def _report(folder: Path) -> tuple[list[object], list[object]]:
    run, _ = evaluate([str(folder)], load_catalog([]), Policy())
    findings = [(f.rule, f.subject, f.file, f.line, f.message, json.dumps(f.fix, sort_keys=True)) for f in run.findings]
    vms = [(v.name, v.host, json.dumps(v.topology, sort_keys=True, default=str), tuple(v.skipped),
            tuple(sorted(v.recommended_vmx.items()))) for v in run.vms]
    return findings, vms


def test_each_shape_is_predicted_once_per_kind_of_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _estate(tmp_path)
    calls = _counted(monkeypatch)
    monkeypatch.delenv("ADVISOR_SAVINGS_OFF", raising=False)
    shared = _report(folder)
    with_it = calls["predict"]
    calls["predict"] = 0
    monkeypatch.setenv("ADVISOR_SAVINGS_OFF", "shapes")
    without = _report(folder)
    assert without == shared
    assert len(shared[1]) == 40 and shared[0], "VMs with findings, or the comparison proves little"
    # Four hosts of each kind: without the saving each host predicts the shapes again.
    assert with_it > 0 and calls["predict"] == 4 * with_it
    # The hosts' names still reach what the findings say of them.
    hosts = {v[1] for v in shared[1]}
    assert hosts == {f"esx{i:02d}" for i in range(8)}


def test_the_caches_are_bounded_and_keyed_by_all_but_name_and_description(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADVISOR_SAVINGS_OFF", raising=False)
    kept = shapes.Shapes()
    six = Version.parse("6.7")
    base = {"sockets": 2, "cores_per_socket": 10, "memory": 262144, "esxi": "6.7"}
    one, two = Host(name="a", **base), Host(name="b", **base)
    other = Host(name="c", **{**base, "memory": 524288})
    assert kept.cache_for(one, six) is kept.cache_for(two, six)
    # a live host's description names it ("host a in cluster c, read from vCenter v"): still one kind
    described = Host(name="f", description="host f in cluster c, read from vCenter v", **base)
    assert kept.cache_for(described, six) is kept.cache_for(one, six)
    assert kept.cache_for(one, six) is not kept.cache_for(other, six)
    assert kept.cache_for(None, six) is not kept.cache_for(None, six)  # no host: nothing to share
    monkeypatch.setattr(shapes, "SHAPE_HOSTS", len(kept.caches))
    beyond = Host(name="d", **{**base, "memory": 1048576})
    assert kept.cache_for(beyond, six) is not kept.cache_for(beyond, six)  # over the bound: one of its own
    assert len(kept.caches) == 2
    monkeypatch.setattr(shapes, "SHAPE_KEY", 10)
    assert kept.cache_for(Host(name="e", **{**base, "memory": 65536}), six) == {}
    assert len(kept.caches) == 2

"""The order a spec lists its VMs in changes nothing: not the host findings (where ESXi homes the
VMs' NUMA clients is worked out in one assumed power-on order, advisor.numa.placement), not the
VM findings, not the exit code (issue 33)."""

from __future__ import annotations

import glob
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.commands.common import exit_code
from advisor.engine.catalog import load_catalog
from advisor.engine.engine import Policy
from advisor.engine.specs import check_files
from advisor.load.hosts import profile_names

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(glob.glob(str(ROOT / "examples" / "*.yaml")))
# A VM entry with a count stands for that many VMs: split into one entry each (up to this many)
# so that an example of one entry has VMs to reorder; a lone VM gets a small neighbour.
_SPLIT_UP_TO = 12


def _digest(run: Any) -> tuple[Any, ...]:
    """What a run says, whatever the order of its VMs: findings without their line (the lines
    move with the VMs), the hosts' loads and "not evaluated" lines, each VM's, and the exit codes."""
    assert not run.errors, run.errors
    findings = sorted((f.rule, f.severity, f.subject, f.vm or "", f.message, json.dumps(f.fix, sort_keys=True))
                      for f in run.findings)
    hosts = sorted((h.name, h.summary, tuple(h.node_load), h.skipped, tuple(sorted(h.recommended_host.items())))
                   for h in run.hosts)
    vms = sorted((v.name, v.count, v.skipped, tuple(sorted(v.recommended_vmx.items()))) for v in run.vms)
    codes = tuple(exit_code(run, level) for level in ("info", "warning", "error"))
    return tuple(findings), tuple(hosts), tuple(vms), codes


def _run(spec: dict[str, Any], name: str = "spec.yaml") -> tuple[Any, ...]:
    data = yaml.safe_dump(spec, sort_keys=False).encode()
    return _digest(check_files([name], load_catalog([]), Policy(), given={name: data}))


def _split(spec: dict[str, Any]) -> dict[str, Any]:
    vms = []
    for vm in spec["vms"]:
        count = vm.get("count", 1)
        if 1 < count <= _SPLIT_UP_TO:
            vms.extend({**vm, "name": f"{vm['name']}-{i}", "count": 1} for i in range(count))
        else:
            vms.append(vm)
    if len(vms) < 2:  # one VM alone: a small neighbour gives the order something to change
        vms.append({"name": "neighbour", "vcpus": 2, "memory": "4GB"})
    return {**spec, "vms": vms}


def _orders(items: list[Any], rng: random.Random) -> list[list[Any]]:
    """The listing itself, reversed, every rotation and three shuffles (a bounded count)."""
    orders = [items[::-1], *(items[k:] + items[:k] for k in range(1, len(items)))]
    for _ in range(3):
        shuffled = items[:]
        rng.shuffle(shuffled)
        orders.append(shuffled)
    return orders


@pytest.mark.self_compare
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: Path(p).stem)
def test_each_example_in_any_vm_order_says_the_same(example: str) -> None:
    spec = _split(yaml.safe_load(Path(example).read_text()))
    first = _run(spec)
    rng = random.Random(example)
    for order in _orders(spec["vms"], rng):
        assert _run({**spec, "vms": order}) == first


# Five VMs on the DL580 G7 (four 10-core nodes, 20 threads each): placed in the order listed, one
# order put 24 vCPUs on a node (HOST001, a warning: exit 1 with --fail-on warning) and the other
# did not (HOST002, info: exit 0).
_FIVE = [{"name": f"vm{n}", "vcpus": n, "memory": "16GB"} for n in (10, 4, 12, 24, 16)]


def test_the_reported_five_vms_give_one_answer_in_every_order() -> None:
    import itertools

    answers = {_run({"host": "hp-dl580-g7", "vms": list(order)}) for order in itertools.permutations(_FIVE)}
    assert len(answers) == 1
    (findings, _, _, codes), = answers
    assert {f[0] for f in findings if f[2].startswith("host ")} == {"HOST002"}
    assert codes[1] == 0  # --fail-on warning


_HOSTS = sorted(profile_names())
_WORKLOADS = ["generic", "sql-server", "hadoop", "java", "latency-critical", "vdi"]


@st.composite
def _specs(draw: st.DrawFn) -> dict[str, Any]:
    host = draw(st.sampled_from(_HOSTS))
    vms = []
    for index in range(draw(st.integers(2, 7))):
        vm: dict[str, Any] = {
            "name": f"vm{index}",
            "vcpus": draw(st.sampled_from([1, 2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48])),
            "memory": f"{draw(st.sampled_from([4, 16, 64, 192]))}GB",
            "workload": draw(st.sampled_from(_WORKLOADS)),
        }
        count = draw(st.integers(1, 4))
        if count > 1:
            vm["count"] = count
        if draw(st.booleans()):
            vm["advanced"] = {"numa.nodeAffinity": "0"}
        vms.append(vm)
    return {"host": host, "vms": vms}


@pytest.mark.self_compare
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=_specs(), data=st.data())
def test_generated_specs_in_any_vm_order_say_the_same(spec: dict[str, Any], data: st.DataObject) -> None:
    order = data.draw(st.permutations(spec["vms"]))
    assert _run({**spec, "vms": list(order)}) == _run(spec)

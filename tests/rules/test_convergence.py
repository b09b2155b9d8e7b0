"""Fixes converge, a property of the whole catalog (issue 16).

1. For every rule's failing example, applying that rule's fix (its .vmx keys, resize, guest and
   host settings) and checking again removes the finding and brings no new finding of the same
   or a higher severity. A rule whose fix cannot be applied or does not converge fails here.
2. A sweep over every host profile × workload × vCPU counts × memory sizes: applying the whole
   recommendation advisor writes (not its suggestions) and checking again writes nothing new,
   and the worst severity never rises.
"""

from __future__ import annotations

import json

import pytest
from convergence import apply_fix, apply_vmx, evaluate

from advisor.engine.catalog import builtin_catalog
from advisor.load.hosts import BUNDLED
from advisor.model.base import WORKLOADS
from advisor.vocab import SEVERITY_RANK

CATALOG = builtin_catalog()
FAILING = [
    pytest.param(rule, index, example, id=f"{rule.id}-fail{index}")
    for rule in CATALOG.rules
    for index, example in enumerate(rule.examples["fail"])
]


def _plain(value):
    """The example as plain data (the catalog keeps YAML nodes with line numbers)."""
    return json.loads(json.dumps(value))


def _worst(run) -> int:
    return max((SEVERITY_RANK[f.severity] for f in run.findings if f.suppressed is None), default=0)


def _keys(run, rank: int) -> set[tuple[str, str | None]]:
    return {(f.rule, f.vm) for f in run.findings if f.suppressed is None and SEVERITY_RANK[f.severity] >= rank}


@pytest.mark.parametrize(("rule", "index", "example"), FAILING)
def test_a_rules_fix_removes_its_finding(rule, index, example):
    root = _plain(example)
    before = evaluate(root, f"{rule.id}.fail[{index}]")
    fired = [f for f in before.findings if f.rule == rule.id]
    assert fired, f"{rule.id} does not fire on its failing example {index}"
    fixed = root
    for finding in fired:
        assert any(finding.fix.get(part) for part in ("vmx", "resize", "guest", "host")), (
            f"{rule.id}'s fix has nothing a user can apply: {finding.fix.get('text')}")
        fixed = apply_fix(fixed, finding.vm, finding.fix)
    after = evaluate(fixed, f"{rule.id}.fixed[{index}]")
    assert not after.errors, after.errors
    still = [f.message for f in after.findings if f.rule == rule.id]
    assert not still, f"{rule.id} still fires after its fix: {still}"
    rank = SEVERITY_RANK[fired[0].severity]
    new = _keys(after, rank) - _keys(before, rank)
    assert not new, f"applying {rule.id}'s fix brings {sorted(new)}"


# -- the sweep ---------------------------------------------------------------------------------

HOSTS = sorted(BUNDLED.names())
VCPUS = (2, 8, 12, 16, 24, 30, 40, 56, 64)
MEMORY_GB = (16, 96, 384)


def _apply_recommendation(root: dict, run) -> dict:
    """The spec with every key advisor writes applied, as `advisor fix --write` would, and the
    guest and host settings of the written fixes done by hand."""
    vm = root["vms"][0]
    result = run.vms[0]
    base = dict(result.recommended_vmx)
    from advisor.model.spec import VM
    from advisor.vmx.mapping import vm_to_vmx

    current = vm_to_vmx(VM.model_validate(vm), None)
    changed = {k: v for k, v in base.items() if current.get(k) != v}
    removed = [k for k in current if k not in base]
    for key, value in changed.items():
        apply_vmx(vm, key, value)
    for key in removed:
        apply_vmx(vm, key, "REMOVE")
    host = run.hosts[0].recommended_host if run.hosts else {}
    return apply_fix(root, vm["name"], {"guest": dict(result.recommended_guest), "host": dict(host)})


def _sweep_cases(hosts, workloads, vcpus, memory):
    for host in hosts:
        for workload in workloads:
            for v in vcpus:
                for gb in memory:
                    yield host, workload, v, gb


def _converges(host: str, workload: str, v: int, gb: int, **extra) -> None:
    root = {"host": host, "vms": [{"name": "vm", "vcpus": v, "memory": f"{gb}GB", "workload": workload, **extra}]}
    label = f"{host}/{workload}/{v}/{gb}"
    first = evaluate(root, label)
    if first.errors:
        return  # a shape the host or version cannot hold is refused as input, not advised
    written = dict(first.vms[0].recommended_vmx)
    second = evaluate(_apply_recommendation(root, first), label + "/fixed")
    assert not second.errors, (label, second.errors)
    unsettled = [n for n in first.notes if "did not settle" in n]
    assert not unsettled, f"{label}: {unsettled}"
    again = {k: v for k, v in second.vms[0].recommended_vmx.items() if written.get(k) != v}
    again |= {k: v for k, v in second.vms[0].recommended_guest.items() if first.vms[0].recommended_guest.get(k) != v}
    assert not again, f"{label}: applying the recommendation recommends more: {again}"
    assert _worst(second) <= _worst(first), (
        f"{label}: worst severity rose: {[(f.rule, f.severity) for f in second.findings]}")


@pytest.mark.parametrize("host", HOSTS)
def test_sweep_every_host_profile(host):
    for case in _sweep_cases([host], ("generic", "sql-server"), VCPUS, (16, 384)):
        _converges(*case)


@pytest.mark.slow
@pytest.mark.parametrize("workload", WORKLOADS)
def test_sweep_every_workload(workload):
    for case in _sweep_cases(HOSTS, [workload], VCPUS, MEMORY_GB):
        _converges(*case)


# SQL Server Standard instances: the edition's caps (24 cores, 4 sockets) resize the VM while
# host, NUMA and limit rules resize it too, each computed on the VM as specified; the written
# recommendation is their fixed point (advisor/engine/fixpoint.py). The default run holds a few
# representative cases (a preferHT layout, a licence cap on a wide host, sockets of one core); the
# slow pass every host profile × size.
SQL_STANDARD = {"sql": {"version": "2019", "edition": "standard", "maxdop": 0, "cost_threshold": 50}}
# Cases the catalog cannot settle, each with why; they must still fail (remove one when it converges).
# None today: 16 vCPUs on 2 × 6 cores (vSphere 5.5) once cycled between NUMA002's one core per socket
# and the edition's 4 sockets; NUMA002 now yields to the edition's socket limit.
SQL_NOT_SETTLING: set[tuple[str, int, int]] = set()


def _sql_converges(host: str, v: int, gb: int) -> None:
    if (host, v, gb) in SQL_NOT_SETTLING:
        with pytest.raises(AssertionError, match=r"did not settle|recommends more"):
            _converges(host, "sql-server", v, gb, **SQL_STANDARD)
        return
    _converges(host, "sql-server", v, gb, **SQL_STANDARD)


@pytest.mark.parametrize(("host", "v", "gb"), [
    ("dell-r710-x5670", 16, 16), ("hp-dl380-x5570", 12, 16), ("dell-r730-e5-2680v4", 64, 16),
    ("hp-dl585", 24, 384), ("xeon-e5-2660-2s", 30, 16), ("dell-r710-x5670", 16, 384),
])
def test_an_edition_capped_sql_vm_converges(host, v, gb):
    _sql_converges(host, v, gb)


@pytest.mark.slow
@pytest.mark.parametrize("host", HOSTS)
def test_sweep_edition_capped_sql(host):
    for _, _, v, gb in _sweep_cases([host], ["sql-server"], VCPUS, MEMORY_GB):
        _sql_converges(host, v, gb)

"""The papers' scenarios, as acceptance tests: advisor must reach each paper's conclusion.

Each case is a spec the way a user would write it; the assertions are the paper's finding
(001 = SQL Server on vSphere 5.5 on the DL580 G7, 000 = the performance blog collection,
002 = power and containers, 004 = Hadoop/HPC/XenApp/Java).
"""

from __future__ import annotations

import pytest

from advisor.engine.catalog import builtin_catalog
from advisor.engine.engine import Evaluator, Policy
from advisor.engine.specs import evaluate_spec
from advisor.load.specfile import parse_spec

CATALOG = builtin_catalog()


def check(yaml_text: str):
    loaded = parse_spec(yaml_text, "scenario.yaml")
    evaluator = Evaluator(CATALOG, Policy())
    evaluate_spec(loaded, evaluator)
    return evaluator.finish()


def rules_of(run, severity: tuple[str, ...] = ("error", "warning", "info")) -> set[str]:
    return {f.rule for f in run.findings if f.severity in severity}


def dl580(vms: str, extra: str = "") -> str:
    return f"host: hp-dl580-g7\n{extra}vms:\n{vms}"


def test_64_vcpu_sql_vm_gets_prefer_ht_and_the_balanced_layout():
    run = check(dl580("  - {name: sql, vcpus: 64, memory: 256GB, workload: sql-server}\n"))
    vm = run.vms[0]
    assert vm.topology["vnuma_nodes"] == [10, 10, 10, 10, 10, 10, 4]
    numa = [f for f in run.findings if f.rule == "NUMA001"]
    assert numa and "[16×4]" in numa[0].message and "[10×6, 4]" in numa[0].message
    assert numa[0].fix["vmx"] == {"numa.vcpu.preferHT": "TRUE"}
    assert vm.recommended_vmx["numa.vcpu.preferHT"] == "TRUE"
    # the recommended layout, applied, is the paper's 4 × 16
    fixed = check(dl580("  - {name: sql, vcpus: 64, memory: 256GB, workload: sql-server,"
                        " advanced: {numa.vcpu.preferHT: 'TRUE'}}\n"))
    assert fixed.vms[0].topology["vnuma_nodes"] == [16, 16, 16, 16]
    assert not rules_of(fixed) & {"NUMA001", "NUMA003"}


def test_nine_8_vcpu_vms_oversubscribe_a_node_and_8x10_is_suggested():
    run = check(dl580("  - {name: sql, count: 9, vcpus: 8, memory: 96GB, workload: sql-server}\n"))
    over = [f for f in run.findings if f.rule == "HOST001"]
    assert over and over[0].severity == "warning"
    assert "8 × 10 vCPU" in over[0].message and "24, 16, 16, 16" in over[0].message


@pytest.mark.parametrize("shape", ["count: 8, vcpus: 8", "count: 4, vcpus: 16"])
def test_the_papers_best_packings_get_no_numa_warnings(shape):
    run = check(dl580(f"  - {{name: sql, {shape}, memory: 96GB, workload: sql-server}}\n"))
    warned = {f.rule for f in run.findings if f.severity in ("warning", "error")}
    assert not {r for r in warned if r.startswith(("NUMA", "HOST"))}, warned


@pytest.mark.parametrize("cps", [4, 2])
def test_three_32_vcpu_vms_with_small_cores_per_socket_are_flagged(cps):
    run = check(
        dl580(f"  - {{name: sql, count: 3, vcpus: 32, cores_per_socket: {cps}, memory: 128GB, workload: sql-server}}\n")
    )
    finding = [f for f in run.findings if f.rule == "NUMA002"]
    assert finding and f"cores_per_socket {cps}" in finding[0].message
    assert run.vms[0].topology["vnuma_nodes"] == [cps] * (32 // cps)
    default = check(dl580("  - {name: sql, count: 3, vcpus: 32, memory: 128GB, workload: sql-server}\n"))
    assert "NUMA002" not in rules_of(default)


def test_cost_threshold_5_becomes_50():
    run = check(dl580("  - {name: sql, vcpus: 16, memory: 64GB, workload: sql-server, sql: {cost_threshold: 5}}\n"))
    assert "SQL001" in rules_of(run)
    assert run.vms[0].recommended_guest["cost threshold for parallelism"] == 50


def test_server_cal_with_32_vcpus_is_flagged():
    run = check(
        dl580("  - {name: sql, vcpus: 32, memory: 128GB, workload: sql-server, sql: {licensing: server-cal}}\n")
    )
    assert "SQL004" in rules_of(run)


def test_latency_sensitivity_high_on_oltp_is_warned():
    run = check(dl580("  - {name: sql, vcpus: 16, memory: 64GB, workload: sql-server, latency_sensitivity: high,"
                      " cpu_reservation: full, memory_reservation: full}\n"))
    assert [f for f in run.findings if f.rule == "SCHED002" and f.severity == "warning"]


def test_lsi_logic_and_e1000_on_the_database_vm_get_pvscsi_and_vmxnet3():
    run = check(dl580("  - name: sql\n    vcpus: 16\n    memory: 64GB\n    workload: sql-server\n"
                      "    disks:\n      - {size: 100GB, controller: lsilogic, role: os}\n"
                      "      - {size: 1TB, controller: lsilogic, bus: 1, role: data}\n"
                      "    nics: [{adapter: e1000}]\n"))
    assert {"STO001", "NET001"} <= rules_of(run)
    vmx = run.vms[0].recommended_vmx
    assert vmx["scsi1.virtualDev"] == "pvscsi" and vmx["ethernet0.virtualDev"] == "vmxnet3"
    assert vmx["scsi0.virtualDev"] == "lsilogic"  # the boot disk's controller is left alone


def test_max_freq_pct_80_is_flagged():
    spec = ("host: {name: r720, sockets: 2, cores_per_socket: 12, threads_per_core: 2, memory: 256GB,"
            " core_mhz: 2700, esxi: '5.5', power_policy: custom, max_freq_pct: 80}\n"
            "vms: [{name: web, vcpus: 4, memory: 16GB}]\n")
    run = check(spec)
    assert "PWR002" in rules_of(run)
    assert run.hosts[0].recommended_host["Power.MaxFreqPct"] == "99"


def test_hadoop_one_vm_per_two_socket_host_gets_2_to_4_vms_suggested():
    run = check("host: dell-r720-e5-2697v2\nvms: [{name: hadoop, vcpus: 48, memory: 224GB, workload: hadoop}]\n")
    finding = [f for f in run.findings if f.rule == "SCALE001"]
    assert finding and "2-4" in finding[0].message + finding[0].fix["text"]
    good = check(
        "host: dell-r720-e5-2697v2\nvms: [{name: hadoop, count: 4, vcpus: 12, memory: 56GB, workload: hadoop}]\n"
    )
    assert "SCALE001" not in rules_of(good)


def test_fault_tolerance_on_an_8_vcpu_vm_on_6_0_is_an_error():
    run = check(
        "host: xeon-e5-2660-2s\nvsphere: '6.0'\nvms: [{name: app, vcpus: 8, memory: 32GB, fault_tolerance: true}]\n"
    )
    ft = [f for f in run.findings if f.rule == "SCHED005"]
    assert ft and ft[0].severity == "error" and "4 vCPUs" in ft[0].message


def test_cpu_affinity_is_warned():
    run = check(dl580("  - {name: app, vcpus: 4, memory: 8GB, cpu_affinity: '0-3'}\n"))
    assert [f for f in run.findings if f.rule == "SCHED001" and f.severity == "warning"]


def test_hyperthreads_are_not_cores():
    """8 physical cores beat 8 hyper-threads by 59% (001): packing beyond the cores is noted."""
    run = check(dl580("  - {name: sql, count: 8, vcpus: 8, memory: 64GB}\n"))
    note = [f for f in run.findings if f.rule == "HOST002"]
    assert note and note[0].severity == "info"

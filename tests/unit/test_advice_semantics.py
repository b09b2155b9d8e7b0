"""What advisor writes, and the NUMA model the documents state (issue 16).

Each case cites the document that settles it: ../shared/reference/sources.md (D = VMware/Broadcom,
F = Frank Denneman) and the seed papers.
"""

from __future__ import annotations

import json

import pytest

from advisor.engine.catalog import builtin_catalog
from advisor.engine.engine import Evaluator, Policy
from advisor.engine.recommend import Fixed, recommend
from advisor.engine.specs import evaluate_spec
from advisor.load.specfile import spec_from_root
from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.topology import predict

CATALOG = builtin_catalog()


def check(root: dict, policy: Policy | None = None):
    evaluator = Evaluator(CATALOG, policy or Policy())
    evaluate_spec(spec_from_root(root, "spec.yaml", lenient_shape=True), evaluator)
    return evaluator.finish()


def host(sockets: int, cores: int, memory: str = "512GB", esxi: str = "7.0", **extra) -> dict:
    return {"name": f"h{sockets}x{cores}", "sockets": sockets, "cores_per_socket": cores, "threads_per_core": 2,
            "memory": memory, "esxi": esxi, **extra}


def rules_of(run) -> set[str]:
    return {f.rule for f in run.findings}


# -- 1. apply vs consider ----------------------------------------------------------------------

@pytest.mark.parametrize(("sockets", "cores", "vcpus"), [(2, 28, 56), (2, 16, 24)])
def test_a_balanced_wide_vm_gets_no_prefer_ht(sockets, cores, vcpus):
    # The two cases: the default layout is balanced and fits the host's cores; KB 415687
    # (D12) and seed 001 (8 cores beat 8 threads by 59%) say cores beat sibling threads here.
    run = check({"host": host(sockets, cores), "vms": [{"name": "app", "vcpus": vcpus, "memory": "64GB"}]})
    vm = run.vms[0]
    assert "numa.vcpu.preferHT" not in vm.recommended_vmx
    assert not any("numa.vcpu.preferHT" in s["vmx"] for s in vm.suggested_vmx)
    assert not {"NUMA001", "NUMA004"} & rules_of(run)


def test_memory_bound_vm_gets_prefer_ht_as_a_suggestion_with_its_condition():
    # Seed 004 (NAMD/Stream: 8 vCPUs on a 4-core / 8-thread node with preferHT=1).
    run = check({"host": "hp-dl380-x5570",
                 "vms": [{"name": "stream", "vcpus": 8, "memory": "12GB", "memory_bound": True}]})
    vm = run.vms[0]
    assert "NUMA004" in rules_of(run)
    assert "numa.vcpu.preferHT" not in vm.recommended_vmx
    [suggestion] = [s for s in vm.suggested_vmx if s["rule"] == "NUMA004"]
    assert suggestion["vmx"] == {"numa.vcpu.preferHT": "TRUE"}
    assert "memory- or cache-bound" in suggestion["condition"]


def test_an_unmarked_vm_gets_no_prefer_ht_suggestion():
    run = check({"host": "hp-dl380-x5570", "vms": [{"name": "app", "vcpus": 8, "memory": "12GB"}]})
    assert "NUMA004" not in rules_of(run)


def test_prefer_ht_needs_the_memory_to_fit_the_nodes_it_uses():
    # Denneman part 5 (F1): with preferHT make sure the VM's memory fits the NUMA node.
    # 28 vCPUs on 2 x 10 cores (more vCPUs than cores, where NUMA001 writes preferHT: issue 35):
    # [10, 10, 8] over 2 nodes; preferHT: [14, 14] over 2 nodes of 128 GB.
    small = host(2, 10, memory="256GB", esxi="5.5")
    fits = check({"host": small, "vms": [{"name": "sql", "vcpus": 28, "memory": "200GB"}]})
    assert "NUMA001" in rules_of(fits)
    too_big = check({"host": small, "vms": [{"name": "sql", "vcpus": 28, "memory": "300GB"}]})
    assert "NUMA001" not in rules_of(too_big)
    assert "numa.vcpu.preferHT" not in too_big.vms[0].recommended_vmx


def test_seed_001_64_vcpus_on_4x10_still_gets_prefer_ht_written():
    run = check({"host": "hp-dl580-g7", "vms": [{"name": "sql", "vcpus": 64, "memory": "256GB",
                                                 "workload": "sql-server"}]})
    assert run.vms[0].recommended_vmx["numa.vcpu.preferHT"] == "TRUE"


def test_numa001_fires_on_unequal_vnuma_nodes_not_on_unequal_clients_of_equal_nodes():
    # 30 vCPUs at 6 cores per socket on 2 x 20 cores: vNUMA nodes 15 + 15, clients 18 + 12
    # (F7). The imbalance is the sockets' (NUMA009), not one preferHT cures. (At 2 cores per
    # socket, clients 16 + 14, NUMA009 leaves Windows' default alone: issue #17.)
    run = check({"host": host(2, 20), "vms": [{"name": "app", "vcpus": 30, "cores_per_socket": 6, "memory": "128GB"}]})
    assert "NUMA001" not in rules_of(run)
    assert "NUMA009" in rules_of(run)


def test_fix_precedence_follows_the_configured_severity():
    low = Fixed("AAA001", "warning", "a", {"vmx": {"k": "from-a"}, "kind": "apply"})
    high = Fixed("BBB001", "error", "b", {"vmx": {"k": "from-b"}, "kind": "apply"})
    assert recommend([high, low]).settings["k"] == "from-b"
    # The configuration raised AAA001 to error and lowered BBB001 to warning: AAA001 wins.
    raised = Fixed("AAA001", "error", "a", low.fix)
    lowered = Fixed("BBB001", "warning", "b", high.fix)
    assert recommend([raised, lowered]).settings["k"] == "from-a"


def test_configured_severity_decides_through_the_engine():
    # NUMA011 (error) sets cpuid.coresPerSocket 1, NUMA010 (warning) the aligned value; configured
    # the other way round, the warning-turned-error wins.
    root = {"host": "hp-dl580-g7", "vms": [{"name": "a", "vcpus": 40, "cores_per_socket": 20, "memory": "160GB"}]}
    default = check(root)
    assert "NUMA010" in rules_of(default)
    written = default.vms[0].recommended_vmx["cpuid.coresPerSocket"]
    info = check(root, Policy(severity={"NUMA010": "info"}))
    assert "cpuid.coresPerSocket" not in info.vms[0].vmx_reasons or info.vms[0].vmx_reasons[
        "cpuid.coresPerSocket"][0] != "NUMA010"
    assert written == "10"


def test_written_resizes_are_combined_before_they_become_keys():
    # HOST003 cuts 12 vCPUs to the host's 4 logical processors; SCHED003 reserves all CPU. A
    # full reservation is vCPUs x clock (D "Latency sensitivity"), so it is the resized VM's.
    run = check({"host": host(1, 4, core_mhz=2800) | {"threads_per_core": 1},
                 "vms": [{"name": "trade", "vcpus": 12, "memory": "16GB", "workload": "latency-critical"}]})
    written = run.vms[0].recommended_vmx
    assert written["numvcpus"] == "4" and written["sched.cpu.min"] == str(4 * 2800)


def test_info_fixes_are_not_written_but_shown():
    run = check({"host": "dell-r720-e5-2697v2", "vms": [{"name": "app", "vcpus": 15, "memory": "32GB"}]})
    assert "NUMA005" in rules_of(run)
    assert any(s["rule"] == "NUMA005" for s in run.vms[0].suggested_vmx)


# -- 3. the model the documents state ----------------------------------------------------------

def _host(sockets: int, cores: int, memory: str = "512GB", **extra) -> Host:
    return Host.model_validate(host(sockets, cores, memory, **extra))


def test_before_65_cores_per_socket_makes_nodes_even_inside_one_node():
    # F1 (part 5, "Cores per Socket"): 10 vCPUs at 5 cores per socket on a 10-core package ->
    # two virtual nodes on two physical domains; D1: CPS > 1 and > 8 vCPUs -> node = socket.
    topo = predict(_host(2, 10), VM(name="a", vcpus=10, cores_per_socket=5, memory="16GB"), Version(6, 0))
    assert topo.vnuma_exposed and topo.vnuma_nodes == (5, 5) and topo.numa_clients == (5, 5)
    # 6.5 decoupled cores per socket from vNUMA (F2): one node.
    assert not predict(_host(2, 10), VM(name="a", vcpus=10, cores_per_socket=5, memory="16GB"),
                       Version(6, 5)).vnuma_exposed
    # 8 vCPUs stay below numa.vcpu.min (9): no vNUMA before 6.5 either.
    assert not predict(_host(2, 10), VM(name="a", vcpus=8, cores_per_socket=4, memory="16GB"),
                       Version(6, 0)).vnuma_exposed


def test_consolidate_false_spreads_memory_and_vcpu_min_exposes_it():
    # F4: 8 vCPUs and 96 GB on 2 x 12 cores with 64 GB per node -> 2 clients of 4, one virtual
    # node; numa.vcpu.min = 4 exposes two.
    h = _host(2, 12, memory="128GB")
    vm = VM(name="a", vcpus=8, memory="96GB", advanced={"numa.consolidate": "FALSE"})
    topo = predict(h, vm, Version(6, 5))
    assert topo.numa_clients == (4, 4) and not topo.vnuma_exposed
    exposed = predict(h, VM(name="a", vcpus=8, memory="96GB",
                            advanced={"numa.consolidate": "FALSE", "numa.vcpu.min": "4"}), Version(6, 5))
    assert exposed.vnuma_exposed and exposed.vnuma_nodes == (4, 4)
    assert predict(h, VM(name="a", vcpus=8, memory="96GB"), Version(6, 5)).numa_clients == (8,)


def test_node_affinity_keeps_the_vm_on_its_nodes():
    # D "Specifying NUMA Controls" (GUID-68817061): NUMA-managed, limited to the listed nodes.
    topo = predict(_host(4, 10), VM(name="a", vcpus=20, memory="64GB", advanced={"numa.nodeAffinity": "2,3"}),
                   Version(7, 0))
    assert topo.numa_managed and set(topo.client_nodes) == {2, 3}


def test_node_affinity_holds_in_the_host_wide_placement():
    # The same document: the affinity limits the nodes for every instance of the VM, so a host's
    # packing never homes such a VM elsewhere, however loaded its nodes get.
    run = check({"host": host(4, 10), "vms": [
        {"name": "pinned", "count": 4, "vcpus": 10, "memory": "32GB", "advanced": {"numa.nodeAffinity": "2,3"}},
        {"name": "free", "count": 2, "vcpus": 10, "memory": "32GB"}]})
    [result] = run.hosts
    assert result.node_load == [10, 10, 20, 20]
    assert all(name != "pinned" for node in (0, 1) for name, _, _ in result.residents[node])


def test_recorded_layout_is_kept_and_the_fix_clears_it():
    # F8: 36 vCPUs recorded as 2 x 18 keep two virtual nodes on 4 x 14 cores, with 3 clients.
    advanced = {"numa.autosize.vcpu.maxPerVirtualNode": "18", "numa.autosize.cookie": "360022"}
    topo = predict(_host(4, 14, memory="1TB"), VM(name="a", vcpus=36, memory="128GB", advanced=advanced), Version(7, 0))
    assert topo.vnuma_nodes == (18, 18) and topo.numa_clients == (12, 12, 12)
    run = check({"host": host(4, 14, memory="1TB"),
                 "vms": [{"name": "a", "vcpus": 36, "memory": "128GB", "advanced": advanced}]})
    assert "NUMA012" in rules_of(run)
    assert "numa.autosize.vcpu.maxPerVirtualNode" not in run.vms[0].recommended_vmx
    once = dict(advanced, **{"numa.autosize.once": "FALSE"})
    assert predict(_host(4, 14, memory="1TB"), VM(name="a", vcpus=36, memory="128GB", advanced=once),
                   Version(7, 0)).vnuma_nodes == (12, 12, 12)


def test_vsphere_8_cores_per_node_sets_the_node_size_and_balances_memory():
    # F11: 12 vCPUs / 384 GB, CPS 6 and 2 NUMA nodes -> numa.vcpu.coresPerNode = 6, 2 VPDs.
    topo = predict(_host(2, 20, memory="512GB"), VM(name="a", vcpus=12, cores_per_socket=6, memory="384GB",
                                                   advanced={"numa.vcpu.coresPerNode": "6"}), Version(8, 0))
    assert topo.vnuma_nodes == (6, 6) and topo.memory_remote_mib == 0


def test_uneven_split_on_65_is_uncertain_and_no_warning_reads_the_sizes():
    topo = predict(_host(2, 10), VM(name="a", vcpus=22, memory="64GB"), Version(6, 7))
    assert any("not divisible" in u for u in topo.uncertain)
    assert not topo.vnuma_balanced  # certain: 22 does not divide over 3 nodes however it is spread


@pytest.mark.parametrize(("esxi", "guess"), [("6.7", True), ("6.0", False)])
def test_a_warning_on_an_uneven_split_says_when_its_sizes_are_a_guess(esxi, guess):
    # NUMA001 fires on the certain part (the nodes are unequal); before 6.5 the paper documents
    # [10×6, 4] (seed 001), from 6.5 the spread of the remainder is not documented.
    run = check({"host": host(4, 10, memory="1TB", esxi=esxi),
                 "vms": [{"name": "sql", "vcpus": 64, "memory": "256GB"}]})
    [finding] = [f for f in run.findings if f.rule == "NUMA001"]
    assert ("sizes are a guess" in finding.message) is guess


def test_hot_add_with_allow_hotadd_on_vsphere_8_is_not_certain():
    topo = predict(_host(2, 20), VM(name="a", vcpus=32, memory="64GB", cpu_hot_add=True,
                                    advanced={"numa.allowHotadd": "TRUE"}), Version(8, 0))
    assert topo.vnuma_exposed and topo.uncertain
    blocked = predict(_host(2, 20), VM(name="a", vcpus=32, memory="64GB", cpu_hot_add=True), Version(8, 0))
    assert not blocked.vnuma_exposed


def test_epyc_client_sizer_is_uncertain():
    epyc = _host(2, 32, memory="512GB", cpu="AMD EPYC 7601", numa_nodes_per_socket=4)
    topo = predict(epyc, VM(name="a", vcpus=12, memory="32GB"), Version(6, 7, 2))
    assert any("EPYC" in u for u in topo.uncertain)


# -- 4. decide what can be decided ----------------------------------------------------------

def test_latency_sensitivity_high_without_memory_reservation_errors_without_the_host_clock():
    # The CPU half needs the host's clock; the missing memory reservation settles the condition.
    run = check({"host": host(2, 20), "vms": [{"name": "trade", "vcpus": 8, "memory": "32GB",
                                               "workload": "latency-critical", "latency_sensitivity": "high"}]})
    assert any(f.rule == "SCHED004" and f.severity == "error" for f in run.findings)


def test_an_unknown_clock_is_named_in_the_finding_and_never_written():
    # Without the host's clock the full CPU reservation (vCPUs x clock, D "Latency sensitivity")
    # is unknown: the message says what it needs and no .vmx value reads "unknown".
    run = check({"host": host(2, 20), "vms": [{"name": "trade", "vcpus": 8, "memory": "32GB",
                                               "workload": "latency-critical", "latency_sensitivity": "high"}]})
    [finding] = [f for f in run.findings if f.rule == "SCHED004"]
    needs = "it needs the host's nominal core clock (host.core_mhz)"
    assert needs in finding.message and needs in finding.fix["text"]
    assert "unknown MHz" not in finding.message + finding.fix["text"]
    written = run.vms[0].recommended_vmx
    assert "sched.cpu.min" not in written and written["sched.mem.pin"] == "TRUE"
    assert not any("unknown" in value for value in written.values())
    clocked = check({"host": host(2, 20, core_mhz=3000), "vms": [{"name": "trade", "vcpus": 8, "memory": "32GB",
                                                                  "workload": "latency-critical",
                                                                  "latency_sensitivity": "high"}]})
    assert clocked.vms[0].recommended_vmx["sched.cpu.min"] == "24000"


def test_cluster_rules_are_quiet_when_no_cluster_is_described():
    # LIM012 compares the hosts of a `cluster:`; with none described it does not apply.
    vm = {"name": "app", "vcpus": 36, "memory": "128GB"}
    alone = check({"host": host(2, 20), "vms": [vm]})
    assert not any("LIM012" in line for line in alone.vms[0].skipped)
    assert "LIM012" not in rules_of(alone)
    clustered = check({"host": host(2, 20), "cluster": [host(4, 14, memory="1TB")], "vms": [vm]})
    assert "LIM012" in rules_of(clustered)


def test_an_undecidable_rule_is_listed_in_text_json_and_sarif():
    from advisor.output import render

    run = check({"host": host(2, 20), "vms": [{"name": "trade", "vcpus": 8, "memory": "32GB",
                                               "workload": "latency-critical", "latency_sensitivity": "high",
                                               "memory_reservation": "full", "cpu_reservation": 1000}]})
    assert "SCHED004" not in rules_of(run)
    lines = run.vms[0].skipped
    assert any(line.startswith("SCHED004 needs") and "host.core_mhz" in line for line in lines)
    from advisor.output import Display

    # By default one summary line; with --show-skipped a block per VM, its lines under it.
    assert "values they need are unknown (--show-skipped lists them per VM)" in render("text", run)
    text = render("text", run, display=Display(skipped=True))
    needs = "SCHED004 needs the host's nominal core clock (host.core_mhz)"
    assert "vm trade: not evaluated" in text and needs in text
    assert text.index("vm trade: not evaluated") < text.index(needs)
    doc = json.loads(render("json", run))
    assert any("SCHED004" in s for s in doc["vms"][0]["skipped"])
    sarif = json.loads(render("sarif", run))
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any(n["message"]["text"].startswith("not evaluated for 1 VM: SCHED004") for n in notes)


def test_a_suggestion_is_written_when_its_rule_is_selected_by_id():
    root = {"host": "hp-dl380-x5570", "vms": [{"name": "stream", "vcpus": 8, "memory": "12GB", "memory_bound": True}]}
    assert check(root, Policy(select=("NUMA004",))).vms[0].recommended_vmx["numa.vcpu.preferHT"] == "TRUE"
    # A prefix selects rules, not one suggestion: still not written.
    assert "numa.vcpu.preferHT" not in check(root, Policy(select=("NUMA",))).vms[0].recommended_vmx

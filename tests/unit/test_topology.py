"""The vNUMA model against every layout a source states. Each test names its source."""

from __future__ import annotations

import pytest

from advisor.load.hosts import host_from_data, load_profile
from advisor.model.spec import VM
from advisor.model.versions import Version
from advisor.numa.topology import predict, split_fill

SQL55 = "001_a02093f92473a34b.txt"


def vm(vcpus: int, memory: str = "64GB", **kw) -> VM:
    advanced = kw.pop("advanced", {})
    return VM.model_validate({"name": "t", "vcpus": vcpus, "memory": memory, "advanced": advanced, **kw})


def host(cores: int, sockets: int = 2, threads: int = 2, nps: int = 1, memory: str = "512GB", **kw):
    data = {"name": "h", "sockets": sockets, "cores_per_socket": cores, "threads_per_core": threads,
            "numa_nodes_per_socket": nps, "memory": memory, "esxi": "7.0", "core_mhz": 2000, **kw}
    return host_from_data(data, "inline")


DL580 = load_profile("hp-dl580-g7")
V55 = Version.parse("5.5")


# --- 001 (vSphere 5.5 SQL Server paper) on the DL580 G7: 4 nodes x 10 cores, HT ----------------

@pytest.mark.parametrize(
    ("vcpus", "nodes"),
    [(8, (8,)), (16, (8, 8)), (32, (8, 8, 8, 8)), (64, (10, 10, 10, 10, 10, 10, 4))],
)
def test_paper_default_layouts(vcpus, nodes):
    """001, sections before and in "1 VM x 64 vCPU Configuration": 8 → none, 16 → 2×8, 32 → 4×8, 64 → 6×10+4."""
    t = predict(DL580, vm(vcpus), V55)
    assert t.vnuma_nodes == nodes
    assert t.vnuma_exposed is (vcpus > 8)


def test_paper_64_vcpu_prefer_ht_gives_four_nodes_of_16():
    """001, "1 VM x 64 vCPU Configuration": numa.vcpu.preferHT=TRUE → 4 vNUMA nodes of 16."""
    t = predict(DL580, vm(64, advanced={"numa.vcpu.preferHT": "TRUE"}), V55)
    assert t.vnuma_nodes == (16, 16, 16, 16)
    assert t.balanced and t.physical_nodes_spanned == 4 and t.uses_hyperthreads


def test_paper_64_vcpu_default_is_unbalanced_over_four_nodes():
    t = predict(DL580, vm(64), V55)
    assert not t.balanced
    assert t.physical_nodes_spanned == 4
    assert "7 vNUMA nodes [10×6, 4] over 4 physical nodes" in t.summary()


@pytest.mark.parametrize(("cps", "nodes"), [(4, 8), (2, 16)])
def test_paper_cores_per_socket_splits_vnuma_pre_65(cps, nodes):
    """001, cores-per-socket table: 32 vCPU with 4 (2) cores per socket → 8 (16) vNUMA nodes on 5.5."""
    t = predict(DL580, vm(32, cores_per_socket=cps), V55)
    assert len(t.vnuma_nodes) == nodes and set(t.vnuma_nodes) == {cps}
    assert t.sockets == 32 // cps


def test_split_fill_rule_matches_every_documented_case():
    assert split_fill(64, 10) == (10,) * 6 + (4,)
    assert split_fill(64, 20) == (16,) * 4
    assert split_fill(16, 10) == (8, 8)
    assert split_fill(32, 10) == (8,) * 4
    assert split_fill(12, 10) == (6, 6)  # FD numa-deep-dive part 5
    assert split_fill(36, 20) == (18, 18)  # FD 2022-03-11 vNUMA mismatch


# --- vsphere-facts.md worked examples (Frank Denneman's posts, VMware docs) ----------------

def test_10_vcpu_on_10_core_node_has_no_vnuma_60():
    """FD 2016-12-12 decoupling post: 10 vCPU on 10-core node, 6.0 → one node, no vNUMA."""
    t = predict(host(10), vm(10), Version.parse("6.0"))
    assert not t.vnuma_exposed and t.numa_clients == (10,)


def test_16_vcpu_cps2_on_60_is_eight_nodes_of_two():
    """FD 2016-12-12: 6.0 with CPS 2 → 8 VPDs of 2 (vNUMA follows cores per socket)."""
    t = predict(host(10), vm(16, cores_per_socket=2), Version.parse("6.0"))
    assert t.vnuma_nodes == (2,) * 8


def test_16_vcpu_cps2_on_65_is_two_nodes_of_eight():
    """FD 2016-12-12: 6.5 decouples cores per socket from vNUMA → 2 nodes of 8, 8 sockets × 2."""
    t = predict(host(10), vm(16, cores_per_socket=2), Version.parse("6.5"))
    assert t.vnuma_nodes == (8, 8)
    assert (t.sockets, t.cores_per_socket) == (8, 2)


def test_follow_cores_per_socket_restores_old_behaviour_on_67():
    """vSphere 6.5/6.7 Virtual NUMA Controls: numa.vcpu.followcorespersocket = 1."""
    t = predict(
        host(10), vm(16, cores_per_socket=2, advanced={"numa.vcpu.followcorespersocket": "1"}), Version.parse("6.7")
    )
    assert t.vnuma_nodes == (2,) * 8
    h = host(10, follow_cores_per_socket=True)
    assert predict(h, vm(16, cores_per_socket=2), Version.parse("7.0")).vnuma_nodes == (2,) * 8


def test_12_vcpu_prefer_ht_fits_one_node_65():
    """FD numa-deep-dive part 5: 12 vCPU + preferHT on 10c/20t → one client, no vNUMA."""
    t = predict(host(10), vm(12, cores_per_socket=12, advanced={"numa.vcpu.preferHT": "TRUE"}), Version.parse("6.5"))
    assert not t.vnuma_exposed and t.numa_clients == (12,)


def test_host_wide_prefer_ht():
    """KB 2003582: host Numa.PreferHT = 1 has the same effect for every VM."""
    t = predict(host(10, prefer_ht=True), vm(12), Version.parse("7.0"))
    assert t.numa_clients == (12,) and t.prefer_ht


def test_cpu_hot_add_disables_vnuma_70():
    """KB 2040375 / FD 2017-04-14: hot-add → guest UMA, 2 clients, memory interleaved."""
    t = predict(host(10), vm(12, cpu_hot_add=True), Version.parse("7.0"))
    assert not t.vnuma_exposed and t.vnuma_nodes == (12,)
    assert t.numa_clients == (6, 6) and t.memory_interleaved


def test_cpu_hot_add_no_effect_when_vm_fits_a_node():
    t = predict(host(10), vm(8, cpu_hot_add=True), Version.parse("7.0"))
    assert t.numa_clients == (8,) and not t.memory_interleaved


def test_vsphere8_allow_hotadd_keeps_vnuma():
    """vSphere 8 docs: numa.allowHotadd lets a hot-add VM keep a vNUMA topology (hw 20)."""
    t = predict(
        host(10),
        vm(12, cpu_hot_add=True, hardware_version=20, advanced={"numa.allowHotadd": "TRUE"}),
        Version.parse("8.0"),
    )
    assert t.vnuma_exposed and t.vnuma_nodes == (6, 6)


def test_30_vcpu_cps2_clients_keep_sockets_whole_70():
    """FD 2021-12-02: 30 vCPU with CPS 2 on 2×20 cores → clients of 16 + 14."""
    t = predict(host(20), vm(30, cores_per_socket=2), Version.parse("7.0"))
    assert sorted(t.numa_clients) == [14, 16]
    assert predict(host(20), vm(30, cores_per_socket=15), Version.parse("7.0")).numa_clients == (15, 15)


def test_40_vcpu_cps20_on_10_core_nodes_60_spans_packages():
    """FD 2016-12-12: 6.0, 40 vCPU CPS 20 on 4×10 → 2 VPDs of 20, each over 2 PPDs."""
    h = host(10, sockets=4)
    t = predict(h, vm(40, cores_per_socket=20), Version.parse("6.0"))
    assert t.vnuma_nodes == (20, 20) and t.numa_clients == (10, 10, 10, 10)


def test_vsphere8_assigned_at_power_on_is_marked_uncertain():
    """FD 2022-10-25 / vSphere 8 vTopology: 24 vCPU on 2×20 → 2 nodes × 12; CPS choice undocumented."""
    t = predict(host(20), vm(24, hardware_version=20), Version.parse("8.0"))
    assert t.vnuma_nodes == (12, 12)
    assert t.cores_per_socket_source == "assigned at power-on" and t.cores_per_socket == 12
    assert any("power-on" in u for u in t.uncertain)


def test_vsphere8_cores_per_node_manual():
    """FD 2022-11-03: vSphere 8 manual topology, numa.vcpu.coresPerNode = 6 → 2 nodes × 6."""
    t = predict(
        host(20),
        vm(12, hardware_version=20, advanced={"numa.vcpu.coresPerNode": "6", "numa.vcpu.min": "6"}),
        Version.parse("8.0"),
    )
    assert t.vnuma_nodes == (6, 6)


def test_memory_wider_than_node_is_remote():
    """FD 2022-11-03: 12 vCPU / 384 GB on 2×20c with 256 GB per node → one node, ~128 GB remote."""
    t = predict(host(20, memory="512GB"), vm(12, memory="384GB"), Version.parse("8.0"))
    assert not t.vnuma_exposed and t.memory_remote_mib == 128 * 1024


def test_epyc_naples_small_nodes_numa_vcpu_min():
    """FD 2019-02-19: EPYC 7401 (6-core nodes): 8 vCPU → one VPD but 2 clients; numa.vcpu.min=6 exposes 2×4."""
    h = host(24, nps=4)
    t = predict(h, vm(8), Version.parse("6.5"))
    assert not t.vnuma_exposed and t.numa_clients == (4, 4)
    t = predict(h, vm(8, advanced={"numa.vcpu.min": "6"}), Version.parse("6.5"))
    assert t.vnuma_nodes == (4, 4)
    t = predict(h, vm(8, advanced={"numa.vcpu.preferHT": "TRUE"}), Version.parse("6.5"))
    assert t.numa_clients == (8,)


def test_snc_halves_the_node():
    """FD 2022-09-21 (SNC) + 6.5+ balance rule: 10 vCPU on 18-core socket with SNC-2 → 2 × 5."""
    assert predict(host(18, nps=2), vm(10), Version.parse("7.0")).vnuma_nodes == (5, 5)
    assert predict(host(18), vm(10), Version.parse("7.0")).vnuma_nodes == (10,)


def test_amd_nps4_profile():
    h = load_profile("amd-epyc-9654-2s-nps4")
    assert (h.nodes, h.cores_per_node) == (8, 24)
    t = predict(h, vm(32, hardware_version=20), Version.parse("8.0"))
    assert t.vnuma_nodes == (16, 16)


def test_cpu_affinity_takes_vm_out_of_numa_management():
    """vSphere Resource Management, "Specifying NUMA Controls": CPU affinity → not NUMA-managed."""
    t = predict(DL580, vm(8, cpu_affinity="0-7"), V55)
    assert not t.numa_managed and t.numa_clients == ()
    assert t.physical_nodes_spanned == 1


def test_persisted_autosize_value_wins_until_vcpus_change():
    """FD numa-deep-dive part 5: numa.autosize.vcpu.maxPerVirtualNode persists the first layout."""
    t = predict(
        DL580, vm(64, advanced={"numa.vcpu.preferHT": "TRUE", "numa.autosize.vcpu.maxPerVirtualNode": "10"}), V55
    )
    assert t.vnuma_nodes == (10,) * 6 + (4,)


def test_old_hardware_cannot_expose_vnuma():
    """VMware docs: the virtual NUMA topology is available to hardware version 8 and later."""
    t = predict(DL580, vm(16, hardware_version=7), V55)
    assert not t.vnuma_exposed


def test_max_per_machine_node_forces_smaller_clients():
    """vSphere docs, numa.vcpu.maxPerMachineNode."""
    t = predict(host(20), vm(16, advanced={"numa.vcpu.maxPerMachineNode": "8"}), Version.parse("7.0"))
    assert t.numa_clients == (8, 8)


def test_nondivisible_layout_on_65_is_flagged_uncertain():
    t = predict(DL580, vm(64), Version.parse("6.7"))
    assert t.uncertain and not t.balanced

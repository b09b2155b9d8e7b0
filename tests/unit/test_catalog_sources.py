"""The catalog's numbers against the documents that state them (issue 17).

Each test names its document; the worked examples are the documents' own or follow directly
from their tables.
"""

from __future__ import annotations

import pytest

from advisor.facts.facts import facts_for
from advisor.facts.sql import recommended_maxdop, soft_numa_split, sql_year
from advisor.load.hosts import load_profile
from advisor.model.spec import VM, Host
from advisor.model.versions import Version, ft_limits, guest_max_sockets, guest_minimum_mib, hw_limits, max_hw_for


def _vm(**fields) -> VM:
    return VM.model_validate({"name": "vm", "vcpus": 8, "memory": "32GB", **fields})


def _host(**fields) -> Host:
    base = {"name": "h", "sockets": 2, "cores_per_socket": 20, "threads_per_core": 2, "memory": "512GB",
            "core_mhz": 2000, "esxi": "8.0"}
    return Host.model_validate({**base, **fields})


# --- Microsoft, "Configure the max degree of parallelism Server Configuration Option" and
# --- "Soft-NUMA (SQL Server)" --------------------------------------------------------------------

@pytest.mark.parametrize(("cores", "nodes"), [(8, (8,)), (9, (9,)), (10, (5, 5)), (12, (6, 6)), (16, (8, 8)),
                                              (20, (7, 7, 6)), (24, (8, 8, 8)), (32, (8, 8, 8, 8))])
def test_soft_numa_nodes_hold_five_to_nine_cores(cores, nodes):
    """Soft-NUMA: more than eight cores per node -> soft nodes of ideally 8, between 5 and 9."""
    assert soft_numa_split(cores) == nodes
    assert all(5 <= n <= 9 for n in nodes) or cores <= 8


@pytest.mark.parametrize(("year", "guest_nodes", "maxdop", "table"), [
    (2019, (16,), 8, "2016+"),        # one 16-vCPU node: 2 soft nodes of 8
    (2019, (12,), 6, "2016+"),        # one 12-vCPU node: 2 soft nodes of 6 (not 8, not 12)
    (2017, (12, 12), 6, "2016+"),     # two vNUMA nodes of 12: four soft nodes of 6
    (2019, (8, 8, 8, 8), 8, "2016+"), # nodes of 8: no soft split, 8 per node
    (2019, (4,), 4, "2016+"),         # one node of <= 8 logical processors: that number
    (2014, (16, 16), 8, "2008-2014"), # 2014: hardware nodes; > 8 per node -> 8
    (2012, (6, 6), 6, "2008-2014"),   # <= 8 per node -> the node's processors
    (2014, (16,), 8, "2008-2014"),    # single node > 8 -> 8
])
def test_microsoft_maxdop_tables(year, guest_nodes, maxdop, table):
    value, why = recommended_maxdop(year, guest_nodes)
    assert value == maxdop
    assert table in why  # the message says which table it used


def test_version_text_gives_the_table():
    assert sql_year("SQL Server 2016 SP2") == 2016 and sql_year("2008 R2") == 2008 and sql_year(None) == 0
    assert "version not stated" in recommended_maxdop(0, (16,))[1]


def test_single_node_vm_at_maxdop_0_gets_microsofts_value():
    """The 16-vCPU single-node VM at MAXDOP 0 that got no advice before."""
    host = load_profile("intel-xeon-6348-2s")
    vm = _vm(vcpus=16, memory="128GB", workload="sql-server", sql={"version": "2019", "maxdop": 0})
    facts, _ = facts_for(host, vm, host.esxi)
    assert facts["sql.effective_maxdop"] == 16 and facts["sql.recommended_maxdop"] == 8
    assert "2 soft-NUMA nodes of 8" in facts["sql.maxdop_basis"]


# --- VMware: hardware versions, configuration maximums, Fault Tolerance -----------------------------

@pytest.mark.parametrize(("esxi", "hw"), [("6.5", 13), ("6.7", 14), ("6.7 U2", 15), ("7.0", 17), ("7.0 U1", 18),
                                          ("7.0 U3", 19), ("8.0", 20), ("8.0 U2", 21), ("8.0 U3", 21)])
def test_newest_hardware_version_each_esxi_runs(esxi, hw):
    """Virtual machine hardware versions (KB 1003746, the Automation API's Hardware.Version)."""
    assert max_hw_for(Version.parse(esxi)) == hw


def test_hardware_version_limits():
    """vSphere 8 VM compatibility table: cores per socket 64 up to hw19, 256 from hw20; memory."""
    assert hw_limits(19).max_cores_per_socket == 64 and hw_limits(20).max_cores_per_socket == 256
    assert hw_limits(10).max_memory_mib == 1011 * 1024 and hw_limits(18).max_memory_mib == 24560 * 1024


@pytest.mark.parametrize(("version", "edition", "vcpus"), [
    ("6.0", "standard", 2), ("6.0", "enterprise-plus", 4), ("6.7", "enterprise", 2), ("8.0", "enterprise-plus", 8)])
def test_fault_tolerance_vcpus_per_version_and_edition(version, edition, vcpus):
    """Fault Tolerance Requirements, Limits, and Licensing (GUID-57929CF0) per release."""
    assert ft_limits(Version.parse(version), edition)[0] == vcpus


def test_a_hardware_version_newer_than_the_host_is_flagged():
    host = _host(esxi="7.0 U3")
    facts, _ = facts_for(host, _vm(hardware_version=21), host.esxi)
    assert facts["vm.hw_newer_than_host"] and facts["host.max_hw"] == 19
    facts, _ = facts_for(host, _vm(hardware_version=19), host.esxi)
    assert not facts["vm.hw_newer_than_host"]


# --- vSphere 8 latency sensitivity High with Hyperthreading (GUID-2B67DC91, GUID-F5DAC793) ---------

def test_vht_full_reservation_is_vcpus_over_threads_times_clock():
    """The document's own example: 20 vCPUs at 2 GHz need 40 GHz with High, 20 GHz with vHT."""
    host = _host()
    high, _ = facts_for(host, _vm(vcpus=20, latency_sensitivity="high", hardware_version=20), host.esxi)
    vht, _ = facts_for(host, _vm(vcpus=20, latency_sensitivity="high-ht", hardware_version=20), host.esxi)
    assert high["vm.full_cpu_reservation_mhz"] == 40000
    assert vht["vm.full_cpu_reservation_mhz"] == 20000
    assert vht["vm.exclusive_cores"] == 10 and high["vm.exclusive_cores"] == 20


def test_vht_is_refused_before_vsphere_8_and_hardware_20():
    host = _host(esxi="7.0 U3")
    facts, _ = facts_for(host, _vm(latency_sensitivity="high-ht"), host.esxi)
    assert facts["vm.high_ht_supported"] is False
    host8 = _host()
    facts, _ = facts_for(host8, _vm(latency_sensitivity="high-ht", hardware_version=19), host8.esxi)
    assert facts["vm.high_ht_supported"] is False
    facts, _ = facts_for(host8, _vm(latency_sensitivity="high-ht", hardware_version=20), host8.esxi)
    assert facts["vm.high_ht_supported"] is True


def test_vht_is_not_written_as_an_undocumented_vmx_value():
    """The API level is 'high' plus simultaneousThreads; no documented .vmx key carries vHT."""
    from advisor.vmx.mapping import vm_to_vmx

    out = vm_to_vmx(_vm(vcpus=20, latency_sensitivity="high-ht", cpu_reservation="full"), 2000)
    assert out.get("sched.cpu.latencySensitivity") != "high-ht"
    assert out["sched.cpu.min"] == "20000"


# --- Microsoft, "Hardware requirements for Windows Server" -----------------------------------------

def test_windows_server_minimum_memory():
    assert guest_minimum_mib("windows2019srv-64") == 512
    assert guest_minimum_mib("windows2022srvnext-64") == 512
    assert guest_minimum_mib("ubuntu-64") == 0  # no documented minimum: no rule


# --- Microsoft, "Comparison of locks and limits in Windows Server" ----------------------------------
# https://learn.microsoft.com/windows-server/get-started/locks-limits: "Maximum number of 64-bit
# sockets: 64" for Standard and Datacenter of 2016, 2019, 2022 and 2025. Windows client editions'
# socket limits are in no Microsoft document: no figure, no rule.

@pytest.mark.parametrize("guest", ["windows9srv-64", "windows2019srv-64", "windows2019srvNext-64",
                                   "windows2022srvNext-64"])
def test_windows_server_uses_at_most_64_sockets(guest):
    assert guest_max_sockets(guest) == 64


@pytest.mark.parametrize("guest", ["windows9-64", "windows11-64", "rhel9_64Guest", None])
def test_no_socket_limit_without_a_document(guest):
    assert guest_max_sockets(guest) == 0


@pytest.mark.parametrize(("vcpus", "cps", "fix"), [
    (96, None, 48),    # 2 vNUMA nodes of 48 on the 2 x 56 host: one socket per node
    (64, None, None),  # 64 sockets: within the limit
    (96, 2, None),     # 48 sockets
])
def test_windows_server_socket_limit_and_its_fix(vcpus, cps, fix):
    host = load_profile("intel-xeon-8480plus-2s")
    vm = VM(name="app", vcpus=vcpus, cores_per_socket=cps, memory=262144, hardware_version=20,
            guest_os="windows2019srvNext-64")
    facts, _ = facts_for(host, vm, Version(8, 0))
    over = facts["vm.virtual_sockets"] > facts["vm.guest_max_sockets"]
    assert over == (fix is not None)
    if fix is not None:
        assert facts["vm.guest_socket_cores_per_socket"] == fix


@pytest.mark.parametrize(("vcpus", "limit", "cps"), [(130, 64, 5), (128, 64, 2), (65, 64, 5), (10, 0, 1)])
def test_fewest_cores_per_socket_divides_the_vcpus(vcpus, limit, cps):
    """vSphere needs cores per socket to divide the vCPUs; the fix is the smallest such value."""
    from advisor.facts.limits import fewest_cores_per_socket

    assert fewest_cores_per_socket(vcpus, limit) == cps


# --- Microsoft, "Compute capacity limits by edition of SQL Server" ---------------------------------
# https://learn.microsoft.com/sql/sql-server/compute-capacity-limits-by-edition-of-sql-server:
# Standard "lesser of 4 sockets or 32 cores" (footnote: 24 in SQL Server 2022 and earlier), Express
# "lesser of 1 socket or 4 cores"; Web "lesser of 4 sockets or 16 cores" ("Editions and supported
# features of SQL Server 2017"). At most 64 logical cores per NUMA node; 2022 CU11 refuses to start.

@pytest.mark.parametrize(("edition", "version", "caps"), [
    ("standard", "2014", (4, 16)), ("standard", "2022", (4, 24)), ("standard", "2025", (4, 32)),
    ("web", "2019", (4, 16)), ("express", "2022", (1, 4)), ("enterprise", "2022", (0, 0)),
    ("developer", "2025", (0, 0)),
])
def test_edition_caps_per_version(edition, version, caps):
    from advisor.facts.sql import edition_caps

    assert edition_caps(edition, sql_year(version)) == caps


@pytest.mark.parametrize(("vcpus", "cps", "edition", "usable", "fix"), [
    (16, None, "standard", 4, 16),    # 16 sockets of 1 core: the first 4 sockets only; fix: 1 socket per vNUMA node
    (16, 4, "standard", 16, None),    # 4 sockets of 4
    (32, 8, "standard", 24, None),    # 4 sockets, but 24 cores (SQL008's subject)
    (8, None, "express", 1, 8),       # 1 socket of 1 core
    (16, None, "enterprise", 16, None),
])
def test_edition_uses_the_lesser_of_sockets_and_cores(vcpus, cps, edition, usable, fix):
    host = load_profile("intel-xeon-6348-2s")
    vm = _vm(vcpus=vcpus, cores_per_socket=cps, memory="64GB", workload="sql-server",
             sql={"version": "2019", "edition": edition, "maxdop": 8, "cost_threshold": 50})
    facts, _ = facts_for(host, vm, host.esxi)
    assert facts["sql.edition_usable_vcpus"] == usable
    if fix is not None:
        assert facts["vm.virtual_sockets"] > facts["sql.edition_max_sockets"]
        assert facts["sql.edition_socket_cores_per_socket"] == fix


@pytest.mark.parametrize(("host_name", "vcpus", "advanced", "largest"), [
    ("amd-epyc-9654-2s-nps1", 96, {}, 96),     # fits one 96-core node: no vNUMA, one node of 96
    ("amd-epyc-9654-2s-nps1", 96, {"numa.vcpu.maxPerVirtualNode": "48"}, 48),
    ("amd-epyc-9654-2s-nps4", 96, {}, 24),     # 24-core nodes: vNUMA nodes of 24
    ("intel-xeon-6348-2s", 56, {}, 28),
])
def test_sql_numa_node_size_against_64(host_name, vcpus, advanced, largest):
    host = load_profile(host_name)
    vm = _vm(vcpus=vcpus, cores_per_socket=vcpus if not advanced else 48, memory="256GB", hardware_version=20,
             workload="sql-server", advanced=advanced, sql={"version": "2022", "maxdop": 8, "cost_threshold": 50})
    facts, _ = facts_for(host, vm, host.esxi)
    assert facts["sql.largest_guest_node"] == largest
    assert facts["sql.max_node_processors"] == 64
    assert facts["sql.node_size_fix"] == (48 if vcpus == 96 else 56)


@pytest.mark.parametrize(("vcpus", "size"), [(96, 48), (128, 64), (130, 26), (64, 64), (100, 50)])
def test_even_node_size(vcpus, size):
    from advisor.facts.sql import even_node_size

    assert even_node_size(vcpus, 64) == size


# --- references a reader can follow (rules/references/seeds.yaml) -----------------------------------

def test_a_seed_address_that_is_not_the_document_says_so():
    """The white paper cites VMware's own address (with the public copy beside it); a seed that
    falls back to the blog's front page carries a note saying so."""
    from advisor.engine.references import FOLLOWABLE, seed_table

    table = seed_table()
    paper = table["001_a02093f92473a34b.txt"]
    assert paper["url"].startswith("https://www.vmware.com/content/dam/digitalmarketing/vmware/en/pdf/techpaper/")
    assert FOLLOWABLE.match(paper["copy"]) and paper["note"]
    for seed, entry in table.items():
        if entry["url"].rstrip("/") == "https://blogs.vmware.com/performance":
            assert entry.get("note"), f"{seed} points at the blog's front page without saying so"
        for section, url in (entry.get("sections") or {}).items():
            front_page = str(url).rstrip("/") == "https://blogs.vmware.com/performance"
            assert FOLLOWABLE.match(str(url)) and not front_page, section

"""Issue 35: each class as the document that settles it states it, from the document's own examples.

Every test names the document (its URL) it is built from; ../shared/reference/sources.md lists
them (D = VMware/Broadcom, F = Frank Denneman).
"""

from __future__ import annotations

from advisor.engine.catalog import builtin_catalog
from advisor.engine.engine import Evaluator, Policy
from advisor.engine.specs import evaluate_spec
from advisor.load.specfile import spec_from_root

CATALOG = builtin_catalog()

KB_415687 = "https://knowledge.broadcom.com/external/article/415687"
DEEP_DIVE_5 = "https://frankdenneman.nl/2016/08/22/numa-deep-dive-part-5-esxi-vmkernel-numa-constructs/"
SEED_001 = "seed 001_a02093f92473a34b.txt, '8 Physical Cores versus 8 Logical Processors' (59%)"


def check(root: dict):
    evaluator = Evaluator(CATALOG, Policy())
    evaluate_spec(spec_from_root(root, "spec.yaml", lenient_shape=True), evaluator)
    return evaluator.finish()


def host(sockets: int, cores: int, memory: str = "512GB", esxi: str = "7.0", **extra) -> dict:
    return {"name": f"h{sockets}x{cores}", "sockets": sockets, "cores_per_socket": cores, "threads_per_core": 2,
            "memory": memory, "esxi": esxi, **extra}


def one(root: dict):
    """The only VM's result and its findings by rule."""
    run = check(root)
    return run.vms[0], {f.rule: f for f in run.findings}


# -- class 1: preferHT only where the sources measured it (KB 415687, part 5, seed 001) ----------

def test_class1_wide_vm_that_fits_the_hosts_cores_gets_prefer_ht_only_as_a_suggestion():
    # KB_415687: CPU-bound or large VMs contend on sibling threads; DEEP_DIVE_5: test first.
    # 22 vCPUs on 4 x 10 cores: [8, 8, 6] on cores; preferHT would be [11, 11] on threads.
    vm, found = one({"host": "hp-dl580-g7", "vms": [{"name": "app", "vcpus": 22, "memory": "64GB"}]})
    assert "NUMA001" not in found
    assert "numa.vcpu.preferHT" not in vm.recommended_vmx
    assert found["NUMA013"].fix["kind"] == "suggest" and "[11×2]" in found["NUMA013"].message
    assert "memory- or cache-bound" in found["NUMA013"].fix["condition"]
    assert "NUMA003" in found  # the resize that balances the nodes on cores


def test_class1_twenty_vcpus_on_8_core_nodes_is_not_written():
    vm, found = one({"host": host(4, 8), "vms": [{"name": "app", "vcpus": 20, "memory": "64GB"}]})
    assert "numa.vcpu.preferHT" not in vm.recommended_vmx
    assert {"NUMA013", "NUMA003"} <= set(found) and "NUMA001" not in found


def test_class1_sql_server_gets_no_prefer_ht_at_all():
    # SEED_001: for SQL Server 8 physical cores beat 8 logical processors by 59%.
    vm, found = one({"host": "hp-dl580-g7", "vms": [{"name": "sql", "vcpus": 22, "memory": "64GB",
                                                          "workload": "sql-server"}]})
    assert "numa.vcpu.preferHT" not in vm.recommended_vmx
    assert not any("numa.vcpu.preferHT" in s.get("vmx", {}) for s in vm.suggested_vmx)
    assert not {"NUMA001", "NUMA013"} & set(found)


def test_class1_the_measured_case_stays_written():
    # seed 001, "1 VM x 64 vCPU Configuration": 64 vCPUs on 40 cores, [10×6, 4] -> [16×4], +30%.
    vm, found = one({"host": "hp-dl580-g7", "vms": [{"name": "sql", "vcpus": 64, "memory": "256GB",
                                                          "workload": "sql-server"}]})
    assert vm.recommended_vmx["numa.vcpu.preferHT"] == "TRUE" and "NUMA013" not in found


# -- classes 2 and 3: memory as an input to the layout ----------------------------------------

VROOM_RULES = "https://blogs.vmware.com/performance/2017/03/virtual-machine-vcpu-and-vnuma-rightsizing-rules-of-thumb.html"
VNUMA_DOC = ("https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-resource-management/"
             "GUID-17B629DE-75DF-4C23-B831-08107007FBB9.html")
DENNEMAN_V8_MEMORY = ("https://frankdenneman.nl/2022/11/03/"
                      "vsphere-8-cpu-topology-for-large-memory-footprint-vms-exceeding-numa-boundaries/")
DENNEMAN_2017 = "https://frankdenneman.nl/2017/10/05/vm-memory-config-exceeds-memory-capacity-physical-numa-node/"


def test_class2_wide_vm_with_more_memory_per_node_than_a_node_holds():
    # VNUMA_DOC: the virtual NUMA topology does not consider the configured memory. VROOM_RULES
    # rule 3: divide the vCPUs evenly over the fewest nodes that hold the memory (768 GB on 256 GB
    # nodes needs 3; 28 does not divide by 3, so 4 nodes of 7).
    _vm, found = one({"host": host(4, 14, memory="1TB"), "vms": [{"name": "big", "vcpus": 28, "memory": "768GB"}]})
    finding = found["NUMA014"]
    assert "262144 MiB must be remote" in finding.message and finding.fix["kind"] == "suggest"
    assert finding.fix["vmx"] == {"numa.vcpu.maxPerVirtualNode": "7"}
    fixed, after = one({"host": host(4, 14, memory="1TB"), "vms": [{"name": "big", "vcpus": 28, "memory": "768GB",
                                                                   "advanced": {"numa.vcpu.maxPerVirtualNode": "7"}}]})
    assert fixed.topology["memory_remote_mib"] == 0 and "NUMA014" not in after


def test_class2_prefer_ht_vm_whose_memory_does_not_fit_its_node():
    # DEEP_DIVE_5: with preferHT make sure the VM's memory fits the node. 24 vCPUs / 400 GB on one
    # 256 GB node: 144 GB remote.
    _vm, found = one({"host": host(4, 14, memory="1TB"), "vms": [{"name": "ht", "vcpus": 24, "memory": "400GB",
                                                                "advanced": {"numa.vcpu.preferHT": "TRUE"}}]})
    assert "147456 MiB must be remote" in found["NUMA014"].message
    assert found["NUMA014"].fix["vmx"] == {"numa.vcpu.maxPerVirtualNode": "12"}


def test_class2_on_vsphere_8_the_fix_is_the_cpu_topology():
    _vm, found = one({"host": host(4, 14, memory="1TB", esxi="8.0"),
                     "vms": [{"name": "big", "vcpus": 28, "memory": "768GB", "hardware_version": 20}]})
    assert found["NUMA014"].fix["vmx"] == {"numa.vcpu.coresPerNode": "7"}
    assert found["NUMA014"].fix["resize"] == {"cores_per_socket": "7"}


def test_class2_memory_no_even_split_can_hold_is_reduced():
    # 2 nodes of 128 GB, 300 GB: the host cannot hold it locally whatever the split.
    _vm, found = one({"host": host(2, 10, memory="256GB"), "vms": [{"name": "big", "vcpus": 16, "memory": "300GB"}]})
    finding = found["NUMA014"]
    assert "vmx" not in finding.fix and finding.fix["resize"] == {"memory": "262144"}


def test_class3_denneman_12_vcpu_384_gb_names_the_vsphere_8_topology():
    # DENNEMAN_V8_MEMORY: 12 vCPUs / 384 GB on 2 x 20 cores with 256 GB per node; by default
    # 226 GB local and 155 GB remote; with cores per socket 6 and two NUMA nodes all local.
    two_by_20 = host(2, 20, esxi="8.0")
    _vm, found = one({"host": two_by_20, "vms": [{"name": "big", "vcpus": 12, "memory": "384GB",
                                                 "hardware_version": 20}]})
    finding = found["NUMA007"]
    assert finding.fix["vmx"] == {"numa.vcpu.coresPerNode": "6"} and finding.fix["resize"] == {"cores_per_socket": "6"}
    assert "cores per socket 6" in finding.fix["text"]
    fixed, after = one({"host": two_by_20, "vms": [{"name": "big", "vcpus": 12, "cores_per_socket": 6,
                                                    "memory": "384GB", "hardware_version": 20,
                                                    "advanced": {"numa.vcpu.coresPerNode": "6"}}]})
    assert fixed.topology["vnuma_nodes"] == [6, 6] and not {"NUMA007", "NUMA014"} & set(after)


def test_class3_numa_consolidate_false_leaves_nothing_remote():
    # DENNEMAN_2017: numa.consolidate = FALSE spreads the VM over more NUMA clients so its memory
    # is balanced over the nodes.
    vm, found = one({"host": host(2, 20, esxi="7.0"), "vms": [{"name": "big", "vcpus": 12, "memory": "384GB",
                                                              "advanced": {"numa.consolidate": "FALSE"}}]})
    assert vm.topology["memory_remote_mib"] == 0 and "NUMA007" not in found


def test_class3_small_vm_before_vsphere_8_lowers_numa_vcpu_min():
    # DENNEMAN_2017: 8 vCPUs / 96 GB on 2 x 12 cores of 64 GB; below numa.vcpu.min (9) the VM
    # needs the minimum lowered to get two nodes.
    _vm, found = one({"host": host(2, 12, memory="128GB", esxi="6.7"),
                     "vms": [{"name": "db", "vcpus": 8, "memory": "96GB"}]})
    fix = found["NUMA007"].fix
    assert fix["vmx"] == {"numa.vcpu.maxPerVirtualNode": "4", "numa.vcpu.min": "4"}
    fixed, after = one({"host": host(2, 12, memory="128GB", esxi="6.7"),
                        "vms": [{"name": "db", "vcpus": 8, "memory": "96GB", "advanced": fix["vmx"]}]})
    assert fixed.topology["memory_remote_mib"] == 0 and "NUMA007" not in after


# -- class 4: cores per socket and manual node sizes that misalign the guest's view ------------

DENNEMAN_CPS = "https://frankdenneman.nl/2021/12/02/vsphere-7-cores-per-socket-and-virtual-numa/"
ADVANCED_VNUMA = ("https://docs.vmware.com/en/VMware-vSphere/6.0/com.vmware.vsphere.resmgmt.doc/"
                  "GUID-89C52376-60C3-452A-A269-9F4F7FE489C6.html")
NUMA_CONTROLS = ("https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-resource-management/"
                 "GUID-68817061-CAA9-4997-8384-3C1A0DF7F3E9.html")


def test_class4_a_socket_split_between_vnuma_nodes_is_a_warning_not_only_a_note():
    # VROOM_RULES and DENNEMAN_CPS: align virtual sockets with vNUMA nodes. 40 vCPUs at 8 per
    # socket on 2 x 20 cores: nodes of 20, five sockets of 8, one split 4 + 4.
    _vm, found = one({"host": host(2, 20), "vms": [{"name": "app", "vcpus": 40, "cores_per_socket": 8,
                                                   "memory": "128GB"}]})
    assert found["NUMA015"].severity == "warning" and found["NUMA015"].fix["resize"] == {"cores_per_socket": "20"}
    _, after = one({"host": host(2, 20), "vms": [{"name": "app", "vcpus": 40, "cores_per_socket": 20,
                                                  "memory": "128GB"}]})
    assert "NUMA015" not in after


def test_class4_windows_default_two_cores_per_socket_stays_quiet():
    # DENNEMAN_CPS: keep the default; 30 vCPUs at 2 per socket is a minor imbalance.
    _, found = one({"host": host(2, 20), "vms": [{"name": "app", "vcpus": 30, "cores_per_socket": 2,
                                                  "memory": "128GB", "guest_os": "windows2019srv-64"}]})
    assert not {"NUMA009", "NUMA015"} & set(found)


def test_class4_max_per_virtual_node_4_makes_two_nodes_look_like_four():
    # ADVANCED_VNUMA: numa.vcpu.maxPerVirtualNode sets the vNUMA node size by hand.
    vm, found = one({"host": host(2, 10, memory="256GB"), "vms": [{"name": "app", "vcpus": 16, "memory": "64GB",
                                                                    "advanced": {"numa.vcpu.maxPerVirtualNode": "4"}}]})
    assert vm.topology["vnuma_nodes"] == [4, 4, 4, 4] and vm.topology["physical_nodes_spanned"] == 2
    assert found["NUMA016"].fix["vmx"] == {"numa.vcpu.maxPerVirtualNode": "REMOVE"}


# -- class 6: NUMA controls that squeeze or split --------------------------------------------

def test_class6_node_affinity_forcing_16_vcpus_onto_a_12_core_node():
    # NUMA_CONTROLS: with NUMA node affinity the VM is scheduled only on the listed nodes.
    _, found = one({"host": host(2, 12, memory="256GB"), "vms": [{"name": "app", "vcpus": 16, "memory": "64GB",
                                                                   "advanced": {"numa.nodeAffinity": "0"}}]})
    assert "12 cores" in found["NUMA017"].message
    assert found["NUMA017"].fix["vmx"] == {"numa.nodeAffinity": "REMOVE"}


def test_class6_max_per_machine_node_split_has_a_fix_that_settles():
    # ADVANCED_VNUMA: numa.vcpu.maxPerMachineNode caps the vCPUs per NUMA client; removing it is
    # what homes the VM on one node again.
    vm, found = one({"host": "dell-r720-e5-2697v2", "vms": [{"name": "db", "vcpus": 8, "memory": "32GB",
                                                             "advanced": {"numa.vcpu.maxPerMachineNode": "4"}}]})
    assert found["NUMA008"].fix["vmx"] == {"numa.vcpu.maxPerMachineNode": "REMOVE"}
    assert "numa.vcpu.maxPerMachineNode" not in vm.recommended_vmx  # the settled VM is without it


# -- class 8: decidable without a host ---------------------------------------------------------

LIMIT_DOC = ("https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-resource-management/"
             "GUID-117972E1-ECAF-4DA8-B8E5-B2ED1E3DB5E0.html")
# "Virtual Machine Conditions and Limitations for vMotion" (HOST006's reference)
VMOTION_LIMITS = ("https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-vcenter-esxi-management/"
                  "GUID-3D7B8E43-C291-4D85-9C49-F4F6F4F9FEC3.html")


def lint_vmx(tmp_path, body: str, host_ref: str | None = None):
    from advisor.engine.lint import LintJob, lint_paths

    vmx = tmp_path / "vm.vmx"
    vmx.write_text('.encoding = "UTF-8"\ndisplayName = "vm"\nmemsize = "4096"\n' + body)
    run = lint_paths([vmx], LintJob(rule_dirs=[], policy=Policy(), host_ref=host_ref, vsphere=None))
    return run, {f.rule: f for f in run.findings}


def test_class8_a_cpu_limit_below_any_server_clock_is_decided_without_a_host(tmp_path):
    # LIMIT_DOC: a limit caps the VM even on an idle host. 1104 MHz over 4 vCPUs is 276 MHz a
    # vCPU, below the slowest server core (rules/limits/hardware.yaml: 1,000-6,000 MHz).
    run, found = lint_vmx(tmp_path, 'numvcpus = "4"\nsched.cpu.max = "1104"\n')
    assert "any server core's 1000-6000 MHz" in found["SCHED007"].message
    assert not any(s.startswith("SCHED007") for vm in run.vms for s in vm.skipped)


def test_class8_a_limit_the_clock_decides_stays_not_evaluated(tmp_path):
    run, found = lint_vmx(tmp_path, 'numvcpus = "4"\nsched.cpu.max = "8000"\n')  # 2 GHz a vCPU
    assert "SCHED007" not in found
    assert any(s.startswith("SCHED007") for vm in run.vms for s in vm.skipped)


def test_class8_a_reservation_above_any_server_clock_is_decided_without_a_host(tmp_path):
    # LIMIT_DOC ("Reservation"): a vCPU can use at most one core's clock; 17.7 GHz on one vCPU is
    # above the fastest server core. Nothing is written: the full reservation needs the clock.
    _run, found = lint_vmx(tmp_path, 'numvcpus = "1"\nsched.cpu.min = "17700"\n')
    assert "SCHED008" in found and "resize" not in found["SCHED008"].fix


def test_class8_scsi_passthrough_of_a_host_device_pins_the_vm(tmp_path):
    # VMOTION_LIMITS: a device backed by the source host's hardware prevents migration.
    _run, found = lint_vmx(tmp_path, 'numvcpus = "1"\nscsi0.present = "TRUE"\nscsi0:1.present = "TRUE"\n'
                                    'scsi0:1.deviceType = "scsi-passthru"\n'
                                    'scsi0:1.fileName = "/vmfs/devices/cdrom/mpx.vmhba0:C0:T0:L0"\n')
    assert "scsi0:1" in found["HOST006"].message


# -- class 5: host BIOS NUMA modes ------------------------------------------------------------

KB_432801 = "https://knowledge.broadcom.com/external/article/432801/guidance-for-amd-epyc-bios-and-numa-conf.html"


def epyc(numa_mode: str, esxi: str = "8.0", nodes_per_socket: int = 8) -> dict:
    return {"name": "epyc", "cpu": "AMD EPYC 7763", "sockets": 2, "cores_per_socket": 64, "threads_per_core": 2,
            "numa_nodes_per_socket": nodes_per_socket, "memory": "1TB", "esxi": esxi, "numa_mode": numa_mode}


def test_class5_ccx_as_numa_on_esxi_8_is_flagged():
    # KB_432801 (ESXi 8.x/9.x): disable the CCX-as-NUMA option on modern ESXi.
    run = check({"host": epyc("NPS1, CCX-as-NUMA"), "vms": [{"name": "app", "vcpus": 8, "memory": "32GB"}]})
    [finding] = [f for f in run.findings if f.rule == "HOST007"]
    assert finding.fix["host"] == {"BIOS CCX-as-NUMA (L3 as NUMA)": "Disabled"}


def test_class5_nps_alone_and_older_esxi_are_not_flagged():
    # KB_432801 describes NPS 1/2/4 as a choice, not a fault, and covers ESXi 8.x/9.x only.
    for host_ in (epyc("NPS4", nodes_per_socket=4), epyc("L3 as NUMA", esxi="7.0")):
        run = check({"host": host_, "vms": [{"name": "app", "vcpus": 8, "memory": "32GB"}]})
        assert "HOST007" not in {f.rule for f in run.findings}


# -- class 9: vSphere 9 -----------------------------------------------------------------------

VSPHERE_FACTS_HW = "../shared/reference/vsphere-facts.md §3 (9.0: hardware version 22, 960 vCPUs)"
TIERING_SIZING = "https://blogs.vmware.com/cloud-foundation/?p=26970"  # active memory <= 50% of DRAM


def tiered(**extra) -> dict:
    return {"name": "tiered", "sockets": 2, "cores_per_socket": 32, "threads_per_core": 2, "memory": "512GB",
            "esxi": "9.0", "memory_tiering": True, **extra}


def test_class9_vsphere_9_limits_960_vcpus_and_hardware_version_22():
    big = {"name": "big9", "sockets": 8, "cores_per_socket": 64, "threads_per_core": 2, "memory": "24TB",
           "esxi": "9.0"}
    ok = check({"host": big, "vms": [{"name": "a", "vcpus": 960, "cores_per_socket": 64, "memory": "2TB",
                                      "hardware_version": 22}]})
    assert not {"HOST004", "HYG004"} & {f.rule for f in ok.findings}
    over = check({"host": big, "vms": [{"name": "a", "vcpus": 961, "memory": "2TB", "hardware_version": 23}]})
    rules = {f.rule: f for f in over.findings}
    assert "960" in rules["HOST004"].message and "version 22" in rules["HYG004"].message


def test_class9_latency_sensitive_vm_on_tiered_memory_gets_a_suggestion_only():
    _vm, found = one({"host": tiered(), "vms": [{"name": "trade", "vcpus": 8, "memory": "32GB",
                                               "latency_sensitivity": "high", "cpu_reservation": "full",
                                               "memory_reservation": "full"}]})
    assert found["MEM005"].fix["kind"] == "suggest" and "vmx" not in found["MEM005"].fix


def test_class9_active_memory_over_half_the_dram():
    # TIERING_SIZING: with the default 1:1 ratio, active memory should be at most half the DRAM.
    _, found = one({"host": tiered(), "vms": [{"name": "db", "vcpus": 16, "memory": "400GB",
                                               "active_memory": "300GB"}]})
    assert "MEM006" in found
    _, fits = one({"host": tiered(), "vms": [{"name": "db", "vcpus": 16, "memory": "400GB",
                                              "active_memory": "256GB"}]})
    assert "MEM006" not in fits
    run = check({"host": tiered(), "vms": [{"name": "db", "vcpus": 16, "memory": "400GB"}]})
    assert any(s.startswith("MEM006") for s in run.vms[0].skipped)  # unknown stays unknown
    plain = check({"host": tiered(memory_tiering=False), "vms": [{"name": "db", "vcpus": 16, "memory": "400GB"}]})
    assert not any(s.startswith(("MEM005", "MEM006")) for s in plain.vms[0].skipped)


# -- class 7: workload guidance beyond SQL Server ---------------------------------------------

EXCHANGE_2013 = ("http://download.microsoft.com/download/4/a/c/4ac32fd3-220e-45dc-aa97-dbdbe19c15b2/"
                 "best_practices_for_virtualizing_and_managing_exchange_2013.pdf")
ORACLE_23_HUGEPAGES = ("https://docs.oracle.com/en/database/oracle/oracle-database/23/cwlin/"
                       "restrictions-for-hugepages-and-transparent-hugepages-configurations.html")
NVIDIA_INFERENCE = ("https://docs.nvidia.com/ai-enterprise/release-9/latest/infra-software/vgpu/features/"
                    "inference-mode-decision.html")


def test_class7_exchange_at_one_and_a_half_vcpus_per_logical_processor():
    # EXCHANGE_2013: virtual to logical processors 1:1 recommended, up to 2:1 supported.
    run = check({"host": host(2, 10), "vms": [{"name": "mbx", "count": 5, "vcpus": 12, "memory": "64GB",
                                               "workload": "exchange"}]})
    [finding] = [f for f in run.findings if f.rule == "HOST008"]
    assert "1.5:1" in finding.message and finding.severity == "warning"
    over = check({"host": host(2, 10, memory="1TB"), "vms": [{"name": "mbx", "count": 7, "vcpus": 12,
                                                              "memory": "64GB", "workload": "exchange"}]})
    assert "HOST009" in {f.rule for f in over.findings}


def test_class7_oracle_on_linux_without_hugepages():
    # ORACLE_23_HUGEPAGES: Oracle continues to recommend standard HugePages for Linux.
    _, found = one({"host": "dell-r620", "vms": [{"name": "ora", "vcpus": 8, "memory": "64GB", "workload": "oracle",
                                                  "guest_os": "oraclelinux8-64", "guest": {"large_pages": False}}]})
    assert "MEM007" in found
    _, done = one({"host": "dell-r620", "vms": [{"name": "ora", "vcpus": 8, "memory": "64GB", "workload": "oracle",
                                                 "guest_os": "oraclelinux8-64", "guest": {"large_pages": True}}]})
    assert "MEM007" not in done


def test_class7_inference_vm_on_a_fractional_a100_profile_keeps_it():
    # NVIDIA_INFERENCE: time-sliced and MIG-backed vGPU share a GPU between inference VMs by design.
    a100 = {"name": "a100", "sockets": 2, "cores_per_socket": 32, "threads_per_core": 2, "memory": "1TB",
            "esxi": "8.0", "gpus": [{"model": "A100", "count": 1}]}
    vm, found = one({"host": a100, "vms": [{"name": "infer", "vcpus": 8, "memory": "64GB", "workload": "ml-gpu",
                                            "memory_reservation": "full",
                                            "gpu": {"profile": "grid_a100-10c", "purpose": "ml-inference"}}]})
    assert "GPU001" not in found and "pciPassthru0.vgpu" not in vm.recommended_vmx
    _, training = one({"host": a100, "vms": [{"name": "train", "vcpus": 8, "memory": "64GB", "workload": "ml-gpu",
                                              "memory_reservation": "full",
                                              "gpu": {"profile": "grid_a100-10c", "purpose": "ml-training"}}]})
    assert "GPU001" in training

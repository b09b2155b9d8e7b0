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

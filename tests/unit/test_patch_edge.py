"""The recommendation is one typed patch, written as `.vmx` text only at the edge (issue 33 item 8).

Two checks that fail if the engine goes back to a round trip through `.vmx` text:
1. the modules that build and settle the patch (advisor.engine.recommend, advisor.engine.fixpoint,
   advisor.model.*) import none of the modules that write `.vmx` or a tool's syntax;
2. while a check evaluates VMs whose fixes resize them and yield to each other (so the fixed point
   and the justification passes run), the one function that writes a typed value as `.vmx` text
   (advisor.model.vmxkeys.vmx_text) is called only from the edge: never with a pass of the
   engine (recommend, settle, justified, a re-evaluation, applying the patch) on the stack, and
   advisor.vmx.mapping.vm_to_vmx not at all.
"""

from __future__ import annotations

import ast
import copy
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from advisor.engine.catalog import builtin_catalog
from advisor.engine.engine import Evaluator, Policy
from advisor.engine.specs import evaluate_spec
from advisor.load.specfile import spec_from_root
from advisor.model.patch import Change, Patch
from advisor.model.spec import VM
from advisor.model.vmxkeys import vmx_text
from advisor.vmx.mapping import vm_to_vmx

ADVISOR = Path(__file__).resolve().parents[2] / "advisor"
# Where .vmx text or a tool's syntax is written: the edge.
_WRITERS = ("advisor.vmx.mapping", "advisor.vmx.recommendation", "advisor.vmx.document", "advisor.emit")
# The engine's passes: none of them may write text.
_PASSES = {"recommend", "settle", "justified", "Evaluator._justified", "Evaluator._again", "applied", "Patch.apply",
           "_Resizer.keys"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_patch_is_built_and_settled_without_a_text_writer():
    paths = [ADVISOR / "engine" / "recommend.py", ADVISOR / "engine" / "fixpoint.py",
             *sorted((ADVISOR / "model").glob("*.py"))]
    offending = {f"{p.relative_to(ADVISOR.parent)}: {name}" for p in paths for name in _imports(p)
                 if name.startswith(_WRITERS)}
    assert not offending, sorted(offending)


def _spec() -> dict[str, Any]:
    # SCHED002 sets latency back to Normal and SCHED004 yields to it (justified runs); HOST003
    # resizes a 30-vCPU VM on an 8-core host (settle runs); the third VM has a full reservation,
    # whose .vmx value depends on its vCPUs.
    return {"host": "dell-r620", "vms": [
        {"name": "sql", "vcpus": 16, "memory": "64GB", "workload": "sql-server", "latency_sensitivity": "high"},
        {"name": "wide", "vcpus": 30, "memory": "16GB", "workload": "generic", "cpu_hot_add": True},
        {"name": "held", "vcpus": 12, "memory": "32GB", "workload": "generic", "cpu_reservation": "full",
         "memory_reservation": "full", "cores_per_socket": 5}]}


def _names(frame: FrameType | None) -> set[str]:
    names: set[str] = set()
    while frame is not None:
        code = frame.f_code
        names.add(code.co_qualname if hasattr(code, "co_qualname") else code.co_name)
        frame = frame.f_back
    return names


def test_a_check_writes_vmx_text_only_at_the_edge():
    watched = {vmx_text.__code__: "vmx_text", vm_to_vmx.__code__: "vm_to_vmx"}
    calls: list[tuple[str, set[str]]] = []
    passes: set[str] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        name = watched.get(frame.f_code)
        if name is not None:
            calls.append((name, _names(frame.f_back)))
        elif frame.f_code.co_name in ("settle", "justified"):
            passes.add(frame.f_code.co_name)

    evaluator = Evaluator(builtin_catalog(), Policy())
    spec = spec_from_root(copy.deepcopy(_spec()), "spec.yaml", lenient_shape=True)
    sys.setprofile(profile)
    try:
        evaluate_spec(spec, evaluator)
    finally:
        sys.setprofile(None)
    run = evaluator.finish()
    assert not run.errors, run.errors
    assert passes == {"settle", "justified"}  # the spec exercises both passes
    assert calls, "no .vmx text written at all: the edge is not where this test looks"
    assert not [c for c in calls if c[0] == "vm_to_vmx"]
    inside = sorted({name for _, stack in calls for name in stack & _PASSES})
    assert not inside, f".vmx text written inside the engine's passes: {inside}"
    # ... and the text the edge writes is the settled recommendation's.
    sql = next(vm for vm in run.vms if vm.name == "sql")
    assert sql.recommended_vmx["sched.cpu.latencySensitivity"] == "normal"


def test_a_patch_is_typed_ordered_and_carries_its_rules():
    vm = VM.model_validate({"name": "db", "vcpus": 8, "memory": "32GB", "nics": [{"adapter": "e1000"}],
                            "gpu": {"passthrough": 1}})
    patch = Patch.of({"numvcpus": 4, "ethernet0.virtualDev": "vmxnet3", "numa.vcpu.preferHT": "TRUE",
                      "sched.mem.max": None},
                     reasons={"numvcpus": ("HOST003", "fits the host")},
                     sources={"numvcpus": ("HOST003",), "numa.vcpu.preferht": ("NUMA001",)},
                     resized=[("HOST003", {"vcpus": 4}), ("GPU002", {"gpu.passthrough": 2})])
    assert [c.target for c in patch.changes] == ["numvcpus", "ethernet0.virtualDev", "numa.vcpu.preferHT",
                                                 "sched.mem.max", "gpu.passthrough"]
    assert patch.changes[0] == Change("numvcpus", 4, ("HOST003",), ("HOST003", "fits the host"))
    assert patch.changes[-1] == Change("gpu.passthrough", 2, ("GPU002",), None, nested=True)
    following = patch.apply(vm)
    assert following is not None
    assert (following.vcpus, following.nics[0].adapter, following.gpu.passthrough) == (4, "vmxnet3", 2)
    assert following.setting("numa.vcpu.preferHT") == "TRUE"
    # Without NUMA001 and GPU002 the patch keeps HOST003's entry and the entries no rule is named for.
    kept = patch.kept({"HOST003"})
    assert [c.target for c in kept.changes] == ["numvcpus", "ethernet0.virtualDev", "sched.mem.max"]
    following = kept.apply(vm)
    assert following is not None and following.setting("numa.vcpu.preferHT") is None
    assert following.gpu.passthrough == 1

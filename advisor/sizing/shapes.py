"""The sizing data: rules/sizing/shapes.yaml as models (shape kinds and their order per workload,
the hypervisor's memory overhead), read once per process."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from advisor.engine.catalog import Reference
from advisor.errors import InputError
from advisor.model.base import WORKLOADS, SizeMiB

MIN_MEMORY_MIB = 1024
KIND_NAMES = ("node", "node-ht", "split", "span", "span-ht", "per-socket", "fixed", "requested", "fit")


# --- rules/shapes.yaml ----------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class ShapeDef(_Strict):
    kind: Literal["node", "node-ht", "split", "span", "span-ht", "per-socket", "fixed"]
    by: int | None = Field(None, ge=2, le=64, description="split: VMs sharing each node's cores")
    vcpus: int | None = Field(None, ge=1, le=4096, description="fixed: vCPUs per VM")
    vms: int | None = Field(None, ge=1, le=64, description="per-socket: VMs per socket")
    per_node: int | None = Field(None, ge=1, le=64, description="at most this many VMs homed per node")


class WorkloadSizing(_Strict):
    shapes: list[ShapeDef] = Field(min_length=1)
    vcpu_per_core: Literal["cores", "threads"] | float = "threads"
    spare_cores: int = Field(0, ge=0, description="cores per node left to ESXi")
    gpu_per_vm: int = Field(0, ge=0)
    why: str = Field(min_length=20)
    references: list[Reference] = Field(min_length=1)
    host: dict[str, Any] = Field(default_factory=dict, description="host settings the workload wants")
    vm: dict[str, Any] = Field(default_factory=dict, description="spec fields for every proposed VM")


class Hypervisor(_Strict):
    reserve: SizeMiB
    overhead_base_mib: int = Field(ge=0)
    overhead_per_vcpu_mib: int = Field(ge=0)
    overhead_per_gib_mib: int = Field(ge=0)
    source: str

    def overhead(self, vcpus: int, memory_mib: int) -> int:
        return (
            self.overhead_base_mib + self.overhead_per_vcpu_mib * vcpus + self.overhead_per_gib_mib * memory_mib // 1024
        )


class ShapesFile(_Strict):
    hypervisor: Hypervisor
    kinds: dict[str, str]
    base_vm: dict[str, Any] = Field(default_factory=dict)
    workloads: dict[str, WorkloadSizing]


@lru_cache(maxsize=1)
def load_shapes() -> ShapesFile:
    from advisor.load.validation import to_input_errors
    from advisor.load.yamlfile import load
    from advisor.resources import data_path

    path = data_path("rules") / "sizing" / "shapes.yaml"
    root = load(path)
    try:
        table = ShapesFile.model_validate(root)
    except ValidationError as exc:
        raise to_input_errors(exc, ShapesFile, root, str(path))[0] from None
    missing = [w for w in WORKLOADS if w not in table.workloads]
    unknown = [w for w in table.workloads if w not in WORKLOADS]
    if missing or unknown:
        raise InputError(f"workloads missing: {missing}, unknown: {unknown}", file=str(path), field="workloads")
    return table

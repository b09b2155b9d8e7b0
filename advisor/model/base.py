"""The model's building blocks: sized and versioned field types, the strict base model, and the
devices a VM has (disks, NICs).

They sit below both the spec models (advisor.model.spec) and the reconciling of `.vmx` keys
with fields (advisor.model.reconcile), which builds NICs and reports field errors while reconciling `advanced:`
keys: neither needs to import the other's module at run time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, WithJsonSchema

from advisor.model.units import format_mib, parse_reservation_mib, parse_size_mib
from advisor.model.versions import Version
from advisor.vocab import Adapter, Controller

# --- scalar types ---------------------------------------------------------------------------

# An estate writes the same few sizes ("8GB", "100GB") on thousands of VMs and disks: a size
# given as text is parsed once per distinct text. parse_size_mib is a pure function of that
# text; a refused one raises anew each time (lru_cache keeps no exceptions), and a long text is
# not kept at all (the cache holds at most 4,096 short strings).
_parse_size_text = lru_cache(maxsize=4096)(parse_size_mib)


def _size_mib(value: Any) -> int:
    return _parse_size_text(value) if type(value) is str and len(value) <= 32 else parse_size_mib(value)


def _size_schema(minimum: int, description: str) -> WithJsonSchema:
    return WithJsonSchema({
        "anyOf": [
            {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*([KMGTP]i?B?|[kmgtp]i?b?)?\s*$"},
            {"type": "integer", "minimum": minimum},
        ],
        "description": description,
    })


SizeMiB = Annotated[
    int,
    BeforeValidator(_size_mib),
    PlainSerializer(format_mib, return_type=str),
    _size_schema(1, "A size: 64GB, 1.5TB, 4096MB (GB means GiB, as in vSphere; a bare number is MB)."),
]

# A memory reservation: a size or 0 (none). A size must be positive, but a template's
# `sched.mem.min = "0"` is a reservation of nothing, and it must survive the round trip through
# model_dump ("0MB") that the engine's resize passes make (advisor.engine.fixpoint.applied).
ReservationMiB = Annotated[
    int,
    BeforeValidator(parse_reservation_mib),
    PlainSerializer(format_mib, return_type=str),
    _size_schema(0, "A size (64GB, 4096MB; a bare number is MB), or 0 for no reservation."),
]


def _version(value: Any) -> Version:
    return value if isinstance(value, Version) else Version.parse(value)


VersionField = Annotated[
    Version,
    BeforeValidator(_version),
    PlainSerializer(str, return_type=str),
    WithJsonSchema({"type": "string", "pattern": r"^\d+(\.\d+){0,2}(\s*[Uu]\d+[a-z]?)?$",
                    "description": "vSphere/ESXi version, e.g. \"6.7\", \"7.0 U3\", \"8.0\"."}),
]

Workload = Literal[
    "generic", "sql-server", "oracle", "exchange", "hadoop", "spark", "java", "hpc", "vdi",
    "xenapp", "latency-critical", "container-host", "ml-gpu", "web", "file-server",
]
WORKLOADS: tuple[str, ...] = Workload.__args__  # type: ignore[attr-defined]

LatencySensitivity = Literal["low", "normal", "medium", "high", "high-ht"]
PowerPolicy = Literal["high-performance", "balanced", "low-power", "custom"]


# Default factories written in Python, not the builtins `list` and `dict`: pydantic asks each
# factory's signature whether it takes the validated data (inspect.signature), and a builtin's is
# parsed from its text with tokenize, whose pattern is compiled once per process for it (about
# 2 ms of CPU of every check). A Python function's signature is read from its code object.
def empty_list() -> list[Any]:
    return []


def empty_dict() -> dict[Any, Any]:
    return {}


class FieldValueError(ValueError):
    """A model-level check that knows which field (path below the model) it is about."""

    def __init__(self, message: str, *path: str | int) -> None:
        super().__init__(message)
        self.path = path


class Strict(BaseModel):
    # defer_build: validators are generated when a model is first used, once per run, instead
    # of for every class at import (start-up time is part of a CI linter's cost).
    model_config = ConfigDict(extra="forbid", frozen=False, populate_by_name=True, defer_build=True)

    # Other words people use for a field (an unknown key among them is answered "did you mean
    # <field>?", which spelling alone cannot find: host `cores` is `cores_per_socket`, not
    # `core_mhz`). Lower-case word -> field name; only read when a key is unknown.
    also_called: ClassVar[dict[str, str]] = {}


# --- devices --------------------------------------------------------------------------------


class Disk(Strict):
    also_called: ClassVar[dict[str, str]] = {
        "capacity": "size", "size_gb": "size", "type": "controller", "adapter": "controller", "bus_number": "bus",
        "unit": "bus", "usage": "role", "purpose": "role", "queue": "queue_depth", "qd": "queue_depth",
    }
    size: SizeMiB | None = None
    controller: Controller = Field(description="Virtual controller type the disk hangs on.")
    bus: int = Field(0, ge=0, le=3, description="Index of that controller (scsi0..scsi3, nvme0..nvme3).")
    # A spec states roles; readers of configurations that do not (.vmx, templates, vCenter) mark the
    # boot disk "os" through advisor.model.bootdisk, which names the assumption when it has to make one.
    role: Literal["os", "data", "log", "tempdb", "backup", "other"] = Field("data", description="What the disk holds.")
    heavy_io: bool = Field(False, description="The disk carries a heavy, sustained I/O load.")
    queue_depth: int | None = Field(None, ge=1, le=1024, description="Guest PVSCSI per-device queue depth.")


class Nic(Strict):
    also_called: ClassVar[dict[str, str]] = {"type": "adapter", "virtualdev": "adapter", "device": "adapter",
                                             "interrupt_coalescing": "coalescing"}
    adapter: Adapter = Field(description="Virtual NIC type (ethernetN.virtualDev).")
    coalescing: Literal["rbc", "static", "disabled", "calibrate"] | None = Field(
        default=None, description="ethernetN.coalescingScheme (virtual interrupt coalescing).")

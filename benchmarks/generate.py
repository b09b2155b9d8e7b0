"""Seeded generators for the benchmark inputs (written under benchmarks/.data/, never committed).

Four kinds of input, each a pure function of (seed, size), so two runs on two machines lint the
same bytes:

* spec files (advisor's YAML) with 10 VMs each on a bundled host profile — what `advisor check`
  and `yamllint` read in CI;
* one large spec with N distinct VMs on one host — the engine throughput test (no `count:`
  shortcuts: every VM is its own entry, so parsing, validation and every rule see N VMs);
* `.vmx` files made by varying real ones: the third-party corpus in ../shared/corpus/vmx/ is read
  in place (never copied into the repository); without it, the small templates in
  benchmarks/templates/ are the bases;
* Terraform files with `vsphere_virtual_machine` resources (varied num_cpus, memory, scsi_type,
  adapter_type, extra_config, some values left to variables, some `dynamic` disk blocks), in
  module folders of ten files.

Usable as a module (the harness and tests import it) or as a script:

    python benchmarks/generate.py [--quick] [--out benchmarks/.data]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = HERE / ".data"
TEMPLATES = HERE / "templates"
CORPUS = REPO.parent / "shared" / "corpus"
CORPUS_VMX = CORPUS / "vmx"
CORPUS_KINDS = ("vmx", "ovf", "packer", "terraform")  # the corpus's folders of templates advisor lints
SEED = 20240909
MAX_SPEC_BYTES = 16 * 1024 * 1024  # advisor's own limit for one YAML file (advisor.load.yamlfile)
ENGINE_HOST = "amd-epyc-9654-2s-nps4"  # 2 sockets x 96 cores, 8 NUMA nodes: the widest bundled host

# ----------------------------------------------------------------------------- host facts


@dataclass(frozen=True)
class HostFacts:
    """What the VM generator needs to keep a VM plausible on a host."""

    name: str
    logical_cpus: int
    cores_per_node: int
    memory_gb: int


def host_profiles() -> list[HostFacts]:
    """Every bundled host profile (hosts/*.yaml), read through advisor so units are advisor's."""
    from advisor.load.hosts import load_profile, profile_names

    out = []
    for name in profile_names():
        host = load_profile(name)
        out.append(HostFacts(name, host.logical_cpus, host.cores_per_node, max(1, host.memory // 1024)))
    return out


# ----------------------------------------------------------------------------- VMs

_VCPUS = [1, 2, 2, 2, 4, 4, 4, 4, 6, 8, 8, 8, 10, 12, 16, 16, 20, 24, 32, 40, 48, 64, 96, 128]
_MEM_GB = [2, 4, 4, 8, 8, 8, 16, 16, 24, 32, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024]
_WORKLOADS = [
    "generic", "generic", "generic", "web", "web", "sql-server", "sql-server", "oracle", "java",
    "hpc", "vdi", "xenapp", "hadoop", "file-server", "latency-critical", "container-host", "exchange",
]
_GUESTS = [
    "windows2019srv-64", "windows2022srvNext-64", "rhel8-64", "rhel9-64", "ubuntu-64",
    "sles15-64", "centos7-64", "other5xlinux-64",
]
_HW = [8, 10, 11, 13, 14, 15, 17, 19, 20, 21]


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def vm_entry(rng: random.Random, host: HostFacts, name: str, *, rich: bool = True) -> dict:
    """One VM as a plain dict in spec-file form. `rich=False` keeps it short (the 100k spec)."""
    vcpus = rng.choice([v for v in _VCPUS if v <= host.logical_cpus] or [1])
    # memory follows the vCPU count (2-16 GB per vCPU), as sizing guides have it
    per_vcpu = rng.choice([2, 4, 4, 8, 8, 16])
    memory = min([m for m in _MEM_GB if m >= vcpus * per_vcpu] or [_MEM_GB[-1]])
    memory = max([m for m in _MEM_GB if m <= min(memory, host.memory_gb)] or [1])
    workload = rng.choice(_WORKLOADS)
    vm: dict = {"name": name, "vcpus": vcpus}
    if rng.random() < 0.45 and vcpus > 1:
        vm["cores_per_socket"] = rng.choice(_divisors(vcpus))
    vm["memory"] = f"{memory}GB"
    if workload != "generic":
        vm["workload"] = workload
    if rng.random() < (0.7 if rich else 0.5):
        vm["hardware_version"] = rng.choice(_HW)
    if rich or rng.random() < 0.1:
        vm["guest_os"] = rng.choice(_GUESTS)
    if rng.random() < 0.15:
        vm["production"] = False
    if rng.random() < 0.12:
        vm["cpu_hot_add"] = True
    if workload == "latency-critical":
        vm["latency_sensitivity"] = "high"
        if rng.random() < 0.6:
            vm["cpu_reservation"] = "full"
            vm["memory_reservation"] = "full"
    elif rng.random() < 0.04:
        vm["latency_sensitivity"] = "high"
    if rng.random() < 0.03:
        vm["cpu_affinity"] = "0-3"
    # storage: one controller type per bus, an OS disk and 0-3 data disks
    if rich or rng.random() < 0.35:
        buses = {0: rng.choice(["pvscsi", "pvscsi", "lsilogic", "lsisas"])}
        disks = [{"size": f"{rng.choice([40, 60, 80, 100])}GB", "controller": buses[0], "role": "os"}]
        for _ in range(rng.randrange(0, 4 if rich else 2)):
            bus = rng.randrange(0, 4 if rich else 2)
            controller = buses.setdefault(bus, rng.choice(["pvscsi", "pvscsi", "pvscsi", "lsilogic", "nvme"]))
            disk = {"size": f"{rng.choice([100, 200, 500, 1000, 2000])}GB", "controller": controller}
            if bus:
                disk["bus"] = bus
            if rng.random() < 0.3:
                disk["heavy_io"] = True
            disks.append(disk)
        vm["disks"] = disks
    if rich or rng.random() < 0.35:
        adapters = ["vmxnet3"] * 8 + ["e1000e", "e1000"]
        vm["nics"] = [{"adapter": rng.choice(adapters)} for _ in range(rng.choice([1, 1, 1, 2]))]
    if workload == "sql-server":
        sql = {"maxdop": rng.choice([0, 0, 1, 4, 8]), "cost_threshold": rng.choice([5, 5, 50])}
        if rich:
            sql = {"edition": rng.choice(["enterprise", "standard"]),
                   "licensing": rng.choice(["per-core", "per-core", "server-cal"]), **sql}
        if rich and rng.random() < 0.2:
            sql["trace_flags"] = [834]
        vm["sql"] = sql
    elif workload == "java":
        vm["java"] = {"jvms": rng.choice([1, 1, 2, 4]), "heap": f"{rng.choice([4, 8, 16])}GB"}
    elif workload == "hpc":
        vm["hpc"] = {"memory_bound": rng.random() < 0.5}
    elif workload == "container-host":
        vm["containers"] = {"networking": rng.choice(["bridge", "host"]), "latency_critical": rng.random() < 0.3}
    if rich and workload in ("sql-server", "oracle", "java") and rng.random() < 0.5:
        vm["guest"] = {"power_plan": rng.choice(["balanced", "high-performance"]),
                       "large_pages": rng.random() < 0.5}
    if rng.random() < 0.1:
        vm["advanced"] = {"numa.vcpu.preferHT": "TRUE"}
    return vm


# ----------------------------------------------------------------------------- YAML emitters

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*|\d+(\.\d+)?[KMGT]i?B")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS:
        return text
    return json.dumps(text)  # a JSON string is a valid YAML double-quoted scalar


def _flow(value: object) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _scalar(value)


def _block(value: object, indent: int, out: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                if isinstance(item, list) and all(not isinstance(x, (dict, list)) for x in item):
                    out.append(f"{pad}{key}: {_flow(item)}")
                else:
                    out.append(f"{pad}{key}:")
                    _block(item, indent + 2, out)
            else:
                out.append(f"{pad}{key}: {_flow(item)}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                sub: list[str] = []
                _block(item, indent + 2, sub)
                out.append(f"{pad}- {sub[0].lstrip()}")
                out.extend(sub[1:])
            else:
                out.append(f"{pad}- {_flow(item)}")


def spec_yaml(host: str, vms: list[dict], *, flow: bool = False, title: str = "") -> str:
    """A spec file's text: block style (what people write), or one flow mapping per VM."""
    lines = ["---"]
    if title:
        lines.append(f"# {title}")
    lines.append(f"host: {_scalar(host)}")
    lines.append("vms:")
    if flow:
        lines.extend(f"  - {_flow(vm)}" for vm in vms)
    else:
        _block(vms, 2, lines)
    return "\n".join(lines) + "\n"


def spec_file_text(seed: int, index: int, hosts: list[HostFacts], vms_per_file: int = 10) -> str:
    rng = random.Random(f"{seed}:spec:{index}")
    host = rng.choice(hosts)
    vms = [vm_entry(rng, host, f"vm-{index:05d}-{j:02d}") for j in range(vms_per_file)]
    return spec_yaml(host.name, vms, title=f"benchmark spec {index}: {vms_per_file} VMs on {host.name}")


def engine_spec_text(seed: int, n_vms: int, hosts: list[HostFacts], host_name: str = ENGINE_HOST) -> str:
    by_name = {h.name: h for h in hosts}
    host = by_name.get(host_name) or max(hosts, key=lambda h: h.logical_cpus)
    rng = random.Random(f"{seed}:engine")  # same stream for every N: the 10k VMs open the 100k
    width = max(6, len(str(n_vms)))
    vms = [vm_entry(rng, host, f"vm-{i:0{width}d}", rich=False) for i in range(n_vms)]
    return spec_yaml(host.name, vms, flow=True, title=f"engine benchmark: {n_vms} distinct VMs on {host.name}")


# ----------------------------------------------------------------------------- .vmx

_VMX_KEY = re.compile(rb"^[ \t]*([A-Za-z0-9_.:\-\[\]]+)[ \t]*=")


def vmx_bases(corpus: Path | None = CORPUS_VMX) -> tuple[list[tuple[str, bytes]], str]:
    """The base .vmx files (name, bytes) and where they came from ('corpus' or 'templates')."""
    if corpus is not None and corpus.is_dir():
        files = sorted(corpus.glob("*.vmx"))
        if files:
            return [(p.name, p.read_bytes()) for p in files], f"corpus ({corpus})"
    files = sorted(TEMPLATES.glob("*.vmx"))
    if not files:
        raise FileNotFoundError(f"no .vmx templates in {TEMPLATES}")
    return [(p.name, p.read_bytes()) for p in files], f"templates ({TEMPLATES})"


def vary_vmx(base: bytes, rng: random.Random, index: int) -> bytes:
    """A variation of a real .vmx: new name, vCPUs, memory, cores per socket, NIC and SCSI
    types where the base has those devices, and sometimes the keys advisor's rules look at.
    Edits are byte-level and ASCII, so the base's encoding, line endings and oddities stay."""
    eol = b"\r\n" if b"\r\n" in base else b"\n"
    lines = base.splitlines(keepends=True)
    if lines and not lines[-1].endswith((b"\n", b"\r")):
        lines[-1] += eol
    where: dict[bytes, int] = {}
    for number, line in enumerate(lines):
        match = _VMX_KEY.match(line)
        if match:
            where.setdefault(match[1].lower(), number)

    def put(key: str, value: str) -> None:
        raw = f'{key} = "{value}"'.encode("ascii")
        number = where.get(key.lower().encode("ascii"))
        if number is None:
            where[key.lower().encode("ascii")] = len(lines)
            lines.append(raw + eol)
        else:
            old = lines[number]
            line_eol = old[len(old.rstrip(b"\r\n")):] or eol
            lines[number] = raw + line_eol

    vcpus = rng.choice([1, 2, 2, 4, 4, 8, 8, 12, 16, 24, 32, 48, 64])
    put("displayName", f"bench-{index:05d}")
    put("numvcpus", str(vcpus))
    put("memSize", str(1024 * rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 256])))
    if rng.random() < 0.4 and vcpus > 1:
        put("cpuid.coresPerSocket", str(rng.choice(_divisors(vcpus))))
    if b"ethernet0.present" in where or b"ethernet0.virtualdev" in where:
        put("ethernet0.virtualDev", rng.choice(["vmxnet3", "vmxnet3", "vmxnet3", "e1000e", "e1000"]))
    if b"scsi0.present" in where or b"scsi0.virtualdev" in where:
        put("scsi0.virtualDev", rng.choice(["pvscsi", "pvscsi", "lsilogic", "lsisas1068"]))
    if rng.random() < 0.15:
        put("numa.vcpu.preferHT", "TRUE")
    if rng.random() < 0.1:
        put("vcpu.hotadd", "TRUE")
    if rng.random() < 0.05:
        put("sched.cpu.latencySensitivity", "high")
    if b"uuid.bios" in where:
        octets = " ".join(f"{rng.randrange(256):02x}" for _ in range(8))
        put("uuid.bios", octets + "-" + " ".join(f"{rng.randrange(256):02x}" for _ in range(8)))
    return b"".join(lines)


def corpus_copies(dest: Path, kinds: tuple[str, ...], min_files: int, corpus: Path = CORPUS) -> int:
    """The shared corpus's templates of `kinds` copied whole, folder by folder, as often as it
    takes to reach `min_files` (`dest`/r00/vmx/..., r01/...: each copy keeps a template's sibling
    files beside it, as Packer's and Terraform's variables need). Real files measure what generated
    ones cannot: their odd lines, charsets and sizes. Copied under benchmarks/.data (ignored by
    git), never into the repository. Returns the number of files, 0 without the corpus."""
    sources = [path for kind in kinds if (corpus / kind).is_dir()
               for path in sorted((corpus / kind).rglob("*")) if path.is_file()]
    if dest.exists():
        shutil.rmtree(dest)
    if not sources:
        return 0
    copies = -(-min_files // len(sources))
    for index in range(copies):
        for path in sources:
            target = dest / f"r{index:02d}" / path.relative_to(corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    return copies * len(sources)


def vmx_path(root: Path, index: int) -> Path:
    """10,000 files in folders of 1,000, as an estate's template share might hold them."""
    return root / f"d{index // 1000:02d}" / f"vm-{index:05d}.vmx"


def vmx_file_bytes(seed: int, index: int, bases: list[tuple[str, bytes]]) -> bytes:
    rng = random.Random(f"{seed}:vmx:{index}")
    _, base = bases[index % len(bases)]
    return vary_vmx(base, rng, index)


# ----------------------------------------------------------------------------- Terraform

_TF_HEADER = """\
# Generated for advisor's benchmarks: vsphere_virtual_machine resources as a module holds them.
variable "datacenter" {
  type    = string
  default = "dc-01"
}

variable "cpus" {
  type    = number
  default = 4
}

data "vsphere_datacenter" "dc" {
  name = var.datacenter
}

data "vsphere_compute_cluster" "cluster" {
  name          = "cluster-01"
  datacenter_id = data.vsphere_datacenter.dc.id
}

data "vsphere_datastore" "ds" {
  name          = "vsanDatastore"
  datacenter_id = data.vsphere_datacenter.dc.id
}

data "vsphere_network" "net" {
  name          = "VM Network"
  datacenter_id = data.vsphere_datacenter.dc.id
}
"""

_TF_GUESTS = ["windows2019srv_64Guest", "rhel8_64Guest", "ubuntu64Guest", "sles15_64Guest", "centos7_64Guest"]


def _tf_resource(rng: random.Random, name: str) -> str:
    vcpus = rng.choice([1, 2, 4, 4, 8, 8, 12, 16, 24, 32, 64])
    cps = rng.choice(_divisors(vcpus)) if rng.random() < 0.5 else None
    num_cpus = "var.cpus" if rng.random() < 0.1 else str(vcpus)
    memory = 1024 * rng.choice([2, 4, 8, 16, 32, 64, 128])
    scsi = rng.choice(["pvscsi", "pvscsi", "pvscsi", "lsilogic", "lsilogic-sas"])
    adapter = rng.choice(["vmxnet3", "vmxnet3", "vmxnet3", "e1000e", "e1000"])
    out = [
        f'resource "vsphere_virtual_machine" "{name}" {{',
        f'  name             = "{name.replace("_", "-")}"',
        "  resource_pool_id = data.vsphere_compute_cluster.cluster.resource_pool_id",
        "  datastore_id     = data.vsphere_datastore.ds.id",
        f"  num_cpus         = {num_cpus}",
    ]
    if cps and num_cpus != "var.cpus":
        out.append(f"  num_cores_per_socket = {cps}")
    out += [
        f"  memory           = {memory}",
        f'  guest_id         = "{rng.choice(_TF_GUESTS)}"',
        f'  scsi_type        = "{scsi}"',
    ]
    if rng.random() < 0.15:
        out.append("  cpu_hot_add_enabled = true")
    if rng.random() < 0.08:
        out.append('  latency_sensitivity = "high"')
        if rng.random() < 0.5:
            out.append(f"  cpu_reservation     = {vcpus * 2400}")
            out.append(f"  memory_reservation  = {memory}")
    out += [
        "",
        "  network_interface {",
        "    network_id   = data.vsphere_network.net.id",
        f'    adapter_type = "{adapter}"',
        "  }",
    ]
    if rng.random() < 0.15:
        out += [
            "",
            '  dynamic "disk" {',
            "    for_each = [80, 200]",
            "    content {",
            '      label = "disk${disk.key}"',
            "      size  = disk.value",
            "      unit_number = disk.key",
            "    }",
            "  }",
        ]
    else:
        for unit in range(rng.choice([1, 1, 2, 3])):
            out += ["", "  disk {", f'    label            = "disk{unit}"',
                    f"    size             = {rng.choice([40, 60, 100, 500])}",
                    "    thin_provisioned = true"]
            if unit:
                out.append(f"    unit_number      = {unit}")
            out.append("  }")
    extra = {}
    if rng.random() < 0.3:
        extra["numa.vcpu.preferHT"] = "TRUE"
    if rng.random() < 0.2:
        extra["ethernet0.coalescingScheme"] = "disabled"
    if rng.random() < 0.2:
        extra["sched.mem.pshare.enable"] = "FALSE"
    if extra:
        out += ["", "  extra_config = {"]
        out += [f'    "{k}" = "{v}"' for k, v in extra.items()]
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def terraform_file_text(seed: int, index: int) -> str:
    rng = random.Random(f"{seed}:tf:{index}")
    parts = [_TF_HEADER]
    for j in range(rng.choice([1, 2, 3, 4, 5])):
        parts.append(_tf_resource(rng, f"vm_{index:04d}_{j}"))
    return "\n".join(parts)


# ----------------------------------------------------------------------------- writing


def _write_many(root: Path, count: int, path_of: Callable[[int], Path], data_of: Callable[[int], bytes]) -> list[Path]:
    paths = []
    for index in range(count):
        path = path_of(index)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data_of(index))
        paths.append(path)
    return paths


def make_specs(root: Path, count: int, seed: int = SEED, hosts: list[HostFacts] | None = None) -> list[Path]:
    hosts = hosts or host_profiles()
    return _write_many(root, count, lambda i: root / f"spec-{i:05d}.yaml",
                       lambda i: spec_file_text(seed, i, hosts).encode())


def make_engine_spec(path: Path, n_vms: int, seed: int = SEED, hosts: list[HostFacts] | None = None) -> Path:
    text = engine_spec_text(seed, n_vms, hosts or host_profiles()).encode()
    if len(text) > MAX_SPEC_BYTES:
        raise ValueError(f"{n_vms} VMs make a {len(text):,}-byte spec, over advisor's 16 MiB limit")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return path


def make_vmx(root: Path, count: int, seed: int = SEED, corpus: Path | None = CORPUS_VMX) -> tuple[list[Path], str]:
    bases, origin = vmx_bases(corpus)
    paths = _write_many(root, count, lambda i: vmx_path(root, i), lambda i: vmx_file_bytes(seed, i, bases))
    return paths, origin


TF_FILES_PER_MODULE = 10


def terraform_path(root: Path, index: int) -> Path:
    """Files in module folders of ten, as a repository of Terraform modules holds them (a
    module's files share variables, so readers look at the siblings of each file)."""
    return root / f"module-{index // TF_FILES_PER_MODULE:02d}" / f"vms-{index:04d}.tf"


def make_terraform(root: Path, count: int, seed: int = SEED) -> list[Path]:
    return _write_many(root, count, lambda i: terraform_path(root, i),
                       lambda i: terraform_file_text(seed, i).encode())


@dataclass(frozen=True)
class Plan:
    """Sizes of one benchmark data set."""

    spec_files: int = 1000
    vmx_files: int = 10_000
    vmx_small: int = 1_000  # a second, smaller .vmx set: memory must not grow with file count
    tf_files: int = 200
    engine_vms: tuple[int, ...] = (1_000, 10_000, 100_000)  # the two largest time the engine
    seed: int = SEED

    @classmethod
    def quick(cls) -> Plan:
        return cls(spec_files=100, vmx_files=1_000, vmx_small=100, tf_files=20, engine_vms=(100, 1_000, 10_000))


@dataclass
class DataSet:
    root: Path
    specs: list[Path]
    vmx_dir: Path
    vmx_small_dir: Path
    vmx_origin: str
    tf_dir: Path
    engine: dict[int, Path]

    def spec_subset(self, n: int) -> list[Path]:
        return self.specs[:n]


def _manifest(plan: Plan, origin: str) -> dict:
    source = Path(__file__).read_bytes()
    import hashlib

    return {"plan": plan.__dict__ | {"engine_vms": list(plan.engine_vms)}, "vmx_origin": origin,
            "generator": hashlib.sha256(source).hexdigest()[:16]}


def ensure(plan: Plan, root: Path = DATA, corpus: Path | None = CORPUS_VMX,
           log: Callable[[str], None] = lambda s: None) -> DataSet:
    """Generate the data set under `root`, reusing what an identical earlier call wrote."""
    _, origin = vmx_bases(corpus)
    manifest = _manifest(plan, origin)
    stamp = root / "manifest.json"
    layout = DataSet(
        root=root,
        specs=[root / "specs" / f"spec-{i:05d}.yaml" for i in range(plan.spec_files)],
        vmx_dir=root / "vmx",
        vmx_small_dir=root / "vmx-small",
        vmx_origin=origin,
        tf_dir=root / "terraform",
        engine={n: root / "engine" / f"engine-{n}.yaml" for n in plan.engine_vms},
    )
    if stamp.is_file() and json.loads(stamp.read_text()) == manifest:
        log(f"reusing generated data in {root}")
        return layout
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    hosts = host_profiles()
    log(f"generating {plan.spec_files} spec files")
    make_specs(root / "specs", plan.spec_files, plan.seed, hosts)
    log(f"generating {plan.vmx_files} + {plan.vmx_small} .vmx files from {origin}")
    make_vmx(layout.vmx_dir, plan.vmx_files, plan.seed, corpus)
    make_vmx(layout.vmx_small_dir, plan.vmx_small, plan.seed, corpus)
    log(f"generating {plan.tf_files} Terraform files")
    make_terraform(layout.tf_dir, plan.tf_files, plan.seed)
    for n, path in layout.engine.items():
        log(f"generating the {n:,}-VM engine spec")
        make_engine_spec(path, n, plan.seed, hosts)
    stamp.write_text(json.dumps(manifest, indent=1))
    return layout


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(list(argv) if argv is not None else None)
    data = ensure(Plan.quick() if args.quick else Plan(), args.out, log=lambda s: print(s, file=sys.stderr))
    print(data.root)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Read what ESXi logged about a VM's NUMA topology: `vmware.log` files and the vmdumper one-liner.

What each line means and where its format is shown (../shared/reference/esxi-numa-logs.md has the
transcriptions; every format element below names the post or document that shows it):

- `DICT <key> = "<value>"`: the VM's effective configuration as VMX read it. Denneman, "NUMA Deep
  Dive Part 5" (2016-08-22, https://frankdenneman.nl/2016/08/22/numa-deep-dive-part-5-esxi-vmkernel-numa-constructs/)
  pulls these lines from every running VM with `vmdumper -l | ... egrep ... "DICT.*(displayname.*|
  numa.*|cores.*|vcpu.*|memsize.*|affinity.*)= .*|numa:.*|numaHost:.*"`; keys are right-aligned.
- The format shown up to 6.0 (same post; and "Decoupling of Cores per Socket from Virtual NUMA
  Topology in vSphere 6.5", 2016-12-12, https://frankdenneman.nl/2016/12/12/decoupling-cores-per-socket-virtual-numa-topology-vsphere-6-5/):
  `numa: VCPU n: VPD v (PPD p)`, `numaHost: N virtual nodes, S virtual sockets, P physical domains`,
  `numa: Exposing multicore topology with cpuid.coresPerSocket = C is suggested ...`.
- The format shown from 6.5 on ("Impact of CPU Hot Add on NUMA scheduling", 2017-04-14,
  https://frankdenneman.nl/2017/04/14/impact-of-cpu-hot-add-on-numa-scheduling/; "Simulating NUMA Nodes for
  Nested ESXi Virtual Appliances", 2023-03-02; "vSphere 8 CPU Topology for Large Memory Footprint VMs
  Exceeding NUMA Boundaries", 2022-11-03, https://frankdenneman.nl/2022/11/03/vsphere-8-cpu-topology-for-large-memory-footprint-vms-exceeding-numa-boundaries/):
  `numaHost: NUMA config: consolidation= c preferHT= h [partitionByMemory = m]`,
  `numaHost: N VCPUs v VPDs p PPDs`, `numaHost: VCPU n VPD v PPD p [NodeMask m]`,
  `numaHost: K mem slices`, `numa: Not autosizing due to ...`. Which build introduced each form is
  not stated in those posts; the reader accepts both forms in any file and reports which it saw.
- VPD (virtual proximity domain) is a virtual NUMA node the guest sees; PPD (physical proximity
  domain) is a NUMA client the scheduler homes on one physical node (Denneman, "Decoupling ...").
- Raw `vmware.log` lines carry a prefix. ESXi 8.0 writes `TIMESTAMP SP SEVERITY SP THREAD SP OPID SP
  MSG` (vSphere 8.0 "Log file formats", https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-esxi-installation/GUID-D0194DAA-49F8-4896-BB32-B9D9F3346D52.html),
  e.g. `2022-11-03T10:00:00.123Z In(05) vmx - numaHost: ...`; Broadcom KB 427504 quotes 7.x/8.x
  vmware.log lines as `TIMESTAMP vcpu-0 - MSG`; earlier releases write `TIMESTAMP| vmx| I125: MSG`
  (seen in public vmware.log excerpts; no VMware document specifies it). The first line of a log
  names the build: `Log for VMware ESX pid=... version=8.0.3 build=build-...` (same excerpts);
  ESXi's x.y.z version is x.y Update z from 7.0 on (Broadcom KB 395110, "Unified VCF Versioning in
  ESXi Release"); before 7.0 the third number is 0 and the release is what is stated.

Lines the reader does not know are ignored, never guessed at. Everything is bounded: a file's size,
a line's length, the blocks a file may hold, the vCPU numbers a line may name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from advisor.errors import InputError

MAX_BYTES = 64 * 1024 * 1024  # one file; a vmware.log is rotated far below this
MAX_LINE = 16 * 1024  # a longer line is skipped (and counted): no format above comes near it
MAX_BLOCKS = 10_000  # VMs in one file of one-liner output
MAX_VCPU = 4096  # the highest vCPU number a line may name (advisor's own VM bound)

# ESXi 8.0's ABNF prefix, KB 427504's shorter form, or the earlier `| vmx| I125: ` form.
_PREFIX = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z|[+-]\d{2}:?\d{2})?"
    r"(?:\|\s?[^|]{0,64}\|\s?[A-Z]\d{0,4}:\s|\s[A-Z][a-z]\(\d{0,3}\)\+?\s\S{1,64}\s\S{1,64}\s|\s\S{1,64}\s-\s)"
)
_DICT = re.compile(r'DICT\s+(\S{1,256})\s*=\s*"(.{0,4096})"\s*$')
_V60_VCPU = re.compile(r"numa: VCPU (\d{1,5}): VPD (\d{1,5}) \(PPD (\d{1,5})\)")
_V60_SUMMARY = re.compile(r"numaHost: (\d{1,5}) virtual nodes, (\d{1,5}) virtual sockets, (\d{1,5}) physical domains")
_V60_SUGGEST = re.compile(r"numa: Exposing multicore topology with cpuid\.coresPerSocket = (\d{1,5}) is suggested")
_CONFIG = re.compile(
    r"(?:numa|numaHost): NUMA config: consolidation\s?=\s?(\d)(?:\s+preferHT\s?=\s?(\d))?"
    r"(?:\s+partitionByMemory\s?=\s?(\d))?"
)
_SUMMARY = re.compile(r"numaHost: (\d{1,5}) VCPUs (\d{1,5}) VPDs (\d{1,5}) PPDs")
_VCPU = re.compile(r"numaHost: VCPU (\d{1,5}) VPD (\d{1,5}) PPD (\d{1,5})(?: NodeMask ([0-9a-fA-F]{1,64}))?")
_SLICES = re.compile(r"numaHost: (\d{1,5}) mem slices")
_MANUAL = re.compile(r"numa: Not autosizing due to")
_BUILD = re.compile(r"Log for VMware ESX\S* pid=\d+ version=(\d+\.\d+(?:\.\d+)?) build=(\S{1,64})")
_MARKERS = ("DICT", "numa", "Log for VMware")


@dataclass
class LoggedVM:
    """One VM's NUMA lines as ESXi logged them at a power-on."""

    file: str
    line: int  # the first line of the VM's block
    settings: dict[str, str] = field(default_factory=dict)  # DICT keys as written -> value
    vcpu_map: dict[int, tuple[int, int]] = field(default_factory=dict)  # vCPU -> (VPD, PPD)
    form: str = ""  # "6.0" or "6.5+": which line format the block used
    summary: tuple[int, int, int] | None = None  # 6.5+: (vCPUs, VPDs, PPDs); 6.0: (vnodes, vsockets, domains)
    consolidation: int | None = None
    prefer_ht: int | None = None
    partition_by_memory: int | None = None
    suggested_cps: int | None = None  # 6.0: "coresPerSocket = C is suggested"
    manual: bool = False  # "Not autosizing due to ... manual setting"
    mem_slices: int | None = None
    esxi: str | None = None  # version=x.y.z of the "Log for VMware ESX" line
    build: str | None = None
    skipped_lines: int = 0  # lines over MAX_LINE or naming impossible vCPU numbers

    def setting(self, key: str) -> str | None:
        low = key.lower()
        return next((v for k, v in self.settings.items() if k.lower() == low), None)

    @property
    def name(self) -> str:
        display = self.setting("displayName")
        if display:
            return display
        parent = Path(self.file).parent.name
        return parent if Path(self.file).name.startswith("vmware") and parent else f"{Path(self.file).name}:{self.line}"

    @property
    def has_layout(self) -> bool:
        return bool(self.vcpu_map) or self.summary is not None

    @property
    def vcpus(self) -> int | None:
        text = self.setting("numvcpus")
        if text and text.strip().isdigit():
            return int(text)
        if self.form == "6.5+" and self.summary:
            return self.summary[0]
        return len(self.vcpu_map) or None

    @property
    def complete(self) -> bool:
        """Every vCPU from 0 to vcpus-1 has its VPD and PPD line (a cut log may lack some)."""
        v = self.vcpus
        return bool(v) and set(self.vcpu_map) == set(range(v or 0))

    def _groups(self, which: int) -> tuple[int, ...]:
        sizes: dict[int, int] = {}
        for vpd_ppd in self.vcpu_map.values():
            sizes[vpd_ppd[which]] = sizes.get(vpd_ppd[which], 0) + 1
        return tuple(sizes[k] for k in sorted(sizes))

    @property
    def vnodes(self) -> tuple[int, ...]:
        """vCPUs per virtual node (VPD), in VPD order."""
        return self._groups(0)

    @property
    def clients(self) -> tuple[int, ...]:
        """vCPUs per NUMA client (PPD), in PPD order."""
        return self._groups(1)

    @property
    def vnode_count(self) -> int | None:
        if self.summary:
            return self.summary[1] if self.form == "6.5+" else self.summary[0]
        return len(self.vnodes) or None

    @property
    def client_count(self) -> int | None:
        if self.summary and self.form == "6.5+":
            return self.summary[2]
        return len(self.clients) or None

    @property
    def cores_per_socket(self) -> int | None:
        """What the guest saw: the 6.0 summary's virtual sockets, else cpuid.coresPerSocket."""
        v = self.vcpus
        if self.form == "6.0" and self.summary and v and self.summary[1] and v % self.summary[1] == 0:
            return v // self.summary[1]
        text = self.setting("cpuid.coresPerSocket")
        return int(text) if text and text.strip().isdigit() and int(text) > 0 else None

    @property
    def memory_mib(self) -> int | None:
        text = self.setting("memSize")
        return int(text) if text and text.strip().isdigit() else None


def _message(raw: str) -> str:
    """The message of a line, its timestamp/thread prefix (if any) removed."""
    text = raw.strip()
    match = _PREFIX.match(text)
    return text[match.end():].strip() if match else text


def _starts_new(vm: LoggedVM) -> bool:
    """A summary or config line after a complete set of VCPU lines: ESXi logged a second power-on
    (or a second build of the layout) in the same block; the last one is what runs."""
    return bool(vm.vcpu_map) and vm.form == "6.5+"


def parse_text(text: str, file: str) -> list[LoggedVM]:
    """Every VM block of one text: blocks are separated by empty lines (the one-liner's `echo -e`);
    a raw vmware.log, which has none, is one block. Blocks without a NUMA or DICT line are dropped."""
    out: list[LoggedVM] = []
    current: LoggedVM | None = None
    esxi: tuple[str, str] | None = None
    for number, raw in enumerate(text.split("\n"), 1):
        if not raw.strip():
            current = None
            continue
        if current is None:
            if len(out) >= MAX_BLOCKS:
                raise InputError(f"more than {MAX_BLOCKS:,} VM blocks in one file", file=file, line=number)
            current = LoggedVM(file, number)
            out.append(current)
        if len(raw) > MAX_LINE:
            current.skipped_lines += 1
            continue
        if not any(marker in raw for marker in _MARKERS):
            continue
        msg = _message(raw)
        _read_line(current, msg)
        build = _BUILD.search(msg)
        if build:
            esxi = (build.group(1), build.group(2))
    kept = [vm for vm in out if vm.has_layout or vm.settings]
    for vm in kept:
        if esxi and vm.esxi is None:
            vm.esxi, vm.build = esxi
    return kept


def _read_line(vm: LoggedVM, msg: str) -> None:
    if msg.startswith("DICT"):
        match = _DICT.match(msg)
        if match:
            vm.settings[match.group(1)] = match.group(2)
        return
    if match := _VCPU.match(msg):
        _map_vcpu(vm, "6.5+", match)
    elif match := _V60_VCPU.match(msg):
        _map_vcpu(vm, "6.0", match)
    elif match := _SUMMARY.match(msg):
        if _starts_new(vm):
            vm.vcpu_map.clear()
        vm.form = "6.5+"
        vm.summary = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
    elif match := _V60_SUMMARY.match(msg):
        vm.form = vm.form or "6.0"
        vm.summary = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
    elif match := _CONFIG.match(msg):
        if _starts_new(vm):
            vm.vcpu_map.clear()
            vm.summary = None
        vm.consolidation = int(match.group(1))
        vm.prefer_ht = int(match.group(2)) if match.group(2) else None
        vm.partition_by_memory = int(match.group(3)) if match.group(3) else None
    elif match := _V60_SUGGEST.match(msg):
        vm.suggested_cps = int(match.group(1))
    elif match := _SLICES.match(msg):
        vm.mem_slices = int(match.group(1))
    elif _MANUAL.match(msg):
        vm.manual = True


def _map_vcpu(vm: LoggedVM, form: str, match: re.Match[str]) -> None:
    vcpu, vpd, ppd = int(match.group(1)), int(match.group(2)), int(match.group(3))
    if vcpu >= MAX_VCPU or vpd >= MAX_VCPU or ppd >= MAX_VCPU:
        vm.skipped_lines += 1
        return
    vm.form = vm.form or form
    vm.vcpu_map[vcpu] = (vpd, ppd)


def read_log(path: str | Path, display: str | None = None) -> list[LoggedVM]:
    """The VM blocks of one file. A file that is too large, binary or holds no NUMA lines is one
    InputError naming it (the caller goes on with the other files)."""
    name = display or str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None
    return parse_bytes(data, name)


def parse_bytes(data: bytes, name: str) -> list[LoggedVM]:
    if len(data) > MAX_BYTES:
        raise InputError(f"larger than {MAX_BYTES // (1024 * 1024)} MiB; give the VM's own vmware.log "
                         "or the one-liner's output", file=name)
    if b"\x00" in data:
        raise InputError("binary data, not a text log (vmware.log or the vmdumper one-liner's output)", file=name)
    vms = parse_text(data.decode("utf-8", errors="replace"), name)
    if not any(vm.has_layout for vm in vms):
        raise InputError("no 'numa:' or 'numaHost:' lines: not a vmware.log of a VM powered on by ESXi "
                         "(or the one-liner's output)", file=name)
    return [vm for vm in vms if vm.has_layout]

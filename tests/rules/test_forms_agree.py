"""Every form states the one patch (issue 33).

For generated VMs, written as a .vmx: `advisor fix --format json` gives the changes the fixes make
to that file (each with its rules). The same file evaluated as `check` and `vmx` evaluate it gives
the typed recommendation every other form renders: the .vmx snippet, `vmx --full`, Terraform,
Packer (HCL2 and JSON), PowerCLI, govc, Ansible and `check --format json`'s `recommended_vmx`.
Each form's text is read back into .vmx keys (HCL with python-hcl2, JSON, YAML, govc's argument
lists; PowerCLI by its assignments) and must state the same changes as `fix`: the same value for
every key it states, every change it can state, and no change `fix` does not make.

What a form cannot state is named per form in CANNOT (a device type govc replaces by hand, a key
an API tool owns). A removal is stated by PowerCLI, govc and Ansible as an empty value or vSphere's
default (RESET_VALUES); Terraform and Packer state it only as a comment (REMOVALS_UNSTATED).
Cores per socket, which govc cannot set, is read from the step it names in a comment.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import hcl2
import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from advisor.emit.recommended import _FILE_ONLY
from advisor.engine.catalog import builtin_catalog
from advisor.engine.engine import Evaluator, Policy
from advisor.engine.lint import LintJob, host_and_version, template_subject
from advisor.model.recommendation import RecommendedVM
from advisor.readers import vmxfile
from advisor.vmx.document import VmxDocument, apply
from advisor.vmx.recommendation import changes as recommended_changes
from advisor.vmx.recommendation import to_vmx

HOSTS = ("hp-dl580-g7", "dell-r310", "intel-xeon-6348-2s", "amd-epyc-7763-2s", "broadwell-ex-4s")
WORKLOADS = ("generic", "sql-server", "oracle", "latency-critical", "vdi")


@st.composite
def vmx_files(draw: Any) -> tuple[str, str, str]:
    """(host, workload, .vmx text) of a VM the rules have something to say about."""
    vcpus = draw(st.sampled_from((2, 4, 8, 12, 16, 24, 30, 40, 56)))
    keys = {
        "displayName": "vm-" + draw(st.sampled_from(("a", "db", "web"))),
        "virtualHW.version": str(draw(st.sampled_from((10, 13, 14, 19)))),
        "guestOS": draw(st.sampled_from(("windows2019srv-64", "rhel8-64", "other-64"))),
        "numvcpus": str(vcpus),
        "memsize": str(1024 * draw(st.sampled_from((4, 16, 64, 256)))),
    }
    if draw(st.booleans()):
        keys["cpuid.coresPerSocket"] = str(draw(st.sampled_from([c for c in (1, 2, 4, 8) if vcpus % c == 0])))
    optional = {
        "vcpu.hotadd": st.sampled_from(("TRUE", "FALSE")),
        "mem.hotadd": st.sampled_from(("TRUE", "FALSE")),
        "sched.cpu.latencySensitivity": st.sampled_from(("high", "low", "normal")),
        "sched.mem.max": st.sampled_from(("118", "4096")),
        "sched.cpu.max": st.sampled_from(("500", "10000")),
        "sched.mem.min": st.sampled_from(("1024",)),
        "numa.vcpu.preferHT": st.sampled_from(("TRUE", "FALSE")),
    }
    for key, values in optional.items():
        if draw(st.booleans()):
            keys[key] = draw(values)
    if draw(st.booleans()):
        keys |= {"ethernet0.present": "TRUE", "ethernet0.virtualDev": draw(st.sampled_from(("e1000", "vmxnet3")))}
    if draw(st.booleans()):
        keys |= {"scsi0.present": "TRUE", "scsi0.virtualDev": "lsisas1068", "scsi0:0.present": "TRUE",
                 "scsi0:0.fileName": "vm.vmdk"}
    text = "".join(f'{key} = "{value}"\n' for key, value in {".encoding": "UTF-8", **keys}.items())
    return draw(st.sampled_from(HOSTS)), draw(st.sampled_from(WORKLOADS)), text


def _evaluated(path: Any, host: str, workload: str, full: bool) -> Any:
    """The recommendation of the .vmx as `advisor fix` (full=False) or check/vmx (full=True) build it."""
    templates = vmxfile.read(path, path.read_bytes())
    job = LintJob([], Policy(), host, None, workload)
    host_profile, version = host_and_version(job)
    evaluator = Evaluator(builtin_catalog(), Policy(), full_vmx=full)
    evaluator.evaluate([template_subject(templates[0], workload)], host_profile, version, str(path))
    run = evaluator.finish()
    if run.errors or not run.vms:
        raise _Refused(run.errors)
    return run, evaluator.recommendations[id(run.vms[0])]


class _Refused(Exception):
    """A generated file the model refuses as input (no recommendation to compare)."""


def _fix_changes(path: Any, rec: Any) -> dict[str, str | None]:
    """What `advisor fix` makes the file say, by lower-case key (None: removed)."""
    doc = VmxDocument.parse(path.read_bytes(), file=str(path))
    return {c.key.lower(): c.new for c in apply(doc, recommended_changes(rec.vm))}


# -- each form read back as .vmx keys (lower case) --------------------------------------------

def _vmx_lines(text: str) -> dict[str, str]:
    doc = VmxDocument.parse(text.encode(), file="form")
    return {key.lower(): value for key, value in doc.settings().items()}


def _bool(value: Any) -> str:
    return "TRUE" if value in (True, "true", "True", "$true") else "FALSE"


_GOVC = {"-c": "numvcpus", "-m": "memsize", "-cpu.reservation": "sched.cpu.min", "-mem.reservation": "sched.mem.min",
         "-cpu.limit": "sched.cpu.max", "-mem.limit": "sched.mem.max", "-latency": "sched.cpu.latencysensitivity"}


_GOVC_CPS = re.compile(r"cores per socket should be (\d+)")  # govc has no flag: a step by hand, in a comment
_GOVC_BOOL = {"-memory-pin": "sched.mem.pin", "-nested-hv-enabled": "vhv.enable"}


def _govc(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        if cps := _GOVC_CPS.search(line):
            out["cpuid.corespersocket"] = cps[1]
        if not line.startswith("govc "):
            continue
        args = shlex.split(line)
        if args[1] == "vm.upgrade":
            out["virtualhw.version"] = args[args.index("-version") + 1]
            continue
        i = 2
        while i < len(args):
            arg = args[i]
            if arg in _GOVC:
                out[_GOVC[arg]] = args[i + 1]
                i += 2
            elif arg == "-e":
                key, _, value = args[i + 1].partition("=")
                out[key.lower()] = value
                i += 2
            elif arg.startswith(("-cpu-hot-add-enabled=", "-memory-hot-add-enabled=")):
                name, _, value = arg.partition("=")
                out["vcpu.hotadd" if name.startswith("-cpu") else "mem.hotadd"] = _bool(value)
                i += 1
            elif arg.partition("=")[0] in _GOVC_BOOL:
                name, _, value = arg.partition("=")
                out[_GOVC_BOOL[name]] = _bool(value)
                i += 1
            else:
                i += 2 if arg in ("-vm", "-g") else 1
    return out


_TERRAFORM = {"num_cpus": "numvcpus", "num_cores_per_socket": "cpuid.corespersocket", "memory": "memsize",
              "cpu_reservation": "sched.cpu.min", "memory_reservation": "sched.mem.min", "cpu_limit": "sched.cpu.max",
              "memory_limit": "sched.mem.max", "latency_sensitivity": "sched.cpu.latencysensitivity",
              "hardware_version": "virtualhw.version", "nested_hv_enabled": "vhv.enable",
              "enable_disk_uuid": "disk.enableuuid"}
_HOT = {"cpu_hot_add_enabled": "vcpu.hotadd", "memory_hot_add_enabled": "mem.hotadd",
        "cpu_hot_remove_enabled": "vcpu.hotremove", "memory_reservation_locked_to_max": "sched.mem.pin"}


def _terraform(text: str) -> dict[str, str]:
    resource = next(iter(next(iter(hcl2.loads(text)["resource"][0].values())).values()))
    out: dict[str, str] = {}
    for name, value in resource.items():
        if name in _TERRAFORM:
            out[_TERRAFORM[name]] = str(value).lower() if name == "latency_sensitivity" else str(value)
        elif name in _HOT or name in ("nested_hv_enabled", "enable_disk_uuid"):
            out[_HOT.get(name) or _TERRAFORM[name]] = _bool(value)
        elif name == "extra_config":
            out.update({str(k).strip('"').lower(): str(v) for k, v in value.items()})
    return {k.strip('"'): v.strip('"') for k, v in out.items()}


_PACKER = {"CPUs": "numvcpus", "cpu_cores": "cpuid.corespersocket", "RAM": "memsize",
           "CPU_reservation": "sched.cpu.min", "RAM_reservation": "sched.mem.min", "CPU_limit": "sched.cpu.max",
           "vm_version": "virtualhw.version"}


def _packer(builder: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in builder.items():
        if name in _PACKER:
            out[_PACKER[name]] = str(value)
        elif name in ("CPU_hot_plug", "RAM_hot_plug"):
            out["vcpu.hotadd" if name == "CPU_hot_plug" else "mem.hotadd"] = _bool(value)
        elif name == "NestedHV":
            out["vhv.enable"] = _bool(value)
        elif name == "RAM_reserve_all" and _bool(value) == "TRUE":  # all memory reserved and locked
            out["sched.mem.pin"] = "TRUE"
            out["sched.mem.min"] = str(builder.get("RAM"))
        elif name == "configuration_parameters":
            out.update({str(k).strip('"').lower(): str(v) for k, v in value.items()})
    return out


def _packer_hcl(text: str) -> dict[str, str]:
    source = next(iter(next(iter(hcl2.loads(text)["source"][0].values())).values()))
    return {k: v.strip('"') for k, v in _packer(source).items()}


def _packer_json(text: str) -> dict[str, str]:
    return _packer(json.loads(text)["builders"][0])


_ANSIBLE = {"num_cpus": "numvcpus", "num_cpu_cores_per_socket": "cpuid.corespersocket", "memory_mb": "memsize",
            "cpu_reservation": "sched.cpu.min", "mem_reservation": "sched.mem.min", "cpu_limit": "sched.cpu.max",
            "mem_limit": "sched.mem.max", "version": "virtualhw.version"}


_ANSIBLE_BOOL = {"hotadd_cpu": "vcpu.hotadd", "hotadd_memory": "mem.hotadd", "hotremove_cpu": "vcpu.hotremove",
                 "nested_virt": "vhv.enable", "memory_reservation_lock": "sched.mem.pin"}


def _ansible(text: str) -> dict[str, str]:
    task = yaml.safe_load(text)[0]
    module = next(v for k, v in task.items() if k.endswith("vmware_guest"))
    out: dict[str, str] = {}
    for name, value in (module.get("hardware") or {}).items():
        if name in _ANSIBLE:
            out[_ANSIBLE[name]] = str(value)
        elif name in _ANSIBLE_BOOL:
            out[_ANSIBLE_BOOL[name]] = _bool(value)
    out.update({str(item["key"]).lower(): str(item["value"]) for item in module.get("advanced_settings") or []})
    return out


_POWERCLI_SPEC = {"NumCPUs": "numvcpus", "NumCoresPerSocket": "cpuid.corespersocket", "MemoryMB": "memsize",
                  "CpuHotAddEnabled": "vcpu.hotadd", "MemoryHotAddEnabled": "mem.hotadd",
                  "CpuHotRemoveEnabled": "vcpu.hotremove", "NestedHVEnabled": "vhv.enable",
                  "MemoryReservationLockedToMax": "sched.mem.pin",
                  "LatencySensitivity.Level": "sched.cpu.latencysensitivity",
                  "CpuAllocation.Reservation": "sched.cpu.min", "MemoryAllocation.Reservation": "sched.mem.min",
                  "CpuAllocation.Limit": "sched.cpu.max", "MemoryAllocation.Limit": "sched.mem.max"}
_ASSIGN = re.compile(r"^\$spec\.([A-Za-z.]+)\s*=\s*(.+?)\s*$")
_ADVANCED = re.compile(r"New-AdvancedSetting .*-Name '((?:[^']|'')*)' -Value '((?:[^']|'')*)'")
_REMOVE_ADVANCED = re.compile(r"Get-AdvancedSetting .*-Name '((?:[^']|'')*)' \| Remove-AdvancedSetting")
_EXTRA = re.compile(r"Key\s*=\s*'((?:[^']|'')*)'\s*;\s*Value\s*=\s*'((?:[^']|'')*)'")


def _powercli(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("Set-VM "):
            args = line.split()
            for flag, key in (("-NumCpu", "numvcpus"), ("-CoresPerSocket", "cpuid.corespersocket")):
                if flag in args:
                    out[key] = args[args.index(flag) + 1]
            if "-MemoryGB" in args:
                out["memsize"] = str(int(float(args[args.index("-MemoryGB") + 1]) * 1024))
            if "-MemoryMB" in args:
                out["memsize"] = args[args.index("-MemoryMB") + 1]
        if "Set-VMResourceConfiguration" in line:
            args = line.split()
            for flag, key in (("-CpuReservationMhz", "sched.cpu.min"), ("-MemReservationMB", "sched.mem.min"),
                              ("-CpuLimitMhz", "sched.cpu.max"), ("-MemLimitMB", "sched.mem.max")):
                if flag in args:
                    out[key] = args[args.index(flag) + 1]
        elif match := _ASSIGN.match(line.strip()):
            name, value = match[1], match[2].strip("'")
            if name in _POWERCLI_SPEC:
                key = _POWERCLI_SPEC[name]
                out[key] = _bool(value) if value.startswith("$") else value
        for key, value in _EXTRA.findall(line):
            out[key.replace("''", "'").lower()] = value.replace("''", "'")
        if match := _ADVANCED.search(line):
            out[match[1].replace("''", "'").lower()] = match[2].replace("''", "'")
        if match := _REMOVE_ADVANCED.search(line):
            out[match[1].replace("''", "'").lower()] = ""
    return out


def _json_report(run: Any) -> dict[str, str]:
    from advisor.output.json import document

    return {k.lower(): v for k, v in document(run)["vms"][0]["recommended_vmx"].items()}


FORMS = {
    "vmx": lambda rec, run: _vmx_lines(_render("vmx", rec)),
    "vmx-full": lambda rec, run: _vmx_lines(_render("vmx-full", rec)),
    "terraform": lambda rec, run: _terraform(_render("terraform", rec)),
    "packer": lambda rec, run: _packer_hcl(_render("packer", rec)),
    "packer-json": lambda rec, run: _packer_json(_render("packer-json", rec)),
    "powercli": lambda rec, run: _powercli(_render("powercli", rec)),
    "govc": lambda rec, run: _govc(_render("govc", rec)),
    "ansible": lambda rec, run: _ansible(_render("ansible", rec)),
    "check-json": lambda rec, run: _json_report(run),
}
# Keys a form states in its own terms, not as a value of the key (lower case; a pattern): a device's
# type (govc replaces the device by hand; the others name types in their own vocabulary), the
# guest OS (the API's guest id), and sched.cpu.units (an API reservation is in MHz by definition).
_OWN_TERMS = r"(scsi|ethernet)\d+\.virtualdev|guestos|sched\.cpu\.units"
CANNOT = {
    "govc": re.compile(_OWN_TERMS),
    "terraform": re.compile(_OWN_TERMS),
    "packer": re.compile(_OWN_TERMS),
    "packer-json": re.compile(_OWN_TERMS),
    "ansible": re.compile(_OWN_TERMS),
    "powercli": re.compile(_OWN_TERMS + r"|virtualhw\.version"),  # Set-VM -HardwareVersion takes vmx-NN
}
# What `vmx --full` states for a new VM where the file says nothing: the newest hardware version
# the target runs and a guest OS.
_NEW_VM = {"virtualhw.version", "guestos"}
# Forms that write the whole recommendation as keys (a removed key is absent) rather than changes.
WHOLE = {"vmx", "vmx-full", "check-json"}
# API forms that state no removal yet (issue 33, the forms' part): a removed key is left as it is.
# Forms that state a removal only as a comment (HCL has no "unset"): the key left out, which this test
# cannot read back. The other API forms state a removal as an empty value or vSphere's default
# (RESET_VALUES: unlimited, nothing reserved, off, normal latency).
REMOVALS_UNSTATED = {"terraform", "packer", "packer-json"}
RESET_VALUES = {"", "-1", "$null", "0", "false", "normal"}


def _render(fmt: str, rec: RecommendedVM) -> str:
    from advisor.emit import render

    return render(fmt, rec)


def _disagreements(form: str, stated: dict[str, str], fixed: dict[str, str | None], rec: RecommendedVM,
                   original: dict[str, str]) -> list[str]:
    cannot = CANNOT.get(form)
    out = []
    for key, value in fixed.items():
        if cannot is not None and cannot.fullmatch(key):
            continue
        if value is None:
            if form in WHOLE and key in stated:
                out.append(f"{form}: {key} is removed by fix but stated as {stated[key]!r}")
            elif form not in WHOLE and form not in REMOVALS_UNSTATED and (
                    key not in stated or stated[key].lower() not in RESET_VALUES):
                out.append(f"{form}: the removal of {key} is not stated (form: {stated.get(key)!r})")
            continue
        if stated.get(key) != value and not _same_number(stated.get(key), value):
            out.append(f"{form}: {key} = {stated.get(key)!r}, fix writes {value!r}")
    whole = {k.lower(): v for k, v in to_vmx(rec).items()}
    for key, value in stated.items():
        if key in fixed or (cannot is not None and cannot.fullmatch(key)):
            continue
        if form == "vmx-full" and key not in original and (_FILE_ONLY.fullmatch(key) or key in _NEW_VM):
            continue  # the skeleton of a complete .vmx for a new VM (config.version, PCI bridges), not a change
        # A key fix does not change: the form states the VM's own value (or the recommendation's).
        if original.get(key, whole.get(key)) != value and not _same_number(original.get(key), value):
            out.append(f"{form}: states {key} = {value!r}, a change fix does not make (the file has "
                       f"{original.get(key)!r})")
    return out


def _same_number(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and a.upper() == b.upper()


@pytest.mark.self_compare
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(vmx_files())
def test_every_form_states_the_changes_fix_makes(tmp_path_factory, case):
    host, workload, text = case
    try:
        _check_forms(tmp_path_factory.mktemp("forms") / "vm.vmx", host, workload, text)
    except _Refused:
        assume(False)


def _check_forms(path: Any, host: str, workload: str, text: str) -> dict[str, str | None]:
    """Every form read back agrees with what `fix` changes; returns those changes."""
    path.write_text(text)
    _, fix_rec = _evaluated(path, host, workload, full=False)
    run, rec = _evaluated(path, host, workload, full=True)
    fixed = _fix_changes(path, fix_rec)
    original = _vmx_lines(text)
    problems = []
    for form, read in FORMS.items():
        problems += _disagreements(form, read(rec.vm, run), fixed, rec.vm, original)
    assert not problems, "\n".join([f"host {host}, workload {workload}:", text, *problems])
    return fixed


# Cases that exercise each kind of change: a key set through extra config (NUMA001's preferHT on
# a wide VM), a typed field (SCHED002's latency, a NIC's type), a removal (MEM003's memory limit),
# a resize (HOST003 on a small host), a reservation (SCHED004 on a latency-critical VM).
KNOWN = [
    ("hp-dl580-g7", "sql-server", {"numvcpus": "64", "memsize": "262144"}),
    ("hp-dl580-g7", "sql-server", {"numvcpus": "16", "memsize": "65536", "sched.cpu.latencySensitivity": "high",
                                   "sched.mem.max": "118"}),
    ("dell-r310", "generic", {"numvcpus": "24", "memsize": "16384", "ethernet0.present": "TRUE",
                              "ethernet0.virtualDev": "e1000"}),
    ("intel-xeon-6348-2s", "latency-critical", {"numvcpus": "8", "memsize": "32768",
                                                "sched.cpu.latencySensitivity": "high"}),
]


@pytest.mark.self_compare
@pytest.mark.parametrize(("host", "workload", "keys"), KNOWN, ids=[f"{h}-{w}" for h, w, _ in KNOWN])
def test_known_cases_agree(tmp_path, host, workload, keys):
    text = "".join(f'{k} = "{v}"\n' for k, v in {".encoding": "UTF-8", "displayName": "vm", **keys}.items())
    fixed = _check_forms(tmp_path / "vm.vmx", host, workload, text)
    assert fixed, "the case changes nothing: it tests nothing"


@pytest.mark.parametrize("form", ["powercli", "govc", "ansible"])
def test_the_api_forms_state_a_removal(form):
    """A limit and an advanced key fix removes: the API forms state both (reset or removed)."""
    rec = RecommendedVM(name="vm", vcpus=4, memory=4096, order=("numvcpus", "memsize", "sched.mem.max",
                                                                 "numa.vcpu.preferHT"),
                        removed=frozenset({"sched.mem.max", "numa.vcpu.preferht"}),
                        reasons={"sched.mem.max": ("MEM003", "a limit"), "numa.vcpu.preferht": ("NUMA001", "x")})
    stated = FORMS[form](rec, None)
    assert stated.get("numa.vcpu.preferht") == "", stated
    assert stated.get("sched.mem.max", "missing").lower() in RESET_VALUES, stated


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_reader_reads_its_form(form):
    """The readers above find what a form states (a reader that finds nothing would agree with anything)."""
    rec = RecommendedVM(name="vm", vcpus=8, memory=16384, cpu_hot_add=False, latency_sensitivity="normal",
                        advanced={"numa.vcpu.preferht": "TRUE"},
                        order=("numvcpus", "memsize", "vcpu.hotadd", "sched.cpu.latencySensitivity",
                               "numa.vcpu.preferHT"))
    if form == "check-json":
        return  # read from a run, not a recommendation (the property test reads it)
    stated = FORMS[form](rec, None)
    assert stated.get("numvcpus") == "8" and stated.get("memsize") == "16384", stated
    assert stated.get("numa.vcpu.preferht") == "TRUE", stated

"""A bad-input corpus: every kind of input advisor reads, broken in every ordinary way.

Each case builds its input in tmp_path and runs the CLI in-process through advisor.cli.main()
(the wrapper that turns exceptions into one-line messages), asserting the error contract:

* exit 2;
* stderr names the file (and `file:line:` / the field where the format has them);
* every stderr line is one `advisor: ...` message (or click's own usage block): a value with a
  line break cannot split a message into a second, forged line;
* no "Traceback" and no raw terminal control characters anywhere in stdout or stderr;
* when several files are given (check, lint), the good file's results are still in the report.

Input kinds: spec YAML, host profile files (a spec's `host: ./h.yaml` and config
`host_profiles:`), rule folders (--rules), configuration (.advisor.yaml and pyproject.toml),
.vmx, OVF, OVA, Packer JSON and HCL, Terraform, and `advisor fix` targets.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import org_rule

HOST = "host: {name: lab, sockets: 2, cores_per_socket: 10, threads_per_core: 2, memory: 256GB, esxi: '7.0'}\n"
GOOD_SPEC = HOST + "vms:\n  - name: good-vm\n    vcpus: 4\n    memory: 8GB\n"
GOOD_VMX = '.encoding = "UTF-8"\nconfig.version = "8"\ndisplayName = "good-vmx"\nnumvcpus = "4"\nmemsize = "8192"\n'
HOST_FILE = "name: mine\nsockets: 2\ncores_per_socket: 10\nthreads_per_core: 2\nmemory: 256GB\nesxi: '7.0'\n"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
LATIN1 = "name: caf\xe9\n".encode("latin-1")  # \xe9 alone is not UTF-8
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


# --------------------------------------------------------------------------------------------
# Running the CLI in-process
# --------------------------------------------------------------------------------------------


def test_in_process_runner_keeps_the_no_traceback_contract(cli, monkeypatch, tmp_path: Path) -> None:
    """The helper goes through main(): an unexpected exception is one line and exit 3,
    exactly what a user sees; an InputError is one line and exit 2."""
    import advisor.engine.specs

    spec = tmp_path / "vm.yaml"
    spec.write_text(GOOD_SPEC)

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(advisor.engine.specs, "check_files", boom)
    result = cli("check", spec)
    assert result.code == 3
    assert result.err.strip().splitlines() == [
        "advisor: internal error: RuntimeError: simulated bug (run with --debug for a traceback, and please report it)"]
    assert "Traceback" not in result.out + result.err


@pytest.mark.self_compare
def test_in_process_runner_matches_a_real_process(cli, tmp_path: Path) -> None:
    """Same exit code and same stderr as `python -m advisor` for a bad spec."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(HOST + "vms:\n  - name: a\n    vcpus: 0\n    memory: 8GB\n")
    inside = cli("check", bad)
    proc = subprocess.run([sys.executable, "-m", "advisor", "check", str(bad)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "ADVISOR_DEBUG": ""})
    assert (inside.code, inside.err) == (proc.returncode, proc.stderr) == (2, inside.err)
    assert inside.err == f"advisor: {bad}:4: vms[0].vcpus: Input should be greater than or equal to 1\n"


# --------------------------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------------------------


@dataclass
class Case:
    args: list[object]
    file: Path | str  # the file the message must name
    line: int | None = None  # then `file:line:` must appear
    field: str | None = None  # must appear on the message's line
    good: str | None = None  # a name the (JSON) report on stdout must still contain
    usage: bool = False  # a click usage error (its own multi-line block) rather than an InputError


Builder = Callable[[Path], Case]
CASES: dict[str, Builder] = {}


def case(name: str) -> Callable[[Builder], Builder]:
    def register(builder: Builder) -> Builder:
        assert name not in CASES, name
        CASES[name] = builder
        return builder
    return register


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


# -- spec YAML (advisor check BAD GOOD: the good spec still runs) ---------------------------


def _spec_case(content: str | bytes, line: int | None = None, field: str | None = None) -> Builder:
    def build(tmp: Path) -> Case:
        bad = write(tmp / "bad.yaml", content)
        good = write(tmp / "good.yaml", GOOD_SPEC)
        return Case(["check", "--format", "json", bad, good], bad, line, field, good="good-vm")
    return build


def _vm(body: str) -> str:
    return HOST + "vms:\n  - name: a\n" + "".join(f"    {line}\n" for line in body.splitlines())


SPEC_CASES = {
    "truncated-flow": (HOST + "vms:\n  - {name: a, vcpus: 4, memory: 8", 4, None),
    "truncated-mid-host": ("host: {name: lab, sockets: 2\n", 2, None),
    "empty": ("", None, None),
    "only-comments": ("# nothing here\n\n", None, None),
    "nul-bytes": (b"host: x\x00\x00\x00vms: []\n", None, None),
    "png": (PNG, None, None),
    "latin-1": (HOST.encode() + b"vms:\n  - name: caf\xe9\n", 3, None),
    "utf-16": (GOOD_SPEC.encode("utf-16"), None, None),
    "scalar-document": ("just some words\n", 1, None),
    "two-documents": (GOOD_SPEC + "---\n" + GOOD_SPEC, 6, None),
    "tab-indent": (HOST + "vms:\n\t- name: a\n", 3, None),
    "vms-not-a-list": (HOST + "vms: 5\n", 2, "vms"),
    "vcpus-list": (_vm("vcpus: [4]\nmemory: 8GB"), 4, "vcpus"),
    "memory-mapping": (_vm("vcpus: 4\nmemory: {size: 8}"), 5, "memory"),
    "vcpus-negative": (_vm("vcpus: -4\nmemory: 8GB"), 4, "vcpus"),
    "vcpus-10e12": (_vm(f"vcpus: {10**12}\nmemory: 8GB"), 4, "vcpus"),
    "vcpus-5000-digits": (_vm("vcpus: " + "9" * 5000 + "\nmemory: 8GB"), 4, None),
    "vcpus-float": (_vm("vcpus: 4.5\nmemory: 8GB"), 4, "vcpus"),
    "vcpus-inf": (_vm("vcpus: .inf\nmemory: 8GB"), 4, "vcpus"),
    "memory-zero": (_vm("vcpus: 4\nmemory: 0"), 5, "memory"),
    "memory-negative": (_vm("vcpus: 4\nmemory: -8GB"), 5, "memory"),
    "memory-1-ZB": (_vm("vcpus: 4\nmemory: 1 ZB"), 5, "memory"),
    "memory-unknown-unit": (_vm("vcpus: 4\nmemory: 8 furlongs"), 5, "memory"),
    "memory-1e400": (_vm("vcpus: 4\nmemory: 1e400GB"), 5, "memory"),
    "duplicate-vm-key": (_vm("vcpus: 4\nmemory: 8GB\nmemory: 16GB"), 6, "memory"),
    "duplicate-top-key": (HOST + HOST + "vms: []\n", 2, "host"),
    "bad-date": (HOST + "vms:\n  - {name: a, vcpus: 4, memory: 8GB}\nuntil: 2020-13-45\n", 4, None),
    "host-zero-sockets": ("host: {name: x, sockets: 0, cores_per_socket: 10, memory: 256GB, esxi: '7.0'}\n"
                          "vms: [{name: a, vcpus: 4, memory: 8GB}]\n", 1, "sockets"),
    # Injection: control characters and forged CI commands inside values that end up in messages.
    "ansi-in-workload": (_vm('vcpus: 4\nmemory: 8GB\nworkload: "\\e[31msql\\e[0m"'), 6, "workload"),
    "osc-title-in-version": ('vsphere: "\\e]0;pwned\\a7.0"\n' + HOST + "vms: [{name: a, vcpus: 4, memory: 8GB}]\n",
                             1, "vsphere"),
    "newline-error-in-version": ('vsphere: "7.0\\n::error::forged"\n' + HOST
                                 + "vms: [{name: a, vcpus: 4, memory: 8GB}]\n", 1, "vsphere"),
    "newline-error-in-vm-name": (HOST + 'vms:\n  - {name: "a\\n::error file=x::forged", vcpus: 4, memory: 8GB}\n'
                                 '  - {name: "a\\n::error file=x::forged", vcpus: 2, memory: 8GB}\n', 4, "name"),
}
for _name, (_content, _line, _field) in SPEC_CASES.items():
    case(f"spec-{_name}")(_spec_case(_content, _line, _field))


@case("spec-directory")
def _(tmp: Path) -> Case:
    folder = tmp / "specs.yaml"  # a folder is walked for specs (as lint walks one); this one holds none
    folder.mkdir()
    return Case(["check", folder], folder, field="no spec files found")


@case("spec-dangling-symlink")
def _(tmp: Path) -> Case:
    link = tmp / "gone.yaml"
    link.symlink_to(tmp / "missing.yaml")
    good = write(tmp / "good.yaml", GOOD_SPEC)
    return Case(["check", "--format", "json", link, good], link, good="good-vm")


@case("spec-symlink-loop")
def _(tmp: Path) -> Case:
    (tmp / "a.yaml").symlink_to(tmp / "b.yaml")
    (tmp / "b.yaml").symlink_to(tmp / "a.yaml")
    good = write(tmp / "good.yaml", GOOD_SPEC)
    return Case(["check", "--format", "json", tmp / "a.yaml", good], tmp / "a.yaml", good="good-vm")


@case("spec-unreadable")
def _(tmp: Path) -> Case:
    if AS_ROOT:
        pytest.skip("root reads files whatever their mode")
    bad = write(tmp / "locked.yaml", GOOD_SPEC)
    bad.chmod(0)
    good = write(tmp / "good.yaml", GOOD_SPEC)
    return Case(["check", "--format", "json", bad, good], bad, good="good-vm")


# -- host profile files ------------------------------------------------------------------------


def _host_file_case(content: str | bytes, line: int | None = None, field: str | None = None) -> Builder:
    """A spec naming `host: ./h.yaml`; the error is located in h.yaml. A good spec still runs."""
    def build(tmp: Path) -> Case:
        host = write(tmp / "h.yaml", content)
        spec = write(tmp / "vm.yaml", "host: ./h.yaml\nvms: [{name: a, vcpus: 4, memory: 8GB}]\n")
        good = write(tmp / "good.yaml", GOOD_SPEC)
        return Case(["check", "--format", "json", spec, good], host, line, field, good="good-vm")
    return build


HOST_FILE_CASES = {
    "empty": ("", None, None),
    "truncated": ("name: mine\nsockets: [2\n", 3, None),
    "nul-bytes": (b"name: mine\x00\x00", None, None),
    "png": (PNG, None, None),
    "latin-1": (LATIN1, 1, None),
    "a-list": ("- name: mine\n", None, None),
    "sockets-wrong-type": (HOST_FILE.replace("sockets: 2", "sockets: two"), 2, "sockets"),
    "cores-zero": (HOST_FILE.replace("cores_per_socket: 10", "cores_per_socket: 0"), 3, "cores_per_socket"),
    "cores-10e12": (HOST_FILE.replace("cores_per_socket: 10", f"cores_per_socket: {10**12}"), 3, "cores_per_socket"),
    "memory-1-ZB": (HOST_FILE.replace("256GB", "1 ZB"), 5, "memory"),
    "memory-negative": (HOST_FILE.replace("256GB", "-256GB"), 5, "memory"),
    "duplicate-key": (HOST_FILE + "sockets: 4\n", 7, "sockets"),
    "unknown-key": (HOST_FILE + "sockest: 4\n", 7, "sockest"),
    "ansi-in-esxi": (HOST_FILE.replace("'7.0'", '"\\e[2J7.0"'), 6, "esxi"),
}
for _name, (_content, _line, _field) in HOST_FILE_CASES.items():
    case(f"host-file-{_name}")(_host_file_case(_content, _line, _field))


@case("host-file-directory")
def _(tmp: Path) -> Case:
    (tmp / "h.yaml").mkdir()
    spec = write(tmp / "vm.yaml", "host: ./h.yaml\nvms: [{name: a, vcpus: 4, memory: 8GB}]\n")
    good = write(tmp / "good.yaml", GOOD_SPEC)
    return Case(["check", "--format", "json", spec, good], tmp / "h.yaml", good="good-vm")


@case("host-file-dangling-symlink")
def _(tmp: Path) -> Case:
    (tmp / "h.yaml").symlink_to(tmp / "nowhere.yaml")
    spec = write(tmp / "vm.yaml", "host: ./h.yaml\nvms: [{name: a, vcpus: 4, memory: 8GB}]\n")
    good = write(tmp / "good.yaml", GOOD_SPEC)
    return Case(["check", "--format", "json", spec, good], tmp / "h.yaml", good="good-vm")


def _profile_folder_case(content: str | bytes, line: int | None = None, field: str | None = None) -> Builder:
    """Config `host_profiles: [./hosts]`, a spec naming the profile `mine` (hosts/mine.yaml)."""
    def build(tmp: Path) -> Case:
        profile = write(tmp / "hosts" / "mine.yaml", content)
        config = write(tmp / ".advisor.yaml", "host_profiles: [./hosts]\n")
        spec = write(tmp / "vm.yaml", "host: mine\nvms: [{name: a, vcpus: 4, memory: 8GB}]\n")
        good = write(tmp / "good.yaml", GOOD_SPEC)
        return Case(["check", "--config", config, "--format", "json", spec, good], profile, line, field,
                    good="good-vm")
    return build


case("host-profile-truncated")(_profile_folder_case("name: mine\nsockets: {2\n", 3))
case("host-profile-binary")(_profile_folder_case(PNG))
case("host-profile-wrong-type")(_profile_folder_case(HOST_FILE.replace("esxi: '7.0'", "esxi: [7]"), 6, "esxi"))
case("host-profile-zero-threads")(_profile_folder_case(HOST_FILE.replace("threads_per_core: 2", "threads_per_core: 0"),
                                                       4, "threads_per_core"))


@case("host-profile-folder-missing")
def _(tmp: Path) -> Case:
    config = write(tmp / ".advisor.yaml", "host_profiles: [./no-such-folder]\n")
    spec = write(tmp / "vm.yaml", GOOD_SPEC)
    return Case(["check", "--config", config, spec], tmp / "no-such-folder", field="host_profiles")


# -- rule files (advisor check --rules DIR) ------------------------------------------------------

RULE = org_rule()


def _rule_case(content: str | bytes, line: int | None = None, field: str | None = None) -> Builder:
    def build(tmp: Path) -> Case:
        rule = write(tmp / "policies" / "org.yaml", content)
        spec = write(tmp / "vm.yaml", GOOD_SPEC)
        return Case(["check", "--rules", tmp / "policies", spec], rule, line, field)
    return build


RULE_CASES = {
    "empty": ("", None, None),
    "truncated": (RULE[: RULE.index("    rationale")] + "    rationale: [Our", 9, None),
    "nul-bytes": (RULE.encode() + b"\x00", None, None),
    "png": (PNG, None, None),
    "latin-1": (RULE.replace("Our organisation", "Caf\xe9").encode("latin-1"), 8, None),
    "not-a-mapping": ("- id: ORG001\n", 1, None),
    "rules-empty": ("rules: []\n", 1, "rules"),
    "cel-syntax-error": (RULE.replace("vm.vcpus > 2", "vm.vcpus >"), 6, "when"),
    "cel-unknown-fact": (RULE.replace("vm.vcpus > 2", "vm.vcpuz > 2"), 6, "when"),
    "cel-not-boolean": (RULE.replace("vm.vcpus > 2", "vm.vcpus + 1"), 6, "when"),
    "cel-dyn": (RULE.replace("vm.vcpus > 2", "dyn(vm.vcpus)"), 6, "when"),
    "cel-runtime-error": (RULE.replace("vm.vcpus > 2", "vm.vcpus / 0 > 1"), 2, "when"),
    "severity-wrong": (RULE.replace("severity: warning", "severity: fatal"), 4, "severity"),
    "id-malformed": (RULE.replace("ORG001", "org-1"), 2, "id"),
    "id-of-a-builtin": (RULE.replace("ORG001", "NUMA001"), 2, "id"),
    "duplicate-key": (RULE.replace("    severity: warning\n", "    severity: warning\n    severity: error\n"), 5,
                      "severity"),
    "unknown-placeholder": (RULE.replace("{vm.name}", "{vm.nmae}"), 7, "message"),
    "ansi-in-id": (RULE.replace("id: ORG001", 'id: "\\e[31mORG001"'), 2, "id"),
}
for _name, (_content, _line, _field) in RULE_CASES.items():
    case(f"rules-{_name}")(_rule_case(_content, _line, _field))


@case("rules-folder-is-a-file")
def _(tmp: Path) -> Case:
    rule = write(tmp / "org.yaml", RULE)
    spec = write(tmp / "vm.yaml", GOOD_SPEC)
    return Case(["check", "--rules", rule, spec], rule, usage=True)


@case("rules-folder-without-rules")
def _(tmp: Path) -> Case:
    (tmp / "policies").mkdir()
    write(tmp / "policies" / "README.md", "no rules here\n")
    spec = write(tmp / "vm.yaml", GOOD_SPEC)
    return Case(["check", "--rules", tmp / "policies", spec], tmp / "policies")


# -- configuration: .advisor.yaml (--config) and pyproject.toml [tool.advisor] --------------------


def _config_case(content: str | bytes, line: int | None = None, field: str | None = None,
                 name: str = "advisor.yaml", explicit: bool = True) -> Builder:
    def build(tmp: Path) -> Case:
        config = write(tmp / name, content)
        spec = write(tmp / "vm.yaml", GOOD_SPEC)
        args: list[object] = ["check", spec]
        if explicit:
            args[1:1] = ["--config", config]
        return Case(args, config, line, field)
    return build


CONFIG_CASES = {
    "truncated": ("select: [NUMA, HOST\n", 2, None),
    "nul-bytes": (b"select: []\x00", None, None),
    "png": (PNG, None, None),
    "latin-1": (b"ignore: [HYG001]\n# caf\xe9\n", 2, None),
    "a-list": ("- select\n", 1, None),
    "select-wrong-type": ("select: 5\n", 1, "select"),
    "unknown-key": ("selects: [NUMA]\n", 1, "selects"),
    "fail-on-unknown": ("fail_on: sometimes\n", 1, "fail_on"),
    "severity-unknown": ("severity: {NUMA001: fatal}\n", 1, "severity"),
    "duplicate-key": ("ignore: [HYG001]\nignore: [NET001]\n", 2, "ignore"),
    "exemption-bad-date": ("exemptions:\n  - {rule: NET001, reason: legacy appliance, until: 2027-02-30}\n", 2, None),
    "exemption-no-reason": ("exemptions:\n  - {rule: NET001}\n", 2, "reason"),
    "ansi-in-fail-on": ('fail_on: "\\e]0;pwned\\a"\n', 1, "fail_on"),
}
for _name, (_content, _line, _field) in CONFIG_CASES.items():
    case(f"config-{_name}")(_config_case(_content, _line, _field))

case("config-discovered-truncated")(_config_case("ignore: [HYG001\n", 2, name=".advisor.yaml", explicit=False))
case("pyproject-invalid-toml")(_config_case('[tool.advisor]\nselect = ["NUMA"\n', None, None, "pyproject.toml"))
case("pyproject-wrong-type")(_config_case("[tool.advisor]\nselect = 5\n", None, "select", "pyproject.toml"))
case("pyproject-unknown-key")(_config_case('[tool.advisor]\nfail-on = "error"\n', None, "fail-on", "pyproject.toml"))
case("pyproject-latin-1")(_config_case(b'[tool.advisor]\n# caf\xe9\nselect = ["NUMA"]\n', None, None,
                                       "pyproject.toml"))
case("pyproject-duplicate-key")(_config_case('[tool.advisor]\nselect = ["NUMA"]\nselect = ["HOST"]\n', None, None,
                                             "pyproject.toml"))
case("pyproject-discovered-wrong-type")(_config_case('[tool.advisor]\nfail_on = 3\n', None, "fail_on",
                                                     "pyproject.toml", explicit=False))


@case("config-rules-folder-missing")
def _(tmp: Path) -> Case:
    """`rules:` names a folder (relative to the config) that does not exist: the folder is named."""
    config = write(tmp / "advisor.yaml", "rules: [./no-policies]\n")
    spec = write(tmp / "vm.yaml", GOOD_SPEC)
    return Case(["check", "--config", config, spec], tmp / "no-policies")


@case("config-missing")
def _(tmp: Path) -> Case:
    spec = write(tmp / "vm.yaml", GOOD_SPEC)
    return Case(["check", "--config", tmp / "nope.yaml", spec], tmp / "nope.yaml")


@case("config-directory")
def _(tmp: Path) -> Case:
    (tmp / "conf.yaml").mkdir()
    spec = write(tmp / "vm.yaml", GOOD_SPEC)
    return Case(["check", "--config", tmp / "conf.yaml", spec], tmp / "conf.yaml", usage=True)


# -- templates (advisor lint FOLDER: a good .vmx sits beside the bad file) -------------------------


def _lint_case(name: str, content: str | bytes, line: int | None = None, field: str | None = None) -> Builder:
    def build(tmp: Path) -> Case:
        bad = write(tmp / "t" / name, content)
        write(tmp / "t" / "good.vmx", GOOD_VMX)
        return Case(["lint", "--format", "json", tmp / "t"], bad, line, field, good="good-vmx")
    return build


def _vmx(**keys: str) -> str:
    return '.encoding = "UTF-8"\nconfig.version = "8"\ndisplayName = "bad"\n' + "".join(
        f'{k} = "{v}"\n' for k, v in keys.items())


OVF_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1" '
            'xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData">\n')


def _ovf(vcpus: str = "4", name: str = "appliance") -> str:
    return (
        OVF_HEAD
        + f'  <VirtualSystem id="{name}">\n    <Info>x</Info>\n    <VirtualHardwareSection>\n      <Info>hw</Info>\n'
        + "      <Item>\n        <rasd:InstanceID>1</rasd:InstanceID>\n"
        + "        <rasd:ResourceType>3</rasd:ResourceType>\n"
        + f"        <rasd:VirtualQuantity>{vcpus}</rasd:VirtualQuantity>\n      </Item>\n"
        + "    </VirtualHardwareSection>\n  </VirtualSystem>\n</Envelope>\n"
    )


def _tar(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


PACKER_JSON = ('{\n  "builders": [\n    {\n      "type": "vsphere-iso",\n      "vm_name": "pk",\n'
               '      "CPUs": %s,\n      "RAM": 8192\n    }\n  ]\n}\n')
PACKER_HCL = 'source "vsphere-iso" "pk" {\n  vm_name = "pk"\n  CPUs    = %s\n  RAM     = 8192\n}\n'
TERRAFORM = 'resource "vsphere_virtual_machine" "tf" {\n  name     = "tf"\n  num_cpus = %s\n  memory   = 8192\n}\n'

LINT_CASES = {
    # .vmx
    "vmx-empty": ("bad.vmx", "", None, None),
    "vmx-nul-bytes": ("bad.vmx", b'numvcpus = "4"\n\x00\x00\x00', None, None),
    "vmx-png": ("bad.vmx", PNG, None, None),
    "vmx-only-garbage": ("bad.vmx", "this is not\na vmx file at all\n", None, None),
    "vmx-vcpus-zero": ("bad.vmx", _vmx(numvcpus="0"), 4, "vcpus"),
    "vmx-vcpus-negative": ("bad.vmx", _vmx(numvcpus="-4"), 4, "vcpus"),
    "vmx-vcpus-10e12": ("bad.vmx", _vmx(numvcpus=str(10**12)), 4, "vcpus"),
    "vmx-memsize-words": ("bad.vmx", _vmx(memsize="lots"), 4, "memory"),
    "vmx-memsize-zero": ("bad.vmx", _vmx(memsize="0"), 4, "memory"),
    "vmx-ansi-in-vcpus": ("bad.vmx", _vmx(numvcpus="\x1b[31m4"), 4, "vcpus"),
    # keys advisor reads as structured values: the error is at the key's own line
    "vmx-hotadd-not-boolean": ("bad.vmx", _vmx(numvcpus="4", **{"vcpu.hotadd": "maybe"}), 5, "vcpu.hotadd"),
    "vmx-pin-not-boolean": ("bad.vmx", _vmx(numvcpus="4", **{"sched.mem.pin": "sure"}), 5, "sched.mem.pin"),
    "vmx-unknown-nic-type": ("bad.vmx", _vmx(numvcpus="4", **{"ethernet0.virtualDev": "rtl8139"}), 5,
                             "ethernet0.virtualDev"),
    "vmx-unknown-scsi-type": ("bad.vmx", _vmx(numvcpus="4", **{"scsi0.virtualDev": "megaraid"}), 5,
                              "scsi0.virtualDev"),
    # OVF and OVA
    "ovf-empty": ("bad.ovf", "", 1, None),
    "ovf-truncated": ("bad.ovf", _ovf()[:300], None, None),
    "ovf-png": ("bad.ovf", PNG, 1, None),
    "ovf-latin-1": ("bad.ovf", _ovf(name="caf\xe9").encode("latin-1"), 3, None),
    "ovf-wrong-root": ("bad.ovf", '<?xml version="1.0"?>\n<html><body/></html>\n', 2, None),
    "ovf-vcpus-zero": ("bad.ovf", _ovf("0"), 10, "vcpus"),
    "ovf-vcpus-10e12": ("bad.ovf", _ovf(str(10**12)), 10, "vcpus"),
    "ovf-internal-entity": ("bad.ovf", '<?xml version="1.0"?>\n<!DOCTYPE Envelope [<!ENTITY n "4">]>\n'
                            + _ovf("&n;").split("\n", 1)[1], None, None),
    "ova-empty": ("bad.ova", b"", None, None),
    "ova-not-a-tar": ("bad.ova", b"garbage" * 200, None, None),
    "ova-truncated": ("bad.ova", _tar({"x.ovf": _ovf().encode()})[:700], None, None),
    "ova-no-descriptor": ("bad.ova", _tar({"disk.vmdk": b"\x00" * 1024}), None, None),
    "ova-bad-descriptor": ("bad.ova", _tar({"x.ovf": b"<Envelope><unclosed>"}), 1, None),
    # Packer
    "packer-json-truncated": ("bad.pkr.json", (PACKER_JSON % "4")[:60], None, None),
    "packer-json-empty": ("bad.pkr.json", "", None, None),
    "packer-json-latin-1": ("bad.pkr.json", (PACKER_JSON % "4").replace('"pk"', '"caf\xe9"').encode("latin-1"),
                            5, None),
    "packer-json-vcpus-zero": ("bad.json", PACKER_JSON % "0", 6, "vcpus"),
    "packer-json-vcpus-negative": ("bad.json", PACKER_JSON % "-4", 6, "vcpus"),
    "packer-json-vcpus-10e12": ("bad.json", PACKER_JSON % str(10**12), 6, "vcpus"),
    "packer-json-builders-string": ("bad.json", '{"builders": "vsphere-iso"}\n', 1, None),
    "packer-hcl-truncated": ("bad.pkr.hcl", (PACKER_HCL % "4")[:50], None, None),
    "packer-hcl-nul-bytes": ("bad.pkr.hcl", (PACKER_HCL % "4").encode() + b"\x00\x00", None, None),
    "packer-hcl-latin-1": ("bad.pkr.hcl", (PACKER_HCL % "4").replace('"pk"', '"caf\xe9"', 1).encode("latin-1"),
                           1, None),
    "packer-hcl-vcpus-zero": ("bad.pkr.hcl", PACKER_HCL % "0", 3, "vcpus"),
    "packer-hcl-vcpus-10e12": ("bad.pkr.hcl", PACKER_HCL % str(10**12), 3, "vcpus"),
    # Terraform
    "terraform-truncated": ("bad.tf", (TERRAFORM % "4")[:60], None, None),
    "terraform-png": ("bad.tf", PNG, None, None),
    "terraform-latin-1": ("bad.tf", (TERRAFORM % "4").replace('"tf"', '"caf\xe9"', 1).encode("latin-1"), 1, None),
    "terraform-vcpus-zero": ("bad.tf", TERRAFORM % "0", 3, "vcpus"),
    "terraform-vcpus-negative": ("bad.tf", TERRAFORM % "-4", 3, "vcpus"),
    "terraform-vcpus-10e12": ("bad.tf", TERRAFORM % str(10**12), 3, "vcpus"),
    "terraform-memory-string": ("bad.tf", (TERRAFORM % "4").replace("8192", '"8 furlongs"'), 4, "memory"),
    "terraform-json-truncated": ("bad.tf.json", '{"resource": {"vsphere_virtual_machine": {"x": {"num_cpus": ',
                                 None, None),
}
for _name, (_file, _content, _line, _field) in LINT_CASES.items():
    case(f"lint-{_name}")(_lint_case(_file, _content, _line, _field))


@case("lint-terraform-bad-beside-good-terraform")
def _(tmp: Path) -> Case:
    """A broken .tf must not stop its sibling .tf (which reads the folder for variables) from linting."""
    bad = write(tmp / "t" / "a-broken.tf", "resource {{{\n")
    write(tmp / "t" / "b-good.tf", TERRAFORM.replace('"tf"', '"tf-good"') % "4")
    return Case(["lint", "--format", "json", tmp / "t"], bad, 1, good="tf-good")


@case("lint-dangling-symlink")
def _(tmp: Path) -> Case:
    write(tmp / "t" / "good.vmx", GOOD_VMX)
    link = tmp / "t" / "gone.vmx"
    link.symlink_to(tmp / "t" / "deleted.vmx")
    return Case(["lint", "--format", "json", tmp / "t"], link, good="good-vmx")


@case("lint-symlink-loop")
def _(tmp: Path) -> Case:
    write(tmp / "t" / "good.vmx", GOOD_VMX)
    (tmp / "t" / "a.vmx").symlink_to(tmp / "t" / "b.vmx")
    (tmp / "t" / "b.vmx").symlink_to(tmp / "t" / "a.vmx")
    (tmp / "t" / "sub").symlink_to(tmp / "t", target_is_directory=True)  # a folder loop: not followed
    return Case(["lint", "--format", "json", tmp / "t"], tmp / "t" / "a.vmx", good="good-vmx")


@case("lint-unreadable")
def _(tmp: Path) -> Case:
    if AS_ROOT:
        pytest.skip("root reads files whatever their mode")
    write(tmp / "t" / "good.vmx", GOOD_VMX)
    bad = write(tmp / "t" / "locked.vmx", GOOD_VMX)
    bad.chmod(0)
    return Case(["lint", "--format", "json", tmp / "t"], bad, good="good-vmx")


@case("lint-missing-path")
def _(tmp: Path) -> Case:
    good = write(tmp / "good.vmx", GOOD_VMX)
    return Case(["lint", "--format", "json", tmp / "missing.vmx", good], tmp / "missing.vmx", good="good-vmx")


@case("lint-named-directory-with-suffix")
def _(tmp: Path) -> Case:
    """A folder called x.ovf is walked (nothing inside), the good file is still linted."""
    (tmp / "x.ovf").mkdir()
    write(tmp / "x.ovf" / "inner.ovf", "<")
    good = write(tmp / "good.vmx", GOOD_VMX)
    return Case(["lint", "--format", "json", tmp / "x.ovf", good], tmp / "x.ovf" / "inner.ovf", 1, good="good-vmx")


# -- advisor fix targets -----------------------------------------------------------------------


def _fix_case(content: str | bytes, line: int | None = None, field: str | None = None,
              name: str = "vm.vmx") -> Builder:
    def build(tmp: Path) -> Case:
        target = write(tmp / name, content)
        return Case(["fix", target, "--write"], target, line, field)
    return build


case("fix-empty")(_fix_case(""))
case("fix-nul-bytes")(_fix_case(b'numvcpus = "4"\x00'))
case("fix-png")(_fix_case(PNG))
case("fix-vcpus-zero")(_fix_case(_vmx(numvcpus="0"), 4, "vcpus"))
case("fix-vcpus-10e12")(_fix_case(_vmx(numvcpus=str(10**12)), 4, "vcpus"))
case("fix-memsize-words")(_fix_case(_vmx(memsize="8 furlongs"), 4, "memory"))
case("fix-not-a-vmx")(_fix_case(GOOD_SPEC, name="vm.yaml"))


@case("fix-directory")
def _(tmp: Path) -> Case:
    (tmp / "vm.vmx").mkdir()
    return Case(["fix", tmp / "vm.vmx"], tmp / "vm.vmx", usage=True)


@case("fix-missing")
def _(tmp: Path) -> Case:
    return Case(["fix", tmp / "vm.vmx"], tmp / "vm.vmx")


@case("fix-dangling-symlink")
def _(tmp: Path) -> Case:
    (tmp / "vm.vmx").symlink_to(tmp / "gone.vmx")
    return Case(["fix", tmp / "vm.vmx", "--write"], tmp / "vm.vmx")


@case("fix-symlink-write")
def _(tmp: Path) -> Case:
    """--write through a symlink is refused (replacing the link would detach it from its target)."""
    real = write(tmp / "real.vmx", GOOD_VMX.replace('"8192"', '"8192"\nethernet0.present = "TRUE"\n'
                                                     'ethernet0.virtualDev = "e1000"'))
    (tmp / "vm.vmx").symlink_to(real)
    return Case(["fix", tmp / "vm.vmx", "--write"], tmp / "vm.vmx")


@case("fix-bad-host-file")
def _(tmp: Path) -> Case:
    host = write(tmp / "h.yaml", HOST_FILE.replace("sockets: 2", "sockets: -2"))
    target = write(tmp / "vm.vmx", GOOD_VMX)
    return Case(["fix", target, "--host", host], host, 2, "sockets")


# --------------------------------------------------------------------------------------------
# The test
# --------------------------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # everything but \t and \n


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(name: str, tmp_path: Path, cli) -> None:
    spec = CASES[name](tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    result = cli(*spec.args)
    everything = result.out + result.err
    file = str(spec.file)

    assert result.code == 2, (result.code, result.err)
    assert "Traceback" not in everything
    assert not _CONTROL.search(everything), repr(everything)
    assert file in result.err, result.err
    if spec.usage:
        assert "Error:" in result.err
    else:
        # One message per line, each starting "advisor: ": a line break inside a value cannot
        # forge a second line (a GitHub `::error::` command, say).
        lines = [line for line in result.err.splitlines() if line.strip()]
        assert lines and all(line.startswith("advisor: ") for line in lines), result.err
        assert len(lines) == len(set(lines)), result.err  # each problem said once
        message = next(line for line in lines if file in line)
        if spec.line is not None:
            assert f"{file}:{spec.line}:" in message, message
        if spec.field is not None:
            assert spec.field in message, message
    if spec.good is not None:
        report = json.loads(result.out)
        assert spec.good in json.dumps(report), result.out
        assert file in json.dumps(report["errors"]) if "errors" in report else True
    # A failed run writes nothing: no temporary files, no .bak, no report.
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_the_corpus_is_large_and_covers_every_input_kind() -> None:
    kinds = {name.split("-")[0] for name in CASES}
    assert {"spec", "host", "rules", "config", "pyproject", "lint", "fix"} <= kinds
    templates = {name.split("-")[1] for name in CASES if name.startswith("lint-")}
    assert {"vmx", "ovf", "ova", "packer", "terraform", "dangling", "symlink"} <= templates
    assert len(CASES) >= 70

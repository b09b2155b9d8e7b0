"""Ansible output: a task list using community.vmware.vmware_guest with the recommendation.

Option names are the module's
(https://docs.ansible.com/ansible/latest/collections/community/vmware/vmware_guest_module.html):
``hardware`` (num_cpus, num_cpu_cores_per_socket, memory_mb, hotadd_cpu, hotremove_cpu,
hotadd_memory, cpu_reservation, mem_reservation, memory_reservation_lock, cpu_limit, mem_limit,
scsi, version, nested_virt), ``guest_id``, ``networks`` (device_type), and
``advanced_settings`` — a list of ``{key, value}`` written to the VM's ExtraConfig (added in
community.vmware 1.8.0). ``customvalues`` is a different thing (vCenter custom attributes) and is
not used. vmware_guest has no latency-sensitivity option, so that key goes to advanced_settings.

Connection details are Jinja variables (``{{ vcenter_hostname }}`` ...) for the inventory to
define. The YAML is produced by PyYAML, so any name or value is quoted correctly; reasons are
``#`` comments above the task.
"""

from __future__ import annotations

from typing import Any

import yaml

from advisor.emit.guestid import api_guest_id
from advisor.emit.recommended import NIC_NAMES, SCSI_NAMES, api_ready, extras, removed_extras
from advisor.model.recommendation import RecommendedVM
from advisor.vmx.recommendation import field_of

MODULE = "community.vmware.vmware_guest"
_TEMPLATED = ("hostname", "username", "password", "datacenter", "networks")
_NETWORK = "{{ vm_network }}"
# (hardware option, .vmx key)
_HARDWARE = (
    ("num_cpus", "numvcpus"),
    ("num_cpu_cores_per_socket", "cpuid.coresPerSocket"),
    ("memory_mb", "memsize"),
    ("hotadd_cpu", "vcpu.hotadd"),
    ("hotremove_cpu", "vcpu.hotremove"),
    ("hotadd_memory", "mem.hotadd"),
    ("cpu_reservation", "sched.cpu.min"),
    ("mem_reservation", "sched.mem.min"),
    ("memory_reservation_lock", "sched.mem.pin"),
    ("cpu_limit", "sched.cpu.max"),
    ("mem_limit", "sched.mem.max"),
    ("nested_virt", "vhv.enable"),
)


def task(rec: RecommendedVM) -> tuple[dict[str, Any], list[str]]:
    """The vmware_guest task as data, and the comment lines (reasons) that go above it."""
    rec = api_ready(rec)
    name = rec.name
    consumed: set[str] = set()
    comments: list[str] = []
    hardware: dict[str, Any] = {}
    for option, key in _HARDWARE:
        if field_of(rec, key) is not None:
            hardware[option] = field_of(rec, key)
            consumed.add(key)
    if rec.hardware_version is not None:
        hardware["version"] = rec.hardware_version
        consumed.add("virtualhw.version")
    controllers = rec.scsi_types()
    kinds = {kind for kind in controllers.values() if kind in SCSI_NAMES}
    if len(kinds) == 1 and len(kinds) == len(set(controllers.values())):
        hardware["scsi"] = SCSI_NAMES[kinds.pop()]["ansible"]
        consumed.update(f"scsi{bus}.virtualdev" for bus in controllers)
    elif kinds:
        comments.append("hardware.scsi is one type for all controllers; set each disk's controller_type instead")
    params: dict[str, Any] = {
        "hostname": "{{ vcenter_hostname }}",
        "username": "{{ vcenter_username }}",
        "password": "{{ vcenter_password }}",
        "datacenter": "{{ vcenter_datacenter }}",
        "name": name,
        "state": "present",
    }
    guest = rec.guest_os
    if guest is not None:
        guest_id, certain = api_guest_id(guest)
        if not certain:
            comments.append(f"guest_id is derived from .vmx guestOS {guest!r}; check it against vSphere's list")
        params["guest_id"] = guest_id
        consumed.add("guestos")
    if hardware:
        params["hardware"] = hardware
    networks = []
    for index, kind in rec.nic_types().items():
        if kind in NIC_NAMES:
            networks.append({"name": _NETWORK, "device_type": NIC_NAMES[kind]["ansible"]})
            consumed.add(f"ethernet{index}.virtualdev")
    if networks:
        params["networks"] = networks  # templated on purpose: the port group is the user's
    # A removed key is set to the empty value, which deletes it (vim.vm.ConfigSpec.extraConfig).
    rest = extras(rec, consumed) + [(key, "") for key in removed_extras(rec, consumed)]
    if rest:
        params["advanced_settings"] = [{"key": key, "value": value} for key, value in rest]
    comments = rec.all_reasons() + comments
    # The connection variables are meant to be templated; everything advisor wrote is literal.
    literal = {k: v if k in _TEMPLATED else _literal(v) for k, v in params.items()}
    title = _literal(f"Apply advisor's recommendation to {name}")
    return {"name": title, MODULE: literal, "delegate_to": "localhost"}, comments


class _Unsafe(str):
    """A string Ansible must not template: dumped with the `!unsafe` tag."""


class _Dumper(yaml.SafeDumper):
    """A SafeDumper of our own, so the `!unsafe` representer is not added to PyYAML's shared one."""


def _style(value: str, default: str | None) -> str | None:
    """Double quotes (with escapes) for a string holding a character that does not print: PyYAML
    writes a line break such as U+0085 raw in a plain or single-quoted scalar, where a reader folds
    it into a space, and a control would reach the file and a terminal showing it raw."""
    return '"' if any(not ch.isprintable() for ch in value) else default


_Dumper.add_representer(_Unsafe, lambda dumper, value: dumper.represent_scalar("!unsafe", str(value),
                                                                              style=_style(value, "'")))
_Dumper.add_representer(str, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:str", value,
                                                                          style=_style(value, None)))


def _literal(value: Any) -> Any:
    """Every string advisor writes, tagged `!unsafe` when it holds a `{` or `%` (the keys of
    the mappings are advisor's own option names).

    Ansible templates task names and module arguments; a value tagged `!unsafe` is never
    templated ("Unsafe or raw strings", Ansible's advanced playbook syntax guide). A
    `{% raw %}` wrapper is not enough: the value itself can close it in any spelling
    (`{%endraw%}`, `{%- endraw -%}`), so no text is parsed as Jinja at all."""
    if isinstance(value, str) and ("{" in value or "%" in value):
        return _Unsafe(value)
    if isinstance(value, dict):
        return {k: _literal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_literal(v) for v in value]
    return value


def render(rec: RecommendedVM) -> str:
    body, comments = task(rec)
    header = [
        f"# Generated by advisor for VM {rec.name!r}.",
        "# Shape changes (vCPUs, memory, hot-add, controller type) need the VM powered off.",
        *(f"# {text}" for text in comments),
    ]
    text = yaml.dump([body], Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000)
    return "\n".join(header) + "\n" + text

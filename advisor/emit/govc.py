"""govc output: shell commands that reconfigure an existing VM to the recommendation.

Flags are govc's own (https://github.com/vmware/govmomi/blob/main/govc/USAGE.md, vm.change
in govc/vm/change.go; govmomi v0.46.0, the version tests/vcsim pins and the govc the tests run):
``-c`` vCPUs, ``-m`` memory in MB, ``-g`` guest id, ``-latency`` (low|normal|medium|high),
``-cpu-hot-add-enabled`` / ``-memory-hot-add-enabled``, ``-memory-pin`` (memoryReservationLockedToMax),
``-nested-hv-enabled``, ``-cpu.reservation`` / ``-mem.reservation`` / ``-cpu.limit`` / ``-mem.limit``,
and ``-e key=value`` for ExtraConfig (one per key). ``govc vm.upgrade -version N`` raises the hardware version.

vm.change has no cores-per-socket flag, and the API holds cores per socket in
VirtualHardware.numCoresPerSocket, not in ExtraConfig: whether an ExtraConfig
``cpuid.coresPerSocket`` would take effect is not documented (in vcsim it does not), so a change
of cores per socket is a step written as a comment, with the PowerCLI command that sets it. A
removed key goes back to the API's default through its flag
(``-latency normal``, a reservation of 0, a limit of -1) or, as ExtraConfig, is set to the empty
value, which deletes it (vim.vm.ConfigSpec.extraConfig). govc cannot change a controller's or a NIC's type in place (the
device must be replaced), so those steps are written as comments to follow by hand. Every
argument is quoted with shlex.quote, so names with spaces or quotes survive the shell; one holding
a character that does not print (a control, a line separator, a bidi control) is written in
bash's ANSI-C quoting (``$'\\x1b'``) instead, so no raw control reaches the script or a terminal
showing it. A NUL cannot be passed in a command's argument at all: such a value is refused.
"""

from __future__ import annotations

import shlex

from advisor.emit.guestid import api_guest_id
from advisor.emit.recommended import NIC_NAMES, SCSI_NAMES, api_ready, comment_safe, extras, latency, removed_extras
from advisor.errors import InputError
from advisor.model.recommendation import RecommendedVM
from advisor.vmx.recommendation import field_of

_GOVC_LATENCY = ("low", "normal", "medium", "high")


def commands(rec: RecommendedVM) -> tuple[list[list[str]], list[str]]:
    """The commands as argument lists (without shell quoting), and the comment lines."""
    rec = api_ready(rec)
    name = rec.name
    consumed: set[str] = set()
    comments: list[str] = []
    change = ["govc", "vm.change", "-vm", name]
    for flag, key in (("-c", "numvcpus"), ("-m", "memsize"), ("-cpu.reservation", "sched.cpu.min"),
                      ("-mem.reservation", "sched.mem.min"), ("-cpu.limit", "sched.cpu.max"),
                      ("-mem.limit", "sched.mem.max")):
        value = field_of(rec, key)
        if value is not None:
            change += [flag, str(value)]
            consumed.add(key)
    for flag, key in (("-cpu-hot-add-enabled", "vcpu.hotadd"), ("-memory-hot-add-enabled", "mem.hotadd"),
                      ("-memory-pin", "sched.mem.pin"), ("-nested-hv-enabled", "vhv.enable")):
        value = field_of(rec, key)
        if value is not None:
            change.append(f"{flag}={'true' if value else 'false'}")
            consumed.add(key)
    level = latency(rec)
    if level in _GOVC_LATENCY:
        change += ["-latency", level]
        consumed.add("sched.cpu.latencysensitivity")
    guest = rec.guest_os
    if guest is not None:
        guest_id, certain = api_guest_id(guest)
        if not certain:
            comments.append(f"-g {guest_id} is derived from .vmx guestOS {guest!r}; check it against vSphere's list")
        change += ["-g", guest_id]
        consumed.add("guestos")
    consumed.add("virtualhw.version")  # vm.upgrade below, never ExtraConfig
    consumed.add("cpuid.corespersocket")  # a step by hand (see the module's docstring)
    # Device types are not ExtraConfig: they are replaced by hand (see _device_steps).
    consumed.update(f"scsi{bus}.virtualdev" for bus, kind in rec.scsi_types().items() if kind in SCSI_NAMES)
    consumed.update(f"ethernet{index}.virtualdev" for index, kind in rec.nic_types().items() if kind in NIC_NAMES)
    for key, extra in extras(rec, consumed):
        change += ["-e", f"{_key(key)}={extra}"]
    for key in removed_extras(rec, consumed):
        change += ["-e", f"{_key(key)}="]  # ConfigSpec.extraConfig: a key set to "" is removed
    runs = [change]
    version = rec.hardware_version
    # Only an upgrade a rule asks for: the VM's own version stated again is no change, and
    # vm.upgrade to the version a VM has fails (AlreadyUpgradedFault).
    if version is not None and rec.reason("virtualHW.version"):
        runs.append(["govc", "vm.upgrade", "-version", str(version), "-vm", name])
    cps = rec.cores_per_socket
    if cps is not None and rec.reason("cpuid.coresPerSocket"):
        from advisor.emit.powercli import quote as powershell_quote

        vm = comment_safe(powershell_quote(name))
        comments.append(f"cores per socket should be {cps}; govc vm.change has no flag for it. With the VM off, in "
                        f"PowerCLI: Set-VM -VM (Get-VM -Name {vm}) -CoresPerSocket {cps}, or in the vSphere Client")
    comments += _device_steps(rec, name)
    return runs, comments


def shell_quote(text: str) -> str:
    """``text`` as one shell word: shlex.quote, or bash's $'...' when it holds a character that
    does not print."""
    if all(ch.isprintable() for ch in text):
        return shlex.quote(text)
    if "\x00" in text:
        raise InputError(f"govc cannot be given {comment_safe(repr(text))}: it holds a NUL character, which no "
                         "command argument can carry")
    out = []
    for ch in text:
        code = ord(ch)
        if ch in "\\'":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return "$'" + "".join(out) + "'"


def _key(key: str) -> str:
    """An ExtraConfig key for ``-e key=value``: govc splits at the first ``=``, so a key holding
    one would set another key; no quoting can pass it."""
    if "=" in key:
        raise InputError(f"govc cannot set the key {key!r}: it holds '=' (govc -e splits key=value at the first '=')",
                         field=f"advanced.{key}")
    return key


def render(rec: RecommendedVM) -> str:
    rec = api_ready(rec)
    runs, comments = commands(rec)
    name = rec.name
    out = [
        f"# Generated by advisor for VM {comment_safe(shlex.quote(name))}.",
        "# Power the VM off first: vCPU, memory and hot-add changes need it.",
    ]
    out += [f"# {text}" for text in rec.all_reasons()]
    out += [" ".join(shell_quote(arg) for arg in run) for run in runs]
    out += [f"# {text}" for text in comments]
    return "\n".join(out) + "\n"


def _device_steps(rec: RecommendedVM, name: str) -> list[str]:
    """Manual steps for controller and NIC types, which govc cannot change in place."""
    vm = comment_safe(shlex.quote(name))
    steps: list[str] = []
    for bus, kind in rec.scsi_types().items():
        if kind in SCSI_NAMES:
            steps += [
                f"scsi{bus} should be {kind}; govc cannot change a controller's type in place:",
                f"  govc device.scsi.add -vm {vm} -type {kind}   # then move the disks to it (guest driver first)",
            ]
    for index, kind in rec.nic_types().items():
        if kind in NIC_NAMES:
            steps += [
                f"ethernet{index} should be {kind}; govc cannot change an adapter's type in place:",
                f"  govc vm.network.add -vm {vm} -net 'VM Network' -net.adapter {NIC_NAMES[kind]['packer']}",
                f"  govc device.remove -vm {vm} ethernet-{index}   # the old adapter, once the new one works",
            ]
    return steps

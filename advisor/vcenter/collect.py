"""Reading hosts, clusters and VMs from vCenter with as few calls as the API allows.

One container view holds every host, cluster, folder and VM below the root folder; one
RetrievePropertiesEx asks for the properties advisor maps, for all four types at once, and
ContinueRetrievePropertiesEx pages through the rest (vSphere Web Services API,
PropertyCollector.RetrievePropertiesEx and RetrieveOptions.maxObjects). So the number of calls
grows with inventory size / page size, not with the number of VMs; the only calls besides
are login, the privilege check, CreateContainerView and DestroyView. Nothing is changed on the
server: these are all read methods.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from advisor.vcenter.session import Session, pyvmomi

PAGE = 500  # objects per RetrievePropertiesEx page; vCenter may return fewer (RetrieveOptions)

HOST_PROPERTIES = (
    "name", "parent", "runtime.connectionState", "summary.hardware.cpuModel",
    "hardware.cpuInfo", "hardware.numaInfo", "hardware.memorySize",
    "config.product", "config.powerSystemInfo.currentPolicy", "config.option",
)
CLUSTER_PROPERTIES = ("name",)
FOLDER_PROPERTIES = ("name", "parent")  # a VM's folder path, for the configuration's `workloads:`
VM_PROPERTIES = (
    "name", "parent", "customValue", "config.guestFullName", "config.instanceUuid",
    "runtime.host", "runtime.powerState", "runtime.faultToleranceState", "config.template",
    "config.hardware.numCPU", "config.hardware.numCoresPerSocket", "config.hardware.memoryMB",
    "config.hardware.device", "config.version", "config.guestId", "config.latencySensitivity",
    "config.cpuAllocation", "config.memoryAllocation", "config.memoryReservationLockedToMax",
    "config.cpuHotAddEnabled", "config.memoryHotAddEnabled", "config.cpuAffinity", "config.extraConfig",
    "config.bootOptions",
)


@dataclass
class Record:
    """One managed object: its id, the properties read, and those the server withheld."""

    moid: str
    props: dict[str, Any]
    missing: dict[str, str] = field(default_factory=dict)  # property path -> fault name

    def get(self, path: str, default: Any = None) -> Any:
        return self.props.get(path, default)


@dataclass
class Inventory:
    """What one vCenter holds. `instance` is its About.instanceUuid (vSphere Web Services API,
    AboutInfo: "a globally unique identifier associated with this service instance"; None from an
    ESXi host), which keeps two vCenters apart whatever their objects are named."""

    server: str
    hosts: list[Record] = field(default_factory=list)
    clusters: dict[str, str] = field(default_factory=dict)  # cluster moid -> name
    vms: list[Record] = field(default_factory=list)
    folders: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # moid -> (name, parent folder moid)
    fields: dict[int, str] | None = field(default_factory=dict)  # custom attribute key -> name (None: unreadable)
    instance: str | None = None


def read_inventory(session: Session, page: int = PAGE, progress: Callable[[int], None] | None = None) -> Inventory:
    """Every host, cluster and VM the user can see, with the properties advisor maps.
    `progress`: called with the number of objects of each page read."""
    try:
        return _read(session, page, progress)
    except Exception as exc:
        raise session.fail(exc) from None


def _read(session: Session, page: int, progress: Callable[[int], None] | None = None) -> Inventory:
    vim, vmodl = pyvmomi()
    content = session.content
    pc = vmodl.query.PropertyCollector
    view = content.viewManager.CreateContainerView(
        content.rootFolder, [vim.HostSystem, vim.ClusterComputeResource, vim.Folder, vim.VirtualMachine], True)
    try:
        spec = pc.FilterSpec(
            objectSet=[pc.ObjectSpec(obj=view, skip=True, selectSet=[
                pc.TraversalSpec(name="view", type=vim.view.ContainerView, path="view", skip=False)])],
            propSet=[pc.PropertySpec(type=vim.HostSystem, pathSet=list(HOST_PROPERTIES)),
                     pc.PropertySpec(type=vim.ClusterComputeResource, pathSet=list(CLUSTER_PROPERTIES)),
                     pc.PropertySpec(type=vim.Folder, pathSet=list(FOLDER_PROPERTIES)),
                     pc.PropertySpec(type=vim.VirtualMachine, pathSet=list(VM_PROPERTIES))],
        )
        inventory = Inventory(str(session.endpoint), instance=getattr(content.about, "instanceUuid", None) or None)
        inventory.fields = _field_names(content)
        collector = content.propertyCollector
        result = collector.RetrievePropertiesEx([spec], pc.RetrieveOptions(maxObjects=page))
        while result is not None:
            for obj in result.objects:
                _file(inventory, obj, vim)
            if progress is not None:
                progress(len(result.objects))
            if not result.token:
                break
            result = collector.ContinueRetrievePropertiesEx(result.token)
    finally:
        view.DestroyView()
    return inventory


def _file(inventory: Inventory, obj: Any, vim: Any) -> None:
    record = Record(obj.obj._moId, {p.name: p.val for p in obj.propSet or ()},
                    {m.path: type(m.fault).__name__.rsplit(".", 1)[-1] for m in obj.missingSet or ()})
    if isinstance(obj.obj, vim.HostSystem):
        inventory.hosts.append(record)
    elif isinstance(obj.obj, vim.ClusterComputeResource):
        inventory.clusters[record.moid] = record.get("name", record.moid)
    elif isinstance(obj.obj, vim.Folder):
        parent = record.get("parent")
        inventory.folders[record.moid] = (record.get("name", record.moid),
                                          parent._moId if isinstance(parent, vim.Folder) else None)
    elif isinstance(obj.obj, vim.VirtualMachine):
        inventory.vms.append(record)


def _field_names(content: Any) -> dict[int, str] | None:
    """Custom attribute names by key (CustomFieldsManager.field, one property read; an ESXi host
    has no CustomFieldsManager), or None when the answer cannot be read: pyVmomi refuses a
    definition without its required `type` (govmomi's vcsim 0.46 writes one for
    `govc fields.add NAME` without -type), and one bad definition must not stop the whole read."""
    manager = content.customFieldsManager
    if manager is None:
        return {}
    try:
        return {int(f.key): str(f.name) for f in manager.field or ()}
    except TypeError:
        return None


def read_one_by_one(session: Session) -> int:
    """The baseline the benchmark compares with: list the VMs, then one RetrieveProperties
    call per VM, as a script walking `vm.config` object by object does. Returns VMs read."""
    vim, vmodl = pyvmomi()
    content = session.content
    pc = vmodl.query.PropertyCollector
    view = content.viewManager.CreateContainerView(content.rootFolder, [vim.VirtualMachine], True)
    try:
        vms = view.view
        for vm in vms:
            spec = pc.FilterSpec(objectSet=[pc.ObjectSpec(obj=vm)],
                                 propSet=[pc.PropertySpec(type=vim.VirtualMachine, pathSet=list(VM_PROPERTIES))])
            content.propertyCollector.RetrieveProperties([spec])
    finally:
        view.DestroyView()
    return len(vms)

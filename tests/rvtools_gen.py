"""RVTools-shaped exports for the tests, built from the documented headers (our own data; no
third-party export is copied). Header lists: the sheets advisor reads, as RVTools 4.7.1.4 names them
(../shared/reference/rvtools.md, "Sources"); the 3.x variant names sizes in MB where 4.x says MiB.
Custom attributes are inserted after "Annotation", as RVTools does.
"""

from __future__ import annotations

import csv
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VM_TAIL = ["Annotation", "Backup status", "ClusterInvariantVMMId", "Last backup", "Datacenter", "Cluster", "Host",
           "Folder", "OS according to the configuration file", "OS according to the VMware Tools", "VM ID",
           "VM UUID", "VI SDK Server", "VI SDK UUID"]
HEADERS = {
    "vInfo": ["VM", "Powerstate", "Template", "SRM Placeholder", "Config status", "DNS Name", "Connection state",
              "Guest state", "Heartbeat", "Consolidation Needed", "PowerOn", "Suspended To Memory", "Suspend time",
              "Suspend Interval", "Creation date", "Change Version", "CPUs", "Overall Cpu Readiness", "Memory",
              "Active Memory", "NICs", "Disks", "Total disk capacity MiB", "Fixed Passthru HotPlug",
              "min Required EVC Mode Key", "Latency Sensitivity", "Op Notification Timeout", "EnableUUID", "CBT",
              "Primary IP Address", "Network #1", "Num Monitors", "Video Ram KiB", "Resource pool", "Folder ID",
              "Folder", "vApp", "DAS protection", "FT State", "FT Role", "FT Latency", "FT Bandwidth",
              "FT Sec. Latency", "Provisioned MiB", "In Use MiB", "Unshared MiB", "HA Restart Priority",
              "Firmware", "HW version", "HW upgrade status", "HW upgrade policy", "HW target", "Path",
              "Annotation", "Backup status", "ClusterInvariantVMMId", "Last backup", "Datacenter", "Cluster", "Host",
              "OS according to the configuration file", "OS according to the VMware Tools", "Customization Info",
              "Guest Detailed Data", "VM ID", "SMBIOS UUID", "VM UUID", "VI SDK Server type", "VI SDK API Version",
              "VI SDK Server", "VI SDK UUID"],
    "vCPU": ["VM", "Powerstate", "Template", "SRM Placeholder", "CPUs", "Sockets", "Cores p/s", "Max", "Overall",
             "Level", "Shares", "Reservation", "Entitlement", "DRS Entitlement", "Limit", "Hot Add", "Hot Remove",
             "Numa Hotadd Exposed", *VM_TAIL],
    "vMemory": ["VM", "Powerstate", "Template", "SRM Placeholder", "Size MiB", "Memory Reservation Locked To Max",
                "Overhead", "Max", "Consumed", "Consumed Overhead", "Private", "Shared", "Swapped", "Ballooned",
                "Active", "Entitlement", "DRS Entitlement", "Level", "Shares", "Reservation", "Limit", "Hot Add",
                *VM_TAIL],
    "vNetwork": ["VM", "Powerstate", "Template", "SRM Placeholder", "NIC label", "Adapter", "Network", "Switch",
                 "Connected", "Starts Connected", "Mac Address", "Type", "IPv4 Address", "IPv6 Address",
                 "Direct Path IO", "Internal Sort Column", *VM_TAIL],
    "vHost": ["Host", "Datacenter", "Cluster", "Config status", "Compliance Check State", "in Maintenance Mode",
              "in Quarantine Mode", "vSAN Fault Domain Name", "CPU Model", "Speed", "HT Available", "HT Active",
              "# CPU", "Cores per CPU", "# Cores", "CPU usage %", "# Memory", "Memory Tiering Type",
              "Memory usage %", "Console", "# NICs", "# HBAs", "# VMs total", "# VMs", "VMs per Core", "# vCPUs",
              "vCPUs per Core", "vRAM", "VMotion support", "Current EVC", "Max EVC",
              "Current CPU power man. policy", "Supported CPU power man.", "Host Power Policy", "ESX Version",
              "Boot time", "Vendor", "Model", "Serial number", "BIOS Vendor", "BIOS Version", "Object ID", "UUID",
              "VI SDK Server", "VI SDK UUID"],
    "vCluster": ["Name", "Config status", "OverallStatus", "NumHosts", "numEffectiveHosts", "TotalCpu",
                 "NumCpuCores", "NumCpuThreads", "Effective Cpu", "TotalMemory", "Effective Memory", "HA enabled",
                 "DRS enabled", "VI SDK Server", "VI SDK UUID"],
    "vSource": ["Name", "OS type", "API type", "API version", "Version", "Patch level", "Build", "Fullname",
                "Product name", "Product version", "Product line", "Vendor", "VI SDK Server", "VI SDK UUID"],
    "vMetaData": ["RVTools major version", "RVTools version", "xlsx creation datetime", "Server"],
}
MB_3X = {"Size MiB": "Size MB", "Total disk capacity MiB": "Total disk capacity MB", "Provisioned MiB":
         "Provisioned MB", "In Use MiB": "In Use MB", "Unshared MiB": "Unshared MB", "Video Ram KiB": "Video Ram KB"}
SDK_UUID = "8c3c5e0a-1111-4a2b-9c3d-0123456789ab"
SERVER = "vc01.example.test"


@dataclass
class GenHost:
    name: str
    sockets: int = 2
    cores: int = 10
    ht: bool | None = True
    memory_mb: int = 262144
    cpu_model: str = "Intel(R) Xeon(R) CPU E5-2660 0 @ 2.20GHz"
    esx: str = "VMware ESXi 6.7.0 build-8169922"
    power: str = "Balanced"
    cluster: str = "prod"
    tiering: str = ""  # vHost "Memory Tiering Type": noTiering, hardwareTiering, softwareTiering


@dataclass
class GenVM:
    name: str
    host: str
    cpus: int
    memory_mb: int
    cps: int = 1
    power: str = "poweredOn"
    template: bool = False
    hw: str = "vmx-14"
    latency: str = "normal"
    cpu_reservation: int = 0
    cpu_limit: int = -1
    memory_reservation: int = 0
    memory_locked: bool = False
    memory_limit: int = -1
    cpu_hot_add: bool = False
    memory_hot_add: bool = False
    nics: list[str] = field(default_factory=lambda: ["Vmxnet3"])
    uuid: str = ""
    active_mb: int = 0  # vInfo "Active Memory"
    numa_hotadd_exposed: bool | None = None  # vCPU "Numa Hotadd Exposed" (blank when None)


def sheets(hosts: list[GenHost], vms: list[GenVM], *, version: int = 4, custom: tuple[str, ...] = (),
           drop: tuple[str, ...] = ()) -> dict[str, list[list[Any]]]:
    """Every sheet as rows (header first): `version` 3 names sizes in MB, `custom` attributes go after
    Annotation, `drop` removes columns (optional ones an older RVTools lacks)."""
    def header(sheet: str) -> list[str]:
        names = list(HEADERS[sheet])
        if "Annotation" in names and custom:
            at = names.index("Annotation") + 1
            names[at:at] = list(custom)
        if version == 3:
            names = [MB_3X.get(n, n) for n in names]
        return [n for n in names if n not in drop]

    def row(sheet: str, values: dict[str, Any]) -> list[Any]:
        return [values.get(MB_3X.get(n, n) if version == 3 else n, values.get(n, "")) for n in header(sheet)]

    out: dict[str, list[list[Any]]] = {name: [header(name)] for name in HEADERS}
    for h in hosts:
        out["vHost"].append(row("vHost", {
            "Host": h.name, "Cluster": h.cluster, "CPU Model": h.cpu_model, "Speed": 2200.0,
            "HT Available": str(h.ht is not False), "HT Active": "" if h.ht is None else str(h.ht),
            "# CPU": float(h.sockets), "Cores per CPU": float(h.cores), "# Cores": float(h.sockets * h.cores),
            "# Memory": float(h.memory_mb), "Memory Tiering Type": h.tiering,
            "Current CPU power man. policy": h.power, "ESX Version": h.esx,
            "VI SDK Server": SERVER, "VI SDK UUID": SDK_UUID}))
    for vm in vms:
        ident = vm.uuid or str(uuid.uuid5(uuid.NAMESPACE_DNS, vm.name))
        common = {"VM": vm.name, "Powerstate": vm.power, "Template": str(vm.template), "Host": vm.host,
                  "Cluster": "prod", "VM UUID": ident, "VI SDK Server": SERVER, "VI SDK UUID": SDK_UUID,
                  "Annotation": "", **{c: f"{c}-value" for c in custom}}
        out["vInfo"].append(row("vInfo", {**common, "CPUs": float(vm.cpus), "Memory": float(vm.memory_mb),
                                          "Active Memory": float(vm.active_mb), "Latency Sensitivity": vm.latency,
                                          "HW version": vm.hw,
                                          "FT State": "notConfigured"}))
        out["vCPU"].append(row("vCPU", {**common, "CPUs": float(vm.cpus), "Sockets": float(vm.cpus // vm.cps),
                                        "Cores p/s": float(vm.cps), "Reservation": float(vm.cpu_reservation),
                                        "Limit": float(vm.cpu_limit), "Hot Add": str(vm.cpu_hot_add),
                                        "Numa Hotadd Exposed": "" if vm.numa_hotadd_exposed is None
                                        else str(vm.numa_hotadd_exposed)}))
        out["vMemory"].append(row("vMemory", {**common, "Size MiB": float(vm.memory_mb),
                                              "Memory Reservation Locked To Max": str(vm.memory_locked),
                                              "Reservation": float(vm.memory_reservation),
                                              "Limit": float(vm.memory_limit), "Hot Add": str(vm.memory_hot_add)}))
        for i, adapter in enumerate(vm.nics, 1):
            out["vNetwork"].append(row("vNetwork", {**common, "NIC label": f"Network adapter {i}", "Adapter": adapter}))
    out["vMetaData"].append(row("vMetaData", {"RVTools major version": float(version),
                                              "RVTools version": f"{version}.7.1.4" if version == 4 else "3.11.9",
                                              "Server": SERVER}))
    return out


def write_xlsx(path: Path, data: dict[str, list[list[Any]]]) -> Path:
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for name, rows in data.items():
        sheet = book.create_sheet(name)
        for r in rows:
            sheet.append(r)
    book.save(path)
    return path


def write_csv_folder(folder: Path, data: dict[str, list[list[Any]]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in data.items():
        with open(folder / f"RVTools_tab{name}.csv", "w", newline="", encoding="utf-8-sig") as handle:
            csv.writer(handle).writerows(rows)
    return folder

"""RVTools' database column names, as an export run with `-DBColumnNames` writes its headers
("vInfoVMName" where the usual export says "VM"), each mapped to the header name advisor asks for.

Scheduled exports are often made that way (the RVTools command line with `-DBColumnNames`, as in
vMan.ch's public PowerBI upload script), and tools that merge exports meet both spellings. Sources:
RvToolsMerge (sbroenne/RvToolsMerge, `SheetConfiguration.cs`, `docs/ColumnMappings.md`: the vInfo,
vHost and vMemory names) and a public RVTools dashboard's column normaliser (the vCPU and vNetwork
names, `vInfoVISDKServer`, `vHostFullName` for "ESX Version", `VInfoVersion` for "HW version"); the
names are matched without regard to case, as every header is. Only the columns advisor reads are
listed, and a name no source states is left out: its column then reads as absent (unknown, and
said so where it matters), never guessed. Left out on purpose: `vInfoUUID`, which one source maps
to "VM UUID" and another to the SMBIOS "UUID" (a VM is then keyed by its vCenter and name).
"""

from __future__ import annotations

DB_NAMES: dict[str, dict[str, str]] = {
    "vInfo": {
        "vinfovmname": "vm", "vinfopowerstate": "powerstate", "vinfotemplate": "template", "vinfocpus": "cpus",
        "vinfomemory": "memory", "vinfohost": "host", "vinfocluster": "cluster", "vinfofolder": "folder",
        "vinfoos": "os according to the configuration file", "vinfovisdkserver": "vi sdk server",
        "vinfoversion": "hw version", "vinfohwversion": "hw version",
    },
    "vCPU": {"vcpuvmname": "vm", "vcpucpus": "cpus", "vcpusockets": "sockets", "vcpucorespersocket": "cores p/s"},
    "vMemory": {"vmemoryvmname": "vm", "vmemorysizemib": "size mib", "vmemoryreservation": "reservation",
                "vmemoryreservationlockedtomax": "memory reservation locked to max"},
    "vNetwork": {"vnetworkvmname": "vm", "vnetworkadapter": "adapter"},
    "vHost": {
        "vhostname": "host", "vhostcluster": "cluster", "vhostcpumodel": "cpu model", "vhostcpumhz": "speed",
        "vhostnumcpu": "# cpu", "vhostcorespercpu": "cores per cpu", "vhostmemorysize": "# memory",
        "vhostfullname": "esx version",
    },
}

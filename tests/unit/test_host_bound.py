"""Host-bound devices (advisor.facts.devices.host_bound): which .vmx keys tie a VM to its host."""

from __future__ import annotations

import pytest

from advisor.facts.devices import host_bound


def _adv(**keys: str) -> dict[str, tuple[str, str]]:
    return {k.replace("__", ":").replace("_", "."): (k.upper(), v) for k, v in keys.items()}


@pytest.mark.parametrize(("adv", "devices"), [
    (_adv(ide0__0_devicetype="cdrom-raw", ide0__0_present="TRUE"), ["ide0:0"]),
    (_adv(ide0__0_filetype="cdrom-raw", ide0__0_present="TRUE", ide1__0_devicetype="device",
          ide1__0_present="true"), ["ide0:0", "ide1:0"]),
    (_adv(ide0__0_devicetype=" ATAPI-CDROM ", ide0__0_present="true", ide0__0_startconnected="false"), []),
    (_adv(ide0__0_devicetype="cdrom-raw", ide0__0_present="true", ide0__0_clientdevice="true"), []),
    (_adv(sata0__1_filetype="device"), []),  # not present
    (_adv(floppy0_filetype="device"), ["floppy0"]),  # a floppy is present unless told otherwise
    (_adv(serial0_filetype="device", serial0_present="true"), ["serial0"]),
    (_adv(parallel1_filetype="file", parallel1_present="true"), []),
    (_adv(pcipassthru12_present="TRUE", numvcpus="4", memsize="4096"), ["pcipassthru12"]),
    (_adv(pcipassthru0_present="true", virtualhw_productcompatibility=" Hosted "), []),
    (_adv(numvcpus="4", ethernet0_virtualdev="e1000", scsi0_present="true"), []),
])
def test_host_bound_devices(adv: dict[str, tuple[str, str]], devices: list[str]) -> None:
    found, keys = host_bound(adv)
    assert found == devices
    # the key that made each device host-bound, as spelled
    spelled = {k: s for k, (s, _) in adv.items()}
    assert keys == [spelled.get(f"{d}.devicetype") or spelled.get(f"{d}.filetype") or spelled[f"{d}.present"]
                    for d in devices]

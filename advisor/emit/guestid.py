"""The vSphere API guest id (``windows2019srv_64Guest``) for a .vmx ``guestOS`` (``windows2019srv-64``).

Terraform, Packer, Ansible, PowerCLI and govc all take the API identifier
(vim.vm.GuestOsDescriptor.GuestOsIdentifier,
https://developer.broadcom.com/xapis/vsphere-web-services-api/latest/vim.vm.GuestOsDescriptor.GuestOsIdentifier.html),
while the .vmx file stores a shorter spelling. Most ids follow one pattern (``rhel8-64`` ->
``rhel8_64Guest``, ``ubuntu-64`` -> ``ubuntu64Guest``); the table holds the ones that do not.
"""

from __future__ import annotations

_IRREGULAR = {
    "other": "otherGuest",
    "other-64": "otherGuest64",
    "otherlinux": "otherLinuxGuest",
    "otherlinux-64": "otherLinux64Guest",
    "other24xlinux": "other24xLinuxGuest",
    "other24xlinux-64": "other24xLinux64Guest",
    "other26xlinux": "other26xLinuxGuest",
    "other26xlinux-64": "other26xLinux64Guest",
    "other3xlinux": "other3xLinuxGuest",
    "other3xlinux-64": "other3xLinux64Guest",
    "other4xlinux": "other4xLinuxGuest",
    "other4xlinux-64": "other4xLinux64Guest",
    "other5xlinux": "other5xLinuxGuest",
    "other5xlinux-64": "other5xLinux64Guest",
    "other6xlinux": "other6xLinuxGuest",
    "other6xlinux-64": "other6xLinux64Guest",
    "windows7srv-64": "windows7Server64Guest",
    "windows8srv-64": "windows8Server64Guest",
    "windows9srv-64": "windows9Server64Guest",
    "windows2019srv-64": "windows2019srv_64Guest",
    "windows2019srvnext-64": "windows2019srvNext_64Guest",
    "windows2022srvnext-64": "windows2022srvNext_64Guest",
    "winxppro": "winXPProGuest",
    "winxppro-64": "winXPPro64Guest",
    "oraclelinux": "oracleLinuxGuest",
    "oraclelinux-64": "oracleLinux64Guest",
    "oraclelinux7-64": "oracleLinux7_64Guest",
    "oraclelinux8-64": "oracleLinux8_64Guest",
    "oraclelinux9-64": "oracleLinux9_64Guest",
    "almalinux-64": "almalinux_64Guest",
    "rockylinux-64": "rockylinux_64Guest",
}


def api_guest_id(guest_os: str) -> tuple[str, bool]:
    """The API id and whether it is certain (a table entry or already an API id) rather than
    derived from the usual pattern, so emitters can ask the user to check derived ones."""
    value = guest_os.strip()
    if value.endswith("Guest") or "Guest" in value:
        return value, True
    low = value.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low], True
    if low.endswith("-64"):
        base = low[:-3]
        return (f"{base}_64Guest" if base[-1:].isdigit() else f"{base}64Guest"), False
    return f"{low}Guest", False

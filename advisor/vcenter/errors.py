"""vCenter problems as one line each: what went wrong, and what the user can do about it.

Every message names the server, never the password; the CLI prints it and exits 2.
"""

from __future__ import annotations

from typing import Any

from advisor.errors import InputError

INSTALL_HINT = "pip install 'vsphere-advisor[vcenter]'"


class VcenterError(InputError):
    """A vCenter that cannot be read as asked (unreachable, refused login, missing privilege)."""

    def __init__(self, server: str, message: str) -> None:
        super().__init__(message, file=f"vcenter {server}")


def missing_pyvmomi() -> InputError:
    return InputError(f"reading a vCenter needs pyVmomi, which is not installed: {INSTALL_HINT}",
                      field="--vcenter")


def describe_fault(fault: Any, user: str) -> str:
    """A vSphere API fault (a vmodl.MethodFault) in words, with the fix when there is one."""
    name = type(fault).__name__.rsplit(".", 1)[-1]
    if name == "InvalidLogin":
        return f"wrong user name or password for '{user}'"
    if name in ("NoPermission", "NotAuthenticated"):
        privilege = getattr(fault, "privilegeId", None) or "System.Read"
        obj = getattr(fault, "object", None)
        where = f" on {obj._moId}" if obj is not None and hasattr(obj, "_moId") else ""
        return (f"user '{user}' lacks the privilege {privilege}{where}; give it the Read-only role on the "
                "vCenter root folder, propagated to children")
    message = getattr(fault, "msg", None) or name
    return f"the server refused the request: {name}: {message}"

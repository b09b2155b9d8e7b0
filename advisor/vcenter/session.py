"""A read-only vSphere API session: TLS, credentials, and every failure as one clear line.

TLS is verified against the system's trust store (or --ca-file) unless the user passes
--insecure. The password is handed to pyVmomi's login and nowhere else: it is not kept on the
session, not put in any message, and login faults are rewritten without it.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import re
import socket
import ssl
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from advisor.vcenter.errors import VcenterError, describe_fault, missing_pyvmomi

# Privileges that reading the inventory needs (the Read-only role holds both): System.View to
# see an object, System.Read to read its properties (vSphere Web Services API, PropertyCollector
# and ContainerView "Required Privileges").
READ_PRIVILEGES = ("System.View", "System.Read")
# A DNS name or IPv4 address (RFC 1123 letters, digits and hyphens; underscores as some
# internal DNS zones use them).
_HOST_NAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_.])?")


def pyvmomi() -> tuple[Any, Any]:
    """pyVmomi's vim and vmodl modules, or a one-line error naming the extra to install."""
    try:
        from pyVmomi import vim, vmodl
    except ImportError:
        raise missing_pyvmomi() from None
    return vim, vmodl


@dataclass
class Endpoint:
    host: str
    port: int = 443

    @classmethod
    def parse(cls, server: str) -> Endpoint:
        """HOST, HOST:PORT, [IPv6]:PORT or https://HOST[:PORT]; anything else is one clear line
        (a lone `[` made urlsplit raise, an escape sequence went on to the resolver)."""
        text = server.strip()
        if not text or len(text) > 300 or not text.isprintable() or any(c.isspace() for c in text):
            raise VcenterError(server, "not a server name; give --server HOST or HOST:PORT")
        try:
            parts = urlsplit(text if "//" in text else f"//{text}")
            port = parts.port or 443
        except ValueError:
            raise VcenterError(server, "not a server name or the port is not a number; give --server HOST "
                                       "or HOST:PORT ([ADDRESS]:PORT for IPv6)") from None
        host = parts.hostname
        if not host:
            raise VcenterError(server, "no host name; give --server HOST or HOST:PORT")
        if ":" in host:
            try:
                ipaddress.IPv6Address(host.split("%")[0])
            except ValueError:
                raise VcenterError(server, "not an IPv6 address in the brackets") from None
        elif not _HOST_NAME.fullmatch(host) or len(host) > 253:
            raise VcenterError(server, "not a host name: letters, digits, '.', '-' and '_' only, "
                                       "at most 253 characters")
        return cls(host, port)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == 443 else f"{host}:{self.port}"


def tls_context(insecure: bool, ca_file: str | None, more_ca_files: tuple[str, ...] = ()) -> ssl.SSLContext:
    """Verify against `ca_file` and `more_ca_files` (GOVC_TLS_CA_CERTS may name several) instead
    of the system's trust store when given, else against the system's; `insecure`: no verification."""
    if insecure:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    files = [f for f in (ca_file, *more_ca_files) if f]
    current = files[0] if files else None
    try:
        context = ssl.create_default_context(cafile=current)
        for current in files[1:]:
            context.load_verify_locations(cafile=current)
    except (OSError, ssl.SSLError) as exc:
        raise VcenterError(str(current), f"cannot read the CA file: {exc.strerror or exc}") from None
    return context


@dataclass
class Session:
    """A logged-in service instance and the count of SOAP calls made through it."""

    endpoint: Endpoint
    user: str
    si: Any
    calls: dict[str, int] = field(default_factory=dict)
    _content: Any = None

    @property
    def content(self) -> Any:
        """The ServiceContent, read once (each `si.content` would be another call)."""
        if self._content is None:
            self._content = self.si.RetrieveContent()
        return self._content

    def total_calls(self) -> int:
        return sum(self.calls.values())

    def fail(self, exc: BaseException) -> VcenterError:
        """Any exception raised by a call, as the one-line error the user sees."""
        return as_error(exc, self.endpoint, self.user)

    def close(self) -> None:
        # Logging out is a courtesy to the server; a session that is already gone needs none.
        with contextlib.suppress(Exception):
            self.content.sessionManager.Logout()


def as_error(exc: BaseException, endpoint: Endpoint, user: str) -> VcenterError:
    _, vmodl = pyvmomi()
    where = str(endpoint)
    if isinstance(exc, vmodl.MethodFault):
        return VcenterError(where, describe_fault(exc, user))
    if isinstance(exc, ssl.SSLCertVerificationError):
        return VcenterError(where, f"its TLS certificate is not trusted ({exc.verify_message}); pass --ca-file "
                                   "with the CA that signed it, or --insecure to skip verification")
    if isinstance(exc, ssl.SSLError):
        return VcenterError(where, f"TLS failed: {exc.reason or exc}")
    if isinstance(exc, socket.gaierror):
        return VcenterError(where, "cannot reach the server: unknown host name")
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return VcenterError(where, "cannot reach the server: no answer (timed out)")
    if isinstance(exc, OSError):
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        return VcenterError(where, f"cannot reach the server: {reason.lower()}")
    if isinstance(exc, http.client.HTTPException):
        return VcenterError(where, f"does not answer as a vSphere API endpoint ({type(exc).__name__})")
    return VcenterError(where, f"the vSphere API call failed: {type(exc).__name__}")


def connect(server: str, user: str, password: str, *, insecure: bool = False, ca_file: str | None = None,
            timeout: float = 30.0, more_ca_files: tuple[str, ...] = ()) -> Session:
    """Log in and check that the user may read the inventory, or raise one VcenterError."""
    pyvmomi()
    from pyVim.connect import SmartConnect

    endpoint = Endpoint.parse(server)
    context = tls_context(insecure, ca_file, more_ca_files)
    try:
        si = SmartConnect(host=endpoint.host, port=endpoint.port, user=user, pwd=password, sslContext=context,
                          httpConnectionTimeout=timeout, disableSslCertValidation=insecure)
    except Exception as exc:
        raise as_error(exc, endpoint, user) from None
    session = Session(endpoint, user, si)
    _count_calls(session)
    try:
        _check_privileges(session)
    except VcenterError:
        session.close()
        raise
    except Exception as exc:
        session.close()
        raise session.fail(exc) from None
    return session


def _count_calls(session: Session) -> None:
    """Count every SOAP method call (property reads included) made through this session."""
    stub = session.si._stub
    invoke = stub.InvokeMethod

    def counted(mo: Any, info: Any, args: Any, *rest: Any) -> Any:
        session.calls[info.wsdlName] = session.calls.get(info.wsdlName, 0) + 1
        return invoke(mo, info, args, *rest)

    stub.InvokeMethod = counted


def _check_privileges(session: Session) -> None:
    """vCenter hides objects a user may not see instead of failing, so a user without a role
    would read an empty inventory; ask first (AuthorizationManager.HasPrivilegeOnEntity)."""
    content = session.content
    current = content.sessionManager.currentSession
    granted = content.authorizationManager.HasPrivilegeOnEntity(
        entity=content.rootFolder, sessionId=current.key, privId=list(READ_PRIVILEGES))
    answers = list(granted or ())
    answers += [False] * (len(READ_PRIVILEGES) - len(answers))  # an answer left out grants nothing
    missing = [p for p, ok in zip(READ_PRIVILEGES, answers, strict=False) if not ok]
    if missing:
        raise VcenterError(
            str(session.endpoint),
            f"user '{session.user}' lacks the privilege {' and '.join(missing)} on the root folder; give "
            "it the Read-only role on the vCenter root folder, propagated to children",
        )

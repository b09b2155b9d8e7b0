"""Bounds on the HTTP(S) connections pyVmomi opens to a vCenter: time and size.

pyVmomi gives its SOAP connections a socket timeout only when asked (httpConnectionTimeout),
and SmartConnect's first request (the API version discovery, pyVim.connect.__GetElementTree)
opens an HTTPSConnection with none at all and parses the whole answer into memory. A server
that accepts the TCP connection and never answers (a tarpit), one that stalls the TLS handshake,
one that drips a byte a second, or one that streams XML without end, held advisor for hundreds
of seconds or grew it to the memory limit. Within `bounded()`:
- every socket pyVmomi creates has `timeout` seconds per operation (connect, TLS handshake,
  each receive): socket.setdefaulttimeout, which the stdlib connections use when given none;
- the whole read has `deadline` seconds: a real-time interval timer whose signal raises
  DeadlineExceeded wherever the main thread is blocked (POSIX; elsewhere, or off the main
  thread, only the per-operation timeout holds);
- each answer may be at most MAX_RESPONSE_BYTES, counted as it is read, and must not be
  compressed: requests do not offer compression (pyVmomi does by default, and a compressed
  answer would be inflated unbounded before it is counted).
pyVmomi has no hook for its connection class, so the module names it looks up when it opens a
connection (pyVmomi.SoapAdapter and pyVim.connect's HTTPConnection / HTTPSConnection) point to
bounded subclasses for the duration, and are put back after.
"""

from __future__ import annotations

import contextlib
import http.client
import signal
import socket
import threading
from collections.abc import Iterator
from typing import Any

# A page of RetrievePropertiesEx (500 objects, advisor.vcenter.collect.PAGE) with every device
# and extraConfig entry is a few MB; an answer 64 MiB long is no answer advisor can use.
MAX_RESPONSE_BYTES = 64 << 20
# The only GET pyVmomi sends is the version discovery (/sdk/vimServiceVersions.xml, a few KB),
# which it parses into an ElementTree: a tree of small elements takes about 50 bytes per byte.
MAX_GET_BYTES = 1 << 20


class DeadlineExceeded(BaseException):
    """The whole read took longer than its deadline. A BaseException, like KeyboardInterrupt, so
    that no `except Exception` inside pyVmomi takes it for a failed call and tries another."""


class ResponseTooLarge(BaseException):
    """An answer longer than MAX_RESPONSE_BYTES, or compressed (a BaseException, as above)."""


class _BoundedResponse(http.client.HTTPResponse):
    """An HTTP response that counts the bytes read from it and refuses past the bound."""

    def begin(self) -> None:
        super().begin()
        self.bytes_read = 0
        self.limit = MAX_GET_BYTES if getattr(self, "_method", None) == "GET" else MAX_RESPONSE_BYTES
        encoding = (self.getheader("Content-Encoding") or "identity").strip().lower()
        if encoding != "identity":
            raise ResponseTooLarge(f"a {encoding}-compressed answer, which advisor did not ask for")

    def _count(self, size: int) -> None:
        self.bytes_read = getattr(self, "bytes_read", 0) + size
        limit = getattr(self, "limit", MAX_RESPONSE_BYTES)
        if self.bytes_read > limit:
            raise ResponseTooLarge(f"an answer longer than {limit >> 20} MiB")

    def read(self, amt: int | None = None) -> bytes:
        # Never more than the bound at once: read() without a size would take all there is.
        want = getattr(self, "limit", MAX_RESPONSE_BYTES) + 1 - getattr(self, "bytes_read", 0)
        data = super().read(min(amt, want) if amt is not None else want)
        self._count(len(data))
        return data

    def readinto(self, b: Any) -> int:
        size = super().readinto(b)
        self._count(size)
        return size

    def read1(self, n: int = -1) -> bytes:
        data = super().read1(n)
        self._count(len(data))
        return data

    def readline(self, limit: int | None = -1) -> bytes:
        data = super().readline(limit if limit is not None and limit >= 0 else 65536)
        self._count(len(data))
        return data


def _asked(header: str | bytes) -> bool:
    """Whether a request header is sent: any but Accept-Encoding."""
    name = header.decode("latin-1") if isinstance(header, bytes) else header
    return name.strip().lower() != "accept-encoding"


class _BoundedHTTPConnection(http.client.HTTPConnection):
    response_class = _BoundedResponse

    def putheader(self, header: str | bytes, *values: Any) -> None:
        if _asked(header):  # identity only: see the module's docstring
            super().putheader(header, *values)


class _BoundedHTTPSConnection(http.client.HTTPSConnection):
    response_class = _BoundedResponse

    def putheader(self, header: str | bytes, *values: Any) -> None:
        if _asked(header):
            super().putheader(header, *values)


def _modules() -> list[Any]:
    import pyVim.connect
    import pyVmomi.SoapAdapter

    return [pyVmomi.SoapAdapter, pyVim.connect]


class Bound:
    """What `bounded()` yields: whether the deadline has passed (then nothing more is sent,
    not even a logout)."""
    __slots__ = ("deadline", "expired")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.expired = False


@contextlib.contextmanager
def bounded(timeout: float, deadline: float) -> Iterator[Bound]:
    """Per-operation `timeout`, a total `deadline` (seconds) and bounded answers for every
    connection pyVmomi opens inside the block (see the module's docstring)."""
    bound = Bound(deadline)
    saved = [(module, {name: getattr(module, name) for name in ("HTTPConnection", "HTTPSConnection")})
             for module in _modules()]
    for module, _ in saved:
        module.HTTPConnection = _BoundedHTTPConnection
        module.HTTPSConnection = _BoundedHTTPSConnection
    default = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout)
    timer = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    previous: Any = None
    if timer:
        def expire(signum: int, frame: Any) -> None:
            if not bound.expired:
                bound.expired = True
                raise DeadlineExceeded

        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, deadline)
    try:
        yield bound
    finally:
        if timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        socket.setdefaulttimeout(default)
        for module, names in saved:
            for name, value in names.items():
                setattr(module, name, value)

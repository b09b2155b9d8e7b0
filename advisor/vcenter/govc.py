"""The connection settings govc reads from its environment, read the same way, so a shell set up
for govc runs `advisor collect vcenter` and `advisor check --vcenter` as it is.

As govmomi's govc (v0.46.0: govc/flags/client.go, ClientFlag.Register and Process; govc/README.md)
reads them:
- GOVC_URL: `host`, `host:port`, `user:password@host` or `https://user:password@host/sdk` (the
  scheme defaults to https, the path to /sdk; advisor needs only the host, the port and the user info);
- GOVC_USERNAME, GOVC_PASSWORD: override the URL's user and password when set; a value naming a
  readable file stands for that file's content, trimmed (govmomi session.Secret);
- GOVC_INSECURE: "1" or "true" (any case) skips certificate verification;
- GOVC_TLS_CA_CERTS: CA certificate files, separated as PATH is (":" on POSIX).
advisor's own options and ADVISOR_VCENTER_USER / ADVISOR_VCENTER_PASSWORD come first. No value
read here is ever printed: a server is shown as HOST[:PORT] only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from advisor.vcenter.errors import VcenterError
from advisor.vcenter.session import Endpoint

# A password file longer than this is not a password file (bounded as --password-stdin is).
MAX_SECRET_BYTES = 4096


class GovcEnv(NamedTuple):
    server: str | None  # GOVC_URL's HOST[:PORT], without user info
    user: str | None
    password: str | None
    url_user: str | None  # the user and password in GOVC_URL itself, for its own server only
    url_password: str | None
    insecure: bool
    ca_files: tuple[str, ...]


def _secret(value: str | None) -> str | None:
    """govmomi session.Secret: a value naming a readable file is that file's trimmed content."""
    if not value:
        return None
    content = _secret_file(value)
    return value if content is None else content


def _secret_file(path: str) -> str | None:
    """The trimmed content of the file `path` names; None when it names no regular file, cannot be
    read (govc, too, then uses the value itself) or is too long to be a password."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            data = handle.read(MAX_SECRET_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_SECRET_BYTES:
        return None
    return data.decode("utf-8", "surrogateescape").strip()


def _split(url: str) -> tuple[str | None, str | None, str | None]:
    """GOVC_URL as (HOST[:PORT], user, password); (None, None, None) when it names no host."""
    try:
        parts = urlsplit(url if "//" in url else f"//{url}")
        port = parts.port
    except ValueError:
        return None, None, None
    if not parts.hostname:
        return None, None, None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    server = f"{host}:{port}" if port else host
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    return server, user, password


def read_env(environ: Mapping[str, str] | None = None) -> GovcEnv:
    env = os.environ if environ is None else environ
    server, url_user, url_password = _split(env.get("GOVC_URL", "").strip())
    cas = tuple(p for p in env.get("GOVC_TLS_CA_CERTS", "").split(os.pathsep) if p)
    return GovcEnv(server, _secret(env.get("GOVC_USERNAME")), _secret(env.get("GOVC_PASSWORD")), url_user,
                   url_password, env.get("GOVC_INSECURE", "").strip().lower() in ("1", "true"), cas)


def same_server(given: str, govc: GovcEnv) -> bool:
    """Whether `given` (--server / --vcenter) names GOVC_URL's server, whose user info then applies."""
    if govc.server is None:
        return False
    try:
        return str(Endpoint.parse(given)) == str(Endpoint.parse(govc.server))
    except VcenterError:  # a bad value is reported where it is used, once
        return False

"""The vCenter connection and selection options `advisor collect vcenter` and `advisor check
--vcenter` share: in a module of their own so that `advisor check` declares them without
importing the collect command (its command group, its models) at every start."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

PASSWORD_ENV = "ADVISOR_VCENTER_PASSWORD"
USER_ENV = "ADVISOR_VCENTER_USER"


def vcenter_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Connection and selection options (the server option itself is the caller's)."""
    options = [
        click.option("--user", "-u", envvar=USER_ENV, metavar="USER",
                     help=f"vCenter user (or ${USER_ENV}, then $GOVC_USERNAME or $GOVC_URL's user)."),
        click.option(
            "--password-stdin",
            is_flag=True,
            help=f"Read the password from the first line of standard input (else ${PASSWORD_ENV}, else "
            "$GOVC_PASSWORD or $GOVC_URL's password, else a prompt on a terminal). Never a command-line argument.",
        ),
        click.option("--insecure", is_flag=True,
                     help="Do not verify the server's TLS certificate (also when $GOVC_INSECURE is 1 or true)."),
        click.option(
            "--ca-file", type=click.Path(dir_okay=False),
            help="CA certificate(s) (PEM) to verify the server with (else those $GOVC_TLS_CA_CERTS names).",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(1, 600),
            default=30.0,
            show_default=True,
            help="Seconds to wait for the server to connect or to send more of an answer.",
        ),
        click.option(
            "--deadline",
            type=click.FloatRange(1, 86400),
            default=600.0,
            show_default=True,
            help="Seconds the whole vCenter read may take (login, inventory, logout).",
        ),
        click.option("--cluster", "clusters", multiple=True, metavar="GLOB", help="Only hosts of matching clusters."),
        click.option("--host", "hosts", multiple=True, metavar="GLOB", help="Only matching hosts."),
        click.option("--vm", "vms", multiple=True, metavar="GLOB", help="Only matching VMs."),
    ]
    for option in reversed(options):
        func = option(func)
    return func

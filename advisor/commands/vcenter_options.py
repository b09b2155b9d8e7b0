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
        click.option("--user", "-u", envvar=USER_ENV, help=f"vCenter user (or ${USER_ENV}).", metavar="USER"),
        click.option(
            "--password-stdin",
            is_flag=True,
            help=f"Read the password from the first line of standard input (else ${PASSWORD_ENV}, "
            "else a prompt on a terminal). Never a command-line argument.",
        ),
        click.option("--insecure", is_flag=True, help="Do not verify the server's TLS certificate."),
        click.option(
            "--ca-file", type=click.Path(dir_okay=False), help="CA certificate(s) (PEM) to verify the server with."
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

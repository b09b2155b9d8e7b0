"""`advisor init`: a commented spec and an `.advisor.yaml` to start from.

Both are written only if neither exists (nothing is ever overwritten, and nothing is written
when one of them is in the way); the spec is one `advisor check` passes without a warning, so
a newcomer's first run shows what a clean result looks like before they change it.
"""

from __future__ import annotations

from pathlib import Path

import click

DEFAULT_HOST = "intel-xeon-6348-2s"

SPEC = """\
# An advisor spec: the host your VMs run on and the VMs you propose. Check it with
#
#   advisor check {spec_name}
#
# Every key is described in docs/spec.md (`advisor schema --format markdown`). For an editor
# that completes and checks keys as you type: `advisor schema -o advisor-spec.schema.json`,
# then make this file's first line
#   # yaml-language-server: $schema=./advisor-spec.schema.json

# A bundled host profile (`advisor hosts` lists them), a host file, or a host written here:
#   host: {{name: esx01, sockets: 2, cores_per_socket: 28, threads_per_core: 2,
#          memory: 512GB, esxi: "8.0"}}
host: {host}

# vsphere: "8.0"   # the vSphere release the VMs target (default: the host's ESXi)

vms:
  - name: app01
    vcpus: {vcpus:<16}# fits in one NUMA node of the host: no vNUMA to manage
    memory: {memory:<15}# sizes: 64GB, 1.5TB, 4096MB (GB means GiB, as in vSphere)
    hardware_version: {hw:<5}# virtualHW.version: the newest the host's ESXi runs
    guest_os: rhel9-64     # the guestOS id, as in a .vmx
    workload: generic      # sql-server, java, hpc, vdi ... select the workload's rules
    disks:
      - {{size: 60GB, controller: {controller}, role: os}}
    nics:
      - adapter: {adapter}
    # A finding that does not apply is suppressed with a reason (and optionally an expiry):
    # ignore:
    #   - {{rule: NUMA001, reason: "why it does not apply", until: 2027-06-30}}
"""

CONFIG = """\
# advisor's configuration for this folder and below (command-line flags override it).
# Every key is optional; docs/spec.md ("Configuration reference") describes them all.

# Lowest severity that makes `advisor check` / `advisor lint` exit 1: error, warning, info, never.
fail_on: error

# Host profile (or host file) for `advisor lint`'s host-aware rules:
# host: {host}

# Rules to run or skip, by id or prefix (`advisor rules` lists them):
# select: [NUMA, CPU]
# ignore: [HYG004]

# Paths the folder walks of `advisor lint` and `advisor check` skip (gitignore patterns):
# exclude: ["vendor/"]

# Findings not reported, each with a reason:
# exemptions:
#   - {{rule: NET001, vms: ["legacy-*"], reason: "vendor appliance, e1000 only", until: 2027-06-30}}
"""


@click.command("init")
@click.argument("folder", default=".", type=click.Path(file_okay=False))
@click.option("--host", "host_name", default=DEFAULT_HOST, show_default=True, metavar="PROFILE",
              help="Bundled host profile the spec starts from (`advisor hosts` lists them).")
@click.option("--spec", "spec_name", default="vm.yaml", show_default=True, metavar="NAME",
              help="File name of the spec written in FOLDER.")
def command(folder: str, host_name: str, spec_name: str) -> None:
    """Write a commented spec and an .advisor.yaml in FOLDER to start from.

    Nothing is overwritten: if either file exists, nothing is written (exit 2). The spec
    passes `advisor check` as written; change it to describe your VMs.
    """
    from advisor.atomic import check_target, write_atomic
    from advisor.errors import InputError, printable
    from advisor.load.hosts import load_profile
    from advisor.model.units import format_mib
    from advisor.model.versions import hw_feature, max_hw_for

    if Path(spec_name).name != spec_name or not spec_name.endswith((".yaml", ".yml")):
        raise click.UsageError("--spec is a file name ending in .yaml or .yml (it is written in FOLDER)")
    host = load_profile(host_name)
    base = Path(folder)
    targets = [base / spec_name, base / ".advisor.yaml"]
    for target in targets:
        if target.exists() or target.is_symlink():
            raise InputError("exists; advisor init never overwrites a file (nothing was written)", file=str(target))
    if not base.is_dir():
        raise InputError("no such folder", file=folder)
    for target in targets:
        check_target(target)
    # One NUMA node's cores and half its memory: a VM the host's scheduler keeps on one node.
    vcpus = min(host.cores_per_node, 8)
    memory = format_mib(min(host.memory_per_node // 2, 32 * 1024))
    hw = max_hw_for(host.esxi)
    # The paravirtual devices where the hardware version has them (7 and later), else the
    # emulated ones that version offers.
    spec = SPEC.format(spec_name=spec_name, host=host.name, vcpus=vcpus, memory=memory, hw=hw,
                       controller="pvscsi" if hw_feature(hw, "pvscsi") else "lsilogic",
                       adapter="vmxnet3" if hw_feature(hw, "vmxnet3") else "e1000")
    config = CONFIG.format(host=host.name)
    write_atomic(targets[0], spec.encode("utf-8"))
    write_atomic(targets[1], config.encode("utf-8"))
    spec_file, config_file = (printable(str(t)) for t in targets)  # a folder's name from outside, escaped
    click.echo(f"advisor: wrote {spec_file} and {config_file}; next: advisor check {spec_file}", err=True)

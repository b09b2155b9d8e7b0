"""`advisor vmx`: every .vmx key advisor recommends for each VM, in the form you build VMs with."""

from __future__ import annotations

import click

from advisor.commands.outputs import check_output, deliver, output_option
from advisor.vocab import EMIT_FORMATS as AS


@click.command("vmx")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--vm", "only", multiple=True, help="Only these VMs (repeatable).")
@click.option("--as", "form", type=click.Choice(AS), default="vmx", show_default=True,
              help="Output form: a .vmx fragment, Terraform, Packer (HCL2 or JSON), PowerCLI, govc or Ansible.")
@click.option("--full", is_flag=True, help="With --as vmx: a complete .vmx for a new VM, not a fragment.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Configuration file.")
@click.option("--rules", "rule_dirs", multiple=True, type=click.Path(file_okay=False), help="Extra rule folder.")
@output_option
def command(file: str, only: tuple[str, ...], form: str, full: bool, config_file, rule_dirs, output) -> None:
    """Print the recommended settings for each VM of a spec.

    The keys are the VM as specified plus every fix the rules recommend (suppressed findings
    excluded), each fix preceded by a comment naming its rule. Apply the same keys to an
    existing .vmx with `advisor fix`.
    """
    from advisor.commands.common import settings
    from advisor.emit import render
    from advisor.engine.specs import check_files

    if full and form != "vmx":
        raise click.UsageError("--full only applies to --as vmx")
    check_output(output, [file, *([config_file] if config_file else [])])
    s = settings([file], (), (), None, (), (), config_file, rule_dirs, True, False)
    run = check_files([file], s.catalog, s.policy, s.profiles)
    if run.errors:
        from advisor.errors import InputError, one_or_all

        raise one_or_all([InputError(e.message, file=e.file, line=e.line, field=e.field) for e in run.errors])
    chosen = [v for v in run.vms if not only or v.name in only]
    if only and not chosen:
        raise click.UsageError(f"no VM named {', '.join(only)} in {file}")
    parts = []
    target_hw = None
    if full:
        from advisor.load.specfile import load_spec
        from advisor.model.versions import max_hw_for

        # A new VM gets the newest hardware version the target runs: it supports the most
        # vCPUs, memory and devices, and a newer one would not power on there (HYG004), nor move
        # to an older host of its cluster (LIM014).
        loaded = load_spec(file, s.profiles)
        target_hw = min([max_hw_for(loaded.version), *(max_hw_for(c.host.esxi) for c in loaded.cluster)])
    for result in chosen:
        rec = result.recommendation
        if full:
            from advisor.emit.vmxfrag import render_full

            parts.append(render_full(rec, target_hw))
        else:
            parts.append(render(form, rec))
    text = ("\n" if form in ("vmx", "terraform", "packer", "powercli", "govc") else "").join(parts)
    deliver(text, output)

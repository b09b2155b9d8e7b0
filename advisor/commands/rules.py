"""`advisor rules`: list the catalog (or the facts conditions can use)."""

from __future__ import annotations

import json

import click

from advisor.commands.outputs import check_output, console_text, deliver, output_option, text_console
from advisor.model.base import WORKLOADS
from advisor.vocab import SEVERITIES


@click.command("rules")
@click.option("--area", help="Only rules whose id starts with this prefix (NUMA, SQL, ...).")
@click.option("--severity", type=click.Choice(SEVERITIES), help="Only this default severity.")
@click.option("--workload", type=click.Choice(WORKLOADS), help="Only rules that apply to this workload kind.")
@click.option(
    "--rules", "rule_dirs", multiple=True, type=click.Path(file_okay=False), help="Include a folder of your own rules."
)
@click.option("--facts", is_flag=True, help="List the facts rule conditions can use instead.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@output_option
def command(area, severity, workload, rule_dirs, facts, fmt, output) -> None:
    """List the rule catalog: id, severity, scope and what each rule finds."""
    from advisor.engine.catalog import load_catalog

    check_output(output)
    catalog = load_catalog(list(rule_dirs))
    if facts:
        from advisor.facts.facts import FACTS

        if fmt == "json":
            deliver(json.dumps([{"name": f.name, "type": f.type, "doc": f.doc} for f in FACTS.values()], indent=2),
                    output)
        else:
            ordered = sorted(FACTS.values(), key=lambda f: f.name)
            deliver("".join(f"{f.name:<34} {f.type:<13} {f.doc}\n" for f in ordered), output)
        return
    if fmt == "markdown":
        from advisor.engine.ruledocs import catalog_markdown

        deliver(catalog_markdown(catalog), output)
        return
    chosen = [r for r in catalog.rules
              if (not area or r.id.startswith(area.upper()))
              and (not severity or r.d.severity == severity)
              and (not workload or not r.d.workloads or workload in r.d.workloads)]
    if fmt == "json":
        deliver(json.dumps([{"id": r.id, **r.metadata(), "scope": r.d.scope, "workloads": r.d.workloads,
                             "when": r.d.when, "builtin": r.builtin} for r in chosen], indent=2, ensure_ascii=False),
                output)
        return
    from rich.table import Table

    table = Table(box=None, pad_edge=False, show_edge=False)
    for column in ("id", "severity", "scope", "summary"):
        table.add_column(column, overflow="fold")
    for r in chosen:
        table.add_row(r.id, r.d.severity, r.d.scope, r.d.summary)
    console = text_console(output)  # the terminal's width (a file: the default width)
    console.print(table)
    deliver(console_text(console) + f"{len(chosen)} rules. `advisor explain ID` shows one in full.\n", output)

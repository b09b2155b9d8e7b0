"""`advisor explain ID`: one rule in full - why, evidence, fix, and its examples."""

from __future__ import annotations

import click

from advisor.commands.outputs import check_output, deliver, output_option


@click.command("explain")
@click.argument("rule_id")
@click.option(
    "--rules", "rule_dirs", multiple=True, type=click.Path(file_okay=False), help="Include a folder of your own rules."
)
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True)
@output_option
def command(rule_id: str, rule_dirs, fmt: str, output: str | None) -> None:
    """Print a rule's rationale, references, fix and the examples it fails and passes."""
    import difflib

    from advisor.engine.catalog import load_catalog
    from advisor.engine.ruledocs import explain_text, rule_markdown

    check_output(output)
    catalog = load_catalog(list(rule_dirs))
    rule = catalog.by_id(rule_id.upper())
    if rule is None:
        close = difflib.get_close_matches(rule_id.upper(), catalog.ids(), n=1)
        raise click.UsageError(f"no rule '{rule_id}'" + (f"; did you mean {close[0]}?" if close else ""))
    deliver(explain_text(rule) if fmt == "text" else rule_markdown(rule), output)

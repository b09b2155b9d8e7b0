"""`advisor schema`: the JSON Schema of the spec format, generated from the Pydantic models."""

from __future__ import annotations

import json

import click

from advisor.commands.outputs import check_output, deliver, output_option
from advisor.model.jsonschema import host_schema, spec_schema


@click.command("schema")
@click.option("--kind", type=click.Choice(["spec", "host"]), default="spec", show_default=True,
              help="Which file format to describe.")
@click.option("--format", "fmt", type=click.Choice(["json", "markdown"]), default="json", show_default=True,
              help="markdown: the reference for people (docs/spec.md: spec, host and configuration keys).")
@output_option
def command(kind: str, fmt: str, output: str | None) -> None:
    """Print the JSON Schema of the spec format (or of a host profile), or the reference.

    Point your editor at it with a first line such as
    `# yaml-language-server: $schema=./advisor-spec.schema.json`.
    `--format markdown` prints the human-readable reference (docs/spec.md).
    """
    check_output(output)
    if fmt == "markdown":
        from advisor.output.specref import spec_markdown

        deliver(spec_markdown(), output)
        return
    deliver(json.dumps(spec_schema() if kind == "spec" else host_schema(), indent=2), output)

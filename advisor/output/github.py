"""GitHub Actions workflow commands: one annotation per finding on the pull request's files.

Findings (and input errors) only: GitHub shows a handful of annotations per step, so notes and
"not evaluated" lines would crowd the findings out. The run is summed up in at most three plain
log lines (the totals and what was not evaluated); `advisor check|lint --format github` also
appends the Markdown report to $GITHUB_STEP_SUMMARY when that is set (advisor.commands.common).

`::error file=F,line=L,title=T::message` (warning -> ::warning, info -> ::notice). GitHub
percent-encodes the parts of a command: in the message `%`, CR and LF; in a property value also
`:` and `,`, which would otherwise end the value. Encoding them is also what stops a hostile
VM name from smuggling in a second command: a line break in the data can never start a new
line of the log. Suppressed findings are left out: they were accepted, so they must not
annotate the diff. Input errors are errors on their file.
"""

from __future__ import annotations

from advisor.output.describe import IN_JSON, not_evaluated_lines, totals
from advisor.output.escape import github_data, github_property
from advisor.report.findings import Finding, InputProblem, Run

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def command(name: str, message: str, **properties: object) -> str:
    """`::name k=v,k=v::message` with every part escaped; properties that are None are left out."""
    props = ",".join(
        f"{key}={github_property(value)}" for key, value in properties.items() if value is not None
    )
    return f"::{name}{' ' + props if props else ''}::{github_data(message)}"


def _finding(f: Finding) -> str:
    message = f.message
    if f.fix.get("text"):
        message += f"\nFix: {f.fix['text']}"
    return command(COMMANDS[f.severity], message, file=f.file, line=f.line, col=f.column, title=f"{f.rule} {f.name}")


def _input_error(e: InputProblem) -> str:
    message = (f"{e.field}: " if e.field else "") + e.message
    return command("error", message, file=e.file, line=e.line, title="advisor input error")


def summary_lines(run: Run) -> list[str]:
    """At most three plain log lines: the totals, then what was not evaluated. advisor's own
    words only (counts and flags), so no name from the input can start a `::` command here."""
    return [f"advisor: {line}" for line in (totals(run), *not_evaluated_lines(run, IN_JSON))]


def step_summary(run: Run) -> str:
    """The run for $GITHUB_STEP_SUMMARY: the Markdown report, within GitHub's limits."""
    from advisor.output.markdown import render as markdown

    return markdown(run)


def render(run: Run) -> str:
    lines = [_input_error(e) for e in run.errors]
    lines += [_finding(f) for f in run.findings if f.suppressed is None]
    lines += summary_lines(run)
    return "".join(line + "\n" for line in lines)

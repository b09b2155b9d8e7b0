"""JUnit XML report, for CI systems that show test results (GitLab, Jenkins, Azure Pipelines).

Layout: a <testsuites name="advisor"> root with one <testsuite> per input file; each rule
evaluated on a subject (a VM or a host) is one <testcase classname="RULE" name="SUBJECT">, so
passing checks show up as passed tests, not just the failures.

Outcome of a test case, from the findings of that (rule, subject, file):
- an unsuppressed error or warning -> <failure type="error|warning">;
- only info findings -> the case passes, with the advice in <system-out>. Info findings are
  suggestions that never fail a build by default (--fail-on error), so counting them as
  failures would turn CI dashboards red over advice;
- only suppressed findings -> <skipped message="suppressed: REASON">;
- a rule the known facts could not settle for the subject (a VM's "not evaluated" line) ->
  <skipped message="not evaluated: RULE needs …">: it neither passed nor failed;
- an input error (a file that could not be read) -> a case with <error>.

XML 1.0 cannot carry most control characters at all, so they are written as visible \\xNN
text; ElementTree escapes the rest (&, <, quotes, line breaks in attributes).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from advisor.output.describe import first_reference, fix_lines, one_line, visible
from advisor.output.escape import command_safe
from advisor.report.findings import Finding, InputProblem, Run
from advisor.vocab import BLOCKING, SEVERITY_RANK


def _text(value: object) -> str:
    # Newlines stay (ElementTree writes them as &#10; inside attributes); every other control
    # character becomes \xNN, including tab and CR, which XML parsers would normalise away.
    return visible(value)


class _Suite:
    """Counts and cases of one input file's <testsuite>."""

    def __init__(self, file: str) -> None:
        self.element = ET.Element("testsuite", {"name": _text(file)})
        self.counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}

    def case(self, classname: str, name: str, file: str, line: int | None) -> ET.Element:
        attrs = {"classname": _text(classname), "name": _text(name), "file": _text(file)}
        if line:
            attrs["line"] = str(line)
        self.counts["tests"] += 1
        return ET.SubElement(self.element, "testcase", attrs)


def _describe(f: Finding) -> str:
    # One line per item: a line break inside user text must not start a line of its own (a CI
    # log that shows the report would read a forged "::error::" line as a command).
    lines = [f"{f.severity} {f.rule} {f.name}: {one_line(f.message)}"]
    if f.file:
        lines.append(f"at {one_line(f.file)}" + (f":{f.line}" if f.line else ""))
    lines += [f"fix: {line}" for line in fix_lines(f.fix)]
    reference = first_reference(f)
    if reference:
        lines.append(f"see: {reference}")
    return _text("\n".join(lines))


def _outcome(suite: _Suite, case: ET.Element, findings: list[Finding]) -> None:
    active = [f for f in findings if f.suppressed is None]
    failing = sorted((f for f in active if f.severity in BLOCKING), key=lambda f: -SEVERITY_RANK[f.severity])
    if failing:
        worst = failing[0]
        failure = ET.SubElement(case, "failure", {"message": _text(worst.message), "type": worst.severity})
        failure.text = "\n\n".join(_describe(f) for f in failing)
        suite.counts["failures"] += 1
    advice = [f for f in active if f.severity not in BLOCKING]
    if advice:
        ET.SubElement(case, "system-out").text = "\n\n".join(_describe(f) for f in advice)
    if not active and findings:
        reasons = "; ".join(dict.fromkeys(f.suppressed.reason for f in findings if f.suppressed))
        ET.SubElement(case, "skipped", {"message": _text(f"suppressed: {reasons}")})
        suite.counts["skipped"] += 1


def _not_evaluated(run: Run) -> dict[tuple[str, str, str], str]:
    """(rule, subject, file) -> the "not evaluated" line of each rule a VM or host could not settle."""
    from advisor.engine.undecided import skipped_rule

    pairs = {(skipped_rule(line), f"vm {vm.name}", vm.file): line for vm in run.vms for line in vm.skipped}
    pairs.update({(skipped_rule(line), f"host {h.name}", h.file): line for h in run.hosts for line in h.skipped})
    return pairs


def _input_error(suite: _Suite, problem: InputProblem) -> None:
    case = suite.case("input", problem.field or "file", problem.file, problem.line)
    error = ET.SubElement(case, "error", {"message": _text(problem.message), "type": "InputError"})
    error.text = one_line(str(problem))
    suite.counts["errors"] += 1


def document(run: Run) -> ET.Element:
    suites: dict[str, _Suite] = {}

    def suite(file: str) -> _Suite:
        if file not in suites:
            suites[file] = _Suite(file)
        return suites[file]

    for file in run.files:
        suite(file)
    for problem in run.errors:
        _input_error(suite(problem.file), problem)

    by_case: dict[tuple[str, str, str], list[Finding]] = {}
    for f in run.findings:
        by_case.setdefault((f.rule, f.subject, f.file or ""), []).append(f)
    # Every evaluated pair is a test; a finding the engine did not list as evaluated (not
    # expected) still gets its own case rather than vanishing from the report.
    cases = list(dict.fromkeys(run.evaluated_cases()))
    listed = set(cases)
    cases += [key for key in by_case if key not in listed]
    not_evaluated = _not_evaluated(run)
    cases += [key for key in not_evaluated if key not in listed and key not in by_case]
    for rule, subject, file in cases:
        pair = (rule, subject, file)
        findings = by_case.get(pair, [])
        line = next((f.line for f in findings if f.line), None)
        target = suite(file)
        case = target.case(rule, subject, file, line)
        reason = not_evaluated.get(pair)
        if reason is not None and not findings:
            ET.SubElement(case, "skipped", {"message": _text(f"not evaluated: {one_line(reason)}")})
            target.counts["skipped"] += 1
        else:
            _outcome(target, case, findings)

    root = ET.Element("testsuites", {"name": "advisor"})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for s in suites.values():
        for key, value in s.counts.items():
            s.element.set(key, str(value))
            totals[key] += value
        root.append(s.element)
    for key, value in totals.items():
        root.set(key, str(value))
    notes = run.all_notes()
    if notes and suites:
        # Notes (unused or expired suppressions) belong to no single test; the first suite
        # carries them, as <testsuites> itself has no output element in common JUnit schemas.
        lines = (command_safe(one_line(note)) for note in notes)
        ET.SubElement(next(iter(suites.values())).element, "system-out").text = "\n".join(lines)
    return root


def render(run: Run) -> str:
    root = document(run)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


"""The rules reference (docs/rules.md) and `advisor explain`, both rendered from the catalog."""

from __future__ import annotations

from typing import Any

import yaml

from advisor.engine.catalog import Catalog, Rule
from advisor.engine.references import anchor
from advisor.facts.facts import FACTS

HEADER = """# Rules reference

Generated from `rules/*.yaml` by `advisor rules --format markdown > docs/rules.md`; a test fails
when this page is stale. Severities are defaults; change them with `severity:` in `.advisor.yaml`.
Conditions are [CEL](https://cel.dev) over the facts listed at the end of this page. A fact that
is not known (no host given, a template variable) is left out: a condition the known facts settle
still fires or passes (CEL's `false && x` is false, `true || x` is true), and one they cannot
settle is listed per VM as "not evaluated: RULE needs <facts>".

## What advisor writes

A finding's fix is either **applied** or **suggested**. `recommended_vmx`, `advisor vmx`, every
emitter and `advisor fix` write only applied fixes: the fixes of warnings and errors (by the
severity your configuration gives them) whose rule declares `fix.kind: apply`, the default. A rule
declares `fix.kind: suggest` with a `fix.condition` when the fix is right only under something
advisor cannot see — a workload trait, a measurement, a licence or a cluster-wide fact — and the
fix of an info finding is optional. Suggestions are shown with their condition in the text report,
in JSON (`suggested_vmx`) and in SARIF (`properties.written`, `properties.condition`), and
`advisor fix` writes one only when its rule is selected by id (`--select NUMA004`). When two
applied fixes set the same key, the more severe finding wins.

## Every fix converges

Every rule's fix states its change in terms that can be applied, even where advisor does not
write it: `.vmx` keys (`REMOVE` deletes one; `{each.…}` sets a key per device of a kind),
`resize:` of spec fields (`data_disks.<field>` sets it on every disk but the boot disk, bus `own`
gives each its own controller), `guest:` settings in the guest, and `host:` settings on the host
or in its BIOS. A host finding's `resize:` describes the host's VMs as one group (the packing it
proposes). A decision only a person can take — turning Fault Tolerance off, a licence, moving VMs
to another host — is a suggestion whose condition names it, and still states the spec it leads
to. tests/rules/test_convergence.py applies each rule's fix to each of its failing examples and
checks again: the finding must be gone and no finding as severe must appear; a fix with nothing
to apply, or one that does not converge, fails the test. A sweep over host profiles, workloads,
vCPU counts and memory sizes applies everything advisor writes and checks that a second run
writes nothing new and the worst severity does not rise.

Each rule computes its fix against the VM as specified, so when several written fixes resize one
VM (a licence's cores, the host's cores, cores per socket for a layout) their values can disagree.
advisor therefore applies what it writes (the `.vmx` keys and resized fields) to the VM, checks
that VM again and folds in what that check writes, until it writes nothing new; a cores per socket
that does not divide the new vCPU count is left to the next pass. This runs only for a VM whose
written fixes resize it, at most 4 passes after the first (`MAX_PASSES`,
advisor/engine/fixpoint.py). A recommendation still moving after them is written as the last pass
left it, with a note naming the VM, and fails the sweep. The findings reported are those of the VM
as specified.

Folding only adds, and one written fix can take away another's premise: SCHED002 sets latency
sensitivity back to Normal, and SCHED004's reservations were asked for because it was High. A rule
names the rules that can do that to it (`yields_to`, shown below as "Yields to"); when both write,
advisor checks the VM with everything else applied and without that rule's keys, and drops them if
the rule no longer fires there, then settles what is left again. Every key written and every key
removed carries the rules that justify it (`advisor fix` names them); tests/rules/test_justified.py
checks this over 5,040 generated VMs and names any pair a rule has not declared.
"""


def _example(spec: dict[str, Any]) -> str:
    return yaml.safe_dump(_plain(spec), sort_keys=False, default_flow_style=None, width=100).rstrip()


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def written(rule: Rule) -> str:
    """Whether advisor writes the rule's fix (advisor.engine.recommend), in one phrase."""
    fix = rule.d.fix
    if not fix.writes:
        return "nothing to write (advice only)"
    if fix.kind == "suggest":
        return f"a suggestion, written only with --select {rule.id}: if {fix.condition}"
    if rule.d.severity == "info":
        return f"optional (info): written only with --select {rule.id} or a configured severity of warning"
    return "yes, by vmx, fix and every emitter"


def rule_markdown(rule: Rule) -> str:
    d = rule.d
    lines = [f"## {d.id} {d.name}", "", f"**{d.severity}** · scope: {d.scope}"
             + (f" · workloads: {', '.join(d.workloads)}" if d.workloads else "")
             + (f" · vSphere {d.vsphere.min or ''}–{d.vsphere.max or ''}" if d.vsphere.min or d.vsphere.max else ""),
             "", d.summary + ".", "", " ".join(d.rationale.split()), "",
             f"Condition: `{d.when}`", "", f"Fix: {d.fix.text}", "", f"Written: {written(rule)}"]
    if d.yields_to:
        lines += ["", f"Yields to: {', '.join(d.yields_to)} (its keys are written only while it still fires "
                      "with theirs applied)"]
    for part in ("vmx", "guest", "host", "resize"):
        values = getattr(d.fix, part)
        if values:
            lines.append("")
            lines.extend(f"- {part}: `{k} = {v}`" for k, v in values.items())
    lines += ["", "References:", ""]
    lines += [f"- {r.text(copy=True)}" for r in d.references]
    lines += ["", "Fails:", "", "```yaml", _example(d.examples.fail[0]), "```", "", "Passes:", "", "```yaml",
              _example(d.examples.pass_[0]), "```", ""]
    return "\n".join(lines)


def catalog_markdown(catalog: Catalog) -> str:
    builtin = [r for r in catalog.rules if r.builtin]
    out = [HEADER, "| id | name | severity | summary |", "|---|---|---|---|"]
    out += [f"| [{r.id}](#{anchor(r.id, r.d.name)}) | {r.d.name} | {r.d.severity} | {r.d.summary} |" for r in builtin]
    out.append("")
    out += [rule_markdown(r) for r in builtin]
    out += ["## Facts", "", "| fact | type | meaning |", "|---|---|---|"]
    out += [f"| `{f.name}` | {f.type} | {f.doc} |" for f in sorted(FACTS.values(), key=lambda f: f.name)]
    return "\n".join(out) + "\n"


def explain_text(rule: Rule) -> str:
    d = rule.d
    lines = [
        f"{d.id}  {d.name}  ({d.severity}, scope {d.scope})",
        "",
        d.summary + ".",
        "",
        "Why:",
        *_wrap(" ".join(d.rationale.split())),
        "",
        f"Condition: {d.when}",
        f"Applies to: {', '.join(d.workloads) if d.workloads else 'every workload'}"
        + (
            f"; vSphere {d.vsphere.min or 'any'} to {d.vsphere.max or 'latest'}"
            if d.vsphere.min or d.vsphere.max
            else ""
        ),
        "",
        f"Fix: {d.fix.text}",
        f"Written: {written(rule)}",
    ]
    for part in ("vmx", "guest", "host", "resize"):
        for key, value in getattr(d.fix, part).items():
            lines.append(f"  {part}: {key} = {value}")
    lines += ["", "References:", *[f"  - {r.text(copy=True)}" for r in d.references]]
    for title, examples in (("Fails on", d.examples.fail), ("Passes on", d.examples.pass_)):
        for example in examples:
            lines += ["", f"{title}:", *("  " + ln for ln in _example(example).splitlines())]
    if not rule.builtin:
        lines += ["", f"Defined in {rule.file}:{rule.line}"]
    return "\n".join(lines) + "\n"


def _wrap(text: str) -> list[str]:
    import textwrap

    return textwrap.wrap(text, 96, initial_indent="  ", subsequent_indent="  ")

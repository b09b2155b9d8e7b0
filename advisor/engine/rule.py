"""A loaded rule and the rules of a run: rule files (rules/*.yaml and user folders) read into
Rules, each with its condition's facts, and checked together (unique ids, yields_to).

Conditions are CEL (the Common Expression Language of Kubernetes admission policies) over the
facts in advisor.facts.facts: sandboxed, side-effect free, type-checked at load. A malformed rule
is refused at load with its file and line, before any VM is evaluated. The built-in rules are
read through the cost layer (advisor.cost.builtin), which keeps them compiled on disk; nothing
here knows that cache.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from advisor.engine.conditions import cel_env, check_user_condition, compile_condition, reads_only, referenced_facts
from advisor.engine.references import help_uri
from advisor.engine.ruledef import Examples, Fix, Reference, RuleDef, RuleFile, VersionRange
from advisor.errors import InputError, one_or_all
from advisor.facts.facts import FACTS
from advisor.load.validation import to_input_errors
from advisor.load.yamlfile import line_of, load
from advisor.model.versions import Version

PLACEHOLDER = re.compile(r"\{([a-z_]+(?:\.[a-z_0-9]+)+)\}")
SEEDS = {
    "000_092b553a1d5ae05f.txt", "001_a02093f92473a34b.txt", "002_ab5a860f67c7d0e7.txt",
    "003_37f290d64f2ba97b.txt", "004_72b6adb7b96549d3.txt",
}



@dataclass(slots=True)
class Rule:
    """A loaded rule: its definition, compiled condition and where it came from."""

    d: RuleDef
    file: str
    line: int | None
    program: Any  # the compiled condition; None until first used (see compiled())
    facts: frozenset[str]  # facts the condition reads: unknown ones skip the rule
    builtin: bool
    min_version: Version | None = None
    max_version: Version | None = None
    # The examples as read (with line numbers), keyed "fail" / "pass": validation would turn
    # them into plain dicts, and findings on an example should point at its lines. Or what
    # gives them when first read (a built-in rule kept compiled, advisor.cost.builtin).
    read_examples: dict[str, list[Any]] | Callable[[], dict[str, list[Any]]] = field(default_factory=dict)
    serialized: bytes | None = None  # the compiled condition as CEL serialises it, loaded when first used
    references_text: tuple[str, ...] | None = None  # reference_texts(), when known beforehand
    own_facts: bool | None = None  # reads_own_facts(), when known beforehand

    @property
    def id(self) -> str:
        return self.d.id

    @property
    def examples(self) -> dict[str, list[Any]]:
        if callable(self.read_examples):
            self.read_examples = self.read_examples()
        return self.read_examples

    def compiled(self) -> Any:
        """The CEL program of the condition. Built-in rules compile (or load their serialised
        program) when first evaluated; user rules compile at load, to report errors early."""
        if self.program is None:
            if self.serialized is not None:
                self.program = cel_env().deserialize(self.serialized)
            else:
                self.program = compile_condition(self.d.id, self.d.when, self.file, self.line)
        return self.program

    def reads_own_facts(self) -> bool:
        """Whether the condition provably reads no fact but `facts` (conditions.reads_only): about
        a millisecond, so a built-in rule kept compiled holds the answer."""
        if self.own_facts is None:
            self.own_facts = reads_only(self.d.when, sorted(self.facts))
        return self.own_facts

    def reference_texts(self) -> tuple[str, ...]:
        """Each reference as a reader sees it (title, address, seed). A built-in rule from the
        rule kept compiled holds them already, so a run need not read rules/references/seeds.yaml."""
        if self.references_text is None:
            self.references_text = tuple(r.text() for r in self.d.references)
        return self.references_text

    @property
    def area(self) -> str:
        return self.d.id.rstrip("0123456789")

    def applies_to(self, workload: str, version: Version | None) -> bool:
        if self.d.workloads and workload not in self.d.workloads:
            return False
        return self.in_versions(version)

    def in_versions(self, version: Version | None) -> bool:
        if version is None:
            return True
        if self.min_version and version < self.min_version:
            return False
        return not (self.max_version and version > self.max_version)

    def template_facts(self) -> set[str]:
        names: set[str] = set()
        for text in (self.d.message, self.d.fix.text, self.d.locate or "", *map(str, self.d.fix.vmx.values()),
                     *map(str, self.d.fix.guest.values()), *map(str, self.d.fix.resize.values()),
                     *map(str, self.d.fix.host.values())):
            names.update(PLACEHOLDER.findall(text))
        return names

    def metadata(self) -> dict[str, Any]:
        return {
            "name": self.d.name,
            "severity": self.d.severity,
            "summary": self.d.summary,
            "rationale": " ".join(self.d.rationale.split()),
            "references": list(self.reference_texts()),
            # Built-in rules have a page in the generated rules reference; user rules do not.
            "help_uri": help_uri(self.d.id, self.d.name) if self.builtin else None,
            # Rule-level help has no VM to fill placeholders from: show them as <fact>.
            "fix_text": PLACEHOLDER.sub(lambda m: f"<{m.group(1)}>", self.d.fix.text),
        }


class Catalog:
    """The rules of a run. (A plain class: creating a dataclass runs generated code at every
    start-up, for features this does not use.)"""

    __slots__ = ("rules",)

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules

    def by_id(self, rule_id: str) -> Rule | None:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        return None

    def ids(self) -> list[str]:
        return [r.id for r in self.rules]

    def yields(self) -> dict[str, frozenset[str]]:
        """Rule id -> the rules it yields to (RuleDef.yields_to), for the rules that name any."""
        return {r.id: frozenset(r.d.yields_to) for r in self.rules if r.d.yields_to}


def _check_placeholders(rule: Rule, file: str, root: Any, index: int) -> None:
    for name in sorted(rule.template_facts()):
        if name not in FACTS:
            raise InputError(f"{rule.id}: unknown fact '{{{name}}}' in the message, fix or locate", file=file,
                             line=line_of(root, ("rules", index, "message")), field="message")


def _trusted(root: Any) -> RuleFile:
    """The built-in rule file as models without running validators (tests validate it)."""
    rules = []
    for raw in root["rules"]:
        data = dict(raw)
        data["references"] = [Reference.model_construct(**r) for r in raw["references"]]
        data["fix"] = Fix.model_construct(**raw["fix"])
        data["examples"] = Examples.model_construct(fail=raw["examples"]["fail"], pass_=raw["examples"]["pass"])
        data["vsphere"] = VersionRange.model_construct(**raw.get("vsphere", {}))
        rules.append(RuleDef.model_construct(**data))
    return RuleFile.model_construct(rules=rules)


def load_rule_file(path: Path, builtin: bool, validate: bool = True) -> list[Rule]:
    return rules_from_root(load(path), str(path), builtin, validate)


def rules_from_root(root: Any, file: str, builtin: bool, validate: bool = True) -> list[Rule]:
    """The rules of one parsed rule file: validated, or trusted for the built-in catalog."""
    if not isinstance(root, dict):
        raise InputError("a rule file is a mapping with a 'rules:' list", file=file, line=getattr(root, "line", 1))
    try:
        parsed = RuleFile.model_validate(root) if validate else _trusted(root)
    except ValidationError as exc:
        raise one_or_all(to_input_errors(exc, RuleFile, root, file)) from None
    rules = []
    for index, d in enumerate(parsed.rules):
        line = line_of(root, ("rules", index))
        program = (
            None if builtin and not validate
            else compile_condition(d.id, d.when, file, line_of(root, ("rules", index, "when")) or line)
        )
        if builtin:
            facts = frozenset(referenced_facts(d.when))
        else:
            facts = check_user_condition(d.id, d.when, d.scope, program, file,
                                         line_of(root, ("rules", index, "when")) or line)
        raw = root["rules"][index]["examples"]
        rule = Rule(d, file, line, program, facts, builtin,
                    read_examples={"fail": list(raw["fail"]), "pass": list(raw["pass"])})
        try:
            rule.min_version = Version.parse(d.vsphere.min) if d.vsphere.min else None
            rule.max_version = Version.parse(d.vsphere.max) if d.vsphere.max else None
        except ValueError as exc:
            raise InputError(
                f"{d.id}: {exc}", file=file, line=line_of(root, ("rules", index, "vsphere")), field="vsphere"
            ) from None
        _check_placeholders(rule, file, root, index)
        for r_index, ref in enumerate(d.references):
            if ref.seed and ref.seed not in SEEDS:
                raise InputError(f"{d.id}: unknown seed paper '{ref.seed}'", file=file,
                                 line=line_of(root, ("rules", index, "references", r_index)), field="references")
        rules.append(rule)
    return rules


def rule_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.yaml") if p.is_file()) + sorted(
        p for p in folder.glob("*.yml") if p.is_file()
    )



def checked(catalog: Catalog) -> Catalog:
    seen: dict[str, Rule] = {}
    for rule in catalog.rules:
        if rule.id in seen:
            first = seen[rule.id]
            raise InputError(f"rule id {rule.id} is already defined in {first.file}:{first.line}",
                             file=rule.file, line=rule.line, field="id")
        seen[rule.id] = rule
    for rule in catalog.rules:
        for other in rule.d.yields_to:
            if other not in seen or other == rule.id:
                raise InputError(f"{rule.id}: yields_to names {other!r}, " +
                                 ("the rule itself" if other == rule.id else "which is no rule of the catalog"),
                                 file=rule.file, line=rule.line, field="yields_to")
    cycle = _yield_cycle({r.id: r.d.yields_to for r in catalog.rules})
    if cycle:
        rule = seen[cycle[0]]
        raise InputError(f"yields_to goes round in a circle ({' -> '.join(cycle)}): one rule of a pair yields, "
                         "the other does not", file=rule.file, line=rule.line, field="yields_to")
    catalog.rules.sort(key=lambda r: r.id)
    return catalog


def _yield_cycle(yields: dict[str, list[str]]) -> list[str]:
    """A circle of yields_to (A yields to B, B to A), as the ids round it; [] when there is none.
    The engine decides a rule after the rules it yields to, which needs an order."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(rule: str, path: list[str]) -> list[str]:
        state[rule] = 1
        for other in yields.get(rule, ()):
            if state.get(other) == 1:
                return [*path[path.index(other):], rule, other] if other in path else [rule, other]
            if other not in state and (found := visit(other, [*path, rule])):
                return found
        state[rule] = 2
        return []

    for rule in sorted(yields):
        if rule not in state and (found := visit(rule, [])):
            return found
    return []

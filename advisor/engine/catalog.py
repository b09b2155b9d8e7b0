"""The rule catalog: rules as data (rules/*.yaml and user folders), validated and compiled.

A rule file holds `rules:` entries. Each entry carries everything about the rule - condition,
message, rationale, references, fix and its failing/passing examples - so docs, tests and
`advisor explain` all read the same entry. Conditions are CEL (the Common Expression Language
of Kubernetes admission policies) over the facts in advisor.facts.facts: sandboxed, side-effect free,
type-checked at load. A malformed rule is refused at load with its file and line, before any VM
is evaluated.
"""

# No `from __future__ import annotations` here: pydantic builds the rule models' fields from
# their annotations when the module loads, and annotations Python has already evaluated save it
# compiling each one from its text at every start-up (about a sixth of importing this module).

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from advisor.engine.conditions import check_user_condition, compile_condition, referenced_facts
from advisor.engine.references import FOLLOWABLE, help_uri, seed_copy, seed_document
from advisor.errors import InputError, one_or_all
from advisor.facts.facts import FACTS
from advisor.load.validation import to_input_errors
from advisor.load.yamlfile import line_of, load
from advisor.model.base import WORKLOADS
from advisor.model.versions import Version
from advisor.vocab import SeverityName

RULE_ID = r"^[A-Z][A-Z0-9]{1,9}[0-9]{3}$"  # compiled when a rule file is validated
PLACEHOLDER = re.compile(r"\{([a-z_]+(?:\.[a-z_0-9]+)+)\}")
SEEDS = {
    "000_092b553a1d5ae05f.txt", "001_a02093f92473a34b.txt", "002_ab5a860f67c7d0e7.txt",
    "003_37f290d64f2ba97b.txt", "004_72b6adb7b96549d3.txt",
}


class _Strict(BaseModel):
    # defer_build: the validators are built on first use. The built-in catalog is checked by
    # the test suite and loaded through _trusted() without them, which keeps start-up short;
    # user rule folders are validated in full.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Reference(_Strict):
    """A seed paper section, or an external document with a URL."""

    seed: str | None = Field(None, description="Seed file name in shared/seeds, e.g. 001_a02093f92473a34b.txt")
    section: str | None = Field(None, description="Section heading in that paper")
    doc: str | None = Field(None, description="Title of a VMware / Microsoft document or KB")
    url: str | None = Field(None, description="Where the document can be read (http or https)")

    @model_validator(mode="after")
    def _complete(self) -> Self:
        if not (self.seed and self.section) and not (self.doc and self.url):
            raise ValueError("a reference needs 'seed' and 'section', or 'doc' and 'url'")
        if self.url is not None and not FOLLOWABLE.match(self.url):
            raise ValueError(f"'{self.url}' is not a followable address (http:// or https://)")
        return self

    def document(self) -> tuple[str, str | None]:
        """The referenced document's title and address; a seed section resolves to the
        published paper or blog post it is (rules/references/seeds.yaml)."""
        if self.seed:
            found = seed_document(self.seed, self.section)
            if found is None:
                return self.seed, self.url
            title, url = found
            return (title if title == self.section else f"{title}, \"{self.section}\""), self.url or url
        return self.doc or "", self.url

    def text(self, copy: bool = False) -> str:
        """`Title <address>`, as every report shows it. The seed's file name is the catalog's
        key, not something a reader can open, so no output shows it (issue 34). `copy`: add the
        public copy of a paper VMware no longer serves (`advisor explain` and docs/rules.md,
        which carry a rule's every source; a report carries the document's own address)."""
        title, url = self.document()
        # The original may be gone (the note in seeds.yaml says so); the copy is what opens today.
        public = seed_copy(self.seed) if copy and self.seed and not self.url else None
        where = f" <{url}>" + (f" (public copy: <{public}>)" if public else "") if url else ""
        return f"{title}{where}"


class Fix(_Strict):
    vmx: dict[str, str] = Field(default_factory=dict, description=".vmx keys to set (value 'REMOVE' deletes)")
    guest: dict[str, str | int | bool] = Field(default_factory=dict, description="guest / application settings")
    host: dict[str, str | int | bool] = Field(default_factory=dict, description="ESXi host or BIOS settings")
    resize: dict[str, str | int] = Field(default_factory=dict, description="spec fields to change")
    text: str = Field(min_length=5, description="one-line instruction")
    kind: Literal["apply", "suggest"] = Field(
        "apply", description="apply: right for the VM as described, written by vmx/fix and the emitters; "
        "suggest: depends on what advisor cannot see (a workload trait, a measurement), shown with "
        "its condition and written only when the rule is selected explicitly")
    condition: str | None = Field(None, min_length=5, description="for a suggestion: when it helps, "
                                  "e.g. 'the workload is memory- or cache-bound'")

    @model_validator(mode="after")
    def _conditional(self) -> Self:
        if self.kind == "suggest" and not self.condition:
            raise ValueError("a fix of kind 'suggest' needs its 'condition'")
        if self.kind == "apply" and self.condition:
            raise ValueError("only a fix of kind 'suggest' has a 'condition'")
        return self

    @property
    def writes(self) -> bool:
        """Whether the fix changes anything advisor can write (settings, not only advice)."""
        return bool(self.vmx or self.resize or self.guest or self.host)


class Examples(_Strict):
    fail: list[dict[str, Any]] = Field(min_length=1, description="specs on which the rule must fire")
    pass_: list[dict[str, Any]] = Field(min_length=1, alias="pass", description="specs on which it must not")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


class VersionRange(_Strict):
    min: str | None = None
    max: str | None = None


class RuleDef(_Strict):
    id: str = Field(description="Stable id: area prefix + three digits (NUMA001). Never reused.")
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", description="kebab-case name")
    severity: SeverityName
    scope: Literal["vm", "host"] = "vm"
    summary: str = Field(min_length=10, max_length=120, description="one line: what the rule finds")
    workloads: list[str] = Field(default_factory=list, description="only these workload kinds (empty: all)")
    vsphere: VersionRange = Field(default_factory=VersionRange)
    when: str = Field(min_length=1, description="CEL condition over the facts")
    locate: str | None = Field(
        None, description="spec field the finding points at (vcpus, disks, sql.cost_threshold, host.power_policy, "
                          "advanced.sched.cpu.max; advanced.{vm.host_bound_keys}: the first of a list fact's keys)"
    )
    message: str = Field(min_length=10)
    rationale: str = Field(min_length=40)
    references: list[Reference] = Field(min_length=1)
    fix: Fix
    # Issue 33: the recommendation keeps a rule's written entries only while the rule still fires
    # on the VM with the rest of the recommendation applied. The rules whose written fix can take
    # this rule's premise away (or write a key it writes) are named here, on this rule only: the
    # engine checks the rule again when one of them is written too, and the sweep in
    # tests/rules/test_justified.py fails on a pair it finds that is not named.
    yields_to: list[str] = Field(
        default_factory=list, description="rules whose written fix can undo this rule's premise: this rule's "
        "keys are written only while it still fires with theirs applied")
    examples: Examples

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not re.match(RULE_ID, value):
            raise ValueError("a rule id is an upper-case area prefix and three digits, e.g. NUMA001")
        return value

    @field_validator("workloads")
    @classmethod
    def _workloads(cls, value: list[str]) -> list[str]:
        bad = [w for w in value if w not in WORKLOADS]
        if bad:
            raise ValueError(f"unknown workload {bad[0]!r}; known: {', '.join(WORKLOADS)}")
        return value


class RuleFile(_Strict):
    rules: list[RuleDef] = Field(min_length=1)


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
    # them into plain dicts, and findings on an example should point at its lines. A rule from
    # the cache holds them as JSON text until they are read (advisor.engine.compiled).
    read_examples: dict[str, list[Any]] | str = field(default_factory=dict)
    serialized: bytes | None = None  # the compiled condition as the cache holds it
    references_text: tuple[str, ...] | None = None  # reference_texts(), as the cache holds them
    own_facts: bool | None = None  # reads_own_facts(), as the cache holds it

    @property
    def id(self) -> str:
        return self.d.id

    @property
    def examples(self) -> dict[str, list[Any]]:
        if isinstance(self.read_examples, str):
            from advisor.engine.cache import decode

            fail, pass_ = decode(self.read_examples.encode())
            self.read_examples = {"fail": fail, "pass": pass_}
        return self.read_examples

    def compiled(self) -> Any:
        """The CEL program of the condition. Built-in rules compile (or load their cached
        program) when first evaluated; user rules compile at load, to report errors early."""
        if self.program is None:
            if self.serialized is not None:
                from advisor.engine.conditions import cel_env

                self.program = cel_env().deserialize(self.serialized)
            else:
                self.program = compile_condition(self.d.id, self.d.when, self.file, self.line)
        return self.program

    def reads_own_facts(self) -> bool:
        """Whether the condition provably reads no fact but `facts` (conditions.reads_only): about
        a millisecond, so a built-in rule from the cache holds the answer."""
        if self.own_facts is None:
            from advisor.engine.conditions import reads_only

            self.own_facts = reads_only(self.d.when, sorted(self.facts))
        return self.own_facts

    def reference_texts(self) -> tuple[str, ...]:
        """Each reference as a reader sees it (title, address, seed). A built-in rule from the
        cache holds them already, so a run need not read rules/references/seeds.yaml."""
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


def rules_from_root(root: Any, file: str, builtin: bool, validate: bool = True,
                    parsed: RuleFile | None = None) -> list[Rule]:
    """The rules of one parsed rule file: validated, or trusted for the built-in catalog (whose
    models may come already built, `parsed`, from the cache)."""
    if not isinstance(root, dict):
        raise InputError("a rule file is a mapping with a 'rules:' list", file=file, line=getattr(root, "line", 1))
    if parsed is None:
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


_BUILTIN: Catalog | None = None


def builtin_catalog() -> Catalog:
    global _BUILTIN
    if _BUILTIN is None:
        from advisor.engine import compiled
        from advisor.engine.cache import cached
        from advisor.load.yamlfile import read_bytes
        from advisor.resources import data_path

        sources = [(str(path), read_bytes(path)) for path in rule_files(data_path("rules"))]
        # The files only change with advisor: parsed, checked and compiled once, the catalog is
        # cached as records (JSON), keyed by the files' bytes and what the records depend on.
        # Records that do not make rules (an entry whose checksum holds but whose content does
        # not, say one written by hand) are rebuilt too.
        _BUILTIN = cached("catalog", [*sources, *compiled.inputs()], lambda: compiled.records(sources), plain=True,
                          use=_from_records)  # checked and sorted when built
    return _BUILTIN


def _from_records(records: list[dict[str, Any]]) -> Catalog:
    """The catalog of compiled records. A program is decoded when its rule is first evaluated
    (most runs need a part of them): the entry's checksum is what vouches for the programs."""
    from advisor.engine import compiled

    return Catalog([compiled.rule(record) for record in records])


def load_catalog(extra_folders: Sequence[str | Path] = ()) -> Catalog:
    """The built-in rules plus every rule file in the user's folders (--rules DIR)."""
    base = builtin_catalog()
    if not extra_folders:
        return base
    rules = list(base.rules)
    for folder in extra_folders:
        path = Path(folder)
        if not path.is_dir():
            raise InputError("--rules expects a folder of rule files (*.yaml)", file=str(path))
        files = rule_files(path)
        if not files:
            raise InputError("no rule files (*.yaml) in this folder", file=str(path))
        for file in files:
            rules.extend(load_rule_file(file, builtin=False))
    return _checked(Catalog(rules))


def _checked(catalog: Catalog) -> Catalog:
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

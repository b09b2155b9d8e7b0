"""A rule file's entries as models: what a rule says (condition, message, rationale, references,
fix, examples), validated field by field when a user's rule folder is read.

A rule file holds `rules:` entries. Each entry carries everything about the rule - condition,
message, rationale, references, fix and its failing/passing examples - so docs, tests and
`advisor explain` all read the same entry (advisor.engine.rule turns an entry into a loaded Rule).
"""

# No `from __future__ import annotations` here: pydantic builds the rule models' fields from
# their annotations when the module loads, and annotations Python has already evaluated save it
# compiling each one from its text at every start-up (about a sixth of importing this module).

import re
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from advisor.engine.references import FOLLOWABLE, seed_copy, seed_document
from advisor.model.base import WORKLOADS
from advisor.vocab import SeverityName

RULE_ID = r"^[A-Z][A-Z0-9]{1,9}[0-9]{3}$"  # compiled when a rule file is validated


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


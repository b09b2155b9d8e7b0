"""Which rules run, at what severity, and which findings are suppressed: the policy a run
applies, from configuration, --select/--ignore and suppressions in specs and templates."""

from __future__ import annotations

import datetime as _dt
import fnmatch
from dataclasses import dataclass, field

from advisor.engine.catalog import Rule


@dataclass(slots=True)
class Exemption:
    """A suppression: from a spec's `ignore:`, an inline comment, or the configuration."""

    rule: str  # id or id prefix ("NUMA001", "NUMA", "*")
    reason: str
    kind: str  # "spec" | "inline" | "config"
    until: _dt.date | None = None
    file: str | None = None
    line: int | None = None
    vms: tuple[str, ...] = ()  # config exemptions: VM name globs (empty = all)
    paths: tuple[str, ...] = ()  # config exemptions: file globs (empty = all)
    used: bool = False

    def covers(self, rule: str, vm: str | None, file: str | None) -> bool:
        if not (self.rule == "*" or rule == self.rule or (not self.rule[-1:].isdigit() and rule.startswith(self.rule))):
            return False
        if self.vms and not any(fnmatch.fnmatchcase(vm or "", g) for g in self.vms):
            return False
        return not self.paths or any(
            fnmatch.fnmatch(file or "", g) or fnmatch.fnmatch(file or "", "*/" + g) for g in self.paths
        )

    def describe(self) -> str:
        where = f"{self.file}:{self.line}" if self.file and self.line else (self.file or "configuration")
        return f"{where}: ignore {self.rule}"


@dataclass(slots=True)
class Policy:
    """Which rules run and at what severity: configuration plus --select/--ignore."""

    select: tuple[str, ...] = ()  # id prefixes; empty = every rule
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)  # id or prefix -> severity
    exemptions: list[Exemption] = field(default_factory=list)
    today: _dt.date = field(default_factory=_dt.date.today)

    def enabled(self, rule_id: str) -> bool:
        def match(prefixes: tuple[str, ...]) -> int:
            return max((len(p) for p in prefixes if p == "ALL" or rule_id.startswith(p)), default=-1)

        chosen = match(self.select) if self.select else 0
        dropped = match(self.ignore)
        # The more specific of select/ignore wins, as in ruff (--select NUMA --ignore NUMA003).
        return chosen >= 0 and chosen >= dropped if dropped >= 0 else chosen >= 0

    def severity_of(self, rule: Rule) -> str:
        best = None
        for key, value in self.severity.items():
            if rule.id.startswith(key) and (best is None or len(key) > len(best[0])):
                best = (key, value)
        return best[1] if best else rule.d.severity


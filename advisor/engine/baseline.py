"""A baseline: the findings a team accepted when adopting advisor, matched again on later runs
(`advisor lint --baseline`, `--write-baseline`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from advisor.errors import InputError
from advisor.report.findings import Run

BASELINE_SCHEMA = "advisor-baseline/v2"


@dataclass(slots=True)
class Baseline:
    """Findings a team accepted when adopting advisor: matched by rule, file, VM and subject.

    Lines are left out of the match on purpose, so editing a template above a finding does not
    make it "new"; counts are kept so a second identical finding is still reported. Files are
    keyed by `place` (advisor.commands.scopes.project_path: relative to the repository's root),
    so a baseline matches wherever advisor runs from and however the paths are spelled.
    v1 baselines keyed files as they were spelled on the command line; they are read relative to
    the current folder (where they matched before) and a note asks to rewrite them.
    """

    entries: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    file: str | None = None
    notes: list[str] = field(default_factory=list)

    @staticmethod
    def key(f: Any, place: Callable[[str], str] = lambda p: p) -> tuple[str, str, str, str]:
        return (f.rule, _portable(place(f.file)) if f.file else "", f.vm or "", f.subject)

    @classmethod
    def load(cls, path: str, place: Callable[[str], str] = lambda p: p) -> Baseline:
        import json

        from advisor.load.validation import clip
        from advisor.load.yamlfile import read_bytes

        def constant(name: str) -> None:
            raise ValueError(f"{name} is not a JSON value advisor writes")

        notes = []
        try:
            doc = json.loads(read_bytes(path), parse_constant=constant)
            rows = doc["findings"]
            if not isinstance(rows, list):
                raise TypeError("'findings' is not a list")
            old = doc.get("schema") == "advisor-baseline/v1"
            entries: dict[tuple[str, str, str, str], int] = {}
            for row in rows:
                k = (row["rule"], row["file"], row.get("vm") or "", row["subject"])
                count = row.get("count", 1)
                if not all(isinstance(part, str) for part in k) or type(count) is not int or not 0 < count < 1 << 31:
                    raise TypeError("a finding's rule, file, vm and subject are strings, its count a positive int")
                if old and k[1]:  # v1: the path as spelled, relative to where advisor ran
                    k = (k[0], _portable(place(k[1])), k[2], k[3])
                entries[k] = entries.get(k, 0) + count
        except RecursionError:  # nesting far deeper than a baseline has
            raise InputError("not an advisor baseline (nested too deeply)", file=path) from None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            problem = f"{type(exc).__name__}: {clip(str(exc), 200)}"
            raise InputError(f"not an advisor baseline ({problem})", file=path) from None
        if old:
            notes.append(f"{path}: a v1 baseline (paths as spelled when it was written), read relative to the "
                         "current folder; rewrite it with --write-baseline for paths relative to the repository root")
        return cls(entries, path, notes)

    def apply(self, run: Run, place: Callable[[str], str] = lambda p: p) -> None:
        from advisor.report.findings import Suppressed

        run.notes.extend(self.notes)
        left = dict(self.entries)
        for f in run.findings:
            if f.suppressed is not None:
                continue
            k = self.key(f, place)
            if left.get(k, 0) > 0:
                left[k] -= 1
                f.suppressed = Suppressed("baseline", "accepted in the baseline", None, self.file, None)
        stale = sum(n for n in left.values() if n > 0)
        if stale:
            run.notes.append(f"{self.file}: {stale} baseline entr{'y' if stale == 1 else 'ies'} no longer match "
                             "a finding (fixed?); rewrite it with --write-baseline")

    @staticmethod
    def dump(run: Run, place: Callable[[str], str] = lambda p: p) -> bytes:
        import json

        counts: dict[tuple[str, str, str, str], int] = {}
        for f in run.findings:
            if f.suppressed is None or f.suppressed.kind == "baseline":
                k = Baseline.key(f, place)
                counts[k] = counts.get(k, 0) + 1
        rows = [{"rule": r, "file": fi, "vm": vm or None, "subject": s, "count": n}
                for (r, fi, vm, s), n in sorted(counts.items())]
        doc = {"schema": BASELINE_SCHEMA, "paths": "relative to the repository root", "findings": rows}
        return (json.dumps(doc, indent=2) + "\n").encode()


def _portable(path: str) -> str:
    return path.replace("\\", "/")

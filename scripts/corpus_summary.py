"""Which rules fire how often over the third-party template corpus (../shared/corpus).

    python scripts/corpus_summary.py [--host hp-dl580-g7] [CORPUS]

Runs `advisor lint` in-process over every template, with and without a host, and prints per
rule the number of findings and of files they appear in, plus input errors and skipped rules -
the view a maintainer needs to judge whether the findings are right.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def summarise(corpus: Path, host: str | None) -> str:
    from advisor.engine.engine import Policy
    from advisor.engine.lint import LintJob, lint
    from advisor.readers import find_templates

    files = find_templates([corpus], [])
    run = lint(files, LintJob([], Policy(), host, None), jobs=1)
    by_rule: dict[str, list] = collections.defaultdict(list)
    for f in run.findings:
        by_rule[f.rule].append(f)
    skipped = collections.Counter(s.split(":")[0] for vm in run.vms for s in vm.skipped)
    lines = [
        f"corpus {corpus} - host: {host or 'none'}",
        f"{len(files)} files, {len(run.vms)} VMs, {len(run.findings)} findings, {len(run.errors)} input errors",
        "",
    ]
    lines.append(f"{'rule':<9}{'sev':<8}{'findings':>9}{'files':>7}  example")
    for rule, found in sorted(by_rule.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        example = found[0]
        lines.append(f"{rule:<9}{example.severity:<8}{len(found):>9}{len({f.file for f in found}):>7}  "
                     f"{Path(example.file).name}: {example.message[:70]}")
    if run.errors:
        lines += ["", "input errors:"] + [f"  {e}" for e in run.errors]
    if skipped:
        lines += ["", "rules skipped for unknown values (top 8): "
                  + ", ".join(f"{r} ×{n}" for r, n in skipped.most_common(8))]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(REPO.parent / "shared" / "corpus"))
    parser.add_argument("--host", default="hp-dl580-g7")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"corpus folder {corpus} not found", file=sys.stderr)
        return 2
    print(summarise(corpus, None))
    print()
    print(summarise(corpus, args.host))
    return 0


if __name__ == "__main__":
    sys.exit(main())

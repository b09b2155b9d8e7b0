"""The advisor internals this package uses, imported in this one place (the core's module paths
move as the code grows; only these lines follow them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from advisor.model.units import format_mib
from advisor.vmx.mapping import SCALAR_KEYS
from advisor.vocab import read_bool

__all__ = ["SCALAR_KEYS", "check_texts", "format_mib", "read_bool"]


def check_texts(texts: list[tuple[str, str]], notes: list[str], catalog: Any, policy: Any,
                progress: Callable[[int], None] | None = None) -> Any:
    """Evaluate spec texts (label, YAML) as `advisor check` evaluates files; returns the Run.
    `progress`: called with 1 after each text."""
    from advisor.engine.engine import Evaluator
    from advisor.engine.specs import evaluate_spec
    from advisor.errors import InputError, problems
    from advisor.load.specfile import parse_spec
    from advisor.report.findings import InputProblem

    evaluator = Evaluator(catalog, policy)
    for label, text in texts:
        try:
            loaded = parse_spec(text, label)
        except InputError as exc:
            evaluator.run.errors.extend(InputProblem(e.file or label, e.line, e.field, e.message)
                                        for e in problems(exc))
        else:
            evaluate_spec(loaded, evaluator)
        if progress is not None:
            progress(1)
    evaluator.run.notes.extend(notes)
    return evaluator.finish()

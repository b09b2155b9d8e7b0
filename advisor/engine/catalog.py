"""The rules of a run: the built-in catalog (rules/*.yaml, kept compiled by the cost layer,
advisor.cost.builtin) plus every rule file of the user's folders (--rules DIR), validated in full.

The rule model (a rule file's entries, advisor.engine.ruledef; a loaded Rule and the checks on a
catalog, advisor.engine.rule) is named here too, for the callers that read a catalog.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from advisor.cost.builtin import builtin_catalog
from advisor.engine.rule import PLACEHOLDER, SEEDS, Catalog, Rule, checked, load_rule_file, rule_files
from advisor.engine.ruledef import Examples, Fix, Reference, RuleDef, RuleFile, VersionRange
from advisor.errors import InputError

__all__ = ["PLACEHOLDER", "SEEDS", "Catalog", "Examples", "Fix", "Reference", "Rule", "RuleDef", "RuleFile",
           "VersionRange", "builtin_catalog", "load_catalog", "load_rule_file", "rule_files"]


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
    return checked(Catalog(rules))

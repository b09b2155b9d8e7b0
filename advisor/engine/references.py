"""Where a rule's references lead: the published document behind each seed paper, and each
rule's own help page.

Seed papers are cited by file name and section; rules/references/seeds.yaml says which
published paper or VROOM! blog post each one is, so every reference shows a title and an
address a reader can open. A rule's help page is its anchor in docs/rules.md, generated from the
catalog (SARIF's helpUri points there).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

# Where the project's documentation is published (the repository's docs/ folder).
DOCS_URL = "https://github.com/vsphere-advisor/advisor/blob/main/docs/rules.md"
FOLLOWABLE = re.compile(r"^https?://[^\s<>\"]+$")


@lru_cache(maxsize=1)
def seed_table() -> dict[str, Any]:
    from advisor.load.yamlfile import load
    from advisor.resources import data_path

    return dict(load(data_path("rules") / "references" / "seeds.yaml")["seeds"])


def seed_document(seed: str, section: str | None) -> tuple[str, str] | None:
    """(title, url) of the published document a seed section is, or None for an unknown seed."""
    entry = seed_table().get(seed)
    if entry is None:
        return None
    sections = entry.get("sections") or {}
    if section and section in sections:
        return section, str(sections[section])
    return str(entry["title"]), str(entry["url"])


def seed_copy(seed: str) -> str | None:
    """Where a public copy of a seed paper can be read when VMware no longer serves the original."""
    entry = seed_table().get(seed)
    copy = entry.get("copy") if entry else None
    return str(copy) if copy else None


def anchor(rule_id: str, name: str) -> str:
    """The rule's heading anchor in docs/rules.md ('## NUMA001 name' -> 'numa001-name')."""
    return f"{rule_id.lower()}-{name}"


def help_uri(rule_id: str, name: str) -> str:
    return f"{DOCS_URL}#{anchor(rule_id, name)}"

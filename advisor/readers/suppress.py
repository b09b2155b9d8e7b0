"""Inline suppressions: `advisor: ignore RULE -- reason` in comments of every template format."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from advisor.readers.base import TemplateVM

_SUPPRESS = re.compile(r"advisor:\s*ignore\b(.*)", re.S)
_RULE_IDS = re.compile(r"\s*([A-Za-z][\w.]*(?:-[\w.]+)*(?:\s*,\s*[A-Za-z][\w.]*(?:-[\w.]+)*)*)\s*(.*)", re.S)
_COMMENT = re.compile(r"(?:#|//)\s*(advisor:\s*ignore\b.*)$")


def parse_suppression(comment: str) -> list[tuple[str, str]]:
    """Rule ids and reason from a comment body like `advisor: ignore NET001, CPU002 -- reason`.

    The reason may follow `--`, `-`, `:` or an em dash (XML comments cannot contain `--`).
    """
    match = _SUPPRESS.search(comment)
    if not match:
        return []
    ids = _RULE_IDS.match(match.group(1))
    if not ids:
        return []
    reason = re.sub(r"^(?:--|—|-|:)\s*", "", ids.group(2).strip()).strip()
    return [(rule, reason) for rule in re.split(r"\s*,\s*", ids.group(1)) if rule]


def comment_suppressions(text: str) -> list[tuple[str, str, int | None]]:
    """Every `# advisor: ignore ...` / `// advisor: ignore ...` line comment, with its line."""
    found: list[tuple[str, str, int | None]] = []
    if "advisor" not in text:  # no line to look at: the file is not split into lines
        return found
    for number, line in enumerate(text.split("\n"), start=1):
        if "advisor" not in line:
            continue
        match = _COMMENT.search(line)
        if match:
            found.extend((rule, reason, number) for rule, reason in parse_suppression(match.group(1)))
    return found


def json_suppressions(value: Any, keys: tuple[str, ...] = ("//",),
                      text: str | None = None) -> list[tuple[str, str, int | None]]:
    """Suppressions written as JSON comment properties (`"//": "advisor: ignore X -- why"`).

    JSON has no comments, so HCL's JSON form reserves the "//" property for them (Packer's legacy
    templates use keys starting with "_comment"). `text`: the document's source; a source without
    "advisor" in it (nor a `\\u` escape, which could spell it) holds none, and its document is
    not walked (a Packer template's provisioners are most of its values).
    """
    if text is not None and "advisor" not in text and "\\u" not in text:
        return []
    # Imported here: only the JSON forms' readers (which load both anyway) need them, and a
    # .vmx's suppressions (parse_suppression) are read without the HCL and JSON helpers.
    from advisor.readers.hclview import MAX_DEPTH
    from advisor.readers.jsonlines import json_line

    def walk(value: Any, line: int | None, depth: int) -> list[tuple[str, str, int | None]]:
        found: list[tuple[str, str, int | None]] = []
        if depth > MAX_DEPTH:
            return found
        if isinstance(value, dict):
            for key, item in value.items():
                item_line = json_line(value, key, line)
                if isinstance(item, str) and any(key == k or key.startswith(k) for k in keys):
                    found.extend((rule, reason, item_line) for rule, reason in parse_suppression(item))
                else:
                    found.extend(walk(item, item_line, depth + 1))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                found.extend(walk(item, json_line(value, index, line), depth + 1))
        return found

    return walk(value, None, 0)


# Suppressions outside every block apply to each VM of the file; distinct rule ids among them
# are capped so that a file of comment lines cannot multiply into (comments x VMs) entries.
MAX_FILE_SUPPRESSIONS = 100


def attach_suppressions(vms: Iterable[tuple[TemplateVM, int | None, int | None]],
                        suppressions: Iterable[tuple[str, str, int | None]]) -> None:
    """Give each suppression to the VM whose block spans its line, or to every VM if none does.

    Blocks do not overlap, so the owner is found by bisection over their sorted starts; the
    suppressions outside every block are kept once per rule id (the first one), at most
    MAX_FILE_SUPPRESSIONS of them."""
    import bisect

    spans = list(vms)
    placed = sorted((start, end, index) for index, (_, start, end) in enumerate(spans)
                    if start is not None and end is not None)
    starts = [start for start, _, _ in placed]
    everywhere: dict[str, tuple[str, str, int | None]] = {}
    dropped = 0
    for rule, reason, line in suppressions:
        at = bisect.bisect_right(starts, line) - 1 if line is not None else -1
        if line is not None and at >= 0 and line <= placed[at][1]:
            spans[placed[at][2]][0].suppressions.append((rule, reason, line))
        elif rule in everywhere:
            continue
        elif len(everywhere) < MAX_FILE_SUPPRESSIONS:
            everywhere[rule] = (rule, reason, line)
        else:
            dropped += 1
    for vm, _, _ in spans:  # in file order, as they were written
        vm.suppressions[:] = sorted([*vm.suppressions, *everywhere.values()],
                                    key=lambda s: (s[2] is None, s[2] or 0))
    if dropped and spans:
        spans[0][0].notes.append(f"{dropped} more suppressions outside any block were ignored "
                                 f"(at most {MAX_FILE_SUPPRESSIONS} rule ids apply to the whole file)")

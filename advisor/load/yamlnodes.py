"""PyYAML's node-based safe loader, building LocDict / LocList with the line of each key and
item, within the depth limit (advisor.load.yamlloc): the loader for what the event-based builder
(advisor.load.yamltree) leaves to it. A module of its own so that reading files, and a run
that loads no YAML (lint's templates with its rules from the cache), never imports PyYAML.
"""

from __future__ import annotations

from typing import Any

import yaml

from advisor.errors import InputError
from advisor.load.yamlloc import MAX_DEPTH, LocDict, LocList, value_problem

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Implicit tag resolution runs a Python regex per scalar; estates repeat the same few values
# ("pvscsi", "8GB", true) thousands of times. The safe loader has no path resolvers, so the tag
# depends only on these arguments and can be remembered (bounded, per process).
_RESOLVED: dict[tuple[Any, Any, Any], str] = {}
_RESOLVED_MAX = 65_536


class Loader(_Base):  # type: ignore[misc, valid-type]
    depth = 0  # containers being constructed around the current node

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        key = (kind, value, implicit)
        tag = _RESOLVED.get(key)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(_RESOLVED) < _RESOLVED_MAX:
                _RESOLVED[key] = tag
        return tag

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        # PyYAML's scalar constructors call int() and date() unguarded: an integer past Python's
        # 4300-digit limit or a date such as 2020-13-45 would escape as a bare ValueError.
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as exc:
            shown = str(node.value)[:40] if isinstance(node, yaml.ScalarNode) else node.tag
            raise InputError(f"cannot read the value '{shown}': {value_problem(exc)}",
                             line=node.start_mark.line + 1) from None


def _nested(loader: Loader, node: yaml.Node) -> None:
    """Count one more level of containers around what is built next; refuse past MAX_DEPTH."""
    loader.depth += 1
    if loader.depth > MAX_DEPTH:
        raise InputError(f"nesting deeper than {MAX_DEPTH} levels", line=node.start_mark.line + 1)


def _mapping(loader: Loader, node: yaml.MappingNode) -> LocDict:
    _nested(loader, node)
    try:
        return _build_mapping(loader, node)
    finally:
        loader.depth -= 1


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _build_mapping(loader: Loader, node: yaml.MappingNode) -> LocDict:
    # flatten_mapping puts the pairs of `<<:` merges first, in an order where the one that
    # should win comes last, then the mapping's own pairs. A key of the mapping itself
    # overrides a merged one (YAML's merge-key semantics: a shared base with per-VM changes);
    # a key the mapping states twice is still a mistake.
    own = sum(1 for key_node, _ in node.value if key_node.tag != _MERGE_TAG)
    loader.flatten_mapping(node)
    first_own = len(node.value) - own
    inherited: set[Any] = set()
    out = LocDict()
    out.line = node.start_mark.line + 1
    for index, (key_node, value_node) in enumerate(node.value):
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise InputError("a mapping key must be a plain value", line=key_node.start_mark.line + 1) from None
        if index < first_own:
            inherited.add(key)
        elif key in inherited:
            inherited.discard(key)
        elif key in out:
            raise InputError(
                f"duplicate key '{key}' (first on line {out.lines[key]})",
                line=key_node.start_mark.line + 1,
                field=str(key),
            )
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = key_node.start_mark.line + 1
    return out


def _sequence(loader: Loader, node: yaml.SequenceNode) -> LocList:
    _nested(loader, node)
    try:
        out = LocList(loader.construct_object(child, deep=True) for child in node.value)
    finally:
        loader.depth -= 1
    out.line = node.start_mark.line + 1
    out.lines = [child.start_mark.line + 1 for child in node.value]
    return out


Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)

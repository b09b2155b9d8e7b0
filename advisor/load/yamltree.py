"""The located tree (LocDict / LocList) built straight from libyaml's events.

PyYAML's loaders first compose a graph of nodes (every scalar a node with two marks), then
construct values from it; for a 100,000-VM spec that graph was about a gigabyte, held until the
last value was built, beside a tree a fifth of its size. Here each event becomes its value at
once and only the tree is kept. The events, the tag resolution and the scalar constructors are
PyYAML's own (advisor.load.yamlnodes.Loader), so values are typed exactly as before.

Only what plain YAML documents use is built here: the core schema's tags, anchors and aliases,
and merge keys. Anything else - another tag (`!!set`, `!!omap`, a custom one), and every
malformed construct (a duplicate key or anchor, a complex key, an undefined or recursive alias,
a second document) - raises NeedsNodes, and the caller loads the text with the node-based loader,
which builds it or reports the problem in its usual words.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import ScalarNode

from advisor.errors import InputError
from advisor.load.yamlloc import MAX_DEPTH, MAX_SEQUENCE_ITEMS, LocDict, LocList, too_many_items, value_problem
from advisor.load.yamlnodes import Loader

_STR = "tag:yaml.org,2002:str"
_MAP = yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG
_SEQ = yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG
_PLAIN_KEY = (str, int, float, bool, type(None))
_MEMO_MAX = 65_536  # distinct typed scalars remembered per document
_SHARED_MAX = 64  # strings up to this length are kept once per document however often they repeat
_MISS = object()
_new_dict, _new_list = dict.__new__, list.__new__


class NeedsNodes(Exception):
    """The text holds something only the node-based loader builds (or reports) exactly."""


class _Builder:
    def __init__(self, text: str) -> None:
        self.loader = Loader(text)
        self.constructors = self.loader.yaml_constructors
        self.anchors: dict[str, tuple[Any, int]] = {}  # anchor -> (value, line of the anchored node)
        self.open: set[str] = set()  # anchors of containers still being built
        self.typed: dict[tuple[str, str], Any] = {}  # (tag, text) -> an immutable scalar
        # Estates repeat the same keys and values ("vcpus", "pvscsi") on every VM: one object each.
        # Most scalars are plain (no quotes, no tag), and such a scalar's value depends on its
        # text alone (the safe loader's implicit resolvers, then a constructor): `plain` maps
        # that text to its value (a string up to _SHARED_MAX, a typed value `typed` holds), so
        # the loops below build a repeated plain scalar with one lookup. Other strings (quoted,
        # tagged) are shared through `shared`.
        self.plain: dict[str, Any] = {}
        self.shared: dict[str, str] = {}

    def document(self) -> Any:
        get, check = self.loader.get_event, self.loader.check_event
        get()  # the stream's start
        if not check(yaml.DocumentStartEvent):
            return None  # an empty stream, as yaml.load gives it
        get()
        root = self.value(get(), 0)
        get()  # the document's end
        if not check(yaml.StreamEndEvent):
            raise NeedsNodes  # a second document
        return root

    def value(self, event: Any, depth: int) -> Any:
        kind = type(event)
        if kind is ScalarEvent:
            value = self.scalar(event)
            if event.anchor is not None:
                self.anchor(event.anchor, value, event.start_mark.line + 1)
            return value
        if kind is AliasEvent:
            return self.alias(event)[0]
        if kind is MappingStartEvent:
            return self.mapping(event, depth + 1)
        if kind is SequenceStartEvent:
            return self.sequence(event, depth + 1)
        raise NeedsNodes

    def anchor(self, name: str, value: Any, line: int) -> None:
        if name in self.anchors:
            raise NeedsNodes  # a duplicate anchor
        self.anchors[name] = (value, line)

    def alias(self, event: Any) -> tuple[Any, int]:
        hit = self.anchors.get(event.anchor)
        if hit is None or event.anchor in self.open:
            raise NeedsNodes  # undefined, or a container that contains itself
        return hit

    def scalar(self, event: Any) -> Any:
        tag, text = event.tag, event.value
        memo = self.plain if tag is None and event.implicit[0] else None
        if tag is None or tag == "!":
            tag = self.loader.resolve(ScalarNode, text, event.implicit)
        if tag == _STR:
            if len(text) > _SHARED_MAX:
                return text
            if memo is None:
                return self.shared.setdefault(text, text)
            value = text  # a plain string is shared through `plain` alone
        else:
            key = (tag, text)
            if key in self.typed:
                value = self.typed[key]
            else:
                value = self.construct(tag, event)
                if not isinstance(value, _PLAIN_KEY) or len(self.typed) >= _MEMO_MAX:
                    return value
                self.typed[key] = value
        if memo is not None:
            memo[text] = value
        return value

    def construct(self, tag: str, event: Any) -> Any:
        constructor = self.constructors.get(tag)
        if constructor is None:
            raise NeedsNodes
        text = event.value
        try:
            return constructor(self.loader, ScalarNode(tag, text, event.start_mark, event.end_mark, event.style))
        except (ValueError, OverflowError) as exc:  # as Loader.construct_object reports them
            raise InputError(f"cannot read the value '{str(text)[:40]}': {value_problem(exc)}",
                             line=event.start_mark.line + 1) from None

    def start(self, event: Any, depth: int, default_tag: str, out: LocDict | LocList) -> None:
        if depth > MAX_DEPTH:
            raise InputError(f"nesting deeper than {MAX_DEPTH} levels", line=event.start_mark.line + 1)
        if event.tag not in (None, "!", default_tag):
            raise NeedsNodes
        out.line = event.start_mark.line + 1
        if event.anchor is not None:
            self.anchor(event.anchor, out, out.line)
            self.open.add(event.anchor)

    def mapping(self, start: Any, depth: int) -> LocDict:
        out = _new_dict(LocDict)  # LocDict() less its __init__, a Python call per mapping
        out.lines = lines = {}
        self.start(start, depth, _MAP, out)
        merged: list[Any] = []
        get, plain = self.loader.get_event, self.plain
        while True:
            event = get()
            kind = type(event)
            key = plain.get(event.value, _MISS) if kind is ScalarEvent and event.tag is None \
                and event.anchor is None and event.implicit[0] else _MISS  # "<<" is never in `plain`
            if key is _MISS:
                if kind is MappingEndEvent:
                    break
                if kind is ScalarEvent and event.tag is None and event.implicit[0] and event.value == "<<":
                    merged.append(self.value(get(), depth))  # a merge key: applied once the mapping is read
                    continue
                key = self.value(event, depth)
            if (type(key) is not str and not isinstance(key, _PLAIN_KEY)) or key in lines:
                raise NeedsNodes  # a complex or duplicate key
            line = event.start_mark.line + 1
            event = get()
            if type(event) is ScalarEvent and event.tag is None and event.anchor is None and event.implicit[0]:
                value = plain.get(event.value, _MISS)
                out[key] = self.scalar(event) if value is _MISS else value
            else:
                out[key] = self.value(event, depth)
            lines[key] = line
        if merged:
            _merge(out, merged)
        self.open.discard(start.anchor)
        return out

    def sequence(self, start: Any, depth: int) -> LocList:
        out = _new_list(LocList)
        out.lines = lines = []
        self.start(start, depth, _SEQ, out)
        append = out.append
        get, plain = self.loader.get_event, self.plain
        while True:
            event = get()
            kind = type(event)
            if kind is ScalarEvent and event.tag is None and event.anchor is None and event.implicit[0]:
                value = plain.get(event.value, _MISS)
                append(self.scalar(event) if value is _MISS else value)
            elif kind is SequenceEndEvent:
                break
            elif kind is AliasEvent:
                # The node loader gives an aliased item the line of the node it refers to.
                value, line = self.alias(event)
                append(value)
                lines.append(line)
                if len(lines) > MAX_SEQUENCE_ITEMS:
                    raise InputError(too_many_items(), line=event.start_mark.line + 1)
                continue
            else:
                append(self.value(event, depth))
            lines.append(event.start_mark.line + 1)
            if len(lines) > MAX_SEQUENCE_ITEMS:
                raise InputError(too_many_items(), line=event.start_mark.line + 1)
        self.open.discard(start.anchor)
        return out


def _merge(out: LocDict, merged: list[Any]) -> None:
    """Apply merge keys, advisor's rule whatever PyYAML is installed: the pairs of each `<<` in
    turn (of a list of mappings, the last one's first), then the mapping's own pairs; a later
    pair wins and a key keeps the place of its first appearance. The mapping's own keys thus
    override merged ones, and the first mapping of a merged list overrides the ones after it, as
    the merge key's definition has it (yaml.org/type/merge.html). This is the order PyYAML's
    flatten_mapping gave up to 6.0.3; 6.0.4's drops a merged pair whose key is the same string
    object as an earlier one's, so its order (and, for two `<<` keys, its winner) depends on
    string interning. Only a document the node-based loader builds (NeedsNodes) follows the
    installed PyYAML's rule."""
    sources: list[LocDict] = []
    for value in merged:
        group = value if isinstance(value, LocList) else [value]
        if not all(isinstance(m, LocDict) for m in group):
            raise NeedsNodes  # merging something other than mappings
        sources.extend(reversed(group))
    own, own_lines = dict(out), dict(out.lines)
    out.clear()
    out.lines.clear()
    for source in sources:
        for key, value in source.items():
            out[key] = value
            out.lines[key] = source.lines[key]
    for key, value in own.items():
        out[key] = value
        out.lines[key] = own_lines[key]


def build(text: str) -> Any:
    """The document's tree; NeedsNodes when the node-based loader must build it instead."""
    builder = _Builder(text)
    try:
        return builder.document()
    finally:
        builder.loader.dispose()

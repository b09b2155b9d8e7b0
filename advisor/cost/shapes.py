"""Shared topology work: one cache of predicted layouts and their facts per kind of host in a run
(a saving of the cost layer, advisor.cost).

The engine keeps a cache per host it evaluates (advisor.facts.facts.facts_for): the layouts
predict() gives each VM shape, their what-if variants, the facts of each layout, the layouts on
the cluster's other kinds of host. Everything in it is keyed by the VM values it reads and
computed from the host's values and the vSphere version, never from the host's name or its free-text
description (the one name-dependent entry, the host facts, is keyed by the name as well). Hosts equal
in every value but those two therefore share one cache: an RVTools export becomes hundreds of per-host specs
built from a few server models, and each VM shape is then predicted once per kind of host, not
once per host.

Key: the host's fields other than its name and description (their repr, so 1, 1.0 and True stay apart), and the
version. Bound: at most SHAPE_HOSTS kinds of host per run, and none whose key is longer than
SHAPE_KEY characters; a host beyond either gets a cache of its own, as without the saving. A
cache lives as long as the evaluator (a run); nothing outlives it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.cost import off

if TYPE_CHECKING:
    from advisor.model.spec import Host
    from advisor.model.versions import Version

# Kinds of host whose caches a run keeps: an estate is a few server models in a few memory sizes
# (the 10,000-VM benchmark export has 36 kinds over 250 hosts); each cache holds a few hundred
# layouts at most, a few hundred kilobytes.
SHAPE_HOSTS = 256
SHAPE_KEY = 4096
# The host fields that name it rather than shape it (load/estate.cluster_peers tells kinds apart
# the same way).
_NAMING = {"name", "description"}


class Shapes:
    """The topology caches of one evaluator, by kind of host (host values but the name and the
    description, version)."""

    __slots__ = ("caches", "on")

    def __init__(self) -> None:
        self.caches: dict[tuple[str, Version | None], dict[tuple[Any, ...], Any]] = {}
        self.on = not off("shapes")  # off: a cache per host, as the plain engine keeps

    def cache_for(self, host: Host | None, version: Version | None) -> dict[tuple[Any, ...], Any]:
        """The cache an evaluation on `host` and `version` shares with every host of the same kind."""
        if not self.on or host is None:
            return {}
        # The description names the host too (`collect vcenter` writes "host X in cluster Y, read
        # from vCenter Z"), and no fact reads it: keyed by it, no two live hosts would share.
        fields = repr(host.model_dump(exclude=_NAMING))
        if len(fields) > SHAPE_KEY:
            return {}
        key = (fields, version)
        cache = self.caches.get(key)
        if cache is None:
            if len(self.caches) >= SHAPE_HOSTS:
                return {}
            cache = self.caches[key] = {}
        return cache

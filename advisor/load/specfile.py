"""Reading a spec file (vm.yaml) into validated models with their source lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from advisor.collector import gc_paused
from advisor.errors import InputError, one_or_all
from advisor.load.hosts import BUNDLED, HostProfiles, inline_or_named
from advisor.load.validation import to_input_errors
from advisor.load.yamlfile import loads, read_bytes
from advisor.model.cluster import ClusterHost, distinct_hosts
from advisor.model.spec import VM, ClusterMember, Host, Spec
from advisor.model.versions import Version


# Plain slotted classes: see CONTRIBUTING.md, "Add a class on `check`'s path".
class LoadedSpec:
    """A validated spec, its resolved host and version, and where things are in the file."""

    __slots__ = ("cluster", "file", "host", "root", "spec", "version")

    def __init__(self, file: str, spec: Spec, host: Host, version: Version, root: Any,
                 cluster: tuple[ClusterHost, ...] = ()) -> None:
        self.file = file
        self.spec = spec
        self.host = host
        self.version = version
        self.root = root
        self.cluster = cluster  # the other hosts, one entry per kind


def parse_spec(data: bytes | str, file: str, profiles: HostProfiles = BUNDLED) -> LoadedSpec:
    try:
        return spec_from_root(loads(data, file), file, profiles=profiles)
    except InputError:
        head = data[:65536] if isinstance(data, bytes) else data[:65536].encode("utf-8", "replace")
        hint = for_spec_command(file, head)
        if hint is None:
            raise
        raise InputError(hint, file=file) from None


def for_spec_command(path: str, head: bytes) -> str | None:
    """What to say when a command that reads specs (check, topology, vmx) cannot read `path`."""
    from advisor.load.kinds import elsewhere, kind_of
    from advisor.readers import detect

    kind = kind_of(path, head)
    if kind is None:
        try:
            kind = "template" if detect(Path(path), head) is not None else None
        except Exception:  # a guess for a message: whatever a sniffer trips on means "unknown"
            kind = None
    if kind == "template":
        fix = " (or `advisor fix` to edit it)" if path.lower().endswith((".vmx", ".vmtx")) else ""
        return f"this is a template, not a spec: use `advisor lint {path}`{fix}"
    return elsewhere(kind, path)


def spec_from_root(root: Any, file: str, lenient_shape: bool = False, profiles: HostProfiles = BUNDLED) -> LoadedSpec:
    """A spec from already-parsed YAML (a rule's example, a sizing proposal)."""
    if root is None:
        raise InputError("the file is empty; a spec needs 'host:' and 'vms:'", file=file)
    if not isinstance(root, dict):
        raise InputError(
            "a spec is a mapping with 'host:' and 'vms:' at the top", file=file, line=getattr(root, "line", 1)
        )
    try:
        # lenient_shape admits what templates can hold but specs may not (cores per socket
        # not dividing vCPUs), so rule examples can show the template case.
        with gc_paused(kept=True):
            # The engine validates VMs on their own too (a resize: advisor.model.patch.rebuilt). Built first, the
            # VM's validator is what Spec's reuses; built after Spec's, it is a VM schema built twice.
            VM.model_rebuild()  # once: then it returns at once
            spec = Spec.model_validate(root, context={"lenient_shape": lenient_shape})
    except ValidationError as exc:
        raise one_or_all(to_input_errors(exc, Spec, root, file)) from None
    host = inline_or_named(spec.host, file, root, profiles)
    version = spec.vsphere or host.esxi
    cluster = distinct_hosts(_cluster_member(entry, index, file, root, profiles)
                             for index, entry in enumerate(spec.cluster))
    return LoadedSpec(file=file, spec=spec, host=host, version=version, root=root, cluster=cluster)


def _cluster_member(entry: Any, index: int, file: str, root: Any, profiles: HostProfiles) -> tuple[Host, int]:
    """One `cluster:` entry as (host, how many), with errors located at that entry."""
    if isinstance(entry, ClusterMember):
        return inline_or_named(entry.host, file, root, profiles, ("cluster", index, "host")), entry.count
    return inline_or_named(entry, file, root, profiles, ("cluster", index)), 1


def load_spec(path: str | Path, profiles: HostProfiles = BUNDLED) -> LoadedSpec:
    return parse_spec(read_bytes(path), str(path), profiles)


def all_errors(data: bytes | str, file: str) -> list[InputError]:
    """Every validation problem of a spec (the CLI shows the first; editors want all)."""
    try:
        root = loads(data, file)
        Spec.model_validate(root)
    except InputError as exc:
        return [exc]
    except ValidationError as exc:
        return to_input_errors(exc, Spec, root, file)
    return []


__all__ = ["VM", "LoadedSpec", "all_errors", "load_spec", "parse_spec"]

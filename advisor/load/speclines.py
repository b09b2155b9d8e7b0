"""Where a spec's fields are in its file: each VM's lines and the host's, taken from the parsed
tree once per spec, so that locating a finding reads the VM's own mapping and never walks the
file from its root (advisor.engine.specs hands `VmLines.locate` to the engine)."""

from __future__ import annotations

from typing import Any

from advisor.load.yamlloc import LocDict, LocList, line_of


# Plain slotted classes: see CONTRIBUTING.md, "Add a class on `check`'s path".
class SpecLines:
    """The host's place in a spec and the way to each VM's."""

    __slots__ = ("host_node", "host_start", "located", "vms", "vms_start")

    def __init__(self, root: Any) -> None:
        found = isinstance(root, LocDict) and "host" in root
        # The line a host path falls back to: the `host:` key's, else the spec's own (as
        # line_of(root, ("host", key)) gives it); None for an unlocated tree (a rule's example).
        self.host_start: int | None = root.lines.get("host", root.line) if found else getattr(root, "line", None)
        self.host_node: Any = root["host"] if found else None
        self.vms: Any = root.get("vms") if isinstance(root, dict) else None
        self.vms_start = line_of(root, ("vms",))  # where a VM the tree does not hold is put
        self.located = isinstance(root, LocDict)  # else a VM's own line is unknown, as the root's

    def host_line(self, path: str) -> int | None:
        """The line of a `host.` path (the host's own line for any other)."""
        if path.startswith("host."):
            return line_of(self.host_node, (path[5:],), self.host_start) or self.host_start
        return self.host_start

    def vm(self, index: int) -> VmLines:
        """The lines of the index-th VM of the spec."""
        vms = self.vms
        if isinstance(vms, LocList) and 0 <= index < len(vms):
            return VmLines(self, vms.lines[index] if self.located else self.vms_start, vms[index])
        return VmLines(self, self.vms_start, None)


class VmLines:
    """One VM's lines: what the engine locates a finding with, holding only the VM's own part of
    the tree (and the host's lines, shared by the spec's VMs)."""

    __slots__ = ("advanced", "line", "node", "spec")

    def __init__(self, spec: SpecLines, line: int | None, node: Any) -> None:
        self.spec = spec
        self.line = line  # the VM's own
        self.node = node  # its mapping in the parsed tree
        self.advanced: dict[str, int] | None = None  # advanced keys by lower case, built at first use

    def line_at(self, *loc: Any) -> int | None:
        """The line of a path inside the VM, else the deepest part of it found, else the VM's."""
        return line_of(self.node, loc, self.line) if self.node is not None else self.line

    def field_line(self, field: str) -> int | None:
        """Line of a VM field, or of the advanced key that set it, else of the VM itself."""
        node = self.node
        if not isinstance(node, LocDict):
            return None
        if field in node.lines:
            return node.lines[field]
        if self.advanced is None:
            adv = node.get("advanced")
            self.advanced = {}
            if isinstance(adv, LocDict):
                for key, line in adv.lines.items():
                    self.advanced.setdefault(str(key).lower(), line)  # the first in the file is the one reported
        return self.advanced.get(field.lower(), node.line)

    def locate(self, path: str) -> int | None:
        """The line of a spec field path ("disks.0.size", "advanced.numa.vcpu.min", "host.memory")."""
        if path.startswith("advanced."):
            return self.field_line(path[len("advanced."):])
        if path.startswith("host."):
            return self.spec.host_line(path) or self.line
        parts = path.split(".")
        line = self.line_at(*parts)
        if line is None and len(parts) > 1:
            line = self.line_at(parts[0])
        return line or self.field_line(parts[0])

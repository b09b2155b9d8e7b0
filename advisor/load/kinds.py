"""What kind of advisor input a file is, from its name and first bytes, so a command handed a
file that another command reads says which one (`lint spec.yaml`: "use advisor check";
`check web.vmx`: "use advisor lint") instead of only that it cannot read it.

Consulted only after a file has failed to load, so the guess costs a successful run nothing.
Whether a file is a template is the readers' answer (advisor.readers.detect): the readers ask
this module which command takes a file they cannot read, so the spec loader, not this module,
asks them (advisor.load.specfile.for_spec_command).
"""

from __future__ import annotations

import re
from pathlib import Path

# Top-level keys that only one kind of advisor YAML file has (advisor.model.spec.Spec, .Host,
# advisor.load.configmodel.Config, advisor.engine.catalog.RuleFile).
_YAML_KINDS = (
    ("spec", re.compile(rb"^(?:vms|cluster)\s*:", re.M)),
    ("host profile", re.compile(rb"^(?:sockets|cores_per_socket|numa_nodes_per_socket)\s*:", re.M)),
    ("rule file", re.compile(rb"^rules\s*:\s*$", re.M)),
    ("configuration", re.compile(rb"^(?:select|ignore|fail_on|exemptions|exclude|host_profiles)\s*:", re.M)),
)


def kind_of(path: str, head: bytes) -> str | None:
    """"spec", "host profile", "rule file", "configuration", or None (unknown or a template:
    whether a file is a template is the readers' answer, advisor.readers.detect, which the spec
    loader asks itself; the readers ask this module, so it does not ask them back)."""
    name = Path(path).name.lower()
    if name in (".advisor.yaml", ".advisor.yml", "pyproject.toml"):
        return "configuration"
    if name.endswith((".yaml", ".yml")) or not name.endswith((".vmx", ".vmtx", ".ovf", ".ova", ".tf", ".json",
                                                               ".hcl")):
        for kind, pattern in _YAML_KINDS:
            if pattern.search(head):
                return kind
    return None


def is_spec_file(name: str, path: str) -> bool:
    """Whether a folder walk of `advisor check` keeps a file (`name` lower-cased): YAML that
    states VMs (a `vms:` or `cluster:` key at the top), the way lint's walk keeps what reads as
    a template. Host profiles, configurations, rule files and other YAML in the folder are left
    alone; a file named on the command line is always read."""
    if not name.endswith((".yaml", ".yml")) or name in (".advisor.yaml", ".advisor.yml"):
        return False
    from advisor.errors import InputError
    from advisor.load.yamlfile import open_regular

    try:
        with open_regular(path) as handle:
            head = handle.read(65536)
    except (OSError, InputError):
        return False
    return kind_of(path, head) == "spec"


def for_template_command(path: str, head: bytes) -> str | None:
    """What to say when a command that reads templates (lint, fix) cannot read `path`."""
    kind = kind_of(path, head)
    if kind == "spec":
        return f"this is a spec, not a template: use `advisor check {path}` (or `advisor vmx` for its settings)"
    return elsewhere(kind, path)


def elsewhere(kind: str | None, path: str) -> str | None:
    """Which option or place takes a file of ``kind`` that no command reads directly."""
    if kind == "host profile":
        return f"this is a host profile: name it as `host: {path}` in a spec, or give it to --host"
    if kind == "configuration":
        return "this is an advisor configuration: it is found by itself, or given with --config"
    if kind == "rule file":
        return "this is a rule file: give its folder with --rules"
    return None

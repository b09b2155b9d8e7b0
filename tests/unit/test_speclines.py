"""Where a spec's fields are (advisor/load/speclines.py): the lines a finding is located at, read
from the VM's own part of the tree and the host's, taken once per spec."""

from __future__ import annotations

from advisor.load.speclines import SpecLines
from advisor.load.yamlfile import loads

SPEC = """\
host:
  sockets: 2
  cores_per_socket: 16
vms:
  - name: a
    vcpus: 8
    sql:
      edition: enterprise
      maxdop: 8
    advanced:
      Numa.VCPU.Min: 4
      numa.vcpu.min: 6
  - name: b
    vcpus: 4
"""


def test_a_vms_fields_nested_paths_and_advanced_keys() -> None:
    lines = SpecLines(loads(SPEC, "s.yaml"))
    a, b = lines.vm(0), lines.vm(1)
    assert (a.line, b.line) == (5, 13)
    assert a.locate("vcpus") == 6
    assert a.locate("sql.maxdop") == 9
    assert a.locate("sql.trace_flags") == 7  # not stated: the nearest part that is
    assert a.locate("memory") == 5  # not stated: the VM's line
    # An advanced key is found whatever its case; of two spellings the first in the file.
    assert a.locate("advanced.numa.vcpu.min") == 11
    assert a.field_line("numa.vcpu.min") == 11
    assert b.locate("advanced.numa.vcpu.min") == 13
    assert a.line_at("ignore", 0) == 5


def test_host_paths_fall_back_to_the_host_key() -> None:
    lines = SpecLines(loads(SPEC, "s.yaml"))
    assert lines.host_line("host.cores_per_socket") == 3
    assert lines.host_line("host.memory") == 1
    assert lines.host_line("vm.vcpus") == 1
    assert lines.vm(0).locate("host.sockets") == 2
    named = SpecLines(loads("vms:\n  - name: a\nhost: dell\n", "s.yaml"))
    assert named.host_line("host.sockets") == 3
    assert named.vm(0).locate("host.sockets") == 3


def test_a_vm_the_tree_does_not_hold_and_an_unlocated_tree() -> None:
    lines = SpecLines(loads(SPEC, "s.yaml"))
    assert lines.vm(5).line == 4  # the `vms:` key
    assert lines.vm(5).locate("vcpus") == 4
    plain = SpecLines({"host": "dell", "vms": [{"name": "a", "advanced": {"x": 1}}]})  # a rule's example
    assert plain.host_line("host.sockets") is None
    assert plain.vm(0).line is None
    assert plain.vm(0).locate("advanced.x") is None


def test_located_vms_under_an_unlocated_root_keep_their_own_lines_inside() -> None:
    tree = loads("vms:\n  - name: a\n    vcpus: 4\n", "s.yaml")
    plain = SpecLines(dict(tree))  # the root a plain dict, the VMs still located
    assert plain.vm(0).line is None
    assert plain.vm(0).locate("vcpus") == 3

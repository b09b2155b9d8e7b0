"""Hostile inputs: files built to exhaust time or memory, or to read what they should not.

Each runs `python -m advisor` in a child process whose peak memory comes from os.wait4 (the
child's own rusage; ru_maxrss is KiB on Linux).

Bounds, per input: peak resident memory < 300 MiB, and the counted limits each test names
(bytes, nodes, depth). There is no wall-clock bound: time on a shared machine says nothing about
advisor. The one guard is a kill after KILL_AFTER seconds (CPU rlimit and a kill timer): it
tells a hang from a slow run and stops a runaway child long before it could hurt the machine.
Speed is measured in benchmarks/, as ratios to a baseline taken in the same run.
Every case also asserts exit 2 (or documents why another code is the clean answer), a message
naming the file, and no traceback.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import org_rule

resource = pytest.importorskip("resource")
if not hasattr(os, "wait4"):
    pytest.skip("needs os.wait4 (POSIX) to measure a child's memory", allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), "ADVISOR_DEBUG": "",
       "NO_COLOR": "1"}
MAX_MIB = 300
# The hang guard: run_bounded kills a child that has not finished after this many seconds (CPU
# limit and wall timer), far beyond any honest run even on a loaded machine. What bounds the work is
# the peak memory below and the counted limits each test names; no test asserts on elapsed time.
KILL_AFTER = 60

HOST = "host: {name: lab, sockets: 2, cores_per_socket: 10, threads_per_core: 2, memory: 256GB, esxi: '7.0'}\n"
GOOD_SPEC = HOST + "vms:\n  - name: good-vm\n    vcpus: 4\n    memory: 8GB\n"
GOOD_VMX = '.encoding = "UTF-8"\nconfig.version = "8"\ndisplayName = "good-vmx"\nnumvcpus = "4"\nmemsize = "8192"\n'
SPARSE_BYTES = 200 * 1024 * 1024


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    peak_mib: float


def _limits() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_CPU, (KILL_AFTER, KILL_AFTER))


def run_bounded(tmp: Path, *args: object) -> Outcome:
    out_path, err_path = tmp / ".stdout", tmp / ".stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "advisor", *map(str, args)], stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, cwd=tmp, env=ENV, preexec_fn=_limits)
        killer = threading.Timer(KILL_AFTER, proc.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: tell Popen
    peak_kib = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss / 1024
    outcome = Outcome(proc.returncode, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"),
                      peak_kib / 1024)
    out_path.unlink()
    err_path.unlink()
    return outcome


def assert_refused(outcome: Outcome, file: Path | str, *, words: str = "",
                   code: int | tuple[int, ...] = 2) -> None:
    everything = outcome.out + outcome.err
    assert outcome.code >= 0, f"killed by signal {-outcome.code} after the {KILL_AFTER} s guard: hung?"
    assert outcome.code in ((code,) if isinstance(code, int) else code), (outcome.code, outcome.err[-2000:])
    assert "Traceback" not in everything
    assert outcome.peak_mib < MAX_MIB, f"peak memory {outcome.peak_mib:.0f} MiB"
    if outcome.code == 2:
        lines = [line for line in outcome.err.splitlines() if line.strip()]
        assert lines and all(line.startswith("advisor: ") for line in lines), outcome.err
        assert any(str(file) in line for line in lines), outcome.err
        if words:
            assert words in outcome.err, outcome.err


# -- YAML ----------------------------------------------------------------------------------


def test_yaml_alias_bomb(tmp_path: Path) -> None:
    """Billion laughs: nine levels of ten aliases each would expand to 10^9 nodes."""
    levels = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        levels.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    spec = tmp_path / "bomb.yaml"
    spec.write_text("x-bomb:\n" + "".join(f"  {line}\n" for line in levels) + GOOD_SPEC)
    assert_refused(run_bounded(tmp_path, "check", spec), spec, words="alias")


def test_yaml_alias_bomb_in_a_rule_file(tmp_path: Path) -> None:
    levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]']
    levels += [f"{n}: &{n} [" + ", ".join([f"*{p}"] * 10) + "]" for p, n in zip("abcdefgh", "bcdefghi", strict=False)]
    (tmp_path / "policies").mkdir()
    rule = tmp_path / "policies" / "org.yaml"
    rule.write_text("\n".join(levels) + "\nrules: []\n")
    spec = tmp_path / "vm.yaml"
    spec.write_text(GOOD_SPEC)
    assert_refused(run_bounded(tmp_path, "check", "--rules", tmp_path / "policies", spec), rule,
                   words="alias")


@pytest.mark.parametrize("anchored", [False, True], ids=["plain", "with-an-anchor"])
def test_yaml_nesting_limit_is_exact(anchored: bool) -> None:
    """64 levels load, 65 are refused at the line where they start, whether or not the text
    has an anchor (with one, the alias walk runs too)."""
    from advisor.errors import InputError
    from advisor.load.yamlfile import MAX_DEPTH, loads

    head = "x: &a 1\n" if anchored else ""
    lists = MAX_DEPTH - 1  # the document's root mapping is the first level
    node, depth = loads(f"{head}v: {'[' * lists}{']' * lists}\n", "f.yaml"), 1
    while node:
        node, depth = (node["v"] if isinstance(node, dict) else node[0]), depth + 1
    assert depth == MAX_DEPTH
    with pytest.raises(InputError, match="nesting deeper than 64 levels") as refused:
        loads(f"{head}v: {'[' * (lists + 1)}{']' * (lists + 1)}\n", "f.yaml")
    assert refused.value.line == (2 if anchored else 1)


def test_yaml_depth_reached_through_aliases_is_refused() -> None:
    """A shared node is built once, at its first place: only the alias walk sees that using it
    inside 60 more levels makes the document deeper than the limit."""
    from advisor.errors import InputError
    from advisor.load.yamlfile import loads

    text = "deep: &d " + "[" * 10 + "]" * 10 + "\nv: " + "[" * 60 + "*d" + "]" * 60 + "\n"
    with pytest.raises(InputError, match="nesting deeper than"):
        loads(text, "f.yaml")
    loads(text.replace("[" * 60, "[" * 50).replace("]" * 60, "]" * 50), "f.yaml")  # 1 + 50 + 10 levels


def test_yaml_ten_thousand_levels_of_brackets(tmp_path: Path) -> None:
    spec = tmp_path / "deep.yaml"
    spec.write_text(HOST + "vms: " + "[" * 10_000 + "]" * 10_000 + "\n")
    assert_refused(run_bounded(tmp_path, "check", spec), spec, words="nesting deeper than")


def test_yaml_ten_thousand_levels_of_mappings(tmp_path: Path) -> None:
    host = tmp_path / "h.yaml"
    host.write_text("name: x\nextra: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n")
    spec = tmp_path / "vm.yaml"
    spec.write_text("host: ./h.yaml\nvms: [{name: a, vcpus: 4, memory: 8GB}]\n")
    assert_refused(run_bounded(tmp_path, "check", spec), host, words="nesting deeper than")


def test_spec_of_200_mib_is_refused_by_size(tmp_path: Path) -> None:
    spec = tmp_path / "huge.yaml"
    with open(spec, "wb") as handle:
        handle.write(GOOD_SPEC.encode())
        handle.truncate(SPARSE_BYTES)  # sparse: costs no disk
    good = tmp_path / "good.yaml"
    good.write_text(GOOD_SPEC)
    outcome = run_bounded(tmp_path, "check", "--format", "json", spec, good)
    assert_refused(outcome, spec, words="the limit is 16 MiB")
    assert "good-vm" in outcome.out  # the other file still ran


# -- templates -----------------------------------------------------------------------------


def test_packer_json_nested_100000_deep(tmp_path: Path) -> None:
    template = tmp_path / "deep.json"
    template.write_text('{"builders": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    assert_refused(run_bounded(tmp_path, "lint", template), template, words="nested too deeply")


def test_packer_hcl_nested_10000_deep(tmp_path: Path) -> None:
    template = tmp_path / "deep.pkr.hcl"
    template.write_text('source "vsphere-iso" "x" {\n  CPUs = ' + "[" * 10_000 + "]" * 10_000 + "\n}\n")
    assert_refused(run_bounded(tmp_path, "lint", template), template, words="nested too deeply")


def test_terraform_json_nested_100000_deep(tmp_path: Path) -> None:
    template = tmp_path / "deep.tf.json"
    template.write_text('{"resource": {"vsphere_virtual_machine": {"x": {"num_cpus": '
                        + "[" * 100_000 + "]" * 100_000 + "}}}}\n")
    assert_refused(run_bounded(tmp_path, "lint", template), template, words="nested too deeply")


def test_vmx_of_200_mib_is_refused_by_size(tmp_path: Path) -> None:
    vmx = tmp_path / "huge.vmx"
    with open(vmx, "wb") as handle:
        handle.write(GOOD_VMX.encode())
        handle.truncate(SPARSE_BYTES)
    (tmp_path / "good.vmx").write_text(GOOD_VMX)
    outcome = run_bounded(tmp_path, "lint", "--format", "json", tmp_path)
    assert_refused(outcome, vmx, words="the limit is 16 MiB")
    assert "good-vmx" in outcome.out


def test_fix_on_a_vmx_of_200_mib_is_refused_and_untouched(tmp_path: Path) -> None:
    vmx = tmp_path / "huge.vmx"
    with open(vmx, "wb") as handle:
        handle.write(GOOD_VMX.encode())
        handle.truncate(SPARSE_BYTES)
    assert_refused(run_bounded(tmp_path, "fix", vmx, "--write"), vmx, words="the limit is 16 MiB")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.vmx"]  # no .bak, no temporary file
    assert vmx.stat().st_size == SPARSE_BYTES


def test_vmx_with_one_15_mib_value_is_read_within_bounds(tmp_path: Path) -> None:
    """Just under the size limit, a single enormous line: read in linear time. The file is a
    valid .vmx, so the clean answer is a normal report (0 or 1), not an error."""
    vmx = tmp_path / "long.vmx"
    vmx.write_text(GOOD_VMX + 'annotation = "' + "x=#|" * (15 * 1024 * 1024 // 4) + '"\n')
    outcome = run_bounded(tmp_path, "lint", "--format", "json", vmx)
    assert_refused(outcome, vmx, code=(0, 1))
    assert "good-vmx" in outcome.out


OVF_BODY = ('<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1">\n'
            '  <VirtualSystem id="vm"><Info>&x;</Info></VirtualSystem>\n</Envelope>\n')


def test_ovf_entity_bomb(tmp_path: Path) -> None:
    entities = ['<!ENTITY x0 "lollollollollollollollollollol">']
    entities += [f'<!ENTITY x{i} "' + f"&x{i - 1};" * 10 + '">' for i in range(1, 10)]
    ovf = tmp_path / "bomb.ovf"
    ovf.write_text('<?xml version="1.0"?>\n<!DOCTYPE Envelope [\n' + "\n".join(entities)
                   + '\n<!ENTITY x "&x9;">\n]>\n' + OVF_BODY)
    assert_refused(run_bounded(tmp_path, "lint", ovf), ovf, words="entity declarations are not allowed")


def test_ovf_external_entity_is_refused_and_leaks_nothing(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n")
    ovf = tmp_path / "xxe.ovf"
    ovf.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE Envelope [\n<!ENTITY x SYSTEM "file://{secret}">\n'
                   '<!ENTITY p SYSTEM "file:///etc/passwd">\n]>\n' + OVF_BODY.replace("&x;", "&x;&p;"))
    outcome = run_bounded(tmp_path, "lint", "--format", "json", ovf)
    assert_refused(outcome, ovf, words="not allowed")
    everything = outcome.out + outcome.err
    assert "TOP-SECRET" not in everything and "root:" not in everything


def test_ovf_external_dtd_is_never_fetched(tmp_path: Path) -> None:
    """A DOCTYPE naming an external DTD, but no entity: the parser never loads external DTDs
    (no parameter-entity parsing), so nothing is read and the descriptor itself is fine. The
    clean answer is to lint it (exit 0) without any byte of the named file in the output."""
    ovf = tmp_path / "dtd.ovf"
    ovf.write_text('<?xml version="1.0"?>\n<!DOCTYPE Envelope SYSTEM "file:///etc/passwd">\n'
                   + OVF_BODY.replace("&x;", "x"))
    outcome = run_bounded(tmp_path, "lint", "--format", "json", ovf)
    assert_refused(outcome, ovf, code=0)
    assert '"name": "vm"' in outcome.out  # the VirtualSystem was read
    assert "root:" not in outcome.out + outcome.err


def test_ovf_external_entity_reference_in_an_attribute_is_refused(tmp_path: Path) -> None:
    ovf = tmp_path / "attr.ovf"
    ovf.write_text('<?xml version="1.0"?>\n<!DOCTYPE Envelope [<!ENTITY e SYSTEM "file:///etc/hostname">]>\n'
                   + OVF_BODY.replace('id="vm"', 'id="&e;"').replace("&x;", "x"))
    outcome = run_bounded(tmp_path, "lint", ovf)
    assert_refused(outcome, ovf, words="not allowed")


def test_ovf_nested_200000_elements_deep(tmp_path: Path) -> None:
    """expat and the tree builder are iterative, so depth alone costs only memory; a nesting of
    VirtualSystemCollections (walked recursively) deeper than 64 is refused."""
    ovf = tmp_path / "deep.ovf"
    ovf.write_text('<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1">' + "<a>" * 200_000 + "</a>" * 200_000
                   + "<VirtualSystemCollection>" * 100 + "</VirtualSystemCollection>" * 100 + "</Envelope>\n")
    assert_refused(run_bounded(tmp_path, "lint", ovf), ovf, words="nested too deeply")


def _ovf(name: str) -> bytes:
    return ('<?xml version="1.0"?>\n<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1" '
            'xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData">\n'
            f'  <VirtualSystem id="{name}"><Info>x</Info><VirtualHardwareSection><Info>hw</Info>\n'
            "    <Item><rasd:InstanceID>1</rasd:InstanceID><rasd:ResourceType>3</rasd:ResourceType>"
            "<rasd:VirtualQuantity>4</rasd:VirtualQuantity></Item>\n"
            "  </VirtualHardwareSection></VirtualSystem>\n</Envelope>\n").encode()


def _tar_member(archive: tarfile.TarFile, name: str, data: bytes, **extra: object) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for key, value in extra.items():
        setattr(info, key, value)
    archive.addfile(info, io.BytesIO(data))


def test_ova_with_path_traversal_members(tmp_path: Path) -> None:
    """`../../evil.ovf`, an absolute path and a symlink to /etc/passwd: none is read, nothing is
    extracted, so the archive holds no usable descriptor (exit 2)."""
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    ova = work / "evil.ova"
    with tarfile.open(ova, "w") as archive:
        _tar_member(archive, "../../evil.ovf", _ovf("evil"))
        _tar_member(archive, "/tmp/abs-evil.ovf", _ovf("abs-evil"))
        _tar_member(archive, "link.ovf", b"", type=tarfile.SYMTYPE, linkname="/etc/passwd")
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    outcome = run_bounded(work, "lint", "--format", "json", ova)
    assert_refused(outcome, ova, words="holds no .ovf descriptor")
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before  # nothing extracted anywhere
    assert not Path("/tmp/abs-evil.ovf").exists()
    assert "root:" not in outcome.out + outcome.err and '"evil"' not in outcome.out


def test_ova_descriptor_that_claims_8_gib(tmp_path: Path) -> None:
    """The tar header lies: an 8 GiB descriptor, a few bytes of data. Refused by size, unread."""
    ova = tmp_path / "liar.ova"
    header = tarfile.TarInfo("liar.ovf")
    header.size = 8 * 1024**3
    ova.write_bytes(header.tobuf(format=tarfile.GNU_FORMAT) + _ovf("liar"))
    assert_refused(run_bounded(tmp_path, "lint", ova), ova, words="larger than 32 MiB")


def test_ova_with_a_1_gib_disk_first(tmp_path: Path) -> None:
    """A real (sparse) 1 GiB disk member before the descriptor: advisor reads only the OVA's first
    40 MiB (the descriptor must come first), so it finds no descriptor and says so quickly."""
    ova = tmp_path / "big.ova"
    disk = tarfile.TarInfo("disk.vmdk")
    disk.size = 1024**3
    with open(ova, "wb") as handle:
        handle.write(disk.tobuf(format=tarfile.GNU_FORMAT))
        handle.truncate(512 + disk.size)  # the disk's bytes: a hole, no disk space
        handle.seek(0, os.SEEK_END)
        descriptor = tarfile.TarInfo("big.ovf")
        data = _ovf("big")
        descriptor.size = len(data)
        handle.write(descriptor.tobuf(format=tarfile.GNU_FORMAT) + data + b"\0" * (-len(data) % 512) + b"\0" * 1024)
    assert_refused(run_bounded(tmp_path, "lint", ova), ova, words="not a readable OVA")


def test_ova_of_200_mib_of_zeros(tmp_path: Path) -> None:
    ova = tmp_path / "zeros.ova"
    with open(ova, "wb") as handle:
        handle.truncate(SPARSE_BYTES)
    assert_refused(run_bounded(tmp_path, "lint", ova), ova)


# -- a spec at the input size limit (issue 39) -----------------------------------------------


@pytest.mark.parametrize("tagged", [False, True], ids=["plain", "with-a-tag"])
def test_a_spec_of_the_largest_size_is_refused_at_its_vm_bound(tmp_path: Path, tagged: bool) -> None:
    """16 MiB of one-line VMs (about 390,000) took 105 s and 1.5 GB, or a MemoryError. Lists are
    bounded as they are read (MAX_SEQUENCE_ITEMS), by the tree builder and, for a document it
    leaves to PyYAML's node loader (an explicit tag), from the parser's events before the node
    graph is built."""
    from advisor.load.yamlfile import MAX_FILE_BYTES, MAX_SEQUENCE_ITEMS

    lines = [HOST.rstrip("\n"), "vms:"]
    size = sum(len(line) + 1 for line in lines)
    i = 0
    while size < MAX_FILE_BYTES - 64:
        line = f"  - {{name: {'!!str ' if tagged and i == 5 else ''}vm{i}, vcpus: 2, memory: 4GB}}"
        lines.append(line)
        size += len(line) + 1
        i += 1
    spec = tmp_path / "huge.yaml"
    spec.write_text("\n".join(lines[:-1]) + "\n")
    assert spec.stat().st_size <= MAX_FILE_BYTES and i > 3 * MAX_SEQUENCE_ITEMS
    outcome = run_bounded(tmp_path, "check", spec)
    assert_refused(outcome, spec, words=f"more than {MAX_SEQUENCE_ITEMS:,} items")


# -- pattern matching (issue 39) -----------------------------------------------------------


@pytest.mark.parametrize("where", ["--exclude", ".gitignore", ".advisor.yaml"])
def test_a_backtracking_pattern_is_matched_in_linear_time(tmp_path: Path, where: str) -> None:
    """`*a*a*a*a*a*a*a*a*a*a*a*a*c` against 60-character names burned over a minute of CPU in the
    pattern's regex; the CPU guard would kill such a run. Counted per match in test_globs."""
    pattern = "*a*a*a*a*a*a*a*a*a*a*a*a*c"
    (tmp_path / ".git").mkdir()
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(20):
        (tree / ("a" * 60 + f"{i:02d}.vmx")).write_text(GOOD_VMX)
    args: list[object] = ["lint", tree]
    if where == "--exclude":
        args += ["--exclude", pattern]
    elif where == ".gitignore":
        (tree / ".gitignore").write_text(pattern + "\n")
    else:
        (tmp_path / ".advisor.yaml").write_text(f"exclude: ['{pattern}']\n")
    outcome = run_bounded(tmp_path, *args)
    assert_refused(outcome, tree, code=0)
    assert "in 20 files" in outcome.out, outcome.out[-2000:]  # none was excluded


# -- rule files: expensive CEL -------------------------------------------------------------



def _run_rule(tmp: Path, when: str) -> tuple[Outcome, Path]:
    (tmp / "policies").mkdir(exist_ok=True)
    rule = tmp / "policies" / "org.yaml"
    rule.write_text(org_rule(when))  # a JSON string is a YAML double-quoted one
    spec = tmp / "vm.yaml"
    spec.write_text(GOOD_SPEC)
    return run_bounded(tmp, "check", "--rules", tmp / "policies", spec), rule


def test_cel_nested_comprehensions_are_stopped(tmp_path: Path) -> None:
    """1000 × 1000 × 1000 iterations, nested: refused before it runs (length, nesting); the rule file is blamed."""
    items = "[" + ", ".join(map(str, range(1000))) + "]"
    outcome, rule = _run_rule(tmp_path, f"{items}.all(x, {items}.all(y, {items}.all(z, x + y + z + vm.vcpus >= 0)))")
    assert_refused(outcome, rule, words="may have at most 1,000")


@pytest.mark.parametrize("when", [
    # issue 39: a `//` comment between `.` and the macro's name hid it from a check over the text;
    # run, the doubling reaches 8^8 copies of the name per element (3.2 GB RSS before it was refused)
    "[vm.name, vm.name, vm.name]" + ".//\nmap(x, x + x + x + x + x + x + x + x)" * 8 + "[0].size() > 3",
    "[1, 2, 3, 4, 5, 6, 7, 8].//\nmap(x, [1, 2, 3, 4, 5, 6, 7, 8].//\nmap(y, [vm.name].//\n"
    "map(z, [vm.name].map(w, vm.name)))).size() > 0",  # nested behind comments
    "([vm.name].map(x, vm.name)) // a list\n.all(y, y != '')",  # over a computed list, its `)` hidden
])
def test_cel_bound_holds_against_comments_in_the_condition(tmp_path: Path, when: str) -> None:
    """The bound is checked on the expression CEL compiled, so comments and line breaks change nothing."""
    assert len(when) <= 1000
    outcome, rule = _run_rule(tmp_path, when)
    assert_refused(outcome, rule, words="comprehension macro")


def test_cel_expression_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    outcome, rule = _run_rule(tmp_path, " && ".join(["vm.vcpus > 1"] * 10_000))  # 160,000 characters
    assert_refused(outcome, rule, words="does not compile")


def test_cel_deeply_parenthesised_expression_is_refused(tmp_path: Path) -> None:
    outcome, rule = _run_rule(tmp_path, "(" * 5_000 + "vm.vcpus > 1" + ")" * 5_000)
    assert_refused(outcome, rule, words="does not compile")


def test_cel_long_expression_under_the_limit_runs_within_bounds(tmp_path: Path) -> None:
    """A condition just under a rule file's 1,000 characters is evaluated (the rule holds, a
    warning; exit 0 under the default --fail-on error); 6,000 terms are refused before running."""
    when = " && ".join(["vm.vcpus > 1"] * 62)
    assert len(when) <= 1000
    outcome, rule = _run_rule(tmp_path, when)
    assert_refused(outcome, rule, code=0)
    assert "ORG001" in outcome.out
    outcome, rule = _run_rule(tmp_path, " && ".join(["vm.vcpus > 1"] * 6_000))
    assert_refused(outcome, rule, words="may have at most 1,000")


# -- Issue 39: paths in any encoding and length, closed stdin, configuration trust, writes -------
# In-process (the `cli` fixture) where nothing is bounded but the outcome; each check counts
# what it asserts (lines of stderr, bytes of files), never time.

FIX_VMX = ('.encoding = "UTF-8"\ndisplayName = "db"\nnumvcpus = "64"\nmemsize = "262144"\n'
           'ethernet0.present = "TRUE"\nethernet0.virtualDev = "e1000"\n')
ONE_LINE_FORMATS = ("text", "json", "sarif", "junit", "github", "markdown", "html", "svg")


def _one_clean_line(result) -> None:
    assert result.code == 2, (result.code, result.err)
    # One line from advisor (fix also prints the suggestions it leaves out, as `# not written` lines).
    lines = [line for line in result.err.splitlines() if not line.startswith("# not written:")]
    assert len(lines) == 1 and "internal error" not in result.err and "Traceback" not in result.err, result.err[:500]


def test_latin1_file_names_in_every_format_to_files_and_stdout(tmp_path: Path, cli) -> None:
    folder = os.fsencode(tmp_path)
    spec = Path(os.fsdecode(folder + b"/caf\xe9.yaml"))
    spec.write_text(HOST + "vms:\n  - {name: wide, vcpus: 24, memory: 8GB}\n")  # findings: every format names the file
    for fmt in ONE_LINE_FORMATS:
        target = tmp_path / f"report.{fmt}"
        written = cli("check", "--fail-on", "never", "--format", fmt, "-o", target, spec)
        assert written.code == 0, (fmt, written.err)
        text = target.read_bytes().decode("utf-8")  # UTF-8 throughout: the byte is shown, not written raw
        # JSON keeps the name exactly (\udce9 escaped); SARIF's URI has the byte (%E9); Markdown
        # escapes the backslash of \xe9; every other format shows \xe9 (the SVG names no file).
        assert fmt == "svg" or any(shown in text for shown in ("caf\\xe9", "caf\\\\xe9", "caf%E9", "caf\\udce9")), fmt
        shown = cli("check", "--fail-on", "never", "--format", fmt, spec)
        assert shown.code == 0, (fmt, shown.err)
    vmx = Path(os.fsdecode(folder + b"/caf\xe9.vmx"))
    vmx.write_text('config.version = "8"\nnumvcpus = "4"\nmemsize = "8192"\n')  # no displayName
    linted = cli("lint", "--format", "json", vmx)
    assert linted.code == 0, linted.err
    assert [vm["name"] for vm in json.loads(linted.out)["vms"]] == ["caf\\xe9"]


def _long(tmp: Path, kind: str) -> str:
    if kind == "component":  # one name of 300 characters (NAME_MAX is 255 bytes on Linux)
        return str(tmp / ("a" * 300))
    return str(tmp / "/".join(["b" * 200] * 21))  # 4,200+ characters (PATH_MAX is 4,096)


@pytest.mark.parametrize("kind", ["component", "path"])
@pytest.mark.parametrize("case", ["lint", "check", "vmx", "config", "rules", "size-host", "fix-host",
                                  "stdin-filename", "output"])
def test_over_long_paths_are_one_line_and_exit_2(tmp_path: Path, cli, monkeypatch, case: str, kind: str) -> None:
    long = _long(tmp_path, kind)
    spec = tmp_path / "s.yaml"
    spec.write_text(GOOD_SPEC)
    vmx = tmp_path / "a.vmx"
    vmx.write_text(GOOD_VMX)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GOOD_SPEC.encode())))
    args = {
        "lint": ["lint", long + ".vmx"],
        "check": ["check", long + ".yaml"],
        "vmx": ["vmx", long + ".yaml"],
        "config": ["check", "--config", long + ".yaml", spec],
        "rules": ["check", "--rules", long, spec],
        "size-host": ["size", "--host", long + ".yaml", "--vcpus", "4", "--memory", "8GB", "--workload", "generic"],
        "fix-host": ["fix", "--host", long + ".yaml", vmx],
        "stdin-filename": ["check", "--stdin-filename", long + ".yaml", "-"],
        "output": ["check", "-o", long + ".json", spec],
    }[case]
    _one_clean_line(cli(*args))


def test_lint_with_standard_input_closed_is_one_line(tmp_path: Path) -> None:
    for command in ("lint", "check"):
        result = subprocess.run([sys.executable, "-m", "advisor", command, "-"], cwd=tmp_path, env=ENV,
                                capture_output=True, text=True,
                                preexec_fn=lambda: os.close(0), timeout=KILL_AFTER)
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip() == "advisor: -: standard input is closed: nothing to read for -"


SILENCE = "ignore: [ALL]\nfail_on: never\n"
WIDE_SPEC = HOST + "vms:\n  - {name: wide, vcpus: 24, memory: 8GB}\n"


def _rules(result) -> set[str]:
    return {f["rule"] for f in json.loads(result.out)["findings"] if f["suppressed"] is None}


def test_outside_a_repository_discovery_does_not_climb(tmp_path: Path, cli) -> None:
    (tmp_path / ".advisor.yaml").write_text(SILENCE)  # like /tmp/.advisor.yaml above a user's files
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "s.yaml").write_text(WIDE_SPEC)
    result = cli("check", "--format", "json", "--fail-on", "never", tmp_path / "work" / "s.yaml")
    assert result.code == 0 and _rules(result), result.err  # the folder above is not honoured
    (tmp_path / "work" / ".advisor.yaml").write_text(SILENCE)  # the input's own folder is
    assert not _rules(cli("check", "--format", "json", tmp_path / "work" / "s.yaml"))
    (tmp_path / "work" / ".advisor.yaml").unlink()
    (tmp_path / ".git").mkdir()  # inside a repository the walk goes up to its root
    assert not _rules(cli("check", "--format", "json", tmp_path / "work" / "s.yaml"))


@pytest.mark.parametrize("why", ["another-user", "writable-by-all"])
def test_an_untrusted_configuration_is_skipped_with_the_reason(tmp_path: Path, cli, monkeypatch, why: str) -> None:
    from advisor.load import config

    (tmp_path / ".advisor.yaml").write_text(SILENCE)
    (tmp_path / "s.yaml").write_text(WIDE_SPEC)
    if why == "another-user":  # the file is ours, so advisor is told it runs as someone else
        uid = os.geteuid() + 1
        monkeypatch.setattr(config.os, "geteuid", lambda: uid)
    else:
        (tmp_path / ".advisor.yaml").chmod(0o666)
    monkeypatch.setattr(config, "_SKIPPED", set())
    result = cli("check", "--format", "json", "--fail-on", "never", tmp_path / "s.yaml")
    assert result.code == 0 and _rules(result)
    reason = "owned by another user" if why == "another-user" else "writable by every user"
    assert result.err.count("\n") == 1 and f"configuration skipped: {reason}" in result.err
    explicit = cli("check", "--format", "json", "--config", tmp_path / ".advisor.yaml", tmp_path / "s.yaml")
    assert explicit.code == 0 and not _rules(explicit)  # named with --config: the user's consent


def test_discovery_follows_a_symlinked_folder_as_given(tmp_path: Path, cli) -> None:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / ".git").mkdir()
    (outside / ".advisor.yaml").write_text(SILENCE)
    (outside / "sub" / "s.yaml").write_text(WIDE_SPEC)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "link").symlink_to(outside / "sub", target_is_directory=True)
    through_link = cli("check", "--format", "json", "--fail-on", "never", repo / "link" / "s.yaml")
    assert through_link.code == 0 and _rules(through_link)  # the repository it is reached through: no config
    direct = cli("check", "--format", "json", outside / "sub" / "s.yaml")
    assert direct.code == 0 and not _rules(direct)


def test_every_path_a_configuration_names_stays_inside_whatever_its_suffix(tmp_path: Path, cli) -> None:
    (tmp_path / "secret").write_text("name: x\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".advisor.yaml").write_text("host: ../secret\n")
    (repo / "s.yaml").write_text("vms: [{name: a, vcpus: 4, memory: 8GB}]\n")
    result = cli("check", repo / "s.yaml")
    _one_clean_line(result)
    assert "outside the configuration's folder" in result.err


def _fix_write(cli, vmx: Path):
    return cli("fix", vmx, "--host", "hp-dl580-g7", "--write")


@pytest.mark.parametrize("exchange", [True, False], ids=["rename-exchange", "held-open"])
def test_fix_write_never_reverts_a_save_that_lands_before_the_replace(tmp_path: Path, cli, monkeypatch,
                                                                      exchange: bool) -> None:
    """The save is made at the worst moment, every time: after advisor compared the file and
    wrote its new version, before that version replaces the file."""
    from advisor import atomic

    vmx = tmp_path / "db.vmx"
    vmx.write_text(FIX_VMX)
    saved = FIX_VMX + 'annotation = "the editor saved this"\n'
    real = atomic._write_temp
    saves = []

    def write_then_editor_saves(dest, data, like, keep_xattrs_of=None):
        temp = real(dest, data, like, keep_xattrs_of)
        if dest == vmx and not saves:  # once: putting the save back writes the file again
            vmx.write_text(saved)  # in place, as many editors save
            saves.append(dest)
        return temp

    monkeypatch.setattr(atomic, "_write_temp", write_then_editor_saves)
    if not exchange:
        monkeypatch.setattr(atomic, "_exchange", lambda first, second: False)
    result = _fix_write(cli, vmx)
    assert saves == [vmx]
    _one_clean_line(result)
    assert "changed while advisor was working on it" in result.err
    assert vmx.read_text() == saved
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_fix_write_refuses_a_file_with_hard_links(tmp_path: Path, cli) -> None:
    vmx = tmp_path / "db.vmx"
    vmx.write_text(FIX_VMX)
    os.link(vmx, tmp_path / "other-name.vmx")
    result = _fix_write(cli, vmx)
    _one_clean_line(result)
    assert "hard links" in result.err
    assert vmx.read_text() == FIX_VMX and os.stat(vmx).st_nlink == 2


def test_fix_write_keeps_extended_attributes(tmp_path: Path, cli) -> None:
    vmx = tmp_path / "db.vmx"
    vmx.write_text(FIX_VMX)
    try:
        os.setxattr(vmx, "user.advisor-test", b"kept")
    except (OSError, AttributeError) as exc:
        pytest.skip(f"no user extended attributes here: {exc}")
    result = _fix_write(cli, vmx)
    assert result.code == 0, result.err
    assert vmx.read_text() != FIX_VMX and os.getxattr(vmx, "user.advisor-test") == b"kept"


def _outputs_over_inputs(tmp: Path) -> dict[str, tuple[list[object], Path]]:
    """Each case: the command line, and the input it must not overwrite."""
    (tmp / "host.yaml").write_text(HOST.split("host: ", 1)[1].replace("{", "").replace("}", "")
                                   .replace(", ", "\n").replace(": ", ": ") + "\n")
    profile = tmp / "profile.yaml"
    profile.write_text((REPO / "hosts" / "hp-dl580-g7.yaml").read_text())
    (tmp / "s.yaml").write_text("host: ./profile.yaml\nvms: [{name: a, vcpus: 4, memory: 8GB}]\n")
    rules = tmp / "rules"
    rules.mkdir()
    (rules / "org.yaml").write_text(org_rule())
    repo = tmp / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".advisor.yaml").write_text("fail_on: never\n")
    (repo / "s.yaml").write_text(GOOD_SPEC)
    tf = tmp / "tf"
    tf.mkdir()
    (tf / "main.tf").write_text('variable "cpus" {}\nresource "vsphere_virtual_machine" "a" {\n  name = "a"\n'
                                '  num_cpus = var.cpus\n  memory = 4096\n}\n')
    (tf / "terraform.tfvars").write_text("cpus = 4\n")
    (tmp / "extra.tfvars").write_text("cpus = 4\n")
    (tmp / "a.vmx").write_text(GOOD_VMX)
    return {
        "spec's host file": (["check", "-o", profile, "--format", "json", tmp / "s.yaml"], profile),
        "--rules file": (["check", "--rules", rules, "-o", rules / "org.yaml", "--format", "json", tmp / "s.yaml"],
                         rules / "org.yaml"),
        "discovered config": (["check", "-o", repo / ".advisor.yaml", "--format", "json", repo / "s.yaml"],
                              repo / ".advisor.yaml"),
        "--var-file": (["lint", "--var-file", tmp / "extra.tfvars", "-o", tmp / "extra.tfvars", "--format", "json",
                        tf], tmp / "extra.tfvars"),
        "auto-loaded terraform.tfvars": (["lint", "-o", tf / "terraform.tfvars", "--format", "json", tf],
                                         tf / "terraform.tfvars"),
        "size --emit-spec over --host": (["size", "--host", profile, "--vcpus", "4", "--memory", "8GB",
                                          "--workload", "generic", "--emit-spec", profile], profile),
        "two outputs on one file": (["lint", "-o", tmp / "x.json", "--format", "json", "--write-baseline",
                                     tmp / "x.json", tmp / "a.vmx"], tmp / "x.json"),
    }


@pytest.mark.parametrize("case", ["spec's host file", "--rules file", "discovered config", "--var-file",
                                  "auto-loaded terraform.tfvars", "size --emit-spec over --host",
                                  "two outputs on one file"])
def test_no_output_replaces_an_input_or_another_output(tmp_path: Path, cli, case: str) -> None:
    args, kept = _outputs_over_inputs(tmp_path)[case]
    before = kept.read_bytes() if kept.exists() else None
    result = cli(*args)
    _one_clean_line(result)
    assert "refusing to overwrite it" in result.err or "give each output its own file" in result.err
    assert (kept.read_bytes() if kept.exists() else None) == before

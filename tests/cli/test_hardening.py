"""Issue 18: hostile input has hard bounds (no hang, no blow-up, no internal error, no leak, no
lost write). Each test pins one defect class; bounds are checked by what the code counts
(bytes scanned, instances simulated, peak memory via tracemalloc), never by wall time. A
generous subprocess timeout only tells a hang (FIFO) from a slow run.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tracemalloc
from pathlib import Path
from types import SimpleNamespace as NS

import pytest
import yaml
from conftest import org_rule

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), "NO_COLOR": "1"}
HANG_GUARD = 120  # seconds; a hang guard only
SPEC = "host: {name: lab, sockets: 2, cores_per_socket: 10, threads_per_core: 2, memory: 256GB, esxi: '7.0'}\n" \
       "vms:\n  - {name: vm1, vcpus: 4, memory: 8GB}\n"
VMX = '.encoding = "UTF-8"\nconfig.version = "8"\ndisplayName = "web01"\nnumvcpus = "8"\nmemsize = "16384"\n'
WIDE = ('.encoding = "UTF-8"\ndisplayName = "db"\nnumvcpus = "64"\nmemsize = "262144"\n'
        'scsi0.present = "TRUE"\nscsi0.virtualDev = "lsilogic"\nscsi0:0.present = "TRUE"\n'
        'scsi1.present = "TRUE"\nscsi1.virtualDev = "lsilogic"\nscsi1:0.present = "TRUE"\n'
        'ethernet0.present = "TRUE"\nethernet0.virtualDev = "e1000"\n')
NPS4 = "amd-epyc-9654-2s-nps4"


def run(cwd: Path, *args: object, limits=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "advisor", *map(str, args)], cwd=cwd, env=ENV, text=True,
                          capture_output=True, timeout=HANG_GUARD, stdin=subprocess.DEVNULL, preexec_fn=limits)


def no_crash(result) -> None:
    assert result.code != 3 and "internal error" not in result.err and "Traceback" not in result.err, result.err


def peak_bytes(func) -> int:
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- High: sched.cpu.affinity ranges are intervals, never expanded ---------------------------

def test_affinity_ranges_are_read_as_intervals() -> None:
    from advisor.numa.affinity import MAX_PARTS, nodes_touched, parse

    assert parse("0-9999999999, 12") == [(0, 9999999999), (12, 12)]
    assert parse("0-3,x") is None and parse("5-2") is None and parse("1_6") is None
    assert parse(",".join(["1"] * (MAX_PARTS + 1))) is None
    assert nodes_touched([(0, 9999999999)], logical_cpus=64, threads_per_node=16) == 4
    assert nodes_touched([(20, 20)], logical_cpus=64, threads_per_node=16) == 1
    assert peak_bytes(lambda: nodes_touched(parse("0-999999999999999999"), 4096, 2)) < 1 << 20


@pytest.mark.parametrize("where", ["spec", "vmx", "terraform"])
def test_huge_affinity_range_costs_nothing(tmp_path: Path, cli, where: str) -> None:
    if where == "spec":
        (tmp_path / "s.yaml").write_text(SPEC.replace("memory: 8GB}", 'memory: 8GB, cpu_affinity: "0-9999999999"}'))
        args = ("check", tmp_path / "s.yaml")
    elif where == "vmx":
        (tmp_path / "a.vmx").write_text(VMX + 'sched.cpu.affinity = "0-9999999999"\n')
        args = ("lint", "--host", NPS4, tmp_path / "a.vmx")
    else:
        (tmp_path / "main.tf").write_text(
            'resource "vsphere_virtual_machine" "a" {\n  name = "a"\n  num_cpus = 8\n  memory = 8192\n'
            '  extra_config = {\n    "sched.cpu.affinity" = "0-9999999999"\n  }\n}\n')
        args = ("lint", "--host", NPS4, tmp_path / "main.tf")
    peak = peak_bytes(lambda: setattr(test_huge_affinity_range_costs_nothing, "result", cli(*args)))
    result = test_huge_affinity_range_costs_nothing.result
    no_crash(result)
    assert peak < 64 << 20  # a set of 10^10 CPUs would be hundreds of gigabytes


# -- High: FIFOs and other special files are never opened for reading ------------------------

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


@needs_fifo
def test_a_named_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.vmx")
    result = run(tmp_path, "lint", "pipe.vmx")
    assert result.returncode == 2 and "named pipe" in result.stderr and "pipe.vmx" in result.stderr


@needs_fifo
def test_a_fifo_in_a_folder_walk_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "tpl").mkdir()
    os.mkfifo(tmp_path / "tpl" / "pipe.vmx")
    os.mkfifo(tmp_path / "tpl" / "x.json")  # sniffed by content: would be opened
    (tmp_path / "tpl" / "good.vmx").write_text(VMX)
    result = run(tmp_path, "lint", "tpl")
    assert result.returncode == 0, result.stderr
    assert "in 1 file" in result.stdout and "pipe" not in result.stdout + result.stderr
    listed = run(tmp_path, "lint", "-v", "tpl")  # -v names each VM's file
    assert "good.vmx" in listed.stdout and "pipe" not in listed.stdout + listed.stderr


@needs_fifo
def test_a_fifo_as_host_file_or_sibling_variables_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "h.yaml")
    (tmp_path / "s.yaml").write_text(SPEC.replace("host: {name: lab, sockets: 2, cores_per_socket: 10, "
                                                  "threads_per_core: 2, memory: 256GB, esxi: '7.0'}", "host: ./h.yaml"))
    result = run(tmp_path, "check", "s.yaml")
    assert result.returncode == 2 and "h.yaml" in result.stderr and "named pipe" in result.stderr
    (tmp_path / "tf").mkdir()
    os.mkfifo(tmp_path / "tf" / "terraform.tfvars")
    (tmp_path / "tf" / "main.tf").write_text('resource "vsphere_virtual_machine" "a" {\n  name = "a"\n'
                                             '  num_cpus = 4\n  memory = 4096\n}\n')
    result = run(tmp_path, "lint", "tf")
    assert result.returncode == 0, result.stderr


def test_read_bytes_refuses_a_character_device() -> None:
    from advisor.errors import InputError
    from advisor.load.yamlfile import read_bytes

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    with pytest.raises(InputError, match="character device"):
        read_bytes("/dev/zero")


@pytest.mark.skipif(sys.platform == "win32", reason="uses rm -rf to remove the tree")
def test_a_folder_tree_a_thousand_levels_deep(tmp_path: Path, cli) -> None:
    here = tmp_path / "deep"
    here.mkdir()
    cwd = os.getcwd()
    try:
        os.chdir(here)
        for _ in range(1000):  # relative steps: the full path stays within PATH_MAX when listed
            os.mkdir("d")
            os.chdir("d")
        Path("x.vmx").write_text(VMX)
    finally:
        os.chdir(cwd)
    try:
        result = cli("lint", "--format", "json", here)
    finally:  # shutil.rmtree (pytest's clean-up) recurses and would fail on this tree
        subprocess.run(["rm", "-rf", str(here)], check=False)
    no_crash(result)
    assert result.code == 0 and len(json.loads(result.out)["vms"]) == 1


# -- High: finding the lines that mention a key is linear --------------------------------------

class _Counting(bytes):
    scanned = 0

    def count(self, sub, start=0, end=None):  # type: ignore[override]
        end = len(self) if end is None else end
        _Counting.scanned += max(0, end - start)
        return bytes.count(self, sub, start, end)


def test_lines_mentioning_scans_each_byte_once() -> None:
    from advisor.vmx.reader import lines_mentioning

    data = _Counting(b"".join(b"# advisor: ignore VMX001 -- x\n" for _ in range(20000)))
    _Counting.scanned = 0
    found = lines_mentioning(data, b"advisor")
    assert len(found) == 20000 and found[-1][0] == 20000 and found[1] == (2, data.split(b"\n")[1])
    assert _Counting.scanned <= len(data)  # quadratic would be ~ 20000 x len / 2


# -- High: placement scales with nodes and shapes, not instances -------------------------------

def _naive(nodes: int, vms) -> tuple[list[int], list[dict]]:
    from advisor.numa.placement import _power_on_order
    from advisor.numa.topology import place_clients

    load = [0] * nodes
    per = [dict() for _ in range(nodes)]
    for name, count, topo in sorted(vms, key=_power_on_order):  # the order place() assumes
        for _ in range(count):
            if topo.numa_managed:
                chosen = place_clients(topo.numa_clients, nodes, load, topo.node_affinity)
                for size, node in zip(topo.numa_clients, chosen, strict=True):
                    per[node][(name, size)] = per[node].get((name, size), 0) + 1
    return load, per


@pytest.mark.self_compare
def test_placement_of_repeated_instances_equals_one_by_one() -> None:
    from advisor.numa.placement import place

    rnd = random.Random(18)
    for _ in range(150):
        nodes = rnd.choice([1, 2, 3, 4, 8, 16])
        vms = []
        for i in range(rnd.randint(1, 4)):
            clients = tuple(rnd.randint(1, 12) for _ in range(rnd.randint(1, 4)))
            # numa.nodeAffinity on some VMs: a subset of the nodes
            affinity = tuple(sorted(rnd.sample(range(nodes), rnd.randint(1, nodes)))) if rnd.random() < 0.3 else None
            vms.append((f"v{i}", rnd.randint(1, 300), NS(numa_managed=rnd.random() < 0.9, vcpus=sum(clients),
                                                         numa_clients=clients, node_affinity=affinity)))
        got = place(NS(nodes=nodes, cores_per_node=8, threads_per_node=16), vms)
        load, per = _naive(nodes, vms)
        assert got.load == load
        assert [{(n, s): c for n, s, c in r} for r in got.residents] == per


@pytest.mark.parametrize("nodes,clients", [(8, (24, 24, 24, 24)), (8, (7,)), (512, (32, 32, 32)), (512, (2,))])
def test_placement_work_is_bounded_by_nodes_not_count(nodes: int, clients: tuple[int, ...]) -> None:
    from advisor.numa.placement import place

    got = place(NS(nodes=nodes, cores_per_node=32, threads_per_node=64),
                [("a", 100_000, NS(numa_managed=True, vcpus=sum(clients), numa_clients=clients, node_affinity=None))])
    assert sum(got.load) == 100_000 * sum(clients)
    assert got.steps <= 2 * nodes + 64  # instances simulated; the other ~100,000 are whole cycles


_LARGEST_HOSTS = {  # the largest profiles the host model accepts (128 NUMA nodes, 32,768 logical CPUs)
    "32x256x4": "sockets: 32\ncores_per_socket: 256\nthreads_per_core: 4\nnuma_nodes_per_socket: 4\n",
    "8x512x4": "sockets: 8\ncores_per_socket: 512\nthreads_per_core: 4\nnuma_nodes_per_socket: 16\n",
}


@pytest.mark.parametrize("shape", sorted(_LARGEST_HOSTS))
@pytest.mark.parametrize("workload", ["generic", "hpc", "sql-server", "vdi"])
def test_size_on_the_largest_host_counts_few_placements(tmp_path: Path, cli, monkeypatch, shape: str,
                                                        workload: str) -> None:
    """Issue 39: a 32-socket x 512-core profile took 100 s (hpc: 400 s on a busy machine); the
    count of VMs is now found by bisection over capacity and by trying only balanced counts."""
    from advisor.numa import placement
    from advisor.sizing import sizing

    calls, tried = [], []
    original, count = placement.place_clients, sizing.Sizer._count
    monkeypatch.setattr(placement, "place_clients", lambda *a: calls.append(1) or original(*a))

    def counted(self, *args, **kwargs):
        before = self.fits_tried
        result = count(self, *args, **kwargs)
        tried.append(self.fits_tried - before)
        return result

    monkeypatch.setattr(sizing.Sizer, "_count", counted)
    host = tmp_path / "big.yaml"
    host.write_text(f"name: big\ncpu: Test\n{_LARGEST_HOSTS[shape]}memory: 64TB\ncore_mhz: 2400\nesxi: '8.0'\n")
    result = cli("size", "--host", host, "--workload", workload)
    assert result.code in (0, 1), result.err
    kmax = 32768  # no shape has fewer than one vCPU: at most this many VMs
    assert tried and max(tried) <= 2 + kmax.bit_length() + 128 + 1  # kmax, bisection, balanced counts
    assert len(calls) < 20_000  # one count at a time it was ~100,000 instances per shape


@pytest.mark.parametrize("text, words", [
    ("sockets: 32\ncores_per_socket: 512\nthreads_per_core: 4\nnuma_nodes_per_socket: 16\n", "at most 128"),
    ("sockets: 32\ncores_per_socket: 512\nthreads_per_core: 4\nnuma_nodes_per_socket: 4\n", "at most 32,768"),
])
def test_a_host_no_esxi_host_can_be_is_refused(tmp_path: Path, cli, text: str, words: str) -> None:
    host = tmp_path / "big.yaml"
    host.write_text(f"name: big\ncpu: Test\n{text}memory: 64TB\ncore_mhz: 2400\nesxi: '8.0'\n")
    result = cli("size", "--host", host, "--workload", "vdi")
    assert result.code == 2 and words in result.err and "big.yaml" in result.err, result.err


# -- Medium: emitters make names inert in their language ----------------------------------------

HOSTILE = ["a{%endraw%}{{lookup('pipe','id')}}{%raw%}", "b{%- endraw -%}{{ 7*7 }}", "c{#x#}{{x}}", "d{{{e}}}"]


class _Tagged(str):
    pass


def _unsafe_loader():
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!unsafe", lambda loader, node: _Tagged(loader.construct_scalar(node)))
    return Loader


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize("name", HOSTILE)
def test_ansible_tags_every_templatable_string_unsafe(tmp_path: Path, cli, name: str) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC.replace("name: vm1", f"name: {json.dumps(name)}"))
    result = cli("vmx", "--as", "ansible", spec)
    assert result.code in (0, 1), result.err
    play = yaml.load(result.out, Loader=_unsafe_loader())
    templated = [s for s in _strings(play) if "{" in s and not isinstance(s, _Tagged)]
    assert all(s.startswith("{{ vcenter_") or s == "{{ vm_network }}" for s in templated), templated
    assert any(s == name for s in _strings(play))


@pytest.mark.parametrize("name", HOSTILE)
def test_packer_json_escapes_go_template_actions(tmp_path: Path, cli, name: str) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC.replace("name: vm1", f"name: {json.dumps(name)}"))
    result = cli("vmx", "--as", "packer-json", spec)
    builder = json.loads(result.out)["builders"][0]
    for text in _strings(builder):
        rest = text.replace('{{"{{"}}', "")
        assert "{{" not in rest or rest.startswith("{{user `"), text
    assert builder["vm_name"].replace('{{"{{"}}', "{{") == name


# -- Medium: concurrent `fix --write` loses nothing ---------------------------------------------

def test_concurrent_fix_writes_keep_both_changes(tmp_path: Path) -> None:
    vmx = tmp_path / "db.vmx"
    for _ in range(4):
        vmx.write_text(WIDE)
        # The DL580 G7's 40 cores: the 64-vCPU VM exceeds them, so NUMA001 writes preferHT (issue 35).
        procs = [subprocess.Popen([sys.executable, "-m", "advisor", "fix", "--write", "--host", "hp-dl580-g7",
                                   "--select", rule,
                                   str(vmx)], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for rule in ("NUMA", "NET")]
        errors = [p.communicate(timeout=HANG_GUARD)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0], errors
        text = vmx.read_text()
        assert 'numa.vcpu.preferHT = "TRUE"' in text and 'ethernet0.virtualDev = "vmxnet3"' in text


def test_write_refuses_a_file_changed_since_it_was_read(tmp_path: Path) -> None:
    from advisor.atomic import write_atomic
    from advisor.errors import InputError

    target = tmp_path / "a.vmx"
    target.write_bytes(b"new content from someone else")
    with pytest.raises(InputError, match="changed while advisor"):
        write_atomic(target, b"ours", backup=True, expect=b"what we read")
    assert target.read_bytes() == b"new content from someone else"
    assert not (tmp_path / "a.vmx.bak").exists()


def test_fix_removes_temporary_files_a_killed_run_left(tmp_path: Path, cli) -> None:
    vmx = tmp_path / "db.vmx"
    vmx.write_text(WIDE)
    (tmp_path / ".db.vmx.k1l2e3d4.tmp").write_text("half")
    (tmp_path / ".db.vmx.bak.abcdefgh.tmp").write_text("half")
    (tmp_path / ".other.vmx.abcdefgh.tmp").write_text("not ours to remove")
    result = cli("fix", "--write", "--host", NPS4, vmx)
    assert result.code == 0, result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.vmx.abcdefgh.tmp", "db.vmx", "db.vmx.bak"]


def test_fix_says_which_generation_the_backup_holds(tmp_path: Path, cli) -> None:
    vmx = tmp_path / "db.vmx"
    vmx.write_text(WIDE)
    first = cli("fix", "--write", "--host", NPS4, "--select", "NET", vmx)
    assert "before this run is in db.vmx.bak" in first.err and "older" not in first.err
    second = cli("fix", "--write", "--host", NPS4, vmx)
    assert "replaced the older db.vmx.bak" in second.err
    assert "ethernet0.virtualDev = \"vmxnet3\"" in (tmp_path / "db.vmx.bak").read_text()


def test_backup_that_is_a_folder_is_an_input_error(tmp_path: Path, cli) -> None:
    vmx = tmp_path / "db.vmx"
    vmx.write_text(WIDE)
    (tmp_path / "db.vmx.bak").mkdir()
    result = cli("fix", "--write", "--host", NPS4, vmx)
    assert result.code == 2 and "db.vmx.bak" in result.err and "not a regular file" in result.err
    assert vmx.read_text() == WIDE


def test_a_full_disk_is_exit_2_with_the_reason(tmp_path: Path) -> None:
    resource = pytest.importorskip("resource")
    import signal

    vmx = tmp_path / "db.vmx"
    vmx.write_text(WIDE + "".join(f"# padding {i}\n" for i in range(400)))
    before = vmx.read_text()

    def small_files() -> None:  # writes past 2 KiB fail with EFBIG, as a full disk fails with ENOSPC
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    result = run(tmp_path, "fix", "--write", "--host", NPS4, "db.vmx", limits=small_files)
    assert result.returncode == 2 and "cannot write" in result.stderr and "internal error" not in result.stderr
    assert vmx.read_text() == before and [p.name for p in tmp_path.iterdir()] == ["db.vmx"]


# -- Medium: Terraform suppressions outside blocks are not multiplied ---------------------------

def test_file_level_suppressions_are_bounded(tmp_path: Path) -> None:
    from advisor.readers import read_template
    from advisor.readers.suppress import MAX_FILE_SUPPRESSIONS

    blocks = "".join(f'resource "vsphere_virtual_machine" "vm{i}" {{\n  name = "vm{i}"\n  num_cpus = 2\n'
                     f'  memory = 2048\n  # advisor: ignore NET001 -- inside\n}}\n' for i in range(200))
    comments = "".join(f"# advisor: ignore X{i % 997:03d}{i % 7}AB001 -- outside\n" for i in range(5000))
    comments += "# advisor: ignore NET002 -- outside\n" * 5000
    (tmp_path / "main.tf").write_text(comments + blocks)
    vms = read_template(tmp_path / "main.tf")
    assert len(vms) == 200
    assert all(sum(1 for s in vm.suppressions if s[1] == "inside") == 1 for vm in vms)
    assert max(len(vm.suppressions) for vm in vms) <= MAX_FILE_SUPPRESSIONS + 1


# -- Medium: CEL user conditions are bounded in value size; method calls on facts work ----------

def _rules(tmp_path: Path, when: str, scope: str = "vm") -> Path:
    folder = tmp_path / "rules"
    folder.mkdir(exist_ok=True)
    text = org_rule(when)
    if scope != "vm":
        text = text.replace("    severity: warning\n", f"    severity: warning\n    scope: {scope}\n")
    (folder / "org.yaml").write_text(text)
    return folder


_L100 = "[" + ",".join(["1"] * 100) + "]"


@pytest.mark.parametrize("when", [
    f"[vm.name]{'.map(x, x + x + x + x + x + x + x + x)' * 8}[0].size() > 3",  # the doubling
    "[vm.name].map(x, x + x)[0].size() > 3",  # concatenation per element
    f"{_L100}.map(x, {_L100}.map(y, vm.name)).size() > 0",  # nested: 10,000 bodies
    f"{_L100}.map(x, vm.name).map(y, y).size() > 0",  # chained over a macro's result
    f"({_L100}.map(x, vm.name)).all(y, y != '')",  # the same in parentheses
    f"({_L100} + {_L100}).all(y, y > 0)",  # over a computed list
    f"{_L100}.map(x, [vm.name, vm.name]).size() > 0",  # a list literal per element
    f"{_L100}.map(x, bytes(vm.name)).size() > 0",  # a copy per element
    f"{_L100}.map(x, x > 0, string(vm.name)).size() > 0",  # the three-argument map
    "vm.name" + " + vm.name" * 200 + " == ''",  # over the length limit
])
def test_condition_that_could_allocate_without_bound_is_refused(tmp_path: Path, cli, when: str) -> None:
    folder = _rules(tmp_path, when)
    (tmp_path / "s.yaml").write_text(SPEC)
    result = cli("check", "--rules", folder, tmp_path / "s.yaml")
    assert result.code == 2 and "org.yaml" in result.err and "when" in result.err, result.err


def test_accepted_conditions_build_values_within_the_stated_bound() -> None:
    """The largest values the accepted shapes can build, measured in CEL itself (value sizes)."""
    from advisor.engine.conditions import MAX_USER_CONDITION, cel_env, user_condition_problem
    from advisor.engine.engine import MAX_CEL_STRING

    env = cel_env()
    name = "n" * MAX_CEL_STRING
    chain = "(" + " + ".join(["vm.name"] * 29) + ")"  # CEL's parser refuses a longer chain with `> 0`
    elements = "[" + ",".join(["1"] * ((MAX_USER_CONDITION - 40) // 2)) + "]"
    for when, limit in ((f"{chain}.size()", 32 * 29 * MAX_CEL_STRING),
                        (f"{elements}.map(x, vm.name).size()", MAX_USER_CONDITION // 2)):
        assert user_condition_problem(when + " > 0") is None
        size = env.compile(when).eval(env.Activation({"vm.name": name})).plain_value()
        assert 0 < size <= limit
    too_long = " + ".join(["vm.name"] * 40) + " == ''"
    with pytest.raises(RuntimeError, match="recursion"):
        env.compile(too_long)
    ok = "vm.name.size() > 3 && [1, 2].all(i, i > 0) && ['a', 'b'].exists(t, t == vm.name)"
    assert user_condition_problem(ok) is None


def test_method_calls_on_facts_evaluate(tmp_path: Path, cli) -> None:
    folder = _rules(tmp_path, "vm.name.size() > 3 && vm.name.startsWith('vm')")
    (tmp_path / "s.yaml").write_text(SPEC.replace("name: vm1", "name: vm-long"))
    result = cli("check", "--format", "json", "--rules", folder, tmp_path / "s.yaml")
    assert result.code in (0, 1), result.err
    assert any(f["rule"] == "ORG001" for f in json.loads(result.out)["findings"])


def test_host_scope_rule_reading_vm_facts_is_refused(tmp_path: Path, cli) -> None:
    folder = _rules(tmp_path, "vm.vcpus > 2", scope="host")
    (tmp_path / "s.yaml").write_text(SPEC)
    result = cli("check", "--rules", folder, tmp_path / "s.yaml")
    assert result.code == 2 and "vm.vcpus" in result.err and "host-scope" in result.err


def test_facts_a_user_condition_reads_come_from_the_checked_expression(tmp_path: Path, cli) -> None:
    """A fact named only in a comment is not read (CEL's checker resolves the references)."""
    folder = _rules(tmp_path, "host.sockets > 1 // not vm.vcpus", scope="host")
    (tmp_path / "s.yaml").write_text(SPEC)
    result = cli("check", "--rules", folder, tmp_path / "s.yaml")
    assert result.code in (0, 1), result.err


def test_fact_values_beyond_cel_bounds_are_unknown_not_a_crash(tmp_path: Path, cli) -> None:
    from advisor.engine.engine import MAX_CEL_STRING, cel_value_fits

    assert not cel_value_fits(1 << 63) and cel_value_fits((1 << 63) - 1)
    assert not cel_value_fits("x" * (MAX_CEL_STRING + 1))
    (tmp_path / "s.yaml").write_text(SPEC.replace("memory: 8GB}", "memory: 8GB, workload: sql-server, "
                                                  "sql: {affinity_mask: 9223372036854775808}}"))
    no_crash(cli("check", tmp_path / "s.yaml"))


# -- Medium: no echo of files that are not advisor documents; config stays in its folder ---------

SECRET = "root:$6$s3cr3tHASH:19000:0:99999:7:::"


def test_a_foreign_file_named_as_host_is_not_echoed(tmp_path: Path, cli) -> None:
    (tmp_path / "shadow").write_text(SECRET + "\n")
    (tmp_path / "s.yaml").write_text(SPEC.replace(SPEC.splitlines()[0], "host: ./shadow"))
    result = cli("check", tmp_path / "s.yaml")
    assert result.code == 2 and "not a host profile" in result.err and "s3cr3t" not in result.err + result.out


def test_a_repository_config_symlinked_elsewhere_is_refused(tmp_path: Path, cli) -> None:
    (tmp_path / "shadow").write_text(SECRET + "\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".advisor.yaml").symlink_to(tmp_path / "shadow")
    (repo / "a.vmx").write_text(VMX)
    result = cli("lint", repo / "a.vmx")
    assert result.code == 2 and "symlink" in result.err and "s3cr3t" not in result.err + result.out
    explicit = cli("lint", "--config", repo / ".advisor.yaml", repo / "a.vmx")
    assert explicit.code == 2 and "s3cr3t" not in explicit.err  # named, read, still not echoed


def test_a_found_config_cannot_point_outside_its_folder(tmp_path: Path, cli) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".advisor.yaml").write_text("rules: [../elsewhere]\n")
    (repo / "a.vmx").write_text(VMX)
    result = cli("lint", repo / "a.vmx")
    assert result.code == 2 and "outside the configuration's folder" in result.err


def test_echoed_values_are_capped(tmp_path: Path, cli) -> None:
    (tmp_path / "s.yaml").write_text(SPEC.replace("memory: 8GB}", "memory: 8GB, workload: " + "x" * 8_000_000 + "}"))
    result = cli("check", tmp_path / "s.yaml")
    assert result.code == 2 and len(result.err) < 2000 and "8,000,000 characters" in result.err


# -- Medium: the cache is private, JSON, one entry per installation -----------------------------

def test_cache_is_json_and_ignores_a_shared_folder(tmp_path: Path, monkeypatch) -> None:
    from advisor.cost import disk as cache

    folder = tmp_path / "c"
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(folder))
    monkeypatch.delenv("ADVISOR_NO_CACHE", raising=False)
    calls = []
    assert cache.cached("t", [("f", b"x")], lambda: calls.append(1) or {"a": [1, (2, 3)]}) == {"a": [1, (2, 3)]}
    entries = list(folder.iterdir())
    assert len(entries) == 1 and entries[0].suffix == ".json" and json.loads(entries[0].read_bytes())
    assert cache.cached("t", [("f", b"x")], lambda: calls.append(1)) == {"a": [1, (2, 3)]} and len(calls) == 1
    folder.chmod(0o777)  # anyone could plant an entry: not read at all
    assert cache.cached("t", [("f", b"x")], lambda: calls.append(1) or "rebuilt") == "rebuilt"
    folder.chmod(0o700)
    monkeypatch.setattr(cache, "_installation", lambda: "other000")
    cache.cached("t", [("f", b"y")], lambda: 1)
    assert len(list(folder.iterdir())) == 2  # two installations keep one entry each


# -- Medium: internal errors that were bad input ------------------------------------------------

@pytest.mark.parametrize("case", ["memory", "baseline-deep", "baseline-inf", "exclude", "vsphere"])
def test_bad_input_is_exit_2_not_an_internal_error(tmp_path: Path, cli, case: str) -> None:
    (tmp_path / "a.vmx").write_text(VMX)
    if case == "memory":
        (tmp_path / "s.yaml").write_text(SPEC.replace("memory: 256GB", "memory: " + "9" * 400))
        result = cli("check", tmp_path / "s.yaml")
    elif case == "baseline-deep":
        (tmp_path / "b.json").write_text('{"findings": ' + "[" * 100_000 + "]" * 100_000 + "}")
        result = cli("lint", "--baseline", tmp_path / "b.json", tmp_path / "a.vmx")
    elif case == "baseline-inf":
        row = '{"rule": "A", "file": "a", "subject": "s", "count": Infinity}'
        (tmp_path / "b.json").write_text('{"findings": [' + row + "]}")
        result = cli("lint", "--baseline", tmp_path / "b.json", tmp_path / "a.vmx")
    elif case == "exclude":
        result = cli("lint", "--exclude", "[z-a]", tmp_path)
    else:
        result = cli("fix", "--vsphere", "x", tmp_path / "a.vmx")
    assert result.code == 2, result.err
    no_crash(result)


# -- Medium: usage errors, outputs that are inputs ----------------------------------------------

def test_usage_errors_print_no_raw_control_characters(tmp_path: Path, cli) -> None:
    (tmp_path / "c.yaml").write_text('select: ["A\\n::error::forged\\u001b[31m"]\n')
    (tmp_path / "a.vmx").write_text(VMX)
    result = cli("lint", "--config", tmp_path / "c.yaml", tmp_path / "a.vmx")
    assert result.code == 2
    assert "\n::" not in result.err and "\x1b" not in result.err and "\\x0a::" in result.err


@pytest.mark.parametrize("option", ["--write-baseline", "-o"])
def test_an_output_that_is_an_input_is_refused(tmp_path: Path, cli, option: str) -> None:
    (tmp_path / "a.vmx").write_text(VMX)
    (tmp_path / "s.yaml").write_text(SPEC)
    if option == "-o":
        result = cli("check", "-o", tmp_path / "s.yaml", "--format", "json", tmp_path / "s.yaml")
        assert (tmp_path / "s.yaml").read_text() == SPEC
    else:
        result = cli("lint", "--write-baseline", tmp_path / "a.vmx", tmp_path)
        assert (tmp_path / "a.vmx").read_text() == VMX
    assert result.code == 2 and "also an input" in result.err


# -- Low ----------------------------------------------------------------------------------------

def test_config_size_and_list_bounds(tmp_path: Path, cli) -> None:
    (tmp_path / "a.vmx").write_text(VMX)
    (tmp_path / "big.yaml").write_text("exclude:\n" + "".join(f"  - d{i}\n" for i in range(1001)))
    result = cli("lint", "--config", tmp_path / "big.yaml", tmp_path / "a.vmx")
    assert result.code == 2 and "at most 1000 items" in result.err
    (tmp_path / "huge.yaml").write_text("# padding\n" * 200_000)
    assert cli("lint", "--config", tmp_path / "huge.yaml", tmp_path / "a.vmx").code == 2
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n" + "# pad\n" * 400_000)  # no advisor section
    assert cli("lint", tmp_path / "a.vmx").code == 0


def test_no_host_given_is_not_said_when_a_host_was_given(tmp_path: Path, cli) -> None:
    (tmp_path / "a.pkr.hcl").write_text('source "vsphere-iso" "a" {\n  CPUs = var.cpus\n  RAM = 2048\n}\n'
                                        'variable "cpus" {\n  type = number\n}\n')
    result = cli("lint", "-v", "--host", NPS4, tmp_path / "a.pkr.hcl")
    assert "no host given" not in result.out and "need a host" not in result.out, result.out
    assert "topology not predicted" in result.out


def test_a_latin1_byte_is_named(tmp_path: Path, cli) -> None:
    (tmp_path / "a.vmx").write_bytes(b'numvcpus = "4"\nmemsize = "1024"\ndisplayName = "caf\xe9"\n')
    result = cli("lint", tmp_path / "a.vmx")
    assert result.code == 2 and "0xE9" in result.err and "a.vmx:3" in result.err


def test_fix_workload_is_checked_as_an_option(tmp_path: Path, cli) -> None:
    (tmp_path / "a.vmx").write_text(VMX)
    result = cli("fix", "--workload", "bogus", tmp_path / "a.vmx")
    assert result.code == 2 and "--workload" in result.err and "a.vmx:" not in result.err


@pytest.mark.parametrize("value", ["1_6", "١٦", "16 ", "+16", "1e1"])
def test_vmx_numbers_are_ascii_digits(tmp_path: Path, cli, value: str) -> None:
    (tmp_path / "a.vmx").write_text(f'numvcpus = "{value}"\nmemsize = "1024"\n')
    result = cli("lint", "--format", "json", "--host", NPS4, tmp_path / "a.vmx")
    if value.strip() in ("16", "+16"):
        assert json.loads(result.out)["vms"][0]["topology"]["vcpus"] == 16
    else:  # Python's int() reads "1_6" as 16 and "١٦" (Arabic-Indic digits) too
        assert (result.code == 2 and "a.vmx:1" in result.err and "vcpus" in result.err) or "numvcpus" in result.err


@pytest.mark.parametrize("fmt", ["github", "junit", "markdown", "text"])
def test_line_separators_and_bidi_overrides_are_escaped(tmp_path: Path, cli, fmt: str) -> None:
    name = "evil\u2028::error::x\u202eabc\u2066"
    (tmp_path / "s.yaml").write_text(SPEC.replace("name: vm1", f"name: {json.dumps(name)}")
                                     .replace("vcpus: 4", "vcpus: 40"))
    result = cli("check", "--format", fmt, tmp_path / "s.yaml")
    assert not set("\u2028\u2029\u202e\u2066") & set(result.out), result.out[:500]


# -- High: a large HCL file is parsed a window at a time (issue #18: 14 MB took 1.9 GB) --------

def _many_resources(count: int) -> str:
    return "".join(f'resource "vsphere_virtual_machine" "vm{i}" {{\n  name     = "vm{i}"\n  num_cpus = 4\n'
                   f'  memory   = {i} * 2\n  network_interface {{ adapter_type = "e1000" }}\n}}\n# vm{i}\n'
                   for i in range(count))


def _traced_parse(text: str, name: str) -> tuple[object, int, int]:
    """The parsed file, the Python memory it keeps and the peak while parsing (tracemalloc)."""
    from advisor.readers import hcl

    tracemalloc.start()
    try:
        root = hcl.parse_hcl(text, Path(name))
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return root, kept, peak


def test_large_hcl_parse_memory_is_bounded_by_its_result(monkeypatch) -> None:
    from advisor.readers import hcl, hclwindows

    text = _many_resources(16000)  # about 2.3 MB: nine windows
    assert len(text) > 8 * hclwindows.WINDOW
    windowed, kept, peak = _traced_parse(text, "big.tf")
    # The Python node objects of one window at a time, on top of the Blocks kept: measured 2.1x
    # the result; one tree for the whole file was 7.4x (285 MB here, 1.9 GB for 14 MB).
    assert peak <= 3 * kept
    monkeypatch.setattr(hclwindows, "WINDOW", 1 << 40)
    assert hcl.parse_hcl(text, Path("big.tf")) == windowed  # same blocks, lines and columns


@pytest.mark.self_compare
@pytest.mark.parametrize("window", [1, 64])
def test_windowed_hcl_parse_equals_whole_file_parse(monkeypatch, window: int) -> None:
    """Tiny windows cut everywhere: inside strings, heredocs, comments and syntax errors."""
    from advisor.errors import InputError
    from advisor.readers import hcl, hclwindows

    base = _many_resources(3) + 'variable "x" {\n  default = <<-EOT\n    a }\n  EOT\n}\nz = [1,\n 2] /* } */\n'
    rng = random.Random(18)
    texts = [base, base + "\u00e9 = 1e3\n"]
    for _ in range(150):
        at = rng.randrange(len(base))
        texts.append(base[:at] + rng.choice(['"', "{", "}", "\n", "1e3", "<<EOF\n", "#", "/*", "="]) + base[at:])
        texts.append(base[:at])

    def parsed(text: str) -> object:
        try:
            return hcl.parse_hcl(text, Path("t.tf"))
        except InputError as exc:
            return str(exc)

    for text in texts:
        monkeypatch.setattr(hclwindows, "WINDOW", 1 << 40)
        whole = parsed(text)
        monkeypatch.setattr(hclwindows, "WINDOW", window)
        assert parsed(text) == whole, text


# -- HCL bounds by construction: bytes parsed at once, members, values, source text kept --------

def test_hcl_bounds_are_counted(monkeypatch) -> None:
    from advisor.errors import InputError
    from advisor.readers import hcl, hclwindows

    monkeypatch.setattr(hclwindows, "WINDOW", 1 << 10)
    monkeypatch.setattr(hclwindows, "MAX_PARSE", 1 << 12)
    small = _many_resources(40)  # about 5 KB: windows of 1 KiB, items well under 4 KiB
    assert len(hcl.parse_hcl(small, Path("ok.tf")).blocks) == 40
    huge_item = small + "x = [" + "1," * 3000 + "]\n" + small  # one top-level item over MAX_PARSE
    with pytest.raises(InputError, match="larger than 4 KiB") as info:
        hcl.parse_hcl(huge_item, Path("big.tf"))
    assert info.value.line == small.count("\n") + 1
    broken = small * 2 + 'resource "x" {\n'  # over MAX_PARSE: the window's own report
    with pytest.raises(InputError, match="unexpected end of file"):
        hcl.parse_hcl(broken, Path("broken.tf"))
    monkeypatch.setattr(hcl, "MAX_VALUES", 100)
    with pytest.raises(InputError, match="more than 100 values"):
        hcl.parse_hcl(small, Path("many.tf"))
    monkeypatch.setattr(hcl, "MAX_HCL_BYTES", 1 << 12)
    with pytest.raises(InputError, match="read up to"):
        hcl.parse_hcl(small, Path("large.tf"))


def test_hcl_members_and_skipped_blocks_are_not_walked(monkeypatch) -> None:
    from advisor.readers import hcl

    counted: list[int] = []
    original = hcl._Reader.expr
    monkeypatch.setattr(hcl._Reader, "expr", lambda self, node, depth: counted.append(1) or original(self, node, depth))
    text = ("x = [" + "1," * (hcl.MAX_MEMBERS + 1) + "]\n"
            + 'output "o" {\n  value = [' + "2," * 5000 + "]\n}\n"
            + 'resource "aws_instance" "a" {\n  tags = [' + "3," * 5000 + "]\n}\n")
    root = hcl.parse_hcl(text, Path("m.tf"))
    assert not root.attrs["x"].known and root.blocks == []  # too many members: unknown, not walked
    assert len(counted) <= 3


def test_hcl_source_text_is_not_copied_per_nesting_level() -> None:
    text = "x = " + "[" * 45 + "\"" + "a" * 400_000 + "\"" + "]" * 45 + "\n"
    root, kept, _ = _traced_parse(text, "nest.tf")
    # Each level kept its own decoded copy of the text: 45 x 400 KB. Now the levels share spans
    # of one source: what the parse leaves is that source and the string's value.
    assert kept < 6 * len(text)  # main: 48 x
    assert root.attrs["x"].raw == text[4:-1]

"""Property tests: whatever bytes a reader is given, it returns normally or raises InputError.

Every reader advisor has (spec YAML, host profiles, rule files, configuration, .vmx, OVF, OVA,
Packer JSON and HCL, Terraform HCL and JSON) is fed three kinds of input:

* arbitrary bytes / text;
* a valid sample with random edits (characters inserted, deleted, replaced; tokens known to upset
  parsers spliced in: huge numbers, Unicode digits, bad dates, lone surrogates, control bytes);
* structure-aware documents built from the format's own vocabulary (random `key = value` lines
  for .vmx, random element trees for OVF, random tar members for OVA, random blocks and
  expressions for HCL, random trees of known keys for YAML/JSON/TOML).

Anything other than InputError escaping is a bug (KeyError, ValueError from int(),
UnicodeDecodeError, RecursionError, ...). Every crash these tests found is pinned with an
`@example` right on the test that found it.

The runs are bounded (`max_examples`) and deterministic (`derandomize=True`, no example database),
so CI sees the same inputs every time; longer, coverage-guided runs are the atheris targets under
fuzz/ (see fuzz/README.md).
"""

from __future__ import annotations

import copy
import io
import json
import tarfile
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from advisor.engine.catalog import load_rule_file
from advisor.errors import InputError
from advisor.load.config import load_config
from advisor.load.hosts import host_from_data
from advisor.load.specfile import all_errors, parse_spec
from advisor.load.yamlfile import loads
from advisor.readers import read_template
from advisor.readers.base import TemplateVM

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "templates"
# Inputs the atheris targets (fuzz/) found crashing a reader, kept byte for byte.
CRASHES = REPO / "tests" / "fixtures" / "fuzz"


def _fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.filter_too_much, HealthCheck.large_base_example],
    )


# Budgets: the whole module runs in well under 40 s on two slow cores.
FEW = _fuzz(50)
SOME = _fuzz(120)
MANY = _fuzz(200)


# --------------------------------------------------------------------------------------------
# Checking the outcome
# --------------------------------------------------------------------------------------------


def _input_error_only(call, *args: Any, **kwargs: Any) -> Any:
    """Run a reader; InputError is an answer, anything else escapes and fails the test."""
    try:
        return call(*args, **kwargs)
    except InputError as exc:
        assert exc.message, "an InputError must say what is wrong"
        assert exc.file, f"an InputError must name the file: {exc!r}"
        assert str(exc)
        return None


def _check_vms(result: Any) -> None:
    if result is None:
        return
    assert isinstance(result, list)
    for vm in result:
        assert isinstance(vm, TemplateVM)
        assert isinstance(vm.name, str)
        for key, setting in vm.settings.items():
            assert isinstance(key, str)
            assert setting.value is None or isinstance(setting.value, str)
            assert setting.line is None or isinstance(setting.line, int)
        assert all(isinstance(note, str) for note in vm.notes)


def read(name: str, data: bytes, siblings: list[tuple[Path, bytes]] | tuple = ()) -> None:
    _check_vms(_input_error_only(read_template, Path(name), data, siblings=siblings))


# --------------------------------------------------------------------------------------------
# Shared vocabulary: values that upset parsers
# --------------------------------------------------------------------------------------------

class Long(str):
    """A long string with a short repr (strategies and failing examples are printed)."""

    def __repr__(self) -> str:
        return f"<{len(self)} chars: {str.__repr__(self[:10])}...>" if len(self) > 60 else str.__repr__(self)


HUGE = Long("9" * 4301)  # past Python's int() digit limit
NUMBERS = [
    "0", "-0", "-1", "1", "2", "7", "8", "15", "16", "64", "1024", "4096", "2147483648",
    "9" * 19, Long("9" * 400), HUGE, "1e400", "-1e400", "1.5", "1e3", "0x1F", "0o17", "0b101", "07",
    "1_000", "+5", " 8 ", "nan", "NaN", "inf", "-inf", "Infinity", ".inf", "²", "³²", "٣", "𝟘", "১২",
]
WEIRD = [
    "", " ", "\t", "\n", "\r", "\r\n", "\x00", "\x01", "\x0b", "\x1f", "\x7f", "\x85", "\u2028",
    "\ufeff", "\ud800", "\udfff", "é", "中文", "🙂", "\\", '"', "'", "`", "|", "|22", "|0A", "|ZZ",
    "|E5|85|B1", "#", "=", "==", "${", "$${", "%{", "%%{", "}", "{", "{{", "}}", "[", "]", "<", ">",
    "&", "&amp;", "&#0;", "&#x110000;", "&undefined;", "<!--", "-->", "<![CDATA[", "]]>", "<?", "?>",
    "*", "&a", "*a", "!!python/object:os.system", "!!binary", "!!int", "---", "...", "? ", ": ", "- ",
    "%YAML 1.1", "2020-13-45", "2024-02-30", "9999-12-31T25:00:00Z", "0000-00-00", "1:2:3", "~",
    "null", "true", "yes", "TRUE", "advisor: ignore NET001 -- why", "advisor: ignore", "advisor:ignore ,",
    "var.x", "var.x[0]", "{{user `x`}}", "${var.x}", "<<EOF\nx\nEOF\n", "/*", "*/", "//", "\\u", "\\uZZZZ",
    "\\U0011FFFF", "\\x41", "vmx-13", "ovf:/disk/", "..", "../", "/etc/passwd", "C:\\",
]
TOKENS = NUMBERS + WEIRD
TOKEN_BYTES = [t.encode("utf-8", "surrogatepass") for t in TOKENS] + [
    b"\xff", b"\xfe\xff", b"\xef\xbb\xbf", b"\x80", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
]

tokens = st.sampled_from(TOKENS)
token_bytes = st.sampled_from(TOKEN_BYTES)


class Raw(Long):
    """Text written into a generated document verbatim (unquoted YAML / JSON / TOML)."""


# Plain (unquoted) scalars the YAML resolver turns into ints, floats and dates.
RAW_SCALARS = [
    Raw(t)
    for t in [
        "0",
        "-1",
        "07",
        "0x1F",
        "0o17",
        "0b101",
        "1_000",
        "+5",
        "1e3",
        "1e400",
        ".inf",
        "-.inf",
        ".nan",
        "1:2:3",
        "190:20:30",
        "9" * 19,
        Long("9" * 400),
        HUGE,
        "0x" + "f" * 40,
        "~",
        "2020-13-45",
        "2024-02-30",
        "2001-02-29",
        "2030-01-01",
        "9999-12-31 25:61:61",
        "2001-12-14t21:59:43.10-05:00",
        "0000-00-00",
    ]
]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=12),
    tokens, st.sampled_from(RAW_SCALARS),
)


# --------------------------------------------------------------------------------------------
# Byte-level mutation of a valid sample
# --------------------------------------------------------------------------------------------


@st.composite
def mutated(draw, samples: list[bytes]) -> bytes:
    """A sample with a few random edits: bytes inserted, deleted, replaced, duplicated, cut."""
    data = bytearray(draw(st.sampled_from(samples)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.integers(0, 6))
        pos = draw(st.integers(0, len(data)))
        if op == 0:
            data[pos:pos] = draw(st.binary(min_size=1, max_size=4))
        elif op == 1:
            del data[pos:pos + draw(st.integers(1, 32))]
        elif op in (2, 3):
            data[pos:pos] = draw(token_bytes)
        elif op == 4:
            data[pos:pos + draw(st.integers(1, 8))] = draw(token_bytes)
        elif op == 5:
            piece = bytes(data[pos:pos + draw(st.integers(1, 64))])
            data[pos:pos] = piece * draw(st.integers(1, 3))
        else:
            del data[pos:]
    return bytes(data)


def rarely(draw, n: int) -> bool:
    """True about once in `n` draws (and False when shrunk: simpler examples keep the usual path)."""
    return draw(st.sampled_from([False] * (n - 1) + [True]))


def _samples(*paths: Path) -> list[bytes]:
    found = [p.read_bytes() for p in paths if p.is_file()]
    assert found, f"no sample files among {paths}"
    return found


def _text(data: str) -> bytes:
    return data.encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------------------------
# YAML documents (spec, host, rule file, configuration)
# --------------------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    pass


def _represent_raw(dumper: yaml.SafeDumper, data: Raw) -> yaml.Node:
    # Tagged as whatever the text resolves to, so the emitter writes it plain (unquoted).
    tag = dumper.resolve(yaml.ScalarNode, str(data), (True, False))
    return dumper.represent_scalar(tag, str(data))


_Dumper.add_representer(Raw, _represent_raw)
_Dumper.add_representer(Long, lambda dumper, data: dumper.represent_str(str(data)))


def dump_yaml(doc: Any) -> bytes:
    try:
        text = yaml.dump(doc, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=200)
    except yaml.YAMLError:
        text = repr(doc)
    return _text(text)


def _containers(doc: Any) -> list[Any]:
    out, stack = [], [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list):
            out.append(node)
            stack.extend(node.values() if isinstance(node, dict) else node)
    return out


@st.composite
def tree_mutated(draw, bases: list[Any], keys: list[str], leaves: st.SearchStrategy) -> Any:
    """A valid document with a few random edits at any depth: keys deleted, values replaced
    (by a leaf or a small structure), keys added (known ones and random ones)."""
    doc = copy.deepcopy(draw(st.sampled_from(bases)))
    small = st.one_of(st.lists(leaves, max_size=3), st.dictionaries(st.sampled_from(keys), leaves, max_size=3))
    values = st.one_of(leaves, leaves, leaves, small)
    for _ in range(draw(st.integers(1, 4))):
        containers = _containers(doc)
        if not containers:
            break
        node = draw(st.sampled_from(containers))
        op = draw(st.integers(0, 9))  # 0: delete, 1-6: replace, 7-9: add
        if isinstance(node, dict):
            existing = list(node)
            if op == 0 and existing:
                del node[draw(st.sampled_from(existing))]
            elif op <= 6 and existing:
                node[draw(st.sampled_from(existing))] = draw(values)
            else:
                key = draw(st.one_of(st.sampled_from(keys), st.sampled_from(keys), st.text(max_size=8), scalars))
                node[key] = draw(values)
        else:
            if op == 0 and node:
                del node[draw(st.integers(0, len(node) - 1))]
            elif op <= 6 and node:
                node[draw(st.integers(0, len(node) - 1))] = draw(values)
            else:
                node.append(draw(values))
    return doc


def _yaml_files(*patterns: str) -> list[Path]:
    return sorted(p for pattern in patterns for p in REPO.glob(pattern))


SPEC_FILES = _yaml_files("examples/*.yaml")
HOST_FILES = _yaml_files("hosts/*.yaml")
SPECS = [yaml.safe_load(p.read_text()) for p in SPEC_FILES]
HOSTS = [yaml.safe_load(p.read_text()) for p in HOST_FILES]

SPEC_KEYS = [
    "host", "vms", "vsphere", "name", "count", "vcpus", "cores_per_socket", "memory", "hardware_version",
    "guest_os", "workload", "production", "latency_sensitivity", "cpu_reservation", "memory_reservation",
    "cpu_hot_add", "memory_hot_add", "cpu_affinity", "disks", "nics", "gpu", "fault_tolerance", "advanced",
    "sql", "guest", "java", "hpc", "containers", "ignore", "size", "controller", "bus", "role", "heavy_io",
    "queue_depth", "adapter", "coalescing", "profile", "passthrough", "purpose", "version", "edition",
    "licensing", "maxdop", "cost_threshold", "trace_flags", "affinity_mask", "max_server_memory", "jvms",
    "heap", "memory_bound", "networking", "rule", "reason", "until", "power_plan", "large_pages", "tools",
    # advanced: .vmx keys, including device numbers far past anything vSphere has
    "numvcpus", "memsize", "cpuid.coresPerSocket", "virtualHW.version", "sched.mem.pin", "sched.cpu.min",
    "sched.cpu.affinity", "sched.cpu.latencySensitivity", "ethernet0.virtualDev", "ethernet3.virtualDev",
    "ethernet99999999.virtualDev", "scsi0.virtualDev", "scsi7.virtualDev", "numa.vcpu.preferHT",
]
HOST_KEYS = [
    "name", "description", "cpu", "sockets", "cores_per_socket", "threads_per_core", "numa_nodes_per_socket",
    "numa_mode", "memory", "core_mhz", "esxi", "power_policy", "max_freq_pct", "cstate_residency_coef",
    "bios_power", "turbo", "deep_cstates", "prefer_ht", "follow_cores_per_socket", "gpus", "source", "model",
    "count",
]
SPEC_VALUES = [
    "4GB", "1.5TB", "4096MB", "0GB", "-1GB", "1.3MB", "0.0001KB", "1 XB", Long("9" * 400 + "GB"),
    Long("1" + "0" * 330 + "TB"),
    "1e400GB", "infGB", "full", "24GHz", "2400MHz", "1e400ghz", "infmhz", "-infmhz", "nanghz", "-5mhz", "ghz",
    "e1000", "vmxnet3", "pvscsi", "lsilogic", "sql-server", "hp-dl580-g7", "dell-r620", "no-such-host",
    "hosts/dell-r620.yaml", "missing.yaml", "6.7", "7.0 U3", "8.0U3b", "99.0", Long("5." + "9" * 5000), "high",
    "TRUE", "FALSE", "all", "0-3", "2020-13-45",
]
spec_leaves = st.one_of(scalars, st.sampled_from(SPEC_VALUES), st.integers(-5, 4200))


def _section(**fields: st.SearchStrategy) -> st.SearchStrategy:
    return st.fixed_dictionaries({}, optional=fields)


ADVANCED_KEYS = ["numvcpus", "memsize", "cpuid.coresPerSocket", "virtualHW.version", "guestOS", "vcpu.hotadd",
                 "mem.hotadd", "sched.cpu.latencySensitivity", "sched.cpu.min", "sched.mem.min", "sched.cpu.affinity",
                 "sched.mem.pin", "ethernet0.virtualDev", "ethernet1.virtualDev", "ethernet9.virtualDev",
                 "ethernet10.virtualDev", "ethernet99999999.virtualDev", "scsi0.virtualDev", "scsi1.virtualDev",
                 "numa.vcpu.preferHT", "numa.vcpu.maxPerVirtualNode", "NUMVCPUS"]


def _spec_strategies(weird: bool) -> tuple[st.SearchStrategy, st.SearchStrategy]:
    """(host documents, spec documents) built field by field; `weird` mixes in arbitrary values."""

    def _mostly(*valid: Any) -> st.SearchStrategy:
        """A field's value: one it accepts, or (when weird) now and then anything at all."""
        return st.one_of(*[st.sampled_from(valid)] * 6, spec_leaves) if weird else st.sampled_from(valid)

    GPU_HOST = st.fixed_dictionaries({"model": _mostly("A100", "M60")}, optional={"count": _mostly(1, 4, 65)})
    host_documents = st.fixed_dictionaries(
        {
            "name": _mostly("lab", "x" * 121),
            "sockets": _mostly(1, 2, 4, 33),
            "cores_per_socket": _mostly(6, 8, 16, 64),
            "memory": _mostly("256GB", "1TB", 4096),
            "esxi": _mostly("6.7", "7.0 U3", "8.0", "3.5", "9.1"),
        },
        optional={
            "threads_per_core": _mostly(1, 2),
            "numa_nodes_per_socket": _mostly(1, 2, 4, 3),
            "power_policy": _mostly("balanced", "high-performance", "custom"),
            "max_freq_pct": _mostly(50, 100, 0),
            "cstate_residency_coef": _mostly(0, 5),
            "bios_power": _mostly("os-controlled", "max-performance"),
            "turbo": _mostly(True, False),
            "deep_cstates": _mostly(True, False),
            "prefer_ht": _mostly(True),
            "follow_cores_per_socket": _mostly(True),
            "core_mhz": _mostly(2400, 99, 10001),
            "gpus": st.lists(GPU_HOST, max_size=2),
            "numa_mode": _mostly("NPS4", "SNC2"),
            "cpu": _mostly("Xeon"),
        },
    )
    DISKS = st.fixed_dictionaries(
        {"controller": _mostly("pvscsi", "lsilogic", "lsisas", "buslogic", "nvme", "sata", "ide")},
        optional={
            "size": _mostly("40GB", "1TB", 1024),
            "bus": _mostly(0, 1, 3, 4),
            "role": _mostly("os", "data", "log"),
            "heavy_io": _mostly(True, False),
            "queue_depth": _mostly(32, 254, 2000),
        },
    )
    NICS = st.fixed_dictionaries({"adapter": _mostly("vmxnet3", "e1000", "e1000e", "sriov")},
                                 optional={"coalescing": _mostly("rbc", "disabled")})
    VM_FIELDS = {
        "count": _mostly(1, 2, 100),
        "cores_per_socket": _mostly(1, 2, 4, 8, 3),
        "hardware_version": _mostly(4, 10, 13, 19, 21),
        "guest_os": _mostly("windows2019srv-64", "rhel9_64Guest"),
        "workload": _mostly("generic", "sql-server", "vdi", "hpc", "ml-gpu", "latency-critical", "java"),
        "production": _mostly(True, False),
        "latency_sensitivity": _mostly("low", "normal", "high", "high-ht"),
        "cpu_reservation": _mostly("full", "24GHz", 2400, "1e400ghz", "infmhz", "nanmhz"),
        "memory_reservation": _mostly("full", "4GB", 1024),
        "cpu_hot_add": _mostly(True, False),
        "memory_hot_add": _mostly(True, False),
        "cpu_affinity": _mostly("all", "0-3", "0,2"),
        "disks": st.lists(DISKS, max_size=3),
        "nics": st.lists(NICS, max_size=3),
        "gpu": _section(
            profile=_mostly("grid_m60-8q", "grid_a100-40c"),
            passthrough=_mostly(0, 1, 2),
            purpose=_mostly("ml-training", "graphics"),
        ),
        "fault_tolerance": _mostly(True, False),
        "advanced": st.dictionaries(
            st.sampled_from(ADVANCED_KEYS),
            _mostly(
                "TRUE",
                "FALSE",
                "8",
                "0x10",
                "e1000",
                "vmxnet3",
                "pvscsi",
                "lsisas1068",
                "high",
                "0-3",
                "4096",
                Long("9" * 5000),
            ),
            max_size=4,
        ),
        "sql": _section(
            version=_mostly("2019"),
            edition=_mostly("enterprise", "standard"),
            maxdop=_mostly(0, 8),
            cost_threshold=_mostly(5, 50),
            trace_flags=st.lists(_mostly(834, 1117), max_size=2),
            max_server_memory=_mostly("112GB"),
            lock_pages_in_memory=_mostly(True),
        ),
        "guest": _section(
            power_plan=_mostly("balanced", "high-performance"), large_pages=_mostly(True), tools=_mostly(False)
        ),
        "java": _section(jvms=_mostly(1, 4), heap=_mostly("4GB"), large_pages=_mostly(True)),
        "hpc": _section(memory_bound=_mostly(True)),
        "containers": _section(networking=_mostly("bridge", "sriov"), latency_critical=_mostly(True)),
        "ignore": st.lists(
            st.fixed_dictionaries(
                {"rule": _mostly("NET001", "NUMA"), "reason": _mostly("vendor says so")},
                optional={"until": _mostly("2030-01-01", Raw("2030-01-01"), Raw("2020-13-45"))},
            ),
            max_size=2,
        ),
    }
    vm_documents = st.fixed_dictionaries(
        {
            "name": _mostly("a", "b", "c"),
            "vcpus": _mostly(1, 2, 8, 64, 4096, 5000),
            "memory": _mostly("4GB", "1TB", 4096),
        },
        optional=VM_FIELDS,
    )
    spec_documents = st.fixed_dictionaries(
        {
            "host": st.one_of(
                _mostly("dell-r620", "hp-dl580-g7", "amd-epyc-9654-2s-nps4", "no-such", "hosts/dell-r620.yaml"),
                host_documents,
            ),
            "vms": st.lists(vm_documents, min_size=1, max_size=3, unique_by=lambda vm: repr(vm["name"])),
        },
        optional={"vsphere": _mostly("6.7", "7.0 U3", "8.0U2", "5.5")},
    )
    return host_documents, spec_documents


VALID_HOSTS, VALID_SPECS = _spec_strategies(weird=False)
WEIRD_HOSTS, WEIRD_SPECS = _spec_strategies(weird=True)
host_documents = st.one_of(VALID_HOSTS, WEIRD_HOSTS)
spec_documents = st.one_of(VALID_SPECS, WEIRD_SPECS)


# --------------------------------------------------------------------------------------------
# Spec YAML
# --------------------------------------------------------------------------------------------

_SPEC_REGRESSIONS = [
    # OverflowError: a size whose number overflows a float (round(inf))
    b"host: dell-r620\nvms: [{name: a, vcpus: 2, memory: " + b"9" * 400 + b"GB}]\n",
    # OverflowError: a CPU reservation of 1e400 GHz
    b"host: dell-r620\nvms: [{name: a, vcpus: 2, memory: 4GB, cpu_reservation: 1e400ghz}]\n",
    # a NIC number from advanced: padded the nics list with a billion adapters (memory, hang)
    b"host: dell-r620\nvms: [{name: a, vcpus: 2, memory: 4GB, advanced: {ethernet999999999.virtualDev: e1000}}]\n",
    # ValueError from int(): a YAML integer past Python's 4300-digit limit
    b"host: dell-r620\nvms: [{name: a, vcpus: " + HUGE.encode() + b", memory: 4GB}]\n",
    # ValueError from date(): a YAML timestamp with month 13
    b"host: dell-r620\nvms: [{name: a, vcpus: 2, memory: 4GB, ignore: [{rule: X, reason: why, until: 2020-13-45}]}]\n",
    # IndexError: an unknown key spelled like a pydantic union tag (capitalised) lost its location
    b"Host: dell-r620\nvms: []\n",
]


def _spec(data: bytes) -> None:
    _input_error_only(parse_spec, data, "spec.yaml")
    errors = _input_error_only(all_errors, data, "spec.yaml")
    for error in errors or []:
        assert isinstance(error, InputError) and error.message


@FEW
@given(st.binary(max_size=600) | st.text(max_size=300).map(_text))
def test_spec_arbitrary_bytes(data: bytes) -> None:
    _spec(data)


@SOME
@given(mutated([p.read_bytes() for p in SPEC_FILES]))
def test_spec_mutated_examples(data: bytes) -> None:
    _spec(data)


@MANY
@given(tree_mutated(SPECS, SPEC_KEYS, spec_leaves).map(dump_yaml))
@example(_SPEC_REGRESSIONS[0])
@example(_SPEC_REGRESSIONS[1])
@example(_SPEC_REGRESSIONS[2])
@example(_SPEC_REGRESSIONS[3])
@example(_SPEC_REGRESSIONS[4])
@example(_SPEC_REGRESSIONS[5])
def test_spec_structure(data: bytes) -> None:
    _spec(data)


@MANY
@given(spec_documents.map(dump_yaml))
def test_spec_fields(data: bytes) -> None:
    _spec(data)


# --------------------------------------------------------------------------------------------
# Host profiles (YAML)
# --------------------------------------------------------------------------------------------


def _host(data: bytes) -> None:
    def load() -> None:
        root = loads(data, "host.yaml")
        host_from_data(root, "host.yaml", root=root)

    _input_error_only(load)


@FEW
@given(mutated([p.read_bytes() for p in HOST_FILES[:6]]))
def test_host_mutated_profiles(data: bytes) -> None:
    _host(data)


@SOME
@given(tree_mutated(HOSTS, HOST_KEYS, spec_leaves).map(dump_yaml) | host_documents.map(dump_yaml))
@example(b"name: h\nsockets: 2\ncores_per_socket: 8\nmemory: " + b"9" * 400 + b"GB\nesxi: '7.0'\n")
@example(b"A: null\n")
@example(b"name: h\nsockets: " + HUGE.encode() + b"\ncores_per_socket: 8\nmemory: 1TB\nesxi: '7.0'\n")
def test_host_structure(data: bytes) -> None:
    _host(data)


# --------------------------------------------------------------------------------------------
# Rule files (YAML, conditions in CEL)
# --------------------------------------------------------------------------------------------

RULE_FILE = REPO / "rules" / "network.yaml"
RULES = yaml.safe_load(RULE_FILE.read_text())["rules"]
RULE_KEYS = ["rules", "id", "name", "severity", "scope", "summary", "workloads", "vsphere", "min", "max", "when",
             "locate", "message", "rationale", "references", "seed", "section", "doc", "url", "fix", "vmx", "guest",
             "host", "resize", "text", "examples", "fail", "pass"]
RULE_VALUES = [
    "NET001", "NET9999", "net001", "ZZZZZZZZZZ001", "error", "warning", "vm", "host", "sql-server", "nope",
    "vm.vcpus > 8", "vm.legacy_nics > 0 && vm.vmxnet3_possible", "'just a string'", "vm.nope > 1", "vm.vcpus >",
    Long("(" * 200 + "true" + ")" * 200), "size(vm.legacy_nic_types) == 1", "{vm.vcpus} vCPUs", "{nope.fact} text",
    "001_a02093f92473a34b.txt", "999_nope.txt", "https://example.com", "6.7", "9.9", "x.y", "REMOVE",
]
rule_leaves = st.one_of(scalars, st.sampled_from(RULE_VALUES))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def _rules(workdir: Path, data: bytes) -> None:
    path = workdir / "rules.yaml"
    path.write_bytes(data)
    _input_error_only(load_rule_file, path, builtin=False)


def _one_rule_files() -> list[bytes]:
    return [yaml.safe_dump({"rules": [rule]}, sort_keys=False).encode() for rule in RULES[:3]]


@FEW
@given(data=mutated(_one_rule_files()))
def test_rule_file_mutated(workdir: Path, data: bytes) -> None:
    _rules(workdir, data)


@SOME
@given(data=tree_mutated([{"rules": [rule]} for rule in RULES[:3]], RULE_KEYS, rule_leaves).map(dump_yaml))
@example(data=b"A: null\n")
def test_rule_file_structure(workdir: Path, data: bytes) -> None:
    _rules(workdir, data)


# --------------------------------------------------------------------------------------------
# Configuration (.advisor.yaml and pyproject.toml)
# --------------------------------------------------------------------------------------------

CONFIG = {
    "select": ["NUMA", "CPU001"], "ignore": ["NET"], "severity": {"NET001": "error"}, "fail_on": "warning",
    "host": "dell-r620", "rules": ["policies"], "host_profiles": ["hosts"], "exclude": ["build/"],
    "exemptions": [{"rule": "NET001", "reason": "vendor appliance", "vms": ["fw-*"], "paths": ["a/*"],
                    "until": "2030-01-01"}],
}
CONFIG_KEYS = [*CONFIG, "rule", "reason", "vms", "paths", "until", "tool", "advisor"]
CONFIG_VALUES = ["error", "warning", "info", "never", "NUMA", "*", "2030-01-01", "2020-13-45", "no-such-folder"]
config_leaves = st.one_of(scalars, st.sampled_from(CONFIG_VALUES))


def _config(workdir: Path, name: str, data: bytes) -> None:
    folder = workdir / "config"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    _input_error_only(load_config, str(path), [])


@SOME
@given(data=mutated([dump_yaml(CONFIG)]) | tree_mutated([CONFIG], CONFIG_KEYS, config_leaves).map(dump_yaml))
@example(data=b"exemptions:\n  - {rule: NET001, reason: because, until: 2020-13-45}\n")
def test_config_yaml(workdir: Path, data: bytes) -> None:
    _config(workdir, ".advisor.yaml", data)


def _toml_key(key: str) -> str:
    return key if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key) else json.dumps(key)


_toml_scalar = st.one_of(
    st.integers(-(2**70), 2**70).map(str), st.booleans().map(lambda b: "true" if b else "false"),
    st.text(max_size=10).map(lambda s: json.dumps(s, ensure_ascii=True)),
    st.sampled_from(["1979-05-27", "2020-13-45", "1979-05-27T07:32:00Z", "07:32:00", "inf", "nan", "-inf", "1e400",
                     Long("0x" + "f" * 40), HUGE, "1_000", "'literal'", '"""multi\nline"""', '"\\uZZZZ"', "0o8"]),
)
_toml_value = st.recursive(
    _toml_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.dictionaries(st.sampled_from(CONFIG_KEYS), inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{_toml_key(k)} = {v}" for k, v in d.items()) + "}")),
    max_leaves=6,
)
_toml_line = st.one_of(
    st.sampled_from(
        [
            "[tool]",
            "[tool.advisor]",
            "[[tool.advisor.exemptions]]",
            "[tool.advisor.severity]",
            "[project]",
            "[[tool]]",
            "[tool.advisor.select]",
        ]
    ),
    st.tuples(st.sampled_from(CONFIG_KEYS) | st.text(max_size=6), _toml_value).map(
        lambda kv: f"{_toml_key(kv[0])} = {kv[1]}"
    ),
    tokens,
)


@SOME
@given(data=st.lists(_toml_line, max_size=10).map(lambda lines: _text("\n".join(lines) + "\n"))
       | mutated([b'[tool.advisor]\nselect = ["NUMA"]\nfail_on = "warning"\n[[tool.advisor.exemptions]]\n'
                  b'rule = "NET001"\nreason = "vendor appliance"\nuntil = 2030-01-01\n']))
@example(data=b'tool = "x"\n')
@example(data=b"tool = 1\n")
@example(data=b"a = " + HUGE.encode() + b"\n")
def test_config_pyproject_toml(workdir: Path, data: bytes) -> None:
    _config(workdir, "pyproject.toml", data)


# --------------------------------------------------------------------------------------------
# .vmx
# --------------------------------------------------------------------------------------------

VMX_SAMPLES = _samples(*(FIXTURES / "vmx").iterdir())
VMX_KEYS = [
    ".encoding", "config.version", "virtualHW.version", "displayName", "guestOS", "numvcpus", "cpuid.coresPerSocket",
    "memsize", "memSize", "scsi0.present", "scsi0.virtualDev", "scsi0:0.present", "scsi0:0.deviceType",
    "sata0:1.present", "nvme0:0.present", "ethernet0.virtualDev", "ethernet9999999999.virtualDev",
    "sched.cpu.min", "sched.mem.pin", "numa.vcpu.preferHT", "annotation", "key", "a.b.c", "scsi0:#.present",
    "ethernet#.virtualDev", "#x", "scsi٣.virtualDev",
]
VMX_VALUES = [
    "TRUE",
    "FALSE",
    "pvscsi",
    "lsisas1068",
    "e1000e",
    "vmxnet3",
    "cdrom-image",
    "UTF-8",
    "Shift_JIS",
    "windows-949-2000",
    "windows-1252",
    "ibm-943_P15A-2003",
    "utf-16",
    "utf-7",
    "idna",
    "rot13",
    "hex",
    "zlib",
    "punycode",
    "undefined",
    "unicode_escape",
    "cp037",
    "big5",
    "x-nope",
    "|22|0A",
    "|E5|85|B1",
    "|ZZ",
    "|",
    "a|",
    "abc|8",
]
vmx_key = st.one_of(st.sampled_from(VMX_KEYS), st.text(min_size=1, max_size=12), tokens)
vmx_value = st.one_of(st.sampled_from(VMX_VALUES), tokens, st.text(max_size=16))


@st.composite
def vmx_line(draw) -> str:
    key, value = draw(vmx_key), draw(vmx_value)
    shape = draw(st.integers(0, 7))
    if shape <= 2:
        return f'{key} = "{value}"'
    if shape == 3:
        return f"{key}={value}"
    if shape == 4:
        return f'{key} = "{value}'  # unclosed quote
    if shape == 5:
        return "# " + draw(st.sampled_from(["advisor: ignore NET001 -- vendor", "advisor: ignore", "advisor: ignore ,",
                                            "advisor: ignore NET001", "comment"]))
    if shape == 6:
        return f'{key} = "{value}" trailing'
    return draw(st.text(max_size=20))


@st.composite
def vmx_document(draw) -> bytes:
    lines = draw(st.lists(vmx_line(), max_size=25))
    eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = eol.join(lines) + draw(st.sampled_from(["", eol]))
    encoding = draw(st.sampled_from(["utf-8", "latin-1", "shift_jis", "cp1252"]))
    prefix = draw(st.sampled_from([b"", b"\xef\xbb\xbf"]))
    return prefix + (_text(text) if encoding == "utf-8" else text.encode(encoding, "replace"))


@SOME
@given(st.binary(max_size=800))
def test_vmx_arbitrary_bytes(data: bytes) -> None:
    read("fuzz.vmx", data)


@SOME
@given(mutated(VMX_SAMPLES))
def test_vmx_mutated_samples(data: bytes) -> None:
    read("fuzz.vmx", data)


@MANY
@given(vmx_document())
# StopIteration from canonical_key(): a key spelling '#' where VMware's key has a number
@example(b'scsi0:#.present = "TRUE"\n')
@example((CRASHES / "vmx-crash-25cd5288.vmx").read_bytes())  # found by fuzz/fuzz_vmx.py
def test_vmx_random_lines(data: bytes) -> None:
    read("fuzz.vmx", data)
    read("fuzz.vmtx", data)


# --------------------------------------------------------------------------------------------
# OVF (XML) and OVA (tar)
# --------------------------------------------------------------------------------------------

OVF_SAMPLES = _samples(*sorted((FIXTURES / "ovf").iterdir()))
NAMESPACES = (
    'xmlns="http://schemas.dmtf.org/ovf/envelope/1" xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1" '
    'xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData" '
    'xmlns:vssd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_VirtualSystemSettingData" '
    'xmlns:vmw="http://www.vmware.com/schema/ovf" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
)
ITEM_FIELDS = [
    "ResourceType",
    "VirtualQuantity",
    "AllocationUnits",
    "Reservation",
    "Limit",
    "Weight",
    "InstanceID",
    "InstanceId",
    "Parent",
    "Address",
    "AddressOnParent",
    "HostResource",
    "ResourceSubType",
    "CoresPerSocket",
    "ElementName",
    "VirtualQuantityUnits",
]
OVF_TEXT = [
    "3", "4", "5", "6", "10", "17", "20", "1", "2", "03", "100000", "0", "1", "7", "byte * 2^20", "byte*2^30",
    "bytes * 10^9999", "hertz * 10^6", "MegaBytes", "GB", "byte * 2^", "byte * 99999^999", "ovf:/disk/d1",
    "/disk/d1", "ovf:/disk/", "VirtualSCSI", "lsilogic", "lsilogicsas", "vmware.sata.ahci", "vmware.nvme.controller",
    "VmxNet3", "E1000", "vmx-13", "vmx-07 vmx-19", "vmx-" + "9" * 40,
    Long("byte * 10^999 * 10^999 * 10^999 * 10^999 * 10^999"), "byte * 2^" + "9" * 3, "xen-3", "${cpus}", "d1", "d2",
]
ovf_text = st.one_of(st.sampled_from(OVF_TEXT), tokens, st.text(max_size=10))
CONFIG_KEYS_OVF = ["cpuHotAddEnabled", "firmware", "tools.syncTimeWithHost", "latencySensitivity.level",
                   "cpuAllocation.shares.level", "cpuAllocation.shares.shares", "memoryAllocation.shares.shares",
                   "memoryAllocation.shares.level", "nope", "a.b.c"]


def _xml_safe(text: str) -> str:
    """Without the characters XML 1.0 cannot hold at all (controls, surrogates, U+FFFE/F)."""
    return "".join(c for c in text if c in "\t\n\r" or ("\x20" <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd")
                   or c >= "\U00010000")


def _xml_text(text: str, raw: bool = False) -> str:
    return text if raw else xml_escape(_xml_safe(text))


def _attr(name: str, value: str) -> str:
    return f" {name}={quoteattr(_xml_safe(value))}"


@st.composite
def ovf_item(draw) -> str:
    raw = rarely(draw, 10)  # now and then, text goes in unescaped
    fields = draw(st.lists(st.sampled_from(ITEM_FIELDS), max_size=7))
    body = "".join(f"<rasd:{f}>{_xml_text(draw(ovf_text), raw)}</rasd:{f}>" for f in fields)
    attrs = ""
    if draw(st.booleans()):
        attrs += _attr("ovf:configuration", draw(st.sampled_from(["small", "large", "small large", ""])))
    if rarely(draw, 5):
        attrs += _attr("ovf:bound", draw(st.sampled_from(["normal", "min", "max"])))
    if rarely(draw, 5):
        attrs += _attr("vmw:CoresPerSocket", draw(ovf_text))
    tag = draw(st.sampled_from(["Item", "StorageItem", "EthernetPortItem", "ovf:Item"]))
    return f"<{tag}{attrs}>{body}</{tag}>"


@st.composite
def ovf_config(draw) -> str:
    tag = draw(st.sampled_from(["vmw:Config", "vmw:ExtraConfig"]))
    key = draw(st.one_of(st.sampled_from(CONFIG_KEYS_OVF), st.text(max_size=8)))
    value = draw(ovf_text)
    return f"<{tag} ovf:required=\"false\"{_attr('vmw:key', key)}{_attr('vmw:value', value)}/>"


@st.composite
def ovf_hardware(draw) -> str:
    parts = []
    if draw(st.booleans()):
        parts.append(f"<System><vssd:VirtualSystemType>{_xml_text(draw(ovf_text))}</vssd:VirtualSystemType></System>")
    parts += draw(st.lists(st.one_of(ovf_item(), ovf_config()), max_size=8))
    if rarely(draw, 4):  # OVF 0.9's generic section
        return f'<Section xsi:type="ovf:VirtualHardwareSection_Type">{"".join(parts)}</Section>'
    return f"<VirtualHardwareSection>{''.join(parts)}</VirtualHardwareSection>"


@st.composite
def ovf_system(draw) -> str:
    parts = []
    if draw(st.booleans()):
        parts.append(f"<Name>{_xml_text(draw(ovf_text))}</Name>")
    if draw(st.booleans()):
        os_attrs = _attr("ovf:id", draw(ovf_text)) + (
            _attr("vmw:osType", draw(ovf_text)) if draw(st.booleans()) else ""
        )
        parts.append(f"<OperatingSystemSection{os_attrs}><Description>{_xml_text(draw(ovf_text))}</Description>"
                     "</OperatingSystemSection>")
    parts += draw(st.lists(ovf_hardware(), max_size=2))
    if rarely(draw, 4):
        parts.append(
            "<!-- " + draw(st.sampled_from(["advisor: ignore NET001 - vendor", "advisor: ignore", "x"])) + " -->"
        )
    attrs = _attr("ovf:id", draw(ovf_text)) if draw(st.booleans()) else ""
    return f"<VirtualSystem{attrs}>{''.join(parts)}</VirtualSystem>"


ovf_systems = st.recursive(
    ovf_system(),
    lambda inner: st.lists(inner, min_size=1, max_size=3).map(
        lambda xs: f'<VirtualSystemCollection ovf:id="c">{"".join(xs)}</VirtualSystemCollection>'),
    max_leaves=4,
)


@st.composite
def ovf_document(draw) -> bytes:
    parts = []
    if draw(st.booleans()):
        disks = draw(st.lists(st.tuples(ovf_text, ovf_text, ovf_text), max_size=3))
        parts.append("<DiskSection>" + "".join(
            f"<Disk{_attr('ovf:diskId', d)}{_attr('ovf:capacity', c)}{_attr('ovf:capacityAllocationUnits', u)}/>"
            for d, c, u in disks) + "</DiskSection>")
    if draw(st.booleans()):
        options = draw(st.lists(st.sampled_from(["small", "large", ""]), max_size=3))
        parts.append("<DeploymentOptionSection>" + "".join(
            f'<Configuration ovf:id="{o}"{_attr("ovf:default", draw(st.sampled_from(["true", "false", "TRUE"])))}/>'
            for o in options) + "</DeploymentOptionSection>")
    parts += draw(st.lists(ovf_systems, max_size=3))
    head = draw(
        st.sampled_from(
            [
                "",
                '<?xml version="1.0" encoding="UTF-8"?>\n',
                '<?xml version="1.0" encoding="latin-1"?>\n',
                '<?xml version="1.0" encoding="x-nope"?>\n',
                "<!DOCTYPE Envelope>\n",
                '<?xml version="1.1"?>\n',
            ]
        )
    )
    root = draw(st.sampled_from(["Envelope", "ovf:Envelope", "Envelope", "NotEnvelope"]))
    return _text(f"{head}<{root} {NAMESPACES}>{''.join(parts)}</{root}>")


_OVF_ITEM = ('<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1" '
             'xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData">'
             "<VirtualSystem><VirtualHardwareSection>{}</VirtualHardwareSection></VirtualSystem></Envelope>")
_OVF_REGRESSIONS = [
    # ValueError from int(): str.isdigit() accepts superscripts ("²") that int() refuses
    _OVF_ITEM.format(
        "<Item><rasd:ResourceType>3</rasd:ResourceType><rasd:VirtualQuantity>²</rasd:VirtualQuantity></Item>"
    ),
    _OVF_ITEM.format("<Item><rasd:ResourceType>²</rasd:ResourceType></Item>"),
    # ValueError from int(): more digits than Python converts
    _OVF_ITEM.format(
        f"<Item><rasd:ResourceType>3</rasd:ResourceType><rasd:VirtualQuantity>{HUGE}</rasd:VirtualQuantity>"
        f"<rasd:CoresPerSocket>{HUGE}</rasd:CoresPerSocket><rasd:Weight>{HUGE}</rasd:Weight></Item>"
    ),
    _OVF_ITEM.format(
        "<Item><rasd:ResourceType>6</rasd:ResourceType><rasd:InstanceID>1</rasd:InstanceID>"
        "<rasd:Address>²</rasd:Address></Item><Item><rasd:ResourceType>17</rasd:ResourceType>"
        "<rasd:Parent>1</rasd:Parent><rasd:AddressOnParent>³</rasd:AddressOnParent></Item>"
    ),
    # ValueError from str(): AllocationUnits whose product of powers is a 5000-digit factor
    _OVF_ITEM.format(
        "<Item><rasd:ResourceType>4</rasd:ResourceType><rasd:AllocationUnits>byte * 10^999 * 10^999 * "
        "10^999 * 10^999 * 10^999</rasd:AllocationUnits><rasd:VirtualQuantity>1</rasd:VirtualQuantity></Item>"
    ),
]


@SOME
@given(st.binary(max_size=600) | st.text(max_size=300).map(lambda s: _text("<Envelope " + s)))
def test_ovf_arbitrary_bytes(data: bytes) -> None:
    read("fuzz.ovf", data)


@MANY
@given(mutated(OVF_SAMPLES))
def test_ovf_mutated_samples(data: bytes) -> None:
    read("fuzz.ovf", data)


@MANY
@given(ovf_document())
@example(_OVF_REGRESSIONS[0].encode())
@example(_OVF_REGRESSIONS[1].encode())
@example(_OVF_REGRESSIONS[2].encode())
@example(_OVF_REGRESSIONS[3].encode())
@example(_OVF_REGRESSIONS[4].encode())
def test_ovf_random_trees(data: bytes) -> None:
    read("fuzz.ovf", data)


OVA_NAMES = ["desc.ovf", "a/desc.ovf", "DESC.OVF", "../evil.ovf", "/abs.ovf", "C:\\win.ovf", "c:x.ovf", "disk1.vmdk",
             "desc.mf", "", ".ovf", "./x.ovf", "a/../../b.ovf"]
_TAR_TYPES = [tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE,
              tarfile.LNKTYPE, tarfile.FIFOTYPE, tarfile.GNUTYPE_SPARSE]


@st.composite
def ova_archive(draw) -> bytes:
    fmt = draw(st.sampled_from([tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT]))
    names = st.one_of(st.just("appliance.ovf"), st.sampled_from(OVA_NAMES), st.text(max_size=12))
    kinds = st.one_of(st.just(tarfile.REGTYPE), st.sampled_from(_TAR_TYPES))
    members = draw(st.lists(st.tuples(names, kinds,
                                      st.one_of(st.sampled_from(OVF_SAMPLES), ovf_document(), st.binary(max_size=64))),
                            max_size=4))
    buffer = io.BytesIO()
    try:
        with tarfile.open(fileobj=buffer, mode="w", format=fmt) as archive:
            for name, kind, data in members:
                info = tarfile.TarInfo(name)
                info.type = kind
                if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
                    info.linkname = draw(st.sampled_from(OVA_NAMES))
                if info.isfile() or kind == tarfile.GNUTYPE_SPARSE:
                    info.size = len(data)
                    archive.addfile(info, io.BytesIO(data))
                else:
                    archive.addfile(info)
    except (ValueError, UnicodeError, tarfile.TarError):
        pass  # a name this format cannot hold: use what was written
    data = bytearray(buffer.getvalue())
    for _ in range(draw(st.integers(0, 3)) if rarely(draw, 4) else 0):  # corrupt headers now and then
        if not data:
            break
        pos = draw(st.integers(0, min(len(data) - 1, 1024)))
        data[pos] = draw(st.integers(0, 255))
    if rarely(draw, 8):
        del data[draw(st.integers(0, len(data))):]
    return bytes(data)


@SOME
@given(st.binary(max_size=1200) | st.binary(max_size=600).map(lambda b: b.ljust(257, b"\0") + b"ustar\x0000" + b))
def test_ova_arbitrary_bytes(data: bytes) -> None:
    read("fuzz.ova", data)


def _tar_with_huge_member() -> bytes:
    """One member whose size field (base-256 form) says 2**88 - 1 bytes, then the end blocks."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        archive.addfile(tarfile.TarInfo("disk.vmdk"), io.BytesIO(b""))
    header = bytearray(buffer.getvalue()[:512])
    header[124:136] = b"\x80" + b"\xff" * 11
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % sum(header)
    return bytes(header) + b"\0" * 1024


@MANY
@given(ova_archive())
# OverflowError from tarfile: seeking past a member whose size overflows a C ssize_t
@example(_tar_with_huge_member())
@example((CRASHES / "ova-crash-d9851b53.ova").read_bytes())  # found by fuzz/fuzz_ova.py
def test_ova_random_archives(data: bytes) -> None:
    read("fuzz.ova", data)


# --------------------------------------------------------------------------------------------
# JSON: Packer legacy and HCL-JSON templates, Terraform JSON
# --------------------------------------------------------------------------------------------


def render_json(value: Any) -> str:
    """JSON text; Raw values go in verbatim (numbers json.dumps would refuse or rewrite)."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {render_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(render_json(v) for v in value) + "]"
    return json.dumps(value)


JSON_NUMBERS = [Raw(n) for n in ["0", "-1", "8", "1.5", "1e3", "1e400", "-1e400", "9" * 19, "9" * 400, HUGE,
                                 "NaN", "Infinity", "-Infinity", "1.0e308", "-0", "1E+2"]]
json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**64), 2**64), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=10), tokens, st.sampled_from(JSON_NUMBERS),
    st.sampled_from(["{{user `cpus`}}", "{{ user `x` }}", "{{env `X`}}", "${var.mem}", "${var.m[\"k\"]}", "${local.x}",
                     "pvscsi", "nvme", "sata", "vmxnet3", "efi-secure", "bios", "custom", "high", "scsi", "ide"]),
)
PACKER_KEYS = ["type", "name", "vm_name", "CPUs", "cpu_cores", "RAM", "RAM_reserve_all", "CPU_reservation", "CPU_limit",
               "RAM_reservation", "CPU_hot_plug", "RAM_hot_plug", "NestedHV", "vm_version", "guest_os_type", "cpus",
               "cores", "memory", "version", "firmware", "template", "source_path", "disk_controller_type",
               "storage", "disk_size", "disk_controller_index", "network_adapters", "network_card", "disk_adapter_type",
               "disk_additional_size", "network_adapter_type", "configuration_parameters", "vmx_data", "vmx_data_post",
               "dynamic", "content", "variables", "builders", "variable", "source", "default", "//", "_comment"]
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(st.sampled_from(PACKER_KEYS), st.text(max_size=6)), inner, max_size=4),
    ),
    max_leaves=12,
)
BUILDERS = ["vsphere-iso", "vsphere-clone", "vmware-iso", "vmware-vmx", "docker", "", "VSPHERE-ISO"]


@st.composite
def packer_builder(draw) -> dict:
    options = draw(st.dictionaries(st.sampled_from(PACKER_KEYS), json_value, max_size=8))
    return {"type": draw(st.sampled_from(BUILDERS) | json_scalar), **options}


@st.composite
def packer_legacy(draw) -> bytes:
    doc: dict[str, Any] = {"builders": draw(st.lists(packer_builder() | json_value, max_size=3) | json_value)}
    if draw(st.booleans()):
        doc["variables"] = draw(
            st.dictionaries(st.sampled_from(["cpus", "memory", "name", "disk_mb", "x"]), json_scalar, max_size=4)
            | json_value
        )
    if draw(st.booleans()):
        doc["_comment"] = draw(st.sampled_from(["advisor: ignore NET001 -- why", "advisor: ignore", "x"]) | json_value)
    return _text(render_json(doc))


@st.composite
def packer_hcl_json(draw) -> bytes:
    sources = draw(
        st.dictionaries(
            st.sampled_from(BUILDERS),
            st.dictionaries(st.text(max_size=5), packer_builder() | json_value, max_size=2) | json_value,
            max_size=2,
        )
    )
    doc: dict[str, Any] = {"source": sources}
    if draw(st.booleans()):
        doc["variable"] = draw(st.dictionaries(st.sampled_from(["mem", "cpus", "x"]),
                                               st.fixed_dictionaries({"default": json_value}) | json_value, max_size=3))
    return _text(render_json(doc))


PACKER_JSON_SAMPLES = _samples(*(FIXTURES / "packer").glob("*.json"))
_JSON_REGRESSIONS = [
    # ValueError from json.loads / int(): a number past Python's 4300-digit limit
    b'{"source": {"vsphere-iso": {"x": {"CPUs": ' + HUGE.encode() + b"}}}}",
    b'{"builders": [{"type": "vsphere-iso", "CPUs": ' + HUGE.encode() + b"}]}",
]


@SOME
@given(st.text(max_size=300).map(_text) | st.binary(max_size=300))
def test_packer_json_arbitrary(data: bytes) -> None:
    read("fuzz.pkr.json", data)
    read("template.json", data)


@SOME
@given(mutated(PACKER_JSON_SAMPLES))
def test_packer_json_mutated_samples(data: bytes) -> None:
    read("fuzz.pkr.json", data)
    read("template.json", data)


@MANY
@given(packer_legacy() | packer_hcl_json())
@example(_JSON_REGRESSIONS[0])
@example(_JSON_REGRESSIONS[1])
def test_packer_json_structure(data: bytes) -> None:
    read("fuzz.pkr.json", data)
    read("template.json", data)


# --------------------------------------------------------------------------------------------
# HCL: Packer .pkr.hcl and Terraform .tf
# --------------------------------------------------------------------------------------------

HCL_NUMBERS = [
    "0",
    "-1",
    "2",
    "8",
    "16",
    "1024",
    "1.5",
    "1e3",
    "1e400",
    "-1e400",
    "9" * 19,
    Long("9" * 400),
    HUGE,
    "1.0e308",
    "07",
]
HCL_REFS = [
    "var.x",
    "var.cpus",
    "var.disks[0]",
    'var.m["k"]',
    "var.m.k",
    "var.x.0",
    "local.x",
    "data.a.b.id",
    "each.key",
    "count.index",
    "var.l[*].id",
    "var.x[99999999999999999999]",
]
HCL_OTHER = ['max(1, 2)', 'file("x")', "base64encode(var.x)", "var.a ? 1 : 2", "1 + 2", "[for x in var.l : x]",
             "{for k, v in var.m : k => v}", "!true", "-var.x", "(8)", "((var.x))", "true", "false", "null"]
HCL_STRINGS = ['"${var.x}"', '"a${var.y}b"', '"$${lit}"', '"%{ if true }x%{ endif }"', '"\\u00e9"', '"\\uZZZZ"',
               '"\\n"', '"%%{"', '"${"', '"pvscsi"', '"vmxnet3"', '"custom"', '"HIGH"', '"efi-secure"', '"sata"',
               '"nvme"', '"lsilogic-sas"', '"e1000e"', '"${var.m["k"]}"', '"' + "9" * 30 + '"', '"TRUE"']
HCL_HEREDOCS = ["<<EOF\nabc\nEOF", "<<-EOT\n  a\n  EOT", "<<EOF\n${var.x}\nEOF", "<<EOF\nEOF", "<<EOF\n$${x}\nEOF"]


def _hcl_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("${", "$${") + '"'


hcl_scalar = st.one_of(
    st.sampled_from(HCL_NUMBERS), st.integers(-(10**6), 10**6).map(str), st.sampled_from(HCL_REFS),
    st.sampled_from(HCL_OTHER), st.sampled_from(HCL_STRINGS), st.text(max_size=8).map(_hcl_quote),
    tokens.map(_hcl_quote),
)
hcl_key = st.one_of(st.sampled_from(["a", "b", '"numa.vcpu.preferHT"', '"disk.EnableUUID"', '"k"', "(var.k)", "1",
                                     '"${var.k}"', '"a"']), st.text(max_size=6).map(_hcl_quote))
hcl_expr = st.recursive(
    hcl_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(hcl_key, inner), max_size=3, unique_by=lambda kv: kv[0]).map(
            lambda kvs: "{\n" + "".join(f"  {k} = {v}\n" for k, v in kvs) + "}"),
    ),
    max_leaves=8,
)
hcl_attr_value = st.one_of(hcl_expr, st.sampled_from(HCL_HEREDOCS))

TF_ARGS = ["name", "num_cpus", "num_cores_per_socket", "memory", "cpu_hot_add_enabled", "memory_hot_add_enabled",
           "latency_sensitivity", "cpu_reservation", "memory_reservation", "memory_limit",
           "memory_reservation_locked_to_max", "hardware_version", "guest_id", "firmware", "nested_hv_enabled",
           "efi_secure_boot_enabled", "cpu_share_level", "cpu_share_count", "memory_share_level",
           "memory_share_count", "scsi_type", "scsi_controller_count", "sata_controller_count", "nvme_controller_count",
           "extra_config", "count", "for_each", "label", "size", "unit_number", "controller_type", "adapter_type",
           "network_id", "default", "type", "for_each"]
TF_BLOCKS = ["disk", "network_interface", "clone", "ovf_deploy", "cdrom", "customize", "lifecycle"]
PACKER_ARGS = [k for k in PACKER_KEYS if k not in ("storage", "network_adapters", "variables", "builders", "variable",
                                                   "source", "//", "_comment", "dynamic", "content")]
PACKER_BLOCKS = ["storage", "network_adapters", "content_library_destination", "export"]


@st.composite
def hcl_body(draw, args: list[str], blocks: list[str], depth: int = 0) -> str:
    lines = []
    names: set[str] = set()
    for _ in range(draw(st.integers(0, 7))):
        kind = draw(st.integers(0, 5 if depth < 2 else 2))
        if kind <= 2:
            name = draw(st.one_of(st.sampled_from(args), st.sampled_from(["x", "a-b", "_u"])))
            if name in names and not rarely(draw, 30):
                continue  # mostly unique: a repeated argument is refused before anything else is read
            names.add(name)
            lines.append(f"{name} = {draw(hcl_attr_value)}")
        elif kind == 3:
            lines.append(draw(st.sampled_from(["# advisor: ignore NET001 -- vendor", "// advisor: ignore CPU001",
                                               "# advisor: ignore", "/* advisor: ignore X -- y */", "# plain"])))
        elif kind == 4:
            inner = draw(hcl_body(args, blocks, depth + 1))
            lines.append(f"{draw(st.sampled_from(blocks))} {{\n{inner}\n}}")
        else:
            inner = draw(hcl_body(args, blocks, depth + 1))
            label = draw(st.sampled_from([*blocks, "x", ""]))
            lines.append(f'dynamic "{label}" {{\n  for_each = var.d\n  content {{\n{inner}\n  }}\n}}')
    return "\n".join(lines)


@st.composite
def hcl_variable(draw) -> str:
    name = draw(st.sampled_from(["x", "cpus", "disks", "m", "mem", "ram", "d", "k"]))
    body = f"  default = {draw(hcl_attr_value)}" if draw(st.integers(0, 3)) else "  type = number"
    return f'variable "{name}" {{\n{body}\n}}'


@st.composite
def terraform_document(draw) -> bytes:
    blocks = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 4))
        if kind <= 1:
            rtype = draw(st.sampled_from(["vsphere_virtual_machine", "vsphere_virtual_machine", "null_resource"]))
            labels = draw(st.sampled_from([f'"{rtype}" "vm"', f'"{rtype}"', f'"{rtype}" "a" "b"', f'{rtype} vm']))
            blocks.append(f"resource {labels} {{\n{draw(hcl_body(TF_ARGS, TF_BLOCKS))}\n}}")
        elif kind == 2:
            blocks.append(draw(hcl_variable()))
        elif kind == 3:
            blocks.append(f"locals {{\n{draw(hcl_body(['a', 'b'], ['x']))}\n}}")
        else:
            blocks.append(f"{draw(st.sampled_from(TF_ARGS))} = {draw(hcl_attr_value)}")
    return _text("\n\n".join(blocks) + "\n")


@st.composite
def packer_document(draw) -> bytes:
    blocks = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 3))
        if kind <= 1:
            builder = draw(st.sampled_from(BUILDERS))
            labels = draw(st.sampled_from([f'"{builder}" "vm"', f'"{builder}"', f'"{builder}" "a" "b"']))
            blocks.append(f"source {labels} {{\n{draw(hcl_body(PACKER_ARGS, PACKER_BLOCKS))}\n}}")
        elif kind == 2:
            blocks.append(draw(hcl_variable()))
        else:
            blocks.append('build {\n  sources = ["source.vsphere-iso.vm"]\n}')
    return _text("\n\n".join(blocks) + "\n")


@st.composite
def hcl_assignments(draw) -> bytes:
    names = st.sampled_from(["x", "cpus", "disks", "m", "mem", "ram", "d"])
    return _text("\n".join(f"{n} = {v}" for n, v in draw(st.lists(st.tuples(names, hcl_expr), max_size=4))) + "\n")


@st.composite
def terraform_siblings(draw) -> list[tuple[Path, bytes]]:
    siblings = []
    if draw(st.booleans()):
        siblings.append(
            (Path("variables.tf"), draw(terraform_document() | mutated([_text('variable "x" {\n default = 1\n}\n')])))
        )
    if draw(st.booleans()):
        siblings.append((Path("terraform.tfvars"), draw(hcl_assignments())))
    if draw(st.booleans()):
        siblings.append((Path("z.auto.tfvars.json"), _text(render_json(draw(json_value)))))
    if draw(st.booleans()):
        siblings.append(
            (Path("v.tf.json"), draw(st.binary(max_size=40) | st.just(b'{"variable": {"x": {"default": 4}}}')))
        )
    return siblings


@st.composite
def packer_siblings(draw) -> list[tuple[Path, bytes]]:
    siblings = []
    if draw(st.booleans()):
        siblings.append((Path("variables.pkr.hcl"), draw(packer_document())))
    if draw(st.booleans()):
        siblings.append((Path("site.auto.pkrvars.hcl"), draw(hcl_assignments() | st.binary(max_size=30))))
    return siblings


TF_SAMPLES = _samples(FIXTURES / "terraform" / "literal.tf", *(FIXTURES / "terraform" / "withvars").glob("*.tf"))
TF_JSON_SAMPLES = _samples(FIXTURES / "terraform" / "vm.tf.json")
PACKER_HCL_SAMPLES = _samples(
    FIXTURES / "packer" / "vsphere.pkr.hcl", *(FIXTURES / "packer" / "withvars").glob("*.pkr.hcl")
)
_HCL_REGRESSIONS = [
    # ValueError from int(): a number past Python's 4300-digit limit
    b'resource "vsphere_virtual_machine" "x" {\n  num_cpus = ' + HUGE.encode() + b"\n}\n",
    # ValueError from str(): a disk size that only passes the digit limit until it is multiplied
    b'resource "vsphere_virtual_machine" "x" {\n  disk {\n    size = ' + ("9" * 4300).encode() + b"\n  }\n}\n",
]


@SOME
@given(st.text(max_size=300).map(_text) | st.binary(max_size=200))
def test_packer_hcl_arbitrary(data: bytes) -> None:
    read("fuzz.pkr.hcl", data)


@SOME
@given(mutated(PACKER_HCL_SAMPLES))
def test_packer_hcl_mutated_samples(data: bytes) -> None:
    read("fuzz.pkr.hcl", data)


@MANY
@given(packer_document(), packer_siblings())
@example(b'source "vsphere-iso" "x" {\n  CPUs = ' + HUGE.encode() + b"\n}\n", [])
def test_packer_hcl_structure(data: bytes, siblings: list[tuple[Path, bytes]]) -> None:
    read("fuzz.pkr.hcl", data, siblings)


@SOME
@given(st.text(max_size=300).map(_text) | st.binary(max_size=200))
def test_terraform_arbitrary(data: bytes) -> None:
    read("main.tf", data)
    read("main.tf.json", data)


@SOME
@given(mutated(TF_SAMPLES))
def test_terraform_mutated_samples(data: bytes) -> None:
    read("main.tf", data)


@SOME
@given(mutated(TF_JSON_SAMPLES))
@example(b'{"resource": {"vsphere_virtual_machine": {"x": {"disk": {"size": ' + ("9" * 4300).encode() + b"}}}}}")
def test_terraform_json_mutated_samples(data: bytes) -> None:
    read("main.tf.json", data)


@MANY
@given(terraform_document(), terraform_siblings())
@example(_HCL_REGRESSIONS[0], [])
@example(_HCL_REGRESSIONS[1], [])
def test_terraform_structure(data: bytes, siblings: list[tuple[Path, bytes]]) -> None:
    read("main.tf", data, siblings)


@SOME
@given(
    st.dictionaries(
        st.sampled_from(["resource", "variable", "locals", "x"]),
        st.dictionaries(
            st.sampled_from(["vsphere_virtual_machine", "mem", "x"]),
            st.dictionaries(
                st.text(max_size=4),
                st.dictionaries(st.sampled_from(TF_ARGS + TF_BLOCKS + ["dynamic", "//"]), json_value, max_size=6)
                | json_value,
                max_size=2,
            )
            | json_value,
            max_size=2,
        ),
        max_size=3,
    )
    .map(render_json)
    .map(_text)
)
def test_terraform_json_structure(data: bytes) -> None:
    read("main.tf.json", data)


# --------------------------------------------------------------------------------------------
# The atheris seed corpora (fuzz/corpus/) stay valid inputs
# --------------------------------------------------------------------------------------------

SEED_NAMES = {"vmx": "seed.vmx", "ovf": "seed.ovf", "ova": "seed.ova", "packer_hcl": "seed.pkr.hcl"}
SEEDS = sorted((REPO / "fuzz" / "corpus").glob("*/*"))


@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_seed_corpus_files_read_cleanly(seed: Path, workdir: Path) -> None:
    """A seed that no longer reads would start the fuzzer off in the error paths only."""
    target, data = seed.parent.name, seed.read_bytes()
    if target == "spec":
        assert parse_spec(data, seed.name).spec.vms
    elif target == "rules":
        assert load_rule_file(seed, builtin=False)
    else:
        name = SEED_NAMES.get(target, seed.name)
        vms = read_template(Path(name), data, siblings=())
        assert vms or seed.name == "docker.json"

"""`advisor collect vcenter` and `advisor check --vcenter` against govmomi's vcsim.

tests/vcsim is a small Go program on govmomi's simulator package (pinned v0.46.0) whose cluster
hosts are shaped like the HP DL580 G7 of the SQL Server paper (4 x 10 cores, HT, 4 NUMA
nodes) and whose standalone host keeps vcsim's stock shape (2 sockets, 1 NUMA node). The tests
create the paper's VMs through the vSphere API, read them back with advisor, and compare the
findings with the same VMs written by hand.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import REPO, require_module, require_tool

sys.path.insert(0, str(REPO / "tests" / "vcsim"))
import launch

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# host -> VMs (name, vCPUs, GB, cores per socket): the DL580 G7 cases of the SQL Server paper.
PAPER = {
    "DC0_C0_H0": [("sql64", 64, 256, 1)],
    "DC0_C0_H1": [(f"sql-{i}", 8, 96, 1) for i in range(1, 10)],
    "DC0_C0_H2": [(f"sql-{i}", 8, 96, 1) for i in range(1, 9)],
    "DC0_C0_H3": [(f"sql-{i}", 32, 128, 4) for i in range(1, 4)],
    "DC0_C0_H4": [(f"sql-{i}", 32, 128, 2) for i in range(1, 4)],
}
SETTINGS_HOST = "DC0_C0_H5"
STOCK_HOST = "DC0_H0"
SECRET = "guestinfo-token-4f1c"


@pytest.fixture(scope="session")
def vcsim():
    go = launch.require_go()
    binary = launch.build(go, launch.temp_dir())
    sim = launch.start(binary, "-cluster", "1", "-host", str(len(PAPER) + 1), "-standalone-host", "1")
    try:
        _shape_estate(sim)
        yield sim
    finally:
        sim.stop()


def _shape_estate(sim: launch.Simulator) -> None:
    from pyVmomi import vim

    si = launch.connect(sim)
    hosts = launch.hosts_by_name(si)
    for host, vms in PAPER.items():
        for name, vcpus, gb, cps in vms:
            launch.create_vm(si, hosts[host], name, vcpus, gb, cores_per_socket=cps)
    host = hosts[SETTINGS_HOST]
    launch.create_vm(
        si,
        host,
        "app",
        8,
        32,
        cores_per_socket=4,
        deviceChange=launch.devices(si, host),
        cpuAffinity=vim.vm.AffinityInfo(affinitySet=[3, 0, 1, 2]),
        latencySensitivity=vim.LatencySensitivity(level="high"),
        cpuAllocation=vim.ResourceAllocationInfo(reservation=19200, limit=-1),
        memoryAllocation=vim.ResourceAllocationInfo(reservation=0, limit=65536),
        memoryReservationLockedToMax=True,
        cpuHotAddEnabled=True,
        extraConfig=[
            vim.option.OptionValue(key="numa.vcpu.preferHT", value="TRUE"),
            vim.option.OptionValue(key="guestinfo.token", value=SECRET),
        ],
    )
    launch.create_vm(si, host, "web/01", 2, 4)  # the API reads it back as "web%2f01"
    launch.create_vm(si, host, "parked", 4, 8, power_on=False)
    # Boot disks (advisor.model.bootdisk): one disk on LSI SAS, Windows' default controller, and
    # two disks whose boot order names the second (PVSCSI), leaving the LSI SAS one a data disk.
    launch.create_vm(si, host, "boot-lsisas", 2, 4, deviceChange=launch.disks([("VirtualLsiLogicSASController", 0, 0)]))
    launch.create_vm(si, host, "boot-second", 2, 4,
                     deviceChange=launch.disks([("VirtualLsiLogicSASController", 0, 0),
                                                ("ParaVirtualSCSIController", 1, 0)]),
                     bootOptions=vim.vm.BootOptions(bootOrder=[
                         vim.vm.BootOptions.BootableDiskDevice(deviceKey=1101)]))
    launch.create_vm(si, hosts[STOCK_HOST], "small", 2, 4)


@pytest.fixture(autouse=True)
def no_govc_environment(monkeypatch):
    """govc's variables of whoever runs the tests stay out (advisor reads them: advisor.vcenter.govc)."""
    for key in ("GOVC_URL", "GOVC_USERNAME", "GOVC_PASSWORD", "GOVC_INSECURE", "GOVC_TLS_CA_CERTS"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def login(vcsim, monkeypatch):
    monkeypatch.setenv("ADVISOR_VCENTER_PASSWORD", launch.PASSWORD)
    return ["--user", launch.USER, "--ca-file", vcsim.cert]


def collect(cli, vcsim, login, out: Path, *extra: str):
    return cli("collect", "vcenter", "--server", vcsim.server, *login, "-o", out, *extra)


def check_json(cli, *args: object) -> dict:
    result = cli("check", *args, "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    return json.loads(result.out)


def summary(doc: dict) -> tuple:
    findings = sorted((f["rule"], f["vm"], f["severity"]) for f in doc["findings"])
    topology = sorted((vm["name"], json.dumps(vm["topology"], sort_keys=True)) for vm in doc["vms"])
    return findings, topology


def hand_written(vms: list[tuple[str, int, int, int]]) -> str:
    lines = [
        f"  - {{name: {n}, vcpus: {v}, memory: {gb}GB, cores_per_socket: {c}, hardware_version: 10,"
        f" guest_os: windows9Server64Guest}}"
        for n, v, gb, c in vms
    ]
    return "host: hp-dl580-g7\nvms:\n" + "\n".join(lines) + "\n"


def test_paper_estate_gives_the_findings_of_the_hand_written_specs(cli, vcsim, login, tmp_path):
    result = collect(cli, vcsim, login, tmp_path / "specs")
    assert result.code == 0, result.err
    for host, vms in PAPER.items():
        collected = tmp_path / "specs" / f"{host}.yaml"
        written = tmp_path / f"{host}-by-hand.yaml"
        written.write_text(hand_written(vms))
        got, want = check_json(cli, collected), check_json(cli, written)
        assert summary(got) == summary(want), host
        assert got["findings"] or host == "DC0_C0_H2", host  # the paper's 8 x 8 packing is the clean one
    rules = {f["rule"] for f in check_json(cli, tmp_path / "specs" / "DC0_C0_H3.yaml")["findings"]}
    assert "NUMA002" in rules  # cores per socket 4 splits the 32-vCPU VMs into small vNUMA nodes


def test_host_shape_is_read_from_the_api(cli, vcsim, login, tmp_path):
    import yaml

    assert collect(cli, vcsim, login, tmp_path).code == 0
    doc = yaml.safe_load((tmp_path / "DC0_C0_H0.yaml").read_text())
    host = doc["host"]
    # the cluster's five other hosts, all of one kind (the standalone host is in no cluster)
    assert [(peer["host"]["name"], peer["host"]["sockets"], peer["count"]) for peer in doc["cluster"]] == [
        ("DC0_C0_H1", 4, 5)]
    assert (host["sockets"], host["cores_per_socket"], host["threads_per_core"], host["numa_nodes_per_socket"]) == (
        4,
        10,
        2,
        1,
    )
    assert (host["memory"], host["core_mhz"], host["esxi"], host["power_policy"]) == (
        "1TB",
        2400,
        "5.5",
        "high-performance",
    )
    assert "cluster DC0_C0" in host["description"] and "build-1623387" in host["description"]


def test_host_with_fewer_numa_nodes_than_sockets_is_reported_not_written(cli, vcsim, login, tmp_path):
    result = collect(cli, vcsim, login, tmp_path)
    assert result.code == 0
    assert not (tmp_path / f"{STOCK_HOST}.yaml").exists()
    lines = [line for line in result.err.splitlines() if STOCK_HOST in line]
    assert len(lines) == 1 and "1 NUMA node for 2 sockets" in lines[0] and "not checked" in lines[0]


def test_vm_settings_and_devices_are_mapped(cli, vcsim, login, tmp_path):
    import yaml

    assert collect(cli, vcsim, login, tmp_path, "--host", SETTINGS_HOST).code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".advisor-collect.json", f"{SETTINGS_HOST}.yaml"]
    text = (tmp_path / f"{SETTINGS_HOST}.yaml").read_text()
    vms = {vm["name"]: vm for vm in yaml.safe_load(text)["vms"]}
    assert set(vms) == {"app", "web/01", "boot-lsisas", "boot-second"}  # the powered-off VM places no load
    app = vms["app"]
    assert (app["vcpus"], app["cores_per_socket"], app["memory"], app["hardware_version"]) == (8, 4, "32GB", 10)
    assert (app["latency_sensitivity"], app["cpu_reservation"], app["memory_reservation"]) == ("high", 19200, "full")
    assert app["cpu_hot_add"] is True and app["cpu_affinity"] == "0,1,2,3"
    assert app["disks"] == [
        {"controller": "lsilogic", "bus": 0, "size": "100GB", "role": "os"},
        {"controller": "pvscsi", "bus": 1, "size": "1TB"},
    ]
    assert [n["adapter"] for n in app["nics"]] == ["e1000", "vmxnet3"]
    assert app["advanced"]["numa.vcpu.preferHT"] == "TRUE" and app["advanced"]["sched.mem.max"] == "65536"
    assert SECRET not in text and "guestinfo" not in text
    assert launch.PASSWORD not in text


def test_the_boot_disk_is_the_one_the_boot_order_names_else_an_assumption_said(cli, vcsim, login, tmp_path):
    import yaml

    assert collect(cli, vcsim, login, tmp_path, "--host", SETTINGS_HOST).code == 0
    spec = tmp_path / f"{SETTINGS_HOST}.yaml"
    text = spec.read_text()
    vms = {vm["name"]: vm for vm in yaml.safe_load(text)["vms"]}
    assert vms["boot-lsisas"]["disks"] == [{"controller": "lsisas", "bus": 0, "size": "10GB", "role": "os"}]
    assert vms["boot-second"]["disks"] == [{"controller": "lsisas", "bus": 0, "size": "10GB"},
                                           {"controller": "pvscsi", "bus": 1, "size": "10GB", "role": "os"}]
    # the assumption is written beside the spec for the VMs whose boot order names no disk
    noted = [line for line in text.splitlines() if line.startswith("#") and "boot disk" in line]
    assert noted == [f"# Note: VM {n}: boot disk not stated (no disk in the boot order): scsi0:0, the first disk "
                     "by controller bus and unit, is assumed to be the boot disk" for n in ("app", "boot-lsisas")]
    sto001 = {f["vm"] for f in check_json(cli, spec)["findings"] if f["rule"] == "STO001"}
    assert sto001 == {"boot-second"}  # its LSI SAS disk is a data disk; the others' are boot disks
    live = cli("check", "--vcenter", vcsim.server, *login, "--host", SETTINGS_HOST, "--format", "json",
               "--fail-on", "never")
    assert live.code == 0, live.err
    doc = json.loads(live.out)
    assert {f["vm"] for f in doc["findings"] if f["rule"] == "STO001"} == {"boot-second"}


def test_check_vcenter_writes_every_format(cli, vcsim, login, tmp_path):
    files = {fmt: tmp_path / f"report.{fmt}" for fmt in ("json", "sarif", "junit", "markdown", "github", "text")}
    args = [a for fmt, path in files.items() for a in ("--format", fmt, "--output", path)]
    result = cli("check", "--vcenter", vcsim.server, *login, "--host", "DC0_C0_H[01]", *args, "--fail-on", "never")
    assert result.code == 0, result.err
    doc = json.loads(files["json"].read_text())
    assert {vm["name"] for vm in doc["vms"]} == {"sql64"} | {f"sql-{i}" for i in range(1, 10)}
    assert "NUMA001" in {f["rule"] for f in doc["findings"]}
    # each finding points at what exists in vCenter (vcenter SERVER/cluster/host[/vm]), not at a file
    places = {f"vcenter {vcsim.server}/DC0_C0/{h}" for h in ("DC0_C0_H0", "DC0_C0_H1")}
    places |= {f"vcenter {vcsim.server}/DC0_C0/{h}/{n}" for h in ("DC0_C0_H0", "DC0_C0_H1") for n, *_ in PAPER[h]}
    assert {f["file"] for f in doc["findings"]} <= places
    assert f"vcenter {vcsim.server}/DC0_C0/DC0_C0_H0/sql64" in {f["file"] for f in doc["findings"]}
    assert all(f["line"] is None for f in doc["findings"])
    json.loads(files["sarif"].read_text())
    for path in files.values():
        assert "DC0_C0_H0" in path.read_text() and launch.PASSWORD not in path.read_text()
    # a live estate's text report: a line per finding, not per VM, and one vCenter is one source
    text = files["text"].read_text().splitlines()
    assert not [line for line in text if ": vm " in line and "→" in line]
    assert text[-2] == "each VM's predicted vNUMA layout: --format table lists them, -v prints them here"
    assert text[-1].endswith(" in 1 vCenter (2 hosts, 10 VMs)"), text[-1]
    assert "in 1 vCenter (2 hosts, 10 VMs)" in files["markdown"].read_text()
    # one step gives what collect-then-check gives
    assert collect(cli, vcsim, login, tmp_path / "specs", "--host", "DC0_C0_H[01]").code == 0
    two_step = check_json(cli, *sorted((tmp_path / "specs").glob("*.yaml")))
    assert summary(doc)[0] == summary(two_step)[0]


def test_reading_takes_a_fixed_number_of_calls_whatever_the_vm_count(vcsim):
    from advisor.vcenter.collect import read_inventory
    from advisor.vcenter.session import connect

    session = connect(vcsim.server, launch.USER, launch.PASSWORD, ca_file=vcsim.cert)
    try:
        before = session.total_calls()
        inventory = read_inventory(session, page=1000)
        whole = session.total_calls() - before
        before = session.total_calls()
        paged = read_inventory(session, page=5)
        paged_calls = session.total_calls() - before
    finally:
        session.close()
    objects = len(inventory.hosts) + len(inventory.clusters) + len(inventory.folders) + len(inventory.vms)
    assert len(inventory.vms) == sum(map(len, PAPER.values())) + 6
    # CreateContainerView, RetrievePropertiesEx, DestroyView, and the custom attributes' names
    assert whole == 4, session.calls
    assert paged_calls == 3 + -(-objects // 5)  # one page per 5 objects
    assert len(paged.vms) == len(inventory.vms)


@pytest.mark.parametrize(
    "case", ["wrong-password", "unreachable", "no-privilege", "no-view", "untrusted-tls", "no-such-host"]
)
def test_connection_problems_are_one_line_exit_2(cli, vcsim, monkeypatch, tmp_path, case):
    import socket

    monkeypatch.setenv("ADVISOR_VCENTER_PASSWORD", "not-the-password" if case == "wrong-password" else launch.PASSWORD)
    server, user, extra = vcsim.server, launch.USER, ["--ca-file", vcsim.cert]
    if case == "unreachable":
        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            server = f"127.0.0.1:{s.getsockname()[1]}"
    elif case == "no-privilege":
        user = "noaccess"
    elif case == "no-view":
        user = "noview"
    elif case == "untrusted-tls":
        extra = []
    elif case == "no-such-host":
        server = "vcenter.invalid"
    result = cli(
        "collect", "vcenter", "--server", server, "--user", user, *extra, "-o", tmp_path / "out", "--timeout", "5"
    )
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"advisor: vcenter {server}"), result.err
    assert "Traceback" not in result.err and launch.PASSWORD not in result.err + result.out
    assert not (tmp_path / "out").exists()
    expected = {
        "wrong-password": "wrong user name or password",
        "unreachable": "cannot reach the server",
        "no-privilege": "lacks the privilege System.View and System.Read",
        "no-view": "lacks the privilege System.View",
        "untrusted-tls": "not trusted",
        "no-such-host": "cannot reach the server",
    }[case]
    assert expected in lines[0]


def test_password_from_stdin_and_insecure(cli, vcsim, monkeypatch, tmp_path):
    import io

    monkeypatch.delenv("ADVISOR_VCENTER_PASSWORD", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(launch.PASSWORD + "\n"))
    result = cli(
        "collect",
        "vcenter",
        "--server",
        vcsim.server,
        "--user",
        launch.USER,
        "--password-stdin",
        "--insecure",
        "--vm",
        "sql64",
        "-o",
        tmp_path,
    )
    assert result.code == 0, result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == [".advisor-collect.json", "DC0_C0_H0.yaml"]


def test_govc_environment_is_enough_to_log_in(cli, vcsim, monkeypatch, tmp_path):
    """A shell set up for govc runs advisor as it is: GOVC_URL with user info (or GOVC_USERNAME and
    GOVC_PASSWORD), GOVC_TLS_CA_CERTS or GOVC_INSECURE; advisor's own options and variables come first."""
    from urllib.parse import quote

    monkeypatch.delenv("ADVISOR_VCENTER_PASSWORD", raising=False)
    monkeypatch.setenv("GOVC_URL", f"https://{launch.USER}:{quote(launch.PASSWORD, safe='')}@{vcsim.server}/sdk")
    monkeypatch.setenv("GOVC_TLS_CA_CERTS", vcsim.cert)
    result = cli("collect", "vcenter", "--vm", "sql64", "-o", tmp_path / "a")  # no --server, --user, password
    assert result.code == 0, result.err
    assert launch.PASSWORD not in result.out + result.err + (tmp_path / "a" / "DC0_C0_H0.yaml").read_text()
    index = json.loads((tmp_path / "a" / ".advisor-collect.json").read_text())
    assert launch.PASSWORD not in json.dumps(index)
    assert index["instance"] and len(index["uuids"]["DC0_C0_H0.yaml"]["sql64"]) == 36  # the VM's instance UUID
    # GOVC_USERNAME / GOVC_PASSWORD override the URL's; GOVC_INSECURE=1 stands for --insecure
    monkeypatch.setenv("GOVC_URL", vcsim.server)
    monkeypatch.setenv("GOVC_USERNAME", launch.USER)
    monkeypatch.setenv("GOVC_PASSWORD", launch.PASSWORD)
    monkeypatch.delenv("GOVC_TLS_CA_CERTS")
    result = cli("collect", "vcenter", "--vm", "sql64", "-o", tmp_path / "b")
    assert result.code == 2 and "not trusted" in result.err  # the system's trust store knows no vcsim
    monkeypatch.setenv("GOVC_INSECURE", "1")
    assert cli("collect", "vcenter", "--vm", "sql64", "-o", tmp_path / "b").code == 0
    # `check --vcenter` without a server checks GOVC_URL's, as `collect vcenter` without --server reads it
    doc = check_json(cli, "--vcenter", "--vm", "sql64")
    assert {(f["rule"], f["file"]) for f in doc["findings"] if f["vm"] == "sql64"} >= {
        ("NUMA001", f"vcenter {vcsim.server}/DC0_C0/DC0_C0_H0/sql64")}
    monkeypatch.setenv("ADVISOR_VCENTER_PASSWORD", "not-the-password")  # advisor's own variable first
    result = cli("check", "--vcenter", vcsim.server, "--vm", "sql64")
    assert result.code == 2 and "wrong user name or password" in result.err
    assert launch.PASSWORD not in result.out + result.err


def test_two_vcenters_in_one_run_stay_apart(cli, vcsim, login, tmp_path):
    """Equal cluster, host and VM names in two vCenters: each finding says which vCenter; the same
    vCenter given twice (equal instance UUID) is refused in one line."""
    other = launch.start(Path(vcsim.process.args[0]), "-cluster", "1", "-host", "1", "-standalone-host", "0",
                         "-instance-uuid", "5a1e0000-0000-4000-8000-000000000002")
    try:
        si = launch.connect(other)
        launch.create_vm(si, launch.hosts_by_name(si)["DC0_C0_H0"], "sql64", 64, 256)
        doc = check_json(cli, "--vcenter", vcsim.server, "--vcenter", other.server, *login[:2], "--ca-file",
                         vcsim.cert, "--host", "DC0_C0_H0")
        verbose = cli("check", "--vcenter", vcsim.server, "--vcenter", other.server, *login[:2], "--ca-file",
                      vcsim.cert, "--host", "DC0_C0_H0", "-v", "--fail-on", "never")
    finally:
        other.stop()
    assert sorted((vm["name"], vm["file"]) for vm in doc["vms"]) == sorted(
        ("sql64", f"vcenter {s}/DC0_C0/DC0_C0_H0") for s in (vcsim.server, other.server))
    places = {f["file"] for f in doc["findings"] if f["rule"] == "NUMA001"}
    assert places == {f"vcenter {s}/DC0_C0/DC0_C0_H0/sql64" for s in (vcsim.server, other.server)}
    # two vCenters are two sources; -v prints each VM's topology, as a spec file's report does by default
    lines = verbose.out.splitlines()
    assert verbose.code == 0 and lines[-1].endswith(" in 2 vCenters (2 hosts, 2 VMs)"), verbose.out
    assert sorted(line.split(": vm ")[0] for line in lines if ": vm sql64 on DC0_C0_H0: 64 vCPU → " in line) == [
        f"vcenter {s}/DC0_C0/DC0_C0_H0" for s in sorted((vcsim.server, other.server))]
    assert "-v prints them here" not in verbose.out
    result = cli("check", "--vcenter", vcsim.server, "--vcenter", f"localhost:{vcsim.server.split(':')[1]}",
                 *login, "--insecure")
    lines = result.err.strip().splitlines()
    assert result.code == 2 and len(lines) == 1 and "is the same vCenter as" in lines[0], result.err


def test_vcenter_without_a_server_takes_govc_urls(cli, monkeypatch, tmp_path):
    """`check --vcenter` alone (and `collect vcenter` without --server) reads the server from
    GOVC_URL; with no GOVC_URL either, one usage line, exit 2, before anything is asked or read."""
    for args in (("check", "--vcenter"), ("check", "--vcenter", "--format", "json"),
                 ("collect", "vcenter", "-o", tmp_path / "out")):
        result = cli(*args)
        assert result.code == 2 and "no server given, and $GOVC_URL names none" in result.err, args
    monkeypatch.setenv("GOVC_URL", "127.0.0.1:9")  # a port nothing listens on: refused at once
    monkeypatch.setenv("ADVISOR_VCENTER_PASSWORD", "x")
    result = cli("check", "--vcenter", "--user", "u", "--timeout", "5")
    assert result.code == 2 and "vcenter 127.0.0.1:9: cannot reach the server" in result.err, result.err
    assert not (tmp_path / "out").exists()


def test_no_password_is_a_usage_error(cli, monkeypatch, tmp_path):
    monkeypatch.delenv("ADVISOR_VCENTER_PASSWORD", raising=False)
    result = cli("collect", "vcenter", "--server", "127.0.0.1:9", "--user", "u", "-o", tmp_path)
    assert result.code == 2 and "ADVISOR_VCENTER_PASSWORD" in result.err


def test_missing_pyvmomi_is_one_clear_line(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("ADVISOR_VCENTER_PASSWORD", "x")
    monkeypatch.setitem(sys.modules, "pyVmomi", None)  # import pyVmomi now raises ImportError
    result = cli("check", "--vcenter", "127.0.0.1:9", "--user", "u")
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        "advisor: <input>: --vcenter: reading a vCenter needs pyVmomi, which is not installed: "
        "pip install 'vsphere-advisor[vcenter]'"
    ]


# -- a bounded session against hostile servers (issue 39) ----------------------------------
# Each server runs on 127.0.0.1 in a thread of the test. advisor runs in a child process; the
# assertions are about advisor's own bounds (it reports its deadline or the answer's size, its
# peak memory from the child's rusage), never the elapsed time. HANG_GUARD only tells a hang.

HANG_GUARD = 120


class _Server:
    """A listening socket on 127.0.0.1 whose connections `serve(conn, stop)` handles."""

    def __init__(self, serve, accept: bool = True) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.sent = 0
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._run, args=(serve, accept), daemon=True)
        self.thread.start()

    def _run(self, serve, accept: bool) -> None:
        if not accept:  # a tarpit: the kernel completes the handshake, nobody ever reads
            self.stop.wait()
            return
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.conns.append(conn)
            threading.Thread(target=self._serve, args=(serve, conn), daemon=True).start()

    def _serve(self, serve, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):  # the client hung up
            serve(self, conn)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for conn in self.conns:
            conn.close()
        self.sock.close()


def _silent(server: _Server, conn: socket.socket) -> None:
    conn.recv(65536)  # the ClientHello, never answered
    server.stop.wait()


def _drip(server: _Server, conn: socket.socket) -> None:
    """A TLS record header announcing 16 KB, then one byte every 0.2 s: every receive gets
    something, so only a deadline over the whole read can end it."""
    conn.recv(65536)
    conn.sendall(b"\x16\x03\x03\x40\x00")
    while not server.stop.is_set():
        conn.sendall(b"\x00")
        server.sent += 1
        time.sleep(0.2)


# A child's peak resident size counts what it held before exec: forked from a pytest worker
# grown to hundreds of MB, advisor would be charged for the worker. A small launcher forks it
# instead and reports the peak of advisor alone (KiB) on its last line of standard error.
_LAUNCH = ("import os, sys\npid = os.fork()\nif pid == 0:\n    os.execv(sys.argv[1], sys.argv[1:])\n"
           "_, status, usage = os.wait4(pid, 0)\nsys.stderr.write(f'\\n{usage.ru_maxrss}\\n')\n"
           "sys.exit(os.waitstatus_to_exitcode(status))\n")


def _advisor(server: _Server, tmp_path: Path, *extra: str) -> tuple[int, str, float]:
    """`collect vcenter` against `server`: exit code, standard error, peak memory in MiB."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "ADVISOR_VCENTER_PASSWORD": "p", "NO_COLOR": "1"}
    result = subprocess.run([sys.executable, "-c", _LAUNCH, sys.executable, "-m", "advisor", "collect", "vcenter",
                             "--server", f"127.0.0.1:{server.port}", "--user", "u", "--insecure", "-o",
                             str(tmp_path / "out"), *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env, timeout=HANG_GUARD, text=True)
    err, _, peak = result.stderr.rstrip("\n").rpartition("\n")
    return result.returncode, err.rstrip("\n") + "\n", int(peak) / 1024


@pytest.mark.parametrize("case", ["tcp tarpit", "tls tarpit"])
def test_a_silent_server_ends_at_the_timeout(tmp_path, case):
    require_module("pyVmomi", "pip install -e '.[vcenter]'")
    server = _Server(_silent, accept=case != "tcp tarpit")
    try:
        code, err, _ = _advisor(server, tmp_path, "--timeout", "1", "--deadline", "600")
    finally:
        server.close()
    assert code == 2 and err.count("\n") == 1, err
    assert "no answer (timed out)" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_slow_drip_ends_at_the_deadline(tmp_path):
    require_module("pyVmomi", "pip install -e '.[vcenter]'")
    server = _Server(_drip)
    try:
        code, err, _ = _advisor(server, tmp_path, "--timeout", "5", "--deadline", "2")
    finally:
        server.close()
    assert code == 2 and "no complete answer within 2 s (--deadline)" in err, err
    assert server.sent >= 1  # it did drip: each receive got a byte before --timeout
    assert not (tmp_path / "out").exists()


def _certificate(tmp_path: Path) -> tuple[Path, Path]:
    openssl = require_tool("openssl (a certificate for the test's TLS server)", shutil.which("openssl"),
                           "apt-get install openssl")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-days", "1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return key, cert


@pytest.mark.parametrize("encoding", ["identity", "gzip"])
def test_an_endless_answer_is_cut_at_its_bound(tmp_path, encoding):
    """A TLS server answering every request with XML that never ends (or compressed, which
    advisor never asks for): advisor stops at its bound on the answer, memory stays small."""
    import ssl

    require_module("pyVmomi", "pip install -e '.[vcenter]'")
    from advisor.vcenter.transport import MAX_GET_BYTES

    key, cert = _certificate(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    def endless(server: _Server, conn: socket.socket) -> None:
        with context.wrap_socket(conn, server_side=True) as tls:
            tls.recv(65536)
            tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Encoding: " + encoding.encode()
                        + b"\r\nConnection: close\r\n\r\n<namespaces version='1.0'>")
            chunk = b"<namespace><version>8.0</version></namespace>" * 1000
            while not server.stop.is_set() and server.sent < 64 * MAX_GET_BYTES:
                tls.sendall(chunk)
                server.sent += len(chunk)

    server = _Server(endless)
    try:
        code, err, peak = _advisor(server, tmp_path, "--timeout", "10", "--deadline", "600")
    finally:
        server.close()
    assert code == 2 and "does not answer as a vSphere API endpoint" in err, err
    assert ("longer than 1 MiB" if encoding == "identity" else "gzip-compressed") in err
    assert peak < 300, f"peak memory {peak:.0f} MiB"  # the answer was cut, not kept
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("server", ["[", "vc\x1b]0;x\x07", "vc one", "vc:99999", "[zz]:443", "-" * 300])
def test_a_bad_server_value_is_one_line_exit_2(cli, tmp_path, server):
    result = cli("collect", "vcenter", "--server", server, "--user", "u", "-o", tmp_path / "out")
    assert result.code == 2 and result.err.count("\n") == 1, result.err
    assert "\x1b" not in result.err and "internal error" not in result.err


def test_password_stdin_reads_a_bounded_line(tmp_path):
    """`--password-stdin < /dev/zero` read without end (exit 3, MemoryError)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    with open("/dev/zero", "rb") as zero:
        result = subprocess.run([sys.executable, "-m", "advisor", "collect", "vcenter", "--server", "127.0.0.1:9",
                                 "--user", "u", "--password-stdin", "-o", tmp_path / "out"], stdin=zero,
                                capture_output=True, text=True, env=env, timeout=HANG_GUARD)
    assert result.returncode == 2 and "longer than 4,096 characters" in result.stderr, result.stderr

"""One set of conventions across commands (issue 34, item 5): -o/--output wherever output can go
to a file, check DIR walking specs as lint DIR walks templates, a command naming the one that
reads a file it cannot, addresses never broken across lines, the terminal's width followed,
shell completion, and a progress bar only on a terminal outside CI. A test per convention, over
every command where it applies."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

SPEC = REPO / "examples" / "sql-server-64vcpu.yaml"
VMX = 'numvcpus = "4"\nmemsize = "8192"\nguestOS = "windows2019srv-64"\nethernet0.present = "TRUE"\n' \
      'ethernet0.virtualDev = "e1000"\n'


def _commands() -> dict[str, object]:
    import click

    from advisor.cli import COMMANDS, group

    ctx = click.Context(group)
    return {name: group.get_command(ctx, name) for name in COMMANDS}


# Every command whose output can go to a file, with arguments that make it print something.
# (collect writes a folder of specs: its -o is --output-dir; init writes its two files.)
PRINTING = ("check", "lint", "vmx", "fix", "size", "topology", "hosts", "rules", "explain", "schema", "verify",
            "diff")


def _printing(tmp: Path) -> dict[str, list[str]]:
    vmx = tmp / "web.vmx"
    vmx.write_text(VMX)
    return {
        "check": [str(SPEC), "--fail-on", "never"],
        "lint": [str(vmx), "--fail-on", "never"],
        "vmx": [str(SPEC), "--as", "terraform"],
        "fix": [str(vmx)],
        "size": ["--host", "hp-dl580-g7", "--workload", "sql-server"],
        "topology": [str(SPEC)],
        "hosts": [],
        "rules": [],
        "explain": ["NUMA001"],
        "schema": [],
        "verify": [str(REPO / "examples" / "verify" / "memory-wide-vm"),
                   str(REPO / "examples" / "verify" / "sched-stats.txt"),
                   "--host", str(REPO / "examples" / "verify" / "lab-2x20.yaml")],
        "diff": [str(REPO / "examples" / "rvtools"), str(REPO / "examples" / "rvtools")],
    }


def test_every_command_that_prints_a_document_takes_o_and_output():
    commands = _commands()
    printing = set(PRINTING)
    assert printing | {"collect", "init"} == set(commands), "a new command: say whether its output can go to a file"
    for name in printing:
        options = {opt for param in commands[name].params for opt in getattr(param, "opts", ())}  # type: ignore[attr-defined]
        assert {"-o", "--output"} <= options, name


@pytest.mark.parametrize("name", PRINTING)
def test_o_writes_what_standard_output_would_show(cli, tmp_path: Path, name: str, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    args = _printing(tmp_path)[name]
    assert set(_printing(tmp_path)) == set(PRINTING)
    shown = cli(name, *args)
    target = tmp_path / "out.txt"
    written = cli(name, *args, "-o", target)
    assert written.code == shown.code, (written.err, shown.err)
    assert written.out == "", written.out
    assert target.read_text(encoding="utf-8") == shown.out
    assert shown.out.strip()


@pytest.mark.parametrize("name", ["topology", "vmx", "check"])
def test_o_refuses_to_overwrite_an_input(cli, tmp_path: Path, name: str):
    spec = tmp_path / "vm.yaml"
    spec.write_bytes(SPEC.read_bytes())
    result = cli(name, spec, "-o", spec, *(["--format", "json"] if name == "check" else []))
    assert result.code == 2 and "input" in result.err, result.err
    assert spec.read_bytes() == SPEC.read_bytes()


def _git_folder(tmp_path: Path) -> Path:
    root = tmp_path / "estate"
    (root / "sub").mkdir(parents=True)
    (root / "ignored").mkdir()
    (root / "vendor").mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("ignored/\n")
    spec = SPEC.read_text()
    for place in ("a.yaml", "sub/b.yml", "ignored/c.yaml", "vendor/d.yaml"):
        (root / place).write_text(spec)
    (root / "host.yaml").write_text((REPO / "hosts" / "hp-dl580-g7.yaml").read_text())  # not a spec: not walked
    (root / "compose.yaml").write_text("services:\n  web: {image: nginx}\n")  # other YAML: not walked
    for place in ("a.vmx", "sub/b.vmx", "ignored/c.vmx", "vendor/d.vmx"):
        (root / place).write_text(VMX)
    return root


def _stems(root: Path, files: list[str]) -> list[str]:
    return sorted(Path(f).relative_to(root).with_suffix("").as_posix() for f in files)


def test_check_walks_a_folder_for_specs_as_lint_walks_it_for_templates(cli, tmp_path: Path):
    import json

    root = _git_folder(tmp_path)
    found = {}
    for name in ("check", "lint"):
        result = cli(name, root, "--exclude", "vendor/", "--format", "json", "--fail-on", "never")
        assert result.code == 0, result.err
        found[name] = _stems(root, json.loads(result.out)["files"])
    assert found["check"] == found["lint"] == ["a", "sub/b"]
    (root / ".advisor.yaml").write_text('exclude: ["sub/"]\n')  # the configuration's exclude: too
    for name in ("check", "lint"):
        result = cli(name, root, "--no-respect-gitignore", "--format", "json", "--fail-on", "never")
        assert result.code == 0, result.err
        found[name] = _stems(root, json.loads(result.out)["files"])
    assert found["check"] == found["lint"] == ["a", "ignored/c", "vendor/d"]


def test_check_of_a_folder_without_specs_says_so(cli, tmp_path: Path):
    result = cli("check", tmp_path)
    assert result.code == 2 and "no spec files found" in result.err


@pytest.mark.parametrize(("command", "given", "says"), [
    ("lint", "spec", "use `advisor check"),
    ("fix", "spec", "use `advisor check"),
    ("check", "vmx", "use `advisor lint"),
    ("topology", "vmx", "use `advisor lint"),
    ("vmx", "vmx", "use `advisor lint"),
    ("check", "tf", "use `advisor lint"),
    ("check", "host", "give it to --host"),
    ("lint", "host", "give it to --host"),
])
def test_a_command_names_the_command_that_reads_a_file_it_cannot(cli, tmp_path: Path, command: str, given: str,
                                                                 says: str):
    files = {"spec": ("vm.yaml", SPEC.read_text()), "vmx": ("web.vmx", VMX),
             "tf": ("main.tf", 'resource "vsphere_virtual_machine" "w" {\n  num_cpus = 2\n}\n'),
             "host": ("lab.yaml", (REPO / "hosts" / "hp-dl580-g7.yaml").read_text())}
    name, text = files[given]
    path = tmp_path / name
    path.write_text(text)
    result = cli(command, path)
    assert result.code == 2, result.err
    assert says in result.err and result.err.count("\n") == 1, result.err


_ADDRESS = re.compile(r"<?https?://\S+")


@pytest.mark.parametrize("args", [
    ["size", "--host", "hp-dl580-g7", "--workload", "sql-server"],
    ["size", "--host", "amd-epyc-9654-2s-nps4", "--workload", "hpc"],
    ["explain", "NUMA001"],
    ["explain", "SQL001"],
])
def test_addresses_are_never_broken_across_lines(cli, monkeypatch, args: list[str]):
    monkeypatch.setenv("COLUMNS", "60")
    result = cli(*args)
    assert result.code in (0, 1), result.err
    addresses = [m.group().strip("<>(),;.") for m in _ADDRESS.finditer(result.out)]
    assert addresses
    for address in addresses:
        # a broken one ends where the line did, without its document's ending
        assert re.search(r"(\.(pdf|html?|txt)|/[\w.#-]*)$|[\w)]$", address), address
    for line in result.out.splitlines():
        if "://" in line and line.rstrip().endswith(("/", "-", "_")):
            pytest.fail(f"an address ends a line mid-way: {line!r}")


@pytest.mark.parametrize("args", [
    ["hosts"], ["hosts", "--sources"], ["rules"], ["size", "--host", "hp-dl580-g7", "--workload", "sql-server"],
    ["topology", str(SPEC)],
])  # check's and lint's text reports put a finding on one line, as ruff does (their own tests)
def test_every_command_follows_the_terminal_width(cli, monkeypatch, args: list[str]):
    widths = {}
    for columns in (60, 160):
        monkeypatch.setenv("COLUMNS", str(columns))
        result = cli(*args)
        assert result.code in (0, 1), result.err
        lines = [line for line in result.out.splitlines() if "://" not in line]
        widths[columns] = max(len(line) for line in lines)
        assert widths[columns] <= columns, (columns, max(lines, key=len))
    assert widths[160] > 60  # the wide terminal is used, not a fixed width


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_shell_completion_works_as_documented(shell: str):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"_ADVISOR_COMPLETE={shell}_source advisor" in readme
    env = {**os.environ, "_ADVISOR_COMPLETE": f"{shell}_source"}
    script = subprocess.run([sys.executable, "-m", "advisor"], capture_output=True, text=True, env=env, timeout=60)
    assert script.returncode == 0 and "_advisor_completion" in script.stdout.replace("-", "_"), script.stderr
    env = {**os.environ, "_ADVISOR_COMPLETE": "bash_complete", "COMP_WORDS": "advisor sc", "COMP_CWORD": "1"}
    words = subprocess.run([sys.executable, "-m", "advisor"], capture_output=True, text=True, env=env, timeout=60)
    assert "schema" in words.stdout


def _lint_many(tmp_path: Path, env: dict[str, str], tty: bool) -> str:
    """stderr of a lint of 25 templates, with stderr a pseudo-terminal or a pipe."""
    import pty

    folder = tmp_path / "many"
    folder.mkdir(exist_ok=True)
    for index in range(25):
        (folder / f"vm{index}.vmx").write_text(VMX)
    command = [sys.executable, "-m", "advisor", "lint", str(folder), "--fail-on", "never", "-o",
               str(tmp_path / "report.txt")]
    full_env = {"PATH": os.environ["PATH"], "ADVISOR_CACHE_DIR": os.environ["ADVISOR_CACHE_DIR"], "TERM": "xterm",
                **env}
    if not tty:
        return subprocess.run(command, capture_output=True, text=True, env=full_env, timeout=120).stderr
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=follower, env=full_env)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=120)
    finally:
        os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_a_long_lint_draws_progress_on_a_terminal_only_outside_ci(tmp_path: Path):
    assert "linting" in _lint_many(tmp_path, {}, tty=True)
    assert "linting" not in _lint_many(tmp_path, {"CI": "true"}, tty=True)
    assert "linting" not in _lint_many(tmp_path, {}, tty=False)


def test_the_progress_helper_is_silent_without_a_terminal(monkeypatch, capsys):
    from advisor.commands.progress import progress, wanted

    monkeypatch.delenv("CI", raising=False)
    assert not wanted()  # pytest's captured stderr is no terminal
    with progress("reading", 10) as advance:
        advance(5)
    assert capsys.readouterr().err == ""

"""The `advisor` program ends without the interpreter's teardown (advisor.cli.run): its output,
streams and exit codes must be exactly main()'s."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import advisor.cli as cli

TEMPLATE = Path(__file__).parents[1] / "fixtures" / "templates" / "vmx" / "sql-template.vmx"


class _Exited(Exception):
    def __init__(self, code: int, handling: bool) -> None:
        super().__init__(code)
        self.code = code
        self.handling = handling


@pytest.fixture
def exits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """os._exit and the atexit handlers replaced (this test process's own must not run)."""
    done: list[str] = []

    def fake_exit(code: int) -> None:
        raise _Exited(code, sys.exc_info()[0] is SystemExit)

    monkeypatch.setattr(cli.os, "_exit", fake_exit)
    monkeypatch.setattr(cli.atexit, "_run_exitfuncs", lambda: done.append("atexit"))
    return done


@pytest.mark.parametrize(("raised", "code"), [(None, 0), (0, 0), (1, 1), (2, 2)])
def test_run_exits_with_mains_code_while_its_exception_is_alive(monkeypatch, exits, raised, code):
    monkeypatch.setattr(cli, "main", lambda: sys.exit(raised))
    with pytest.raises(_Exited) as info:
        cli.run()
    assert info.value.code == code
    assert info.value.handling  # the run is still referenced by the traceback: not freed first
    assert exits == ["atexit"]


@pytest.mark.usefixtures("exits")
def test_a_message_exit_takes_the_interpreters_way(monkeypatch):
    monkeypatch.setattr(cli, "main", lambda: sys.exit("stopped"))
    with pytest.raises(SystemExit) as info:
        cli.run()
    assert info.value.code == "stopped"


def test_a_running_thread_leaves_the_exit_to_the_interpreter(monkeypatch, exits):
    import threading

    release = threading.Event()
    worker = threading.Thread(target=release.wait)
    worker.start()
    monkeypatch.setattr(cli, "main", lambda: sys.exit(1))
    try:
        with pytest.raises(SystemExit) as info:
            cli.run()
    finally:
        release.set()
        worker.join()
    assert info.value.code == 1 and exits == []


@pytest.mark.usefixtures("exits")
def test_a_stream_that_cannot_be_flushed_leaves_the_exit_to_the_interpreter(monkeypatch):
    class ClosedPipe:
        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli, "main", lambda: sys.exit(1))
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    with pytest.raises(SystemExit) as info:
        cli.run()
    assert info.value.code == 1


def test_the_program_runs_atexit_handlers_and_waits_for_threads():
    """What the interpreter's exit does besides freeing objects still happens."""
    script = (
        "import atexit, sys, threading, time\n"
        "atexit.register(lambda: print('handler ran', flush=True))\n"
        "def late():\n"
        "    time.sleep(0.2)\n"
        "    print('thread finished', flush=True)\n"
        "threading.Thread(target=late).start()\n"
        "sys.argv = ['advisor', '--version']\n"
        "from advisor.cli import run\n"
        "run()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "advisor" in done.stdout and "thread finished" in done.stdout and "handler ran" in done.stdout
    done = subprocess.run([sys.executable, "-c", script.replace("threading.Thread(target=late).start()", "")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("handler ran\n")


@pytest.mark.self_compare
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_large_report_through_a_pipe_is_whole(tmp_path, cli, jobs):
    """More output than any pipe or stdio buffer holds, and a line on stderr: all of both
    arrive, with main()'s exit code, from the program as from main() in-process."""
    text = TEMPLATE.read_text()
    for i in range(70):
        named = text.replace("SQL |22prod|22 01", f"vm{i}")
        (tmp_path / f"vm{i:02d}.vmx").write_text(named.replace('"16"', f'"{2 * (i % 8 + 1)}"'))
    (tmp_path / "broken.vmx").write_bytes(b"\x00\x01binary\x00")
    args = ["lint", str(tmp_path), "--format", "json", "--jobs", jobs]
    done = subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, timeout=300)
    in_process = cli(*args)
    assert len(done.stdout) > 1 << 17
    assert done.returncode == in_process.code == 2
    assert done.stdout == in_process.out
    assert done.stderr == in_process.err and "broken.vmx" in done.stderr
    assert len(json.loads(done.stdout)["vms"]) == 70

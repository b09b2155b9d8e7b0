"""The benchmark environments: benchmarks/.venv (advisor editable + the peers) and one venv per
"own-venv" peer (benchmarks/.venv-<name>).

advisor is installed editable in setuptools' "compat" mode: a plain path entry in a .pth file.
The default editable mode installs an import hook that every interpreter in the venv imports at
start-up (~8 ms here), which would double `python -c pass` - the baseline of every start-up
ratio - and flatter advisor against what a user's wheel install costs.

A fresh machine needs nothing but a Python 3.11+ with `venv` and a reachable package index. Each
venv keeps a stamp of what it was built from (requirements.txt, pyproject.toml, the interpreter)
and is rebuilt only when that changes, so a second run starts measuring at once.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
REQUIREMENTS = HERE / "requirements.txt"
MAIN_VENV = HERE / ".venv"
STAMP = "advisor-bench.stamp"
_OWN_VENV = re.compile(r"#\s*own-venv\b")


@dataclass(frozen=True)
class Requirements:
    shared: list[str]  # installed into benchmarks/.venv beside advisor
    own: dict[str, str]  # distribution name -> requirement line, each in benchmarks/.venv-<name>


def read_requirements(path: Path = REQUIREMENTS) -> Requirements:
    shared: list[str] = []
    own: dict[str, str] = {}
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if _OWN_VENV.search(raw):
            name = re.split(r"[<>=!~\[ ;]", line, maxsplit=1)[0].lower()
            own[name] = line
        else:
            shared.append(line)
    return Requirements(shared, own)


def bin_dir(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


def venv_python(venv: Path) -> Path:
    return bin_dir(venv) / ("python.exe" if os.name == "nt" else "python")


def _fingerprint(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _build(venv: Path, installs: list[list[str]], fingerprint: str, log) -> None:
    stamp = venv / STAMP
    if stamp.is_file() and stamp.read_text().strip() == fingerprint and venv_python(venv).exists():
        return
    log(f"creating {venv.relative_to(REPO)} (first run only; this takes a few minutes)")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    python = str(venv_python(venv))
    quiet = ["--quiet", "--disable-pip-version-check"]
    subprocess.run([python, "-m", "pip", "install", *quiet, "--upgrade", "pip"], check=True)
    for args in installs:
        subprocess.run([python, "-m", "pip", "install", *quiet, *args], check=True, cwd=REPO)
    stamp.write_text(fingerprint + "\n")


def ensure_venvs(log=lambda s: None) -> dict[str, Path]:
    """Create or reuse the venvs; return the bin folder of each ('main' and every own-venv peer)."""
    reqs = read_requirements()
    base = f"{sys.version} {sys.executable}"
    pyproject = (REPO / "pyproject.toml").read_text()
    editable = ["-e", str(REPO), "--config-settings", "editable_mode=compat"]
    _build(MAIN_VENV, [[*editable, *reqs.shared]], _fingerprint(base, pyproject, "compat", *reqs.shared), log)
    bins = {"main": bin_dir(MAIN_VENV)}
    for name, line in reqs.own.items():
        venv = HERE / f".venv-{name}"
        _build(venv, [[line]], _fingerprint(base, line), log)
        bins[name] = bin_dir(venv)
    return bins


if __name__ == "__main__":
    for name, path in ensure_venvs(lambda s: print(s, file=sys.stderr)).items():
        print(f"{name}: {path}")

"""The sdist and the wheel build with `python -m build`, carry the licence, and install into a
clean virtual environment outside the repository, where `advisor` runs an example."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, require_tool

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True, scope="module")
def _needs_build() -> None:
    require_tool("the `build` package", importlib.util.find_spec("build"), "pip install build")


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return {"wheel": next(out.glob("*.whl")), "sdist": next(out.glob("*.tar.gz"))}


def test_wheel_carries_licence_data_and_one_version(dists):
    import advisor

    wheel = dists["wheel"]
    assert f"-{advisor.__version__}-" in wheel.name
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert any(n.startswith("advisor/_data/rules/") and n.endswith(".yaml") for n in names)
    assert any(n.startswith("advisor/_data/hosts/") and n.endswith(".yaml") for n in names)
    assert f"Version: {advisor.__version__}\n" in metadata
    assert "License-Expression: Apache-2.0" in metadata
    assert "Project-URL: Source, https://github.com/vsphere-advisor/advisor" in metadata


def test_sdist_carries_licence_and_data(dists):
    with tarfile.open(dists["sdist"]) as archive:
        names = archive.getnames()
    assert any(n.endswith("/LICENSE") for n in names)
    assert any("/rules/" in n and n.endswith(".yaml") for n in names)


def test_sdist_carries_the_examples_and_docs_the_readme_uses(dists):
    """The README's first steps check examples/sql-server-64vcpu.yaml and point at docs/: an
    unpacked sdist has every file of both folders."""
    import re

    with tarfile.open(dists["sdist"]) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    for folder in ("examples", "docs"):
        files = {p.relative_to(REPO).as_posix() for p in (REPO / folder).rglob("*") if p.is_file()}
        assert files and files <= names, sorted(files - names)[:5]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for used in set(re.findall(r"\b((?:examples|docs)/[\w.-]+\.(?:yaml|md))", readme)):
        assert used in names, used


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_installs_into_a_clean_venv_outside_the_repository(dists, kind, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", str(dists[kind])],
                             capture_output=True, text=True, cwd=tmp_path)
    assert install.returncode == 0, install.stderr[-3000:]
    spec = tmp_path / "vm.yaml"
    spec.write_text((REPO / "examples" / "sql-server-64vcpu.yaml").read_text())
    run = subprocess.run([str(venv / "bin" / "advisor"), "check", str(spec), "--format", "json"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr  # warnings only: below the default --fail-on error
    assert '"name": "sql-oltp01"' in run.stdout
    where = subprocess.run([str(python), "-c", "import advisor; print(advisor.__file__)"], capture_output=True,
                           text=True, cwd=tmp_path).stdout
    assert str(REPO) not in where and str(venv) in where

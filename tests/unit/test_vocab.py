"""Each vocabulary is defined once (advisor/vocab.py), and every member has its implementation."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from advisor import emit, output
from advisor.facts.facts import facts_for
from advisor.load.hosts import host_from_data
from advisor.model.recommendation import RecommendedVM
from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.topology import predict
from advisor.vmx.recommendation import from_vmx
from advisor.vocab import FORMATS, EmitFormat, Format, read_bool

ADVISOR = Path(__file__).resolve().parents[2] / "advisor"


@pytest.mark.parametrize("fmt", list(Format))
def test_every_report_format_has_a_formatter(fmt: Format) -> None:
    module = importlib.import_module(output.formatter_module(fmt))
    assert callable(getattr(module, "render", None)), f"{module.__name__} has no render()"


@pytest.mark.parametrize("fmt", [*EmitFormat, "vmx-full"])
def test_every_emit_format_has_an_emitter_taking_the_typed_recommendation(fmt: str) -> None:
    module_name, function = emit._RENDERERS[fmt]
    renderer = getattr(importlib.import_module(module_name), function)
    first = next(iter(inspect.signature(renderer).parameters.values()))
    assert first.annotation in ("RecommendedVM", RecommendedVM), f"{module_name}.{function} takes {first}"
    rec = from_vmx("vm1", {"numvcpus": "4", "memsize": "8192", "scsi0.virtualDev": "pvscsi",
                           "ethernet0.virtualDev": "vmxnet3", "numa.vcpu.preferHT": "TRUE"},
                   {"numa.vcpu.preferHT": ("NUMA001", "balance the nodes")})
    text = emit.render(fmt, rec)
    assert "vm1" in text or fmt == EmitFormat.VMX
    assert "NUMA001" in text and "preferHT" in text


def test_cli_offers_exactly_the_formats() -> None:
    from advisor.commands.common import report_options

    @report_options
    def command() -> None: ...

    choices = next(p for p in command.__click_params__ if p.name == "formats").type.choices  # type: ignore[attr-defined]
    assert tuple(choices) == FORMATS


@pytest.mark.parametrize("word,value", [("TRUE", True), ("true", True), ("yes", True), ("1", True),
                                        ("FALSE", False), ("no", False), ("0", False), ("maybe", None)])
def test_read_bool(word: str, value: bool | None) -> None:
    assert read_bool(word) is value


def _host() -> Host:
    return host_from_data({"name": "h", "sockets": 2, "cores_per_socket": 10, "threads_per_core": 2,
                           "numa_nodes_per_socket": 1, "memory": "256GB", "esxi": "7.0"}, "inline")


@pytest.mark.parametrize("word", ["TRUE", "true", "yes", "1"])
def test_follow_cores_per_socket_fact_agrees_with_the_topology(word: str) -> None:
    """Every word VMware reads as true makes the layout follow cores per socket, and the fact
    NUMA009 reads says the same (it once accepted only true/1, so "yes" disagreed)."""
    host = _host()
    vm = VM.model_validate({"name": "a", "vcpus": 8, "cores_per_socket": 4, "memory": "16GB",
                            "advanced": {"numa.vcpu.followcorespersocket": word}})
    topo = predict(host, vm, Version(7, 0))
    assert topo.follows_cores_per_socket
    facts, _ = facts_for(host, vm, Version(7, 0))
    assert facts["topo.follows_cps"] is True


def test_no_module_spells_out_a_vocabulary_again() -> None:
    """The boolean word sets and severity ranks appear in advisor/vocab.py only."""
    patterns = [re.compile(r"""\{\s*["']true["'],\s*["'](?:1|yes)["']"""),
                re.compile(r"""\(\s*["']true["'],\s*["'](?:1|yes)["']"""),
                re.compile(r"""["']info["']\s*:\s*1\s*,\s*["']warning["']\s*:\s*2""")]
    offenders = [f"{path.relative_to(ADVISOR)}: {p.pattern}"
                 for path in ADVISOR.rglob("*.py") if path.name != "vocab.py"
                 for p in patterns if p.search(path.read_text(encoding="utf-8"))]
    assert offenders == []

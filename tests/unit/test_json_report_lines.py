"""The JSON report writes each VM as json.dumps writes the VM's dict, whatever the VMs share:
the "not evaluated" lines a group of VMs shares are encoded once (advisor.output.json)."""

from __future__ import annotations

import json

import pytest

from advisor.output.json import _vm, document, render
from advisor.report.findings import Run, VmResult


def test_vm_lines_are_json_s_and_shared_lines_are_not_confused():
    shared = ("HOST003 needs the host's logical processors (host.logical_cpus)", "caf\u00e9 \U0001f600 \"q\"")
    other = ("NUMA001 needs a host: no host given (topo.balanced, \u2026)",)
    run = Run()
    run.vms = [VmResult(name=f"vm{i}", file=f"t/{i}.vmx", host=None, count=1, line=i + 1,
                        topology=None, skipped=skip)
               for i, skip in enumerate([shared, other, (), shared, tuple(shared), other[0:0]])]
    lines = render(run).splitlines()
    start = lines.index('  "vms": [') + 1
    written = [line.strip().rstrip(",") for line in lines[start:start + len(run.vms)]]
    assert written == [json.dumps(_vm(v), ensure_ascii=True, default=str) for v in run.vms]
    assert json.loads(render(run)) == json.loads(json.dumps(document(run)))


ODD_VALUES = [
    "plain", "caf\u00e9 \U0001f600 \"q\" \\ \x1b\n", 0, -7, 2**70, 1.5, -0.0, 1e300, float("inf"), float("nan"),
    True, None,
    [], {}, (1, "a"), {"b": 1, "a": [1, {"c": None}]}, {1: "int key", 2.5: "float key", None: "null key", False: "b"},
    {"when": __import__("datetime").date(2026, 11, 27), "set": {3}, "bytes": b"x"},  # default=str
]


@pytest.mark.self_compare
def test_items_are_encoded_as_the_report_encoder_encodes_them(monkeypatch):
    import json as json_module

    from advisor.output.json import _ENCODE, _item_encoder

    encode = _item_encoder()
    assert [encode(v) for v in ODD_VALUES] == [_ENCODE(v) for v in ODD_VALUES]
    loop: list = []
    loop.append(loop)
    for enc in (encode, _ENCODE):
        try:
            enc(loop)
        except ValueError as exc:
            assert "Circular reference" in str(exc)
        else:
            raise AssertionError("a circular value was encoded")
    monkeypatch.setattr(json_module.encoder, "c_make_encoder", None)  # no C accelerator
    assert _item_encoder() is _ENCODE

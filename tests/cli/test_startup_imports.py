"""What `advisor check` imports (counted, not timed): start-up is part of a CI linter's cost,
and the modules below belong to other commands (template readers, the .vmx codec, vCenter,
syntax highlighting). A check that pulls one in again pays for it on every run
(docs/benchmarks.md, "Start-up and .vmx lint"). Two more start-up costs are pinned the same way:
the seed papers' table is not read when the cached catalog holds the references' text, nor the
limits tables parsed when the cache holds them, and a report without colour is written without
Rich (not even imported). And two costs of building pydantic validators that advisor does not
need: tokenize's pattern compiled to read a builtin default factory's signature, and the scan of
every installed distribution for pydantic plugins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

# Prefixes of module names `advisor check` on a spec file must not import.
NOT_ON_CHECK = (
    # the .vmx codec (reader, its records and charsets, editor): check only spells keys (advisor.vmx.spelling)
    "advisor.vmx.document", "advisor.vmx.reader", "advisor.vmx.entries", "advisor.vmx.charset", "advisor.vmx.values",
    "advisor.readers",  # .vmx, OVF, Packer and Terraform readers: lint's
    "advisor.vcenter", "pyVmomi", "pyVim",  # only with --vcenter
    "advisor.emit",  # the emitters: advisor vmx
    "hcl2", "lark", "tree_sitter",  # HCL parsers
    "defusedxml", "xml.etree", "xml.dom",  # OVF
    "rich", "pygments",  # a report without colour is plain text; Rich lays out coloured ones (advisor.output.text)
    "difflib",  # `advisor fix`'s diff, and the suggestions for a mistyped rule id
    "advisor.commands.collect",  # `collect vcenter` and check --vcenter (advisor.commands.vcenter_options)
    "json",  # the catalog cache is read by pydantic-core; json writes entries (and the json formats)
    "tomllib",  # only a pyproject.toml that may hold [tool.advisor] is parsed (advisor.load.config)
    "advisor.load.configmodel",  # the configuration's models: only when a configuration file is found
)

# Dataclasses defined by the modules a check loads (counted when this test was last tightened).
_CHECK_DATACLASSES = 17

_RUN = """
import sys
import importlib.metadata
scans = []
_entry_points = importlib.metadata.entry_points
def entry_points(**selection):
    scans.append(selection.get("group"))
    return _entry_points(**selection)
importlib.metadata.entry_points = entry_points  # before pydantic's plugin loader imports the name
from advisor.load import yamlfile
parsed = []
_loads = yamlfile.loads
def loads(data, file):
    parsed.append(file)
    return _loads(data, file)
yamlfile.loads = loads
import advisor.cli
advisor.cli._exit_now = lambda code: None  # run() as the console script runs it, less os._exit
sys.argv = ["advisor", "check", sys.argv[1]]
try:
    advisor.cli.run()
except SystemExit:
    pass
sys.stdout.flush()
modules = sorted(sys.modules)
import dataclasses
dataclass_names = sorted(f"{name}.{value.__qualname__}" for name, module in list(sys.modules.items())
                         if name.startswith("advisor") for value in vars(module).values()
                         if isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value))
import json
from advisor.engine.references import seed_table
import tokenize
print(json.dumps({"modules": modules, "seeds_read": seed_table.cache_info().currsize, "parsed": parsed,
                  "dataclasses": dataclass_names, "entry_point_scans": scans,
                  "tokenize_patterns": tokenize._compile.cache_info().currsize}),
      file=sys.stderr)
"""


def _check(spec: Path, cache: Path) -> dict[str, Any]:
    dropped = ("ADVISOR_NO_CACHE", "PYTHONPATH", "PYDANTIC_DISABLE_PLUGINS")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(ADVISOR_CACHE_DIR=str(cache), NO_COLOR="1", COLUMNS="100")
    done = subprocess.run([sys.executable, "-c", _RUN, str(spec)], capture_output=True, text=True, env=env,
                          cwd=spec.parent, timeout=120, check=False)
    return dict(json.loads(done.stderr.strip().splitlines()[-1]))


def test_check_imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    spec = tmp_path / "spec.yaml"
    spec.write_bytes((REPO / "examples" / "sql-server-64vcpu.yaml").read_bytes())
    # A project's pyproject.toml that names advisor (as advisor's own does) but has no [tool.advisor].
    (tmp_path / "pyproject.toml").write_bytes((REPO / "pyproject.toml").read_bytes())
    first = _check(spec, cache)  # the first run writes the catalog's cache entry
    assert list(cache.glob("catalog-*.json"))
    assert first["seeds_read"] == 1  # building the entry read the seed papers' titles
    run = _check(spec, cache)
    loaded = run["modules"]
    assert "advisor.engine.catalog" in loaded and "advisor.output.text" in loaded  # the check ran
    unwanted = sorted(m for m in loaded if m.startswith(NOT_ON_CHECK))
    assert unwanted == []
    # What the cached catalog holds is not worked out again: the references' text came with it.
    assert run["seeds_read"] == 0
    # Every dataclass runs generated code when its module loads (CONTRIBUTING.md, "Add a class on
    # `check`'s path"): read-only records are NamedTuples (FactDef, Topology, NumaControls, Fixed,
    # Suggestion, FindingShape, the pictured Layout, Limits, HwLimits), uncompared state plain
    # classes (Subject, Placed, Placement, the NUMA Layout, HostProfiles). These are the
    # dataclasses a check still builds.
    assert len(run["dataclasses"]) <= _CHECK_DATACLASSES, run["dataclasses"]
    # pydantic asks each default factory's signature; a builtin's (`list`) is parsed with tokenize,
    # whose pattern would be compiled for it (advisor.model.base.empty_list).
    assert run["tokenize_patterns"] == 0
    # No installed distribution's entry points are scanned for pydantic plugins (advisor.cli.run).
    assert run["entry_point_scans"] == []
    # Nor are the limits tables (rules/limits) parsed again: the cache holds them as JSON.
    assert any("limits" in file for file in first["parsed"])
    assert [file for file in run["parsed"] if "rules" in Path(file).parts] == []


def test_the_exit_does_not_collect_what_the_run_leaves(monkeypatch, cli) -> None:
    """The interpreter's exit runs full collections over every live object, about a sixth of a
    small check's CPU: main() has the collector skip them (gc.freeze when the exit begins), once
    however often it runs in one process."""
    import atexit
    import gc

    registered: list[object] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(atexit, "unregister", lambda func: registered.remove(func) if func in registered else None)
    assert cli("--version").code == 0
    assert cli("--version").code == 0
    assert registered == [gc.freeze]

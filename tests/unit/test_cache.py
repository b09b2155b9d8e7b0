"""advisor.cost.disk: found by key, rebuilt on any doubt, never an error; and the built-in catalog
read through it is the catalog read without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.cost import builtin
from advisor.cost import disk as cache
from advisor.engine import catalog
from advisor.engine.rule import checked


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ADVISOR_NO_CACHE", raising=False)
    return tmp_path / "cache"


def _counting(value: object):
    calls = []

    def build() -> object:
        calls.append(1)
        return value

    return build, calls


def test_second_call_reads_the_entry(folder: Path) -> None:
    build, calls = _counting({"a": [1, 2]})
    assert cache.cached("t", [("f", b"x")], build) == {"a": [1, 2]}
    assert cache.cached("t", [("f", b"x")], build) == {"a": [1, 2]}
    assert len(calls) == 1
    assert len(list(folder.glob("t-*.json"))) == 1


def test_other_source_bytes_rebuild_and_replace_the_old_entry(folder: Path) -> None:
    build, calls = _counting("v")
    cache.cached("t", [("f", b"x")], build)
    cache.cached("t", [("f", b"y")], build)
    cache.cached("t", [("g", b"y")], build)
    assert len(calls) == 3
    assert len(list(folder.glob("t-*.json"))) == 1  # only the newest key is kept


def test_damaged_entry_is_rebuilt_without_an_error(folder: Path) -> None:
    build, calls = _counting([1])
    cache.cached("t", [("f", b"x")], build)
    (entry,) = folder.glob("t-*.json")
    entry.write_bytes(b"\x80\x05garbage")
    assert cache.cached("t", [("f", b"x")], build) == [1]
    assert cache.cached("t", [("f", b"x")], build) == [1]
    assert len(calls) == 2  # rebuilt once, then the rewritten entry is read


def test_unwritable_folder_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(blocker / "cache"))
    build, calls = _counting(7)
    assert cache.cached("t", [("f", b"x")], build) == 7
    assert cache.cached("t", [("f", b"x")], build) == 7
    assert len(calls) == 2


def test_no_cache_switch(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADVISOR_NO_CACHE", "1")
    build, calls = _counting(7)
    cache.cached("t", [("f", b"x")], build)
    cache.cached("t", [("f", b"x")], build)
    assert len(calls) == 2 and not folder.exists()


def _digest(cat: catalog.Catalog) -> list:
    return [(r.id, r.file, r.line, r.d.model_dump(), r.facts, r.min_version, r.max_version,
             {k: [(e, getattr(e, "lines", None)) for e in v] for k, v in r.examples.items()}) for r in cat.rules]


def _parsed() -> catalog.Catalog:
    """The built-in catalog read straight from the rule files, as user rule folders are read."""
    from advisor.resources import data_path

    rules = [r for p in catalog.rule_files(data_path("rules")) for r in catalog.load_rule_file(p, builtin=True,
                                                                                                 validate=False)]
    return checked(catalog.Catalog(rules))


@pytest.mark.self_compare
def test_builtin_catalog_from_the_cache_is_the_parsed_one(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = _digest(_parsed())
    monkeypatch.setattr(builtin, "_BUILTIN", None)
    monkeypatch.setenv("ADVISOR_NO_CACHE", "1")
    assert _digest(builtin.builtin_catalog()) == fresh  # built without the cache: records, no JSON file
    monkeypatch.delenv("ADVISOR_NO_CACHE")
    for _ in range(2):  # the first run writes the entry, the second reads it
        monkeypatch.setattr(builtin, "_BUILTIN", None)
        assert _digest(builtin.builtin_catalog()) == fresh
    assert list(folder.glob("catalog-*.json"))


@pytest.mark.self_compare
def test_cached_programs_are_the_compiled_ones(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule read back from the cache carries its serialised program and loads it when first
    used (tests/rules run every example through those programs)."""
    from advisor.engine.conditions import compile_condition

    for _ in range(2):  # write the entry, then read it
        monkeypatch.setattr(builtin, "_BUILTIN", None)
        cat = builtin.builtin_catalog()
    assert all(r.serialized and r.program is None for r in cat.rules)
    for r in cat.rules:
        program = r.compiled()
        assert r.program is program and program.return_type() == compile_condition(
            r.id, r.d.when, r.file, r.line).return_type()


def test_an_edited_rule_file_is_read_as_edited(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry is keyed on the rule files' bytes (another helper may edit rules/*.yaml in a
    checkout whose version does not change)."""
    from advisor.load import yamlfile

    monkeypatch.setattr(builtin, "_BUILTIN", None)
    before = builtin.builtin_catalog().rules[0]
    original = yamlfile.read_bytes

    def edited(path: Path) -> bytes:
        data = original(path)
        return data.replace(before.d.summary.encode(), b"An edited summary of this rule", 1)

    monkeypatch.setattr(yamlfile, "read_bytes", edited)
    monkeypatch.setattr(builtin, "_BUILTIN", None)
    assert builtin.builtin_catalog().by_id(before.id).d.summary == "An edited summary of this rule"


def test_builtin_rules_compile_when_first_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builtin, "_BUILTIN", None)
    rule = builtin.builtin_catalog().rules[0]
    assert rule.program is None
    program = rule.compiled()
    assert program is not None and rule.compiled() is program


@pytest.mark.self_compare
def test_limits_tables_are_plain_json_and_read_the_same_from_the_cache(folder: Path) -> None:
    """rules/limits is read from the cache as JSON: each table must survive JSON unchanged
    (string keys, no dates), so a run reading the entry sees what one parsing the YAML sees."""
    import json

    from advisor import resources
    from advisor.load.yamlfile import load

    parsed = {path.stem: load(path) for path in (resources.data_path("rules") / "limits").glob("*.yaml")}
    assert json.loads(json.dumps(parsed, allow_nan=False)) == parsed
    resources._limits_tables.cache_clear()
    built = resources._limits_tables()  # no entry yet: parsed, then written
    assert list(folder.glob("limits-*.json"))
    resources._limits_tables.cache_clear()
    assert resources._limits_tables() == built == parsed  # read back from the entry
    assert resources.limits_table("vsphere") == parsed["vsphere"]


# -- what the key covers, and damaged entries that are still JSON (issues 33 and 39) ---------

def test_a_changed_loader_module_rebuilds_although_the_version_is_the_same(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key covers the package's own source files: a checkout that edits the YAML loader
    (advisor.load.yamlfile) with __version__ unchanged is a new key, not a stale entry."""
    import shutil

    package = tmp_path / "advisor"
    shutil.copytree(Path(cache.__file__).resolve().parents[1], package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "_code", lambda: cache.code_identity(package))
    build, calls = _counting({"a": 1})
    cache.cached("t", [("f", b"x")], build)
    cache.cached("t", [("f", b"x")], build)
    assert len(calls) == 1
    loader = package / "load" / "yamlfile.py"
    loader.write_bytes(loader.read_bytes() + b"\n# a change to the loader\n")
    cache.cached("t", [("f", b"x")], build)
    assert len(calls) == 2


def test_the_key_names_the_yaml_and_cel_libraries_installed() -> None:
    code = cache._code().decode()
    for library in ("yaml", "cel_expr_python"):
        line = next(line for line in code.splitlines() if line.startswith(f"{library}:"))
        assert line.endswith(tuple("0123456789")), line  # found: path|size|mtime
    assert "yamlfile.py|" in code and "yamltree.py|" in code and "yamlnodes.py|" in code


def _flip_program(records: list) -> list:
    program = records[0]["program"]
    records[0]["program"] = ("B" if program[0] != "B" else "C") + program[1:]
    return records


def _drop_key(records: list) -> list:
    del records[0]["facts"]
    return records


def _wrong_type(records: list) -> list:
    records[0]["d"] = "not a mapping"
    return records


@pytest.mark.parametrize("damage", [_flip_program, _drop_key, _wrong_type, "nan"])
def test_a_damaged_catalog_entry_that_is_still_json_is_rebuilt(
        folder: Path, monkeypatch: pytest.MonkeyPatch, damage) -> None:
    """A bit flip in a program, a missing key, a wrong type or a NaN: the entry is valid JSON
    but its checksum no longer matches, so it is rebuilt (once) and the catalog is the parsed one."""
    import json

    fresh = _digest(_parsed())
    monkeypatch.setattr(builtin, "_BUILTIN", None)
    builtin.builtin_catalog()  # writes the entry
    (entry,) = folder.glob("catalog-*.json")
    checksum, records = json.loads(entry.read_bytes())
    if damage == "nan":
        body = json.dumps(records, separators=(",", ":")).replace('"line":', '"line":NaN,"was":', 1)
    else:
        body = json.dumps(damage(records), separators=(",", ":"))
    entry.write_text(f'["{checksum}",{body}]')  # the old checksum over new content
    built = []
    original = builtin.records
    monkeypatch.setattr(builtin, "records", lambda sources: built.append(1) or original(sources))
    for _ in range(2):
        monkeypatch.setattr(builtin, "_BUILTIN", None)
        cat = builtin.builtin_catalog()
        assert _digest(cat) == fresh
        for rule in cat.rules:
            rule.compiled()  # every program loads
    assert len(built) == 1  # rebuilt once, then the rewritten entry is read


def test_an_entry_whose_checksum_holds_but_whose_records_do_not_is_rebuilt(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry written by hand with a matching checksum: `use` fails on it, and it is rebuilt."""
    import json

    monkeypatch.setattr(builtin, "_BUILTIN", None)
    builtin.builtin_catalog()
    (entry,) = folder.glob("catalog-*.json")
    entry.write_bytes(cache._sealed(json.dumps([{"nothing": "useful"}]).encode()))
    built = []
    original = builtin.records
    monkeypatch.setattr(builtin, "records", lambda sources: built.append(1) or original(sources))
    monkeypatch.setattr(builtin, "_BUILTIN", None)
    assert builtin.builtin_catalog().rules and len(built) == 1


def test_a_damaged_entry_never_fails_a_run(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          cli) -> None:
    """Every entry (catalog and limits) replaced by valid JSON under its old checksum: the run
    rebuilds them and checks as before."""
    import json

    from advisor import resources

    spec = tmp_path / "spec.yaml"
    spec.write_text("host: hp-dl580-g7\nvms:\n  - {name: a, vcpus: 8, memory: 16GB}\n")

    def fresh_process() -> None:  # what a new advisor process would hold: nothing read yet
        monkeypatch.setattr(builtin, "_BUILTIN", None)
        resources._limits_tables.cache_clear()

    fresh_process()
    first = cli("check", "--format", "json", spec)
    entries = sorted(folder.glob("*.json"))
    # The limits tables are read here unless an earlier test of this process holds what they give.
    assert first.code == 0 and "catalog" in {e.name.split("-")[0] for e in entries}
    for entry in entries:
        checksum, value = json.loads(entry.read_bytes())
        entry.write_text(json.dumps([checksum, [value, "appended"]]))
    fresh_process()
    again = cli("check", "--format", "json", spec)
    assert again.code == 0, again.err
    assert json.loads(again.out)["findings"] == json.loads(first.out)["findings"]
    resources._limits_tables.cache_clear()

"""The built-in rule catalog and its on-disk cache together: the catalog kept as compiled records.

Reading the catalog used to mean, on every run, decoding eleven parsed YAML trees (every node
with its line numbers), building each rule's models field by field and compiling the CEL
condition of each rule the run evaluates. A record holds the result instead: the rule's fields
with their defaults filled in (so building the models runs no default factory), the facts its
condition reads, its CEL program serialised (a checked expression: data, which the CEL runtime
plans again, never code), its references' text as findings show it (so a run does not read the
seed papers' table, rules/references/seeds.yaml) and its examples as a JSON text decoded only
when something reads them (docs, `advisor explain`, the tests). Records are JSON data, written and read by
advisor.cost.disk, keyed by the rule files' bytes and by everything else a record depends on
(`inputs`).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from advisor.engine.rule import Catalog, Rule, checked, rule_files, rules_from_root
from advisor.engine.ruledef import Examples, Fix, Reference, RuleDef, VersionRange
from advisor.facts.names import FACTS
from advisor.model.versions import Version

_NESTED = {"fix": Fix, "vsphere": VersionRange}


def inputs() -> list[tuple[str, bytes]]:
    """What a record depends on beyond the rule files (advisor's version and the interpreter's
    are part of every cache key): the facts' names and types (a condition is type-checked
    against them), the seed papers' titles and addresses (a reference's text), the code that
    builds a record, and the CEL runtime that serialised it."""
    from cel_expr_python import cel

    from advisor.resources import data_path

    package = Path(__file__).resolve().parents[1]
    facts = "\n".join(f"{name}:{fact.type}" for name, fact in sorted(FACTS.items()))
    runtime = Path(cel.__file__).stat()
    code = ("cost/builtin.py", "engine/rule.py", "engine/ruledef.py", "engine/conditions.py", "engine/references.py")
    return [("facts", facts.encode()), ("seeds", (data_path("rules") / "references" / "seeds.yaml").read_bytes()),
            *((name, (package / name).read_bytes()) for name in code),
            ("cel", f"{cel.__file__}|{runtime.st_size}|{runtime.st_mtime_ns}".encode())]


def records(sources: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    """Parse, check and compile the built-in rule files (`sources`: path and bytes of each).
    The records go through JSON here too, so a run without the cache builds the same rules."""
    import json

    from advisor.load.yamlfile import loads

    rules: list[Rule] = []
    for file, data in sources:
        rules.extend(rules_from_root(loads(data, file), file, builtin=True, validate=False))
    built: list[dict[str, Any]] = json.loads(json.dumps([_record(r) for r in checked(Catalog(rules)).rules]))
    return built


def _fields(model: Any) -> dict[str, Any]:
    """Every field of a model built with model_construct, and the names that were given."""
    return {"v": {name: getattr(model, name) for name in type(model).model_fields},
            "set": sorted(model.model_fields_set)}


def _record(rule: Rule) -> dict[str, Any]:
    import json

    from advisor.cost.disk import encode

    d = rule.d
    fields = {name: getattr(d, name) for name in RuleDef.model_fields if name not in ("examples", *_NESTED)}
    fields["references"] = [_fields(r) for r in d.references]
    return {
        "file": rule.file, "line": rule.line, "facts": sorted(rule.facts),
        "d": {"v": fields, "set": sorted(d.model_fields_set)},
        **{name: _fields(getattr(d, name)) for name in _NESTED},
        "program": base64.b64encode(rule.compiled().serialize()).decode("ascii"),
        "references_text": list(rule.reference_texts()),
        "own_facts": rule.reads_own_facts(),
        # The examples twice: as plain data for the rule's model (docs and `advisor explain`
        # read them; the JSON decoder builds them at C speed), and with their line numbers as
        # one JSON text, decoded into the rule's `examples` when something reads those.
        "examples": _plain([d.examples.fail, d.examples.pass_]),
        "read_examples": json.dumps(encode([rule.examples["fail"], rule.examples["pass"]]), separators=(",", ":")),
    }


def _plain(value: Any) -> Any:
    """`value` as JSON reads it back, or None where JSON would change it (a key that is not a
    string, a tuple): the rule then takes its examples from `read_examples`."""
    import json

    text = json.dumps(value)
    return value if json.loads(text) == value else None


def _built(model: Any, fields: dict[str, Any]) -> Any:
    return model.model_construct(_fields_set=set(fields["set"]), **fields["v"])


def rule(record: dict[str, Any]) -> Rule:
    """The rule a record describes; its program and its examples with lines are decoded when
    first used."""
    from advisor.cost.disk import decode

    values = dict(record["d"]["v"])
    values["references"] = [_built(Reference, r) for r in values["references"]]
    for name, model in _NESTED.items():
        values[name] = _built(model, record[name])
    read: dict[str, list[Any]] | Callable[[], dict[str, list[Any]]] = partial(_examples, record["read_examples"])
    plain = record["examples"]
    if plain is None:  # examples JSON cannot carry as they are: decoded now, with their lines
        fail, pass_ = plain = decode(record["read_examples"].encode())
        read = {"fail": fail, "pass": pass_}
    values["examples"] = Examples.model_construct(fail=plain[0], pass_=plain[1])
    vsphere = values["vsphere"]
    return Rule(RuleDef.model_construct(_fields_set=set(record["d"]["set"]), **values), record["file"],
                record["line"], None, frozenset(record["facts"]), True,
                min_version=Version.parse(vsphere.min) if vsphere.min else None,
                max_version=Version.parse(vsphere.max) if vsphere.max else None,
                read_examples=read, serialized=base64.b64decode(record["program"]),
                references_text=tuple(record["references_text"]), own_facts=record["own_facts"])


def _examples(text: str) -> dict[str, list[Any]]:
    """A record's examples with their line numbers (`read_examples`), decoded when first read."""
    from advisor.cost.disk import decode

    fail, pass_ = decode(text.encode())
    return {"fail": fail, "pass": pass_}


_BUILTIN: Catalog | None = None


def builtin_catalog() -> Catalog:
    """The rules advisor ships: parsed, checked and compiled once, then read from the cache."""
    global _BUILTIN
    if _BUILTIN is None:
        from advisor.cost.disk import cached
        from advisor.load.yamlfile import read_bytes
        from advisor.resources import data_path

        sources = [(str(path), read_bytes(path)) for path in rule_files(data_path("rules"))]
        # The files only change with advisor: the catalog is cached as records (JSON), keyed by
        # the files' bytes and what the records depend on. Records that do not make rules (an
        # entry whose checksum holds but whose content does not, say one written by hand) are
        # rebuilt too.
        _BUILTIN = cached("catalog", [*sources, *inputs()], lambda: records(sources), plain=True,
                          use=_from_records)  # checked and sorted when built
    return _BUILTIN


def _from_records(built: list[dict[str, Any]]) -> Catalog:
    """The catalog of compiled records. A program is decoded when its rule is first evaluated
    (most runs need a part of them): the entry's checksum is what vouches for the programs."""
    return Catalog([rule(record) for record in built])

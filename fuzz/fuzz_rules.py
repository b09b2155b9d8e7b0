#!/usr/bin/env python3
"""atheris target: rule files (advisor.engine.catalog.load_rule_file: YAML, validation, CEL compile).

load_rule_file reads a path, so each input is written to one temporary file first.

    python fuzz/fuzz_rules.py fuzz/corpus/rules -max_total_time=600
"""

import _harness
import atheris

with atheris.instrument_imports():
    import tempfile
    from pathlib import Path

    import advisor.load.validation
    import advisor.load.yamlfile  # noqa: F401
    from advisor.engine.catalog import load_rule_file

FILE = Path(tempfile.mkdtemp(prefix="advisor-fuzz-rules-")) / "rules.yaml"


def read(data: bytes) -> None:
    FILE.write_bytes(data)
    load_rule_file(FILE, builtin=False)


if __name__ == "__main__":
    _harness.run(read)

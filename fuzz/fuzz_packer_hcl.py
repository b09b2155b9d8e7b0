#!/usr/bin/env python3
"""atheris target: Packer HCL2 templates (`.pkr.hcl`, parsed by tree-sitter-hcl).

    python fuzz/fuzz_packer_hcl.py fuzz/corpus/packer_hcl -max_total_time=600
"""

import atheris

import _harness  # noqa: F401  (puts the repository on sys.path)

with atheris.instrument_imports():
    from pathlib import Path

    import advisor.readers.hcl  # noqa: F401  (the C parser is not instrumented; its Python walk is)
    import advisor.readers.packer  # noqa: F401  (read_template imports readers lazily)
    from advisor.readers import read_template


def read(data: bytes) -> None:
    read_template(Path("fuzz.pkr.hcl"), data, siblings=())


if __name__ == "__main__":
    _harness.run(read)

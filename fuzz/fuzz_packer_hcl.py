#!/usr/bin/env python3
"""atheris target: Packer HCL2 templates (`.pkr.hcl`, parsed by tree-sitter-hcl).

    python fuzz/fuzz_packer_hcl.py fuzz/corpus/packer_hcl -max_total_time=600
"""

import _harness
import atheris

with atheris.instrument_imports():
    from pathlib import Path

    import advisor.readers.hcl
    import advisor.readers.packer  # noqa: F401  (read_template imports readers lazily)
    from advisor.readers import read_template


def read(data: bytes) -> None:
    read_template(Path("fuzz.pkr.hcl"), data, siblings=())


if __name__ == "__main__":
    _harness.run(read)

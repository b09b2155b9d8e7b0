#!/usr/bin/env python3
"""atheris target: the OVF descriptor reader (XML through defusedxml).

    python fuzz/fuzz_ovf.py fuzz/corpus/ovf -max_total_time=600
"""

import _harness
import atheris

with atheris.instrument_imports():
    from pathlib import Path

    import advisor.readers.ovf  # noqa: F401  (read_template imports readers lazily)
    from advisor.readers import read_template


def read(data: bytes) -> None:
    read_template(Path("fuzz.ovf"), data)


if __name__ == "__main__":
    _harness.run(read)

#!/usr/bin/env python3
"""atheris target: the OVA reader (a tar archive read in memory, then its .ovf descriptor).

    python fuzz/fuzz_ova.py fuzz/corpus/ova -max_total_time=600
"""

import _harness
import atheris

with atheris.instrument_imports():
    import tarfile  # noqa: F401  (instrumented too: the archive parsing is the point)
    from pathlib import Path

    import advisor.readers.ovf  # noqa: F401  (read_template imports readers lazily)
    from advisor.readers import read_template


def read(data: bytes) -> None:
    read_template(Path("fuzz.ova"), data)


if __name__ == "__main__":
    _harness.run(read)

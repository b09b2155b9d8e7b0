#!/usr/bin/env python3
"""atheris target: the .vmx reader (advisor.vmx.document document model + advisor.readers.vmxfile).

    python fuzz/fuzz_vmx.py fuzz/corpus/vmx -max_total_time=600
"""

import _harness
import atheris

with atheris.instrument_imports():
    from pathlib import Path

    import advisor.readers.vmxfile
    import advisor.vmx.document  # noqa: F401
    from advisor.readers import read_template


def read(data: bytes) -> None:
    read_template(Path("fuzz.vmx"), data, siblings=())


if __name__ == "__main__":
    _harness.run(read)

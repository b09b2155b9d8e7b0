#!/usr/bin/env python3
"""atheris target: Packer JSON, both the HCL-JSON form (`.pkr.json`) and legacy templates
(`builders`, in a plain `.json`).

    python fuzz/fuzz_packer_json.py fuzz/corpus/packer_json -max_total_time=600
"""

import contextlib

import _harness
import atheris

with atheris.instrument_imports():
    from pathlib import Path

    import advisor.readers.jsonlines
    import advisor.readers.packer  # noqa: F401  (read_template imports readers lazily)
    from advisor.readers import read_template


def read(data: bytes) -> None:
    from advisor.errors import InputError

    with contextlib.suppress(InputError):
        read_template(Path("fuzz.pkr.json"), data, siblings=())
    read_template(Path("template.json"), data, siblings=())  # a legacy template when it has `builders`


if __name__ == "__main__":
    _harness.run(read)

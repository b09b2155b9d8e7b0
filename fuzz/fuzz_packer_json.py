#!/usr/bin/env python3
"""atheris target: Packer JSON, both the HCL-JSON form (`.pkr.json`) and legacy templates
(`builders`, in a plain `.json`).

    python fuzz/fuzz_packer_json.py fuzz/corpus/packer_json -max_total_time=600
"""

import atheris

import _harness  # noqa: F401  (puts the repository on sys.path)

with atheris.instrument_imports():
    from pathlib import Path

    import advisor.readers.jsonlines  # noqa: F401
    import advisor.readers.packer  # noqa: F401  (read_template imports readers lazily)
    from advisor.readers import read_template


def read(data: bytes) -> None:
    from advisor.errors import InputError

    try:
        read_template(Path("fuzz.pkr.json"), data, siblings=())
    except InputError:
        pass
    read_template(Path("template.json"), data, siblings=())  # a legacy template when it has `builders`


if __name__ == "__main__":
    _harness.run(read)

#!/usr/bin/env python3
"""atheris target: Terraform, `.tf` (HCL2) and, for inputs starting with `{`, `.tf.json`.

    python fuzz/fuzz_terraform.py fuzz/corpus/terraform -max_total_time=600
"""

import _harness
import atheris

with atheris.instrument_imports():
    from pathlib import Path

    import advisor.readers.hcl
    import advisor.readers.terraform  # noqa: F401  (read_template imports readers lazily)
    from advisor.readers import read_template


def read(data: bytes) -> None:
    name = "main.tf.json" if data.lstrip()[:1] == b"{" else "main.tf"
    read_template(Path(name), data, siblings=())


if __name__ == "__main__":
    _harness.run(read)

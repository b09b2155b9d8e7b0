#!/usr/bin/env python3
"""atheris target: spec YAML (advisor.load.specfile.parse_spec and all_errors, on advisor.load.yamlfile),
which also reads inline host profiles and the `advanced:` .vmx keys.

    python fuzz/fuzz_spec.py fuzz/corpus/spec -max_total_time=600
"""

import _harness
import atheris

with atheris.instrument_imports():
    import advisor.load.hosts
    import advisor.load.validation
    import advisor.load.yamlfile
    import advisor.model.spec
    import advisor.model.units
    import advisor.vmx.mapping  # noqa: F401
    from advisor.load.specfile import all_errors, parse_spec


def read(data: bytes) -> None:
    from advisor.errors import InputError

    for error in all_errors(data, "fuzz.yaml"):
        if not isinstance(error, InputError):
            raise TypeError(f"all_errors returned {error!r}")
    parse_spec(data, "fuzz.yaml")


if __name__ == "__main__":
    _harness.run(read)

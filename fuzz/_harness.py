"""What every atheris target shares: the import set-up and the one rule a target checks.

A target calls one reader on the fuzzer's bytes. The reader may return or raise
advisor.errors.InputError (the input is wrong, and the message says where); any other
exception is a bug, so it is re-raised and atheris records the input as a crash-* file.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def run(reader: Callable[[bytes], object]) -> None:
    """Fuzz `reader` with the command line's libFuzzer options (corpus folders, -max_total_time=...)."""
    import atheris

    from advisor.errors import InputError

    def test_one_input(data: bytes) -> None:
        try:
            reader(data)
        except InputError as exc:
            str(exc)  # the message must render

    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()

"""Memory sizes as people write them ("256GB", "1 TiB", "262144 MB"), normalised to MiB.

VMware's own tools say GB and mean GiB (a 4 GB VM has memsize = "4096"), so the decimal-looking
units are binary here too. A bare number is megabytes, as in a .vmx `memsize`.
"""

from __future__ import annotations

import math
import re

_FACTORS_MIB = {
    "kb": 1 / 1024, "kib": 1 / 1024, "k": 1 / 1024,
    "mb": 1, "mib": 1, "m": 1,
    "gb": 1024, "gib": 1024, "g": 1024,
    "tb": 1024**2, "tib": 1024**2, "t": 1024**2,
    "pb": 1024**3, "pib": 1024**3, "p": 1024**3,
}
_SIZE = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[A-Za-z]*)\s*$")


def parse_size_mib(value: object) -> int:
    """Return a size in MiB; raise ValueError with a message fit for the user."""
    return _parse(value, zero=False)


def parse_reservation_mib(value: object) -> int:
    """A memory reservation in MiB: a size, or zero - no reservation, what a .vmx's
    `sched.mem.min = "0"` says (the default vSphere writes)."""
    return _parse(value, zero=True)


def _parse(value: object, zero: bool) -> int:
    if isinstance(value, bool):
        raise ValueError("expected a size such as 64GB, not a boolean")
    if isinstance(value, int):
        if value < 0 or (value == 0 and not zero):
            raise ValueError("a reservation cannot be negative" if zero else "a size must be positive")
        return _bounded(value, str(value))
    if isinstance(value, float):
        raise ValueError("write sizes with a unit, e.g. 1.5GB (a bare number means MB)")
    if not isinstance(value, str):
        raise ValueError(f"expected a size such as 64GB, got {type(value).__name__}")
    match = _SIZE.match(value)
    if not match:
        raise ValueError(f"'{value}' is not a size; write e.g. 64GB, 1.5TB or 4096MB")
    unit = match["unit"].lower() or "mb"
    if unit not in _FACTORS_MIB:
        raise ValueError(f"unknown unit '{match['unit']}' in '{value}'; use MB, GB or TB")
    mib = float(match["num"]) * _FACTORS_MIB[unit]
    if not math.isfinite(mib):
        raise ValueError(f"'{value}' is too large to be a size")
    if mib < 0 or (mib == 0 and not zero):
        raise ValueError("a reservation cannot be negative" if zero else "a size must be positive")
    if abs(mib - round(mib)) > 1e-9:
        raise ValueError(f"'{value}' is not a whole number of MB")
    return _bounded(round(mib), value)


# 1 EiB: far above any vSphere maximum (hosts and VMs hold terabytes), and small enough that
# every size stays exact in a float and in CEL's 64-bit integers.
MAX_SIZE_MIB = 1 << 40


def _bounded(mib: int, text: str) -> int:
    if mib > MAX_SIZE_MIB:
        raise ValueError(f"'{text[:40]}' is larger than advisor reads (1 EiB)")
    return mib


def format_mib(mib: int | float) -> str:
    """The shortest exact human form: 1048576 -> '1TB', 98304 -> '96GB', 1536 -> '1.5GB'."""
    for unit, factor in (("TB", 1024**2), ("GB", 1024)):
        if mib >= factor:
            amount = mib / factor
            if amount == int(amount):
                return f"{int(amount)}{unit}"
            if amount * 10 == int(amount * 10):
                return f"{amount:.1f}{unit}"
    if mib == int(mib):
        return f"{int(mib)}MB"
    return f"{mib:.1f}MB"

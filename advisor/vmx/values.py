"""Whether a .vmx value already says what a fix wants (VMware's booleans are read once, in
advisor.vocab; the model's key table reads them through advisor.model.vmxkeys.parse_bool)."""

from __future__ import annotations


def values_equal(current: str | None, wanted: str) -> bool:
    """Whether a file value already says what we want.

    Boolean words differ only in case between writers (libvirt wrote ``"true"``), so
    ``true``/``TRUE`` count as equal; everything else is compared exactly, because ``"04"`` and
    ``"4"`` may well be read differently by ESXi.
    """
    if current is None:
        return False
    bools = ("true", "false")
    if current.lower() in bools and wanted.lower() in bools:
        return current.lower() == wanted.lower()
    return current == wanted


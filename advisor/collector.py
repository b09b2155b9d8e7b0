"""The cyclic garbage collector paused while objects that live on are built (a document, the
modules a command imports). Its own module, free of third-party imports, so that the command line
can pause it before it loads the libraries it is built on."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_KEPT_MIN = 10_000  # objects the collector tracks, allocated (net) since its last collection


@contextmanager
def gc_paused(kept: bool = False, kept_min: int | None = None) -> Iterator[None]:
    """Pause the cyclic garbage collector while a document is built.

    Building a large document allocates hundreds of thousands of containers and no garbage
    cycles; each allocation burst triggers full collections that rescan everything built so
    far (a 10,000-VM spec loaded 2.7x slower with the collector on). Refcounting still frees
    memory meanwhile, and input size is bounded by MAX_FILE_BYTES.

    kept: what the block builds lives on (a spec's tree and models, until each VM's turn). When
    the collector resumes, the first allocation would start a young collection that walks all
    of it only to promote it, and a middle one would walk it again (a tenth of the load time of
    a 100,000-VM spec): freeze() then unfreeze() moves every tracked object straight to the
    oldest generation, a list splice; cycles there are still found by full collections. Only
    after a block that built many objects (a small file keeps the collector's usual course),
    and only by the outermost pause (a kept block inside lint's loop promotes nothing of it).
    kept_min: that many objects at least (default _KEPT_MIN); 0 for a block known to build
    what the whole run keeps (a command's start-up).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if kept and gc.get_count()[0] >= (_KEPT_MIN if kept_min is None else kept_min):
                gc.freeze()
                gc.unfreeze()
            gc.enable()


@contextmanager
def gc_frozen() -> Iterator[None]:
    """Every object alive now kept out of the collector's scans while the block runs (objects
    that live for the whole run: the spec, the catalog, the results so far), so the collections
    the block's allocations trigger do not rescan them. A saving of the cost layer (advisor.cost):
    ADVISOR_SAVINGS_OFF=freeze runs the block without it."""
    from advisor.cost import off

    if off("freeze"):
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()

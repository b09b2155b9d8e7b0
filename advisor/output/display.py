"""What the text report shows beyond one line, a fix and a link per finding: its own module
because the text formatter needs it and the package (advisor.output) imports that formatter."""

from __future__ import annotations

from typing import NamedTuple


class Display(NamedTuple):
    """What the text report shows beyond one line, a fix and a link per finding (the other
    formats carry everything). `-v` turns every part on; `check` shows its spec files' topologies by
    default (a running estate's only with -v: advisor.output.text).
    (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    sources: bool = False  # every reference of each finding (--show-sources)
    skipped: bool = False  # each VM's rules not evaluated and every unknown template value (--show-skipped)
    topology: bool = False  # each spec file's VMs' predicted topology (a running estate's: `verbose`)
    verbose: bool = False  # also each host's capacity, a fix's instruction and the suggestions not written

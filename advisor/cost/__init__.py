"""The cost layer: everything advisor does only to be faster, in one place.

Engine, facts and loaders are written as plain data flow (read, model, facts, rules, findings);
each saving below gives exactly what the plain way gives, and lives here with what it holds,
what it is keyed by and how it is invalidated:

- builtin (builtin.py, on disk through disk.py): the built-in rule catalog parsed, checked and
  compiled, as JSON records. Key: the rule files' bytes, the facts' names and types, the seed
  papers' table, the code that builds a record, advisor's version and source files (size and
  time), the YAML and CEL libraries, the interpreter. Invalidated by any change of those (a new
  key; the old entry is dropped) and by a damaged entry (checksum); ADVISOR_NO_CACHE=1 turns it off.
  The limits tables (advisor.resources) are kept on disk the same way.
- batch (decider.py): a group's rules as one combined CEL program, one call per VM, once the
  group has seen _BATCH_AFTER VMs. Kept per group of one evaluator; compiled again when a rule
  leaves the group's `likely` set; gone with the evaluator.
- packed (packed.py, chosen in decider.py): that program binding the known facts as typed
  lists, once a group has seen _PACK_AFTER VMs or one call evaluates _PACK_RUN.
- memo (memo.py): a rule decided on its own, remembered by the values and types of the facts it
  reads, once CEL's checker proves it reads no other. Per evaluator; bounded in entries and key
  size; nothing to invalidate (the key is everything the answer depends on).
- shapes (shapes.py): the topology cache of facts_for (predicted layouts, their what-ifs and
  facts, the layouts on the cluster's other hosts) shared by the hosts of a run that are equal
  in every value but their name. Key: those values and the version; at most SHAPE_HOSTS kinds
  per evaluator; nothing to invalidate (every entry is keyed by the VM values it reads).
- workers (workers.py): lint's files in chunks across processes, each worker keeping one
  evaluator (so the savings above) for all its chunks; results merged in the order of the files.
- the collector (advisor.collector, and gc.freeze around an evaluation): the cyclic garbage
  collector paused or kept off objects that live for the whole run.

How to add one, and how to show that it pays: CONTRIBUTING.md, "The cost layer".
"""

from __future__ import annotations

import os

# The savings a run can be made without (ADVISOR_SAVINGS_OFF=memo,packed): what a paired
# benchmark (benchmarks/savings.py) measures each one against, and what tests/unit/test_savings.py
# proves gives the same output. `disk` is the on-disk cache (ADVISOR_NO_CACHE=1 says the same).
SAVINGS = ("disk", "batch", "packed", "memo", "shapes", "freeze")


def off(name: str) -> bool:
    """Whether the saving `name` (one of SAVINGS) is turned off for this process."""
    return name in os.environ.get("ADVISOR_SAVINGS_OFF", "").split(",")

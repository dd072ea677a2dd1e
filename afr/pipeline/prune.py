"""`afr runs prune`: the run log's asks from before a date removed, in one transaction.

What goes: the asks of `afr ask`, and those of eval runs deleted since (their eval_id
names no run any more), with their symbol, answer and KAR rows. What stays: the asks of
eval runs that still exist (`afr eval delete ID` removes them with their run), and the
``llm_calls`` cache, which is keyed by prompt, not by run.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from afr.store.base import Store


@dataclass(frozen=True)
class Pruned:
    runs: int  # asks removed (with ``dry_run``: that would be)
    kept: int  # asks from before the date that belong to an eval run, left with it


def prune_runs(store: Store, before: dt.datetime, *, dry_run: bool = False) -> Pruned:
    """Remove the asks logged before ``before`` that no eval run keeps (see above)."""
    if not store.table_exists("runs"):
        return Pruned(0, 0)
    if not dry_run:
        store.require_initialised()  # an older store gets the tables the prune touches
    params = {"before": before}
    with store.transaction():
        pruned, kept = store.run("runlog/prune_counts.sql", params)[0]
        if pruned and not dry_run:
            store.run("runlog/prune.sql", params)
    return Pruned(int(pruned or 0), int(kept or 0))

"""Spark's own progress (tasks done of the tasks of a statement's stages) as afr's bar.

A Spark statement that reads or writes much (a load's parts, the lexical index's postings,
an embedding's documents) runs for minutes as a few jobs of many tasks. While it runs, a
daemon thread polls Spark's status tracker for the jobs of this statement — tagged with a
job group of their own, so other threads' statements are not counted — and reports the
completed and total tasks of their stages. The bar (``afr.progress.bar``) appears only
for a statement still running at its first poll, so the quick statements of an ask draw
nothing on a quiet machine; ``--no-progress`` (``SparkStore.progress`` False) starts no
thread at all.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

from afr.progress import bar

if TYPE_CHECKING:
    from pyspark import SparkContext

# Seconds between polls: a bar for statements that outlast one poll, no load from polling.
POLL_SECONDS = 0.5
_GROUP_KEY = "spark.jobGroup.id"
_DRAIN_MS = 10_000  # at most this long for Spark's listener bus to catch up
_groups = itertools.count(1)

Report = Callable[[int, int], None]  # (tasks completed, tasks) of the statement so far


def task_counts(context: SparkContext, group: str) -> tuple[int, int]:
    """(completed, total) tasks of the stages of every job in job group ``group``."""
    tracker = context.statusTracker()
    done = total = 0
    for job_id in tracker.getJobIdsForGroup(group):
        job = tracker.getJobInfo(job_id)
        for stage_id in job.stageIds if job is not None else ():
            stage = tracker.getStageInfo(stage_id)
            if stage is not None:
                done += stage.numCompletedTasks
                total += stage.numTasks
    return done, total


@contextmanager
def tracked(context: SparkContext, report: Report, *, interval: float = POLL_SECONDS
            ) -> Iterator[None]:
    """Run the block's Spark jobs in a job group of their own, calling ``report`` with
    their task counts every ``interval`` seconds from a daemon thread, and once more when
    the block has run (the final counts: every task of its statement, done)."""
    group = f"afr-{next(_groups)}"
    previous = context.getLocalProperty(_GROUP_KEY)
    context.setJobGroup(group, "afr statement")
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(interval):
            try:
                counts = task_counts(context, group)
            except Exception:  # the JVM went away: the statement itself will say so
                return
            report(*counts)

    watcher = threading.Thread(target=poll, name="afr-spark-progress", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()
        context.setLocalProperty(_GROUP_KEY, previous)  # type: ignore[arg-type]
    # Spark's status tracker learns of finished tasks from its listener bus, a moment after
    # the tasks end: the final counts are read once the bus has caught up
    from py4j.protocol import Py4JError

    with suppress(Py4JError):  # still busy after that long: report what it knows
        context._jsc.sc().listenerBus().waitUntilEmpty(_DRAIN_MS)
    report(*task_counts(context, group))


class StatementBar:
    """A ``report`` that draws afr's bar: made at the first report with tasks still to
    do (a statement that outlasted one poll), moved by each later one, closed by close()."""

    def __init__(self, desc: str) -> None:
        self.desc = desc
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total == 0 or done >= total:
                return
            self.bar = bar(total, self.desc, enabled=True, unit="task")
        self.bar.total = max(total, self.bar.total or 0)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@contextmanager
def statement_progress(context: SparkContext, desc: str) -> Iterator[None]:
    """Spark's progress of the block's statement as afr's bar (see the module)."""
    drawn = StatementBar(desc)
    try:
        with tracked(context, drawn):
            yield
    finally:
        drawn.close()

"""Reads of questions asked together, gathered into one Spark job per result shape.

Spark runs every statement as a job (a few tenths of a second, however small), so an
evaluation that asks its questions one statement at a time costs steps × questions jobs.
``afr eval`` asks a batch of questions at once (one thread each, the same pipeline as
ever); each thread joins the store's ``Gatherer``. A read such a thread sends waits
until the batch can add no more to it, and the reads with the same key run as one
query: a UNION ALL of the statements, each tagged with its caller's position, the rows
split back to the callers in their order.

A group of reads runs when it is full (``batch`` of them), when it has waited the gather
window out (a question busy elsewhere, at an LLM, is not waited for longer; one whose
thread is preparing its read, e.g. Spark analysing it, is about to send it), or when
every joined thread waits in a group, none running or busy: then nobody can join any
group before one runs, and the one that runs is the largest, counting for each group the
times it was passed over (so a question that took a step the others did not catches up
with them rather than waiting for them to finish).

The key is the store's to give (``prepare``): on Spark it is the statement's result
schema as Spark's analysis gives it (column names and types), so that statements whose
text differs per question (the grounding's compiled SQL) but whose rows have the same
shape run together too, and no value ever changes type in a union. Without ``prepare``
the key is the statement's text. The store does the Spark side
(``SparkStore._query_together``); this module only decides who runs together. There, the
reads of one statement text are one branch of the union, the statement lifted over their
parameters (afr.store.spark_lift), and Spark analyses the text for its shape once (per
types of values) and lifted once per union, rather than once per question. A union that Spark refuses is run as the separate statements, so each
caller gets the rows or the error it would have got alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

Rows = tuple[list[str], list[tuple]]
Params = dict[str, Any] | None
#: A read as the store prepared it: its statement, parameters and the store's own form.
Prepared = tuple[str, Params, Any]
RunTogether = Callable[[list[Prepared]], list[Rows | BaseException]]
#: Who may run together (equal keys), and the store's form of the read (or None).
Prepare = Callable[[str, Params], tuple[Hashable, Any]]


def by_text(sql: str, params: Params) -> tuple[Hashable, Any]:
    """The plain key: reads of the same statement text run together."""
    return sql, None


@dataclass
class _Read:
    """One caller's statement, and what came of it."""

    sql: str
    params: Params
    prepared: Any = None
    done: bool = False
    rows: Rows | None = None
    error: BaseException | None = None


@dataclass
class _Group:
    """The reads of one key waiting to run together."""

    opened: float
    reads: list[_Read] = field(default_factory=list)
    passed: int = 0  # other groups run while this one waited

    def claim(self) -> tuple[int, float]:
        """How strongly the group claims to run next, when every thread waits."""
        return len(self.reads) + self.passed, -self.opened


class Gatherer:
    """Decides which reads of the joined threads run together, and runs them."""

    def __init__(self, run_together: RunTogether, *, batch: int, window_s: float,
                 prepare: Prepare = by_text) -> None:
        self._run_together = run_together
        self._prepare = prepare
        self.batch = batch  # most reads in one union (and questions asked at once)
        self.window_s = window_s  # longest a read waits for a busy thread's
        self._cond = threading.Condition()
        self._joined = threading.local()
        self._members = 0  # threads joined
        self._preparing = 0  # threads preparing a read (e.g. Spark analysing it)
        self._open: dict[Hashable, _Group] = {}
        #: Unions run and the reads they answered: what batching saved, for reports.
        self.unions = 0
        self.gathered = 0

    @contextmanager
    def joined(self) -> Iterator[None]:
        """This thread's reads are gathered with the other joined threads' until it
        leaves (its reads then run alone, as do those of threads never joined)."""
        with self._cond:
            self._members += 1
            self._joined.on = True
        try:
            yield
        finally:
            with self._cond:
                self._members -= 1
                self._joined.on = False
                self._cond.notify_all()  # the others may now be all that is left

    def is_joined(self) -> bool:
        return getattr(self._joined, "on", False)

    def read(self, sql: str, params: Params) -> Rows:
        """The rows of ``sql``, run together with the other threads' reads of its key."""
        with self._cond:
            self._preparing += 1
        try:
            key, prepared = self._prepare(sql, params)  # outside the lock: Spark analyses it
        except BaseException:
            with self._cond:
                self._preparing -= 1
                self._cond.notify_all()  # a window may have run out meanwhile
            raise
        mine = _Read(sql, params, prepared)
        with self._cond:  # prepared and queued at once: no group runs in between
            self._preparing -= 1
            group = self._open.setdefault(key, _Group(time.monotonic()))
            group.reads.append(mine)
            self._cond.notify_all()
            while not mine.done:
                if self._open.get(key) is group and self._due(group):
                    del self._open[key]
                    for other in self._open.values():
                        other.passed += 1
                    self._run(group)  # releases the lock while Spark works
                    continue
                # a group already running wakes its callers when done: no timeout
                timed = self._open.get(key) is group and not self._preparing
                self._cond.wait(self._left(group) if timed else None)
        if mine.error is not None:
            raise mine.error
        assert mine.rows is not None
        return mine.rows

    def _due(self, group: _Group) -> bool:
        """Whether the group should run now (see the module's text)."""
        if len(group.reads) >= self.batch:
            return True
        # a thread preparing its read is about to send it, not busy elsewhere
        if not self._preparing and time.monotonic() - group.opened >= self.window_s:
            return True
        queued = sum(len(g.reads) for g in self._open.values())
        return queued >= self._members and \
            group is max(self._open.values(), key=_Group.claim)

    def _left(self, group: _Group) -> float:
        return max(0.001, self.window_s - (time.monotonic() - group.opened))

    def _run(self, group: _Group) -> None:
        """Run the group's reads (the condition's lock released meanwhile) and wake the
        callers."""
        self._cond.release()
        try:
            outcomes = self._run_together([(r.sql, r.params, r.prepared)
                                           for r in group.reads])
        except BaseException as exc:  # noqa: BLE001 - every caller gets the failure
            outcomes = [exc] * len(group.reads)
        finally:
            self._cond.acquire()
        if len(group.reads) > 1:
            self.unions += 1
            self.gathered += len(group.reads)
        for read, outcome in zip(group.reads, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                read.error = outcome
            else:
                read.rows = outcome
            read.done = True
        self._cond.notify_all()

"""The gatherer behind batch evals on Spark (issue 24, item 3): reads of the joined threads
with the same statement run together, each caller gets its own rows or error, and no read
waits for a thread that will never send one. No Spark here: the store's union is a fake
that records what ran together (tests/test_same_answers.py runs the real one)."""

from __future__ import annotations

import threading
import time

import pytest

from afr.errors import StoreError
from afr.store.spark_batch import Gatherer


class Recorder:
    """A stand-in for the store's union: each read's rows name its statement and value."""

    def __init__(self) -> None:
        self.runs: list[list[tuple[str, int]]] = []

    def __call__(self, reads):
        self.runs.append([(sql, params["v"]) for sql, params, _ in reads])
        return [StoreError(f"bad {p['v']}") if p["v"] < 0 else (["x"], [(sql, p["v"])])
                for sql, p, _ in reads]


def _ask_in_threads(gatherer: Gatherer, plans: list[list[tuple[str, int]]]) -> list[list]:
    """Each plan's reads in order, in a joined thread of its own; what each read gave."""
    got: list[list] = [[] for _ in plans]
    start = threading.Barrier(len(plans))

    def run(i: int) -> None:
        with gatherer.joined():
            start.wait()
            for sql, value in plans[i]:
                try:
                    got[i].append(gatherer.read(sql, {"v": value})[1])
                except StoreError as exc:
                    got[i].append(str(exc))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(plans))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    return got


def test_the_same_statement_of_every_thread_runs_once_together() -> None:
    runs = Recorder()
    # a long window: only "every thread is waiting" can set the reads off
    gatherer = Gatherer(runs, batch=16, window_s=30)
    plans = [[("s1", i), ("s2", 10 + i), ("s3", 20 + i)] for i in range(4)]
    got = _ask_in_threads(gatherer, plans)
    assert got == [[[("s1", i)], [("s2", 10 + i)], [("s3", 20 + i)]] for i in range(4)]
    assert sorted(sorted(r) for r in runs.runs) == [
        [("s1", i) for i in range(4)], [("s2", 10 + i) for i in range(4)],
        [("s3", 20 + i) for i in range(4)]]
    assert (gatherer.unions, gatherer.gathered) == (3, 12)


def test_questions_on_different_paths_still_finish_and_errors_stay_their_callers() -> None:
    runs = Recorder()
    gatherer = Gatherer(runs, batch=16, window_s=30)
    # thread 0 sends one statement more than the others, thread 2 fails on its second
    plans = [[("a", 0), ("b", 1), ("c", 2)], [("a", 3), ("b", 4)], [("a", 5), ("b", -6)]]
    got = _ask_in_threads(gatherer, plans)
    assert got == [[[("a", 0)], [("b", 1)], [("c", 2)]], [[("a", 3)], [("b", 4)]],
                   [[("a", 5)], "bad -6"]]
    assert [len(r) for r in runs.runs] == [3, 3, 1]


def test_a_full_batch_runs_without_waiting_for_the_rest() -> None:
    runs = Recorder()
    gatherer = Gatherer(runs, batch=2, window_s=30)
    got = _ask_in_threads(gatherer, [[("s", i)] for i in range(4)])
    assert got == [[[("s", i)]] for i in range(4)]
    assert sorted(len(r) for r in runs.runs) == [2, 2]


def test_a_thread_that_never_joined_reads_alone() -> None:
    runs = Recorder()
    gatherer = Gatherer(runs, batch=16, window_s=30)
    assert not gatherer.is_joined()
    with gatherer.joined():
        assert gatherer.is_joined()
        assert gatherer.read("s", {"v": 1}) == (["x"], [("s", 1)])  # alone: nobody to wait for
    assert runs.runs == [[("s", 1)]] and gatherer.unions == 0


def test_a_failing_union_fails_every_caller_not_the_gatherer() -> None:
    def broken(reads):
        raise StoreError("Spark went away")

    gatherer = Gatherer(broken, batch=16, window_s=30)
    got = _ask_in_threads(gatherer, [[("s", 1)], [("s", 2)]])
    assert got == [["Spark went away"], ["Spark went away"]]
    with pytest.raises(StoreError), gatherer.joined():
        gatherer.read("s", {"v": 3})



def _by_shape(sql: str, params: dict) -> tuple[str, str]:
    """A stand-in for the store's analysis: the statement's shape is its text's prefix."""
    return sql.split(":")[0], f"prepared {sql}"


def test_reads_of_different_text_and_the_same_shape_run_together_others_never() -> None:
    runs = Recorder()
    prepared: list[str] = []

    def run_together(reads):
        prepared.extend(p for _, _, p in reads)
        return runs(reads)

    gatherer = Gatherer(run_together, batch=16, window_s=30, prepare=_by_shape)
    plans = [[("int:a", 0)], [("int:b", 1)], [("str:c", 2)], [("int:d", 3)]]
    got = _ask_in_threads(gatherer, plans)
    assert got == [[[("int:a", 0)]], [[("int:b", 1)]], [[("str:c", 2)]], [[("int:d", 3)]]]
    assert sorted(sorted(r) for r in runs.runs) == [
        [("int:a", 0), ("int:b", 1), ("int:d", 3)], [("str:c", 2)]]
    assert (gatherer.unions, gatherer.gathered) == (1, 3)
    assert sorted(prepared) == [f"prepared {sql}" for sql in ("int:a", "int:b", "int:d",
                                                               "str:c")]


def test_a_read_still_being_prepared_is_waited_for_past_the_window() -> None:
    runs = Recorder()

    def slow_for_b(sql: str, params: dict) -> tuple[str, None]:
        if sql == "same:b":
            time.sleep(1.0)  # Spark analysing a large statement: ten windows
        return "same", None

    gatherer = Gatherer(runs, batch=16, window_s=0.1, prepare=slow_for_b)
    got = _ask_in_threads(gatherer, [[("same:a", 0)], [("same:b", 1)], [("same:c", 2)]])
    assert got == [[[("same:a", 0)]], [[("same:b", 1)]], [[("same:c", 2)]]]
    assert [sorted(r) for r in runs.runs] == [[("same:a", 0), ("same:b", 1), ("same:c", 2)]]

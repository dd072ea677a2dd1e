"""A pipeline reads each fact once: an offline ask on the demo store runs few statements.

The schema, the embedding models, the SKB's directedness and the type counts are read once
per store object; the built-in hashing embedder skips the query-embedding cache (it
computes faster than the store looks up); node details are fetched once per ask; the
exact-name lookups of all constants and the witnesses of all links are one statement each.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from settings_util import settings_of

from afr.pipeline.ask import Pipeline
from afr.store import DuckDBStore

QUESTION = "Which exceptions defined in the calendar module inherit from ValueError?"
GOLD = {"exception:calendar.IllegalMonthError", "exception:calendar.IllegalWeekdayError"}
MAX_STATEMENTS = 15


def test_one_offline_ask_runs_few_statements(demo_path: Path) -> None:
    store = DuckDBStore(demo_path)
    try:
        pipeline = Pipeline(store, settings_of(llm__offline=True))  # logged, as `afr ask` does
        setup = store.statements
        before, transactions = store.statements, store.transactions
        result = pipeline.ask(QUESTION)
        asked = store.statements - before
        print(f"\nset-up: {setup} statements; one ask: {asked} statements in "
              f"{store.transactions - transactions} transaction(s)")
        assert {a.ext_id for a in result.answers[:2]} == GOLD
        logged = store.query("SELECT config FROM runs WHERE run_id = $r", {"r": result.run_id})
        assert isinstance(logged[0].config, dict)  # logged; JSON comes back decoded
        assert asked <= MAX_STATEMENTS
        # The facts read for the first question are not read again for the second.
        before = store.statements
        pipeline.ask(QUESTION)
        assert store.statements - before <= asked
    finally:
        store.close()


def test_facts_are_read_again_after_the_store_changes_them(demo_path: Path) -> None:
    store = DuckDBStore(demo_path)
    try:
        schema = store.skb_schema()
        model = store.embedding_model("doc")
        before = store.statements
        assert store.skb_schema() is schema and store.embedding_model("doc") == model
        assert store.statements == before
        with pytest.raises(RuntimeError), store.transaction():
            store.set_meta("skb_description", "changed")
            assert store.skb_schema().description == "changed"
            raise RuntimeError("rolled back")
        assert store.skb_schema().description == schema.description  # read afresh
        store.set_meta("skb_description", "changed")
        assert store.skb_schema().description == "changed"
        store.set_meta("skb_description", schema.description)
    finally:
        store.close()


def test_a_write_of_vectors_keeps_the_skbs_facts_and_forgets_the_others(
        demo_path: Path) -> None:
    # On Spark every fact read again is a statement: forgetting them all on every write of
    # vectors had an embed read the schema again per batch.
    store = DuckDBStore(demo_path)
    try:
        schema, counts = store.skb_schema(), store.node_type_counts()
        model = store.embedding_model("doc")
        assert model is not None
        with pytest.raises(RuntimeError), store.transaction():  # rolled back, below
            store.record_embedding_model("doc", "hash:other", model[1])
            assert store.embedding_model("doc") == ("hash:other", model[1])  # read afresh
            before = store.statements
            assert store.skb_schema() is schema and store.node_type_counts() is counts
            assert store.statements == before
            raise RuntimeError("rolled back")
        assert store.embedding_model("doc") == model
        assert store.skb_schema() is not schema  # a failed transaction forgets them all
    finally:
        store.close()


def test_rows_read_by_name_and_position(demo_path: Path) -> None:
    store = DuckDBStore(demo_path)
    try:
        row = store.run("runlog/answer_details.sql", {"ids": [1]})[0]
        node_id, ext_id, node_type, name = row
        assert (row.id, row.ext_id, row.type, row.name) == (node_id, ext_id, node_type, name)
        details = store.node_details([1, 2, 10**9])
        assert set(details) == {1, 2} and details[1].ext_id == ext_id
        assert store.node_details([]) == {}
    finally:
        store.close()


def test_afr_info_reads_the_meta_once(demo_path: Path) -> None:
    # the version, the SKB's name, where it came from and the index's state are meta
    # values: one read of the meta serves them all (on Spark each read is ~1 s cold)
    from afr.store.summary import describe_store

    store = DuckDBStore(demo_path)
    read: list[str] = []
    query = store.query_with_columns

    def counted(sql: str, *args, **kwargs):
        read.append(sql)
        return query(sql, *args, **kwargs)

    store.query_with_columns = counted  # type: ignore[method-assign]
    try:
        summary = describe_store(store)
        assert summary["nodes"] > 0 and summary["source"]
        assert sum("afr_meta" in sql for sql in read) == 1, read
    finally:
        store.close()

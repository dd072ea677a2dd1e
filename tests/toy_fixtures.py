"""Fixtures for tests that run through the CLI on both stores: the toy SKB (two candidate
types) loaded and embedded into a fresh DuckDB file or a fresh PostgreSQL schema, and an
LLM endpoint named by a settings file. A test module asks for them with
``pytest_plugins = ("toy_fixtures",)``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from toy_stores import LLM_VARS, two_type_skb

import afr
from afr.store import DuckDBStore, PostgresStore, Store


@pytest.fixture(params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def toy_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[str]]:
    """The CLI's options naming a fresh store of each kind that holds the toy SKB."""
    skb = two_type_skb(tmp_path / "skb")
    if request.param == "duckdb":
        path = tmp_path / "toy.duckdb"
        store: Store = DuckDBStore(path)
        args = ["--db", str(path)]
    else:
        url = request.getfixturevalue("pg_url")
        schema = "t_" + uuid.uuid4().hex[:12]
        store = PostgresStore(url, schema=schema)
        args = ["--db", url, "--schema", schema]
    try:
        afr.load_skb_dir(store, skb, progress=False)
        afr.embed_store(store, afr.make_embedder("hash"), progress=False)
    finally:
        store.close()
    yield args


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """``use(url, timeout_s=…, max_retries=…)``: afr's LLM at ``url`` through a settings
    file, and no LLM or embedding variable of the environment in the way."""
    for var in LLM_VARS:
        monkeypatch.delenv(var, raising=False)

    def use(url: str, *, timeout_s: float = 2, max_retries: int = 1) -> None:
        path = tmp_path / "afr.toml"
        path.write_text(f'[llm]\nbase_url = "{url}"\nmodel = "m"\napi_key = "k"\n'
                        f"timeout_s = {timeout_s}\nmax_retries = {max_retries}\n")
        monkeypatch.setenv("AFR_CONFIG", str(path))
    return use

"""Helpers for tests that run through the CLI on both stores (their fixtures:
``toy_fixtures``): the toy SKB with two candidate types (so step 1 asks the LLM too), the
store a CLI's options name, question files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from skbutil import toy_skb

from afr.store import DuckDBStore, PostgresStore, Store

QUESTION = "Which paper by Thomas Kipf is about graph learning?"
CYPHER = "MATCH (y:paper)<-[:author_writes_paper]-(a:author {name: 'Thomas Kipf'}) RETURN y"
LLM_VARS = ("AFR_LLM_BASE_URL", "AFR_LLM_MODEL", "AFR_LLM_API_KEY", "AFR_LLM_TIMEOUT",
            "OPENAI_API_KEY", "AFR_EMBED_BASE_URL", "AFR_EMBED_API_KEY")


def two_type_skb(directory: Path) -> Path:
    skb = toy_skb(directory)
    schema = json.loads((skb / "skb.json").read_text())
    schema["candidate_types"] = ["paper", "author"]
    (skb / "skb.json").write_text(json.dumps(schema))
    return skb


def open_store(args: list[str], *, read_only: bool = False) -> Store:
    """The store the CLI options ``args`` name."""
    db = args[1]
    if db.startswith("postgresql"):
        return PostgresStore(db, schema=args[3])
    return DuckDBStore(Path(db), read_only=read_only)


def question_file(path: Path, n: int, *, gold: str = "p3") -> Path:
    """``n`` copies of the toy question (ids q0 …), each with answer ``gold``."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "query", "answer_ids"])
        for i in range(n):
            writer.writerow([f"q{i}", f"{QUESTION} (copy {i})", json.dumps([gold])])
    return path

"""Replay of recorded Cypher for known questions — a benchmark tool, not a model.

``Replay`` maps a question's text to the (target type, Cypher) recorded for it in a
``questions.csv`` column (``cypher``: the gold query; ``cypher_noisy``: the same with
LLM-like mistakes). It stands in for steps 1–2 of the pipeline so that steps 3–7 can
be measured without any LLM; it knows nothing beyond its file and cannot answer a
question it has not seen.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from afr.errors import AfrError


class Replay:
    def __init__(self, questions_csv: str | Path, column: str = "cypher") -> None:
        path = Path(questions_csv)
        if path.is_dir():
            path = path / "questions.csv"
        try:
            with open(path, encoding="utf-8", newline="") as fh:
                rows = list(csv.DictReader(fh))
        except FileNotFoundError:
            raise AfrError(f"{path}: not found") from None
        if rows and (column not in rows[0] or "query" not in rows[0]):
            raise AfrError(f"{path}: no column {column!r} (columns: {', '.join(rows[0])})")
        self.column = column
        self.table: dict[str, tuple[str | None, str]] = {
            " ".join(r["query"].split()): (r.get("target_type") or None, r[column])
            for r in rows
        }

    def __len__(self) -> int:
        return len(self.table)

    def lookup(self, question: str) -> tuple[str | None, str]:
        """(target type, Cypher) recorded for ``question``; AfrError for an unknown one."""
        found = self.table.get(" ".join(question.split()))
        if found is None:
            raise AfrError(f"the replay file has no Cypher for the question {question[:80]!r}")
        return found

    def ask(self, pipeline: Any, question: str, **kw: Any) -> Any:
        """``pipeline.ask`` with the recorded Cypher in place of steps 1–2."""
        target_type, cypher = self.lookup(question)
        return pipeline.ask(question, cypher=cypher, target_type=target_type, **kw)

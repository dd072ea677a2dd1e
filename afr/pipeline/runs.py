"""The run log: every ask leaves rows you can query with plain SQL, and reads them back.

``runs`` (question, settings, Cypher, timings, the outcome, the fixes and the repair
round), ``run_symbols`` (each constant's ranked candidates and the level at which they
enter), ``run_answers`` (the final list with strand, level, scores and the grounded
assignment that led to each answer), and for KAR ``run_kar_*``. ``write_run`` writes
one ask's rows in one transaction; ``list_runs``, ``find_run`` and ``run_details`` are
``afr runs``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from afr.errors import AfrError
from afr.ground.schedule import level_of_candidate, scope_schedule
from afr.methods.kar.log import write_kar
from afr.settings import Settings, differences, stored_tree, to_dict
from afr.store.base import Store

if TYPE_CHECKING:
    from afr.pipeline.result import AskResult

_PREFIX = re.compile(r"^[0-9A-Za-z]+$")


def write_run(store: Store, result: AskResult, *, eval_id: str | None = None,
              question_id: str | None = None) -> None:
    schedule = scope_schedule(result.settings.af.l_max, result.settings.af.schedule)
    sym_rows: dict[str, list] = {"symbols": [], "node_ids": [], "ranks": [], "levels": [],
                                 "scores": []}
    for var, cands in result.symbols.items():
        for rank, (node_id, score) in enumerate(zip(cands.ids, cands.scores, strict=True), 1):
            sym_rows["symbols"].append(var)
            sym_rows["node_ids"].append(node_id)
            sym_rows["ranks"].append(rank)
            sym_rows["levels"].append(level_of_candidate(rank, schedule, cands.exact) or 0)
            sym_rows["scores"].append(score)
    answers = result.answers

    def write() -> None:  # a fresh run_id: safe to repeat after a lost connection
        store.run("runlog/insert_run.sql", {
            "run_id": result.run_id,
            "question": result.question,
            "mode": result.mode,
            "config": json.dumps(to_dict(result.settings)),
            "target_type": result.target_type,
            "cypher": result.cypher,
            "query_graph": json.dumps(result.query_graph),
            "timings": json.dumps(dict(result.timings)),
            "llm_calls": result.llm_calls,
            "llm_tokens": result.llm_tokens,
            "status": result.status,
            "warnings": json.dumps(list(result.warnings)),
            "eval_id": eval_id,
            "question_id": question_id,
            "outcome": result.outcome,
            "fixes": json.dumps([asdict(f) for f in result.fixes]),
            "repair": json.dumps(result.repair.to_dict()) if result.repair is not None
            else None,
            "fallbacks": json.dumps([asdict(f) for f in result.fallbacks]),
        })
        if sym_rows["symbols"]:
            store.run("runlog/insert_symbols.sql", {"run_id": result.run_id, **sym_rows})
        if answers:
            store.run("runlog/insert_answers.sql", {
                "run_id": result.run_id,
                "node_ids": [a.node_id for a in answers],
                "sources": [a.source for a in answers],
                "levels": [a.level for a in answers],
                "scores": [a.vss_score for a in answers],
                "positions": [a.rerank_position for a in answers],
                "ranks": [a.rank for a in answers],
                "provenance": [json.dumps(dict(a.provenance)) for a in answers],
            })
        if result.kar is not None:
            write_kar(store, result.run_id, result.kar.to_dict())

    store.run_in_transaction(write)


# -- reading it back (afr runs) ---------------------------------------------------------

@dataclass
class RunSummary:
    """One line of ``afr runs``."""

    run_id: str
    created_at: dt.datetime | None
    mode: str
    status: str
    question: str
    target_type: str | None
    eval_id: str | None
    top_answer: str | None  # the first answer's name (else its external id)
    top_ext_id: str | None
    answers: int
    method: str = "af"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["created_at"] = self.created_at.isoformat() if self.created_at else None
        return data


def _method(config: Any) -> str:
    """The method a run's stored settings name (runs from before methods: af)."""
    return str((stored_tree(config or {}).get("ask") or {}).get("method") or "af")


@dataclass
class RunDetails:
    """Everything the run log holds of one run."""

    run_id: str
    created_at: dt.datetime | None
    question: str
    mode: str
    status: str
    target_type: str | None
    cypher: str | None
    query_graph: Any
    config: Any
    timings: dict[str, float]
    warnings: list[str]
    llm_calls: int
    llm_tokens: int
    eval_id: str | None
    question_id: str | None
    symbols: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    answers: list[dict[str, Any]] = field(default_factory=list)

    @property
    def settings(self) -> dict[str, Any]:
        """The settings tree the run asked with (``afr.settings.stored_tree``)."""
        return stored_tree(self.config or {})

    @property
    def method(self) -> str:
        return _method(self.config)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["created_at"] = self.created_at.isoformat() if self.created_at else None
        return data


def list_runs(store: Store, *, limit: int = 20, with_eval: bool = False) -> list[RunSummary]:
    """The newest ``limit`` runs, newest first; those of ``afr eval`` only ``with_eval``."""
    if not store.table_exists("runs"):
        return []
    rows = store.run("runlog/list_runs.sql", {"limit": int(limit)}, with_eval=with_eval)
    return [RunSummary(r.run_id, r.created_at, r.mode, r.status, r.question, r.target_type,
                       r.eval_id, r.top_name or r.top_ext_id, r.top_ext_id, int(r.answers),
                       _method(r.config))
            for r in rows]


def find_run(store: Store, prefix: str) -> str:
    """The run id that ``prefix`` starts (AfrError when none or several do)."""
    prefix = prefix.strip()
    if not _PREFIX.match(prefix):
        raise AfrError(f"{prefix!r} is not a run id (letters and digits; see 'afr runs')")
    found = [r.run_id for r in store.run("runlog/find_run.sql", {"prefix": prefix})] \
        if store.table_exists("runs") else []
    if not found:
        raise AfrError(f"no run {prefix!r} in this store (see 'afr runs')")
    if len(found) > 1:
        raise AfrError(f"run id prefix {prefix!r} is ambiguous: give more of it")
    return found[0]


def run_details(store: Store, run_id: str, *, per_symbol: int = 10) -> RunDetails:
    """One run in full (``run_id`` as ``find_run`` returns it); ``per_symbol`` candidates
    of each symbol."""
    rows = store.run("runlog/run.sql", {"run_id": run_id})
    if not rows:
        raise AfrError(f"no run {run_id!r} in this store (see 'afr runs')")
    r = rows[0]
    out = RunDetails(r.run_id, r.created_at, r.question, r.mode, r.status, r.target_type,
                     r.cypher, r.query_graph, r.config, dict(r.timings or {}),
                     list(r.warnings or []), int(r.llm_calls or 0), int(r.llm_tokens or 0),
                     r.eval_id, r.question_id)
    for s in store.run("runlog/run_symbols.sql", {"run_id": run_id, "per_symbol": per_symbol}):
        out.symbols.setdefault(s.symbol, []).append({
            "rank": int(s.rank), "level": int(s.level), "score": _number(s.score),
            "node_id": int(s.node_id), "ext_id": s.ext_id, "name": s.name, "type": s.type})
    names: dict[int, str] = {}
    for a in store.run("runlog/run_answers.sql", {"run_id": run_id}):
        out.answers.append({
            "rank": int(a.final_rank), "node_id": int(a.node_id), "ext_id": a.ext_id,
            "name": a.name, "type": a.type, "source": a.source,
            "level": None if a.level is None else int(a.level),
            "score": _number(a.vss_score),
            "rerank_position": None if a.rerank_position is None else int(a.rerank_position),
            "provenance": a.provenance or {}})
    # Provenance names its linking nodes by id: add their names for people.
    linking = {int(w["node"]) for a in out.answers
               for ws in (a["provenance"].get("linked_by") or {}).values() for w in ws}
    # SAGE's neighbours name the seed they are similar to by id too.
    linking |= {int(a["provenance"]["sage"]["via_seed"]) for a in out.answers
                if (a["provenance"].get("sage") or {}).get("role") == "neighbour"}
    if linking:
        names = {i: d.name or d.ext_id for i, d in store.node_details(sorted(linking)).items()}
        for a in out.answers:
            for ws in (a["provenance"].get("linked_by") or {}).values():
                for w in ws:
                    w["name"] = names.get(int(w["node"]))
            sage = a["provenance"].get("sage") or {}
            if sage.get("role") == "neighbour":
                sage["via_name"] = names.get(int(sage["via_seed"]))
    return out


def _number(value: Any) -> float | None:
    # NaN is no number for JSON readers.
    if value is None:
        return None
    value = float(value)
    return None if value != value else value


def settings_differences(run: RunDetails, other: RunDetails | None = None
                         ) -> list[tuple[str, Any, Any]]:
    """(setting, this run's value, the other's) where ``run`` asked differently from
    ``other`` — or, without one, from afr's defaults."""
    theirs = other.settings if other is not None else to_dict(Settings())
    return differences(run.settings, theirs)

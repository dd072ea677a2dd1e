"""The run log: every ask leaves rows you can query with plain SQL.

``runs`` (question, config, Cypher, timings, the outcome, the fixes and the repair round), ``run_symbols`` (each constant's ranked
candidates and the level at which they enter) and ``run_answers`` (the final list with
strand, level, scores and the grounded assignment that led to each answer).
"""

from __future__ import annotations

import json
from dataclasses import asdict

from afr.ground.schedule import level_of_candidate, scope_schedule
from afr.pipeline.kar_log import write_kar
from afr.pipeline.result import AskResult
from afr.store.base import Store


def write_run(store: Store, result: AskResult, *, eval_id: str | None = None,
              question_id: str | None = None) -> None:
    schedule = scope_schedule(result.config.l_max)
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
            "config": json.dumps(result.config.to_dict()),
            "target_type": result.target_type,
            "cypher": result.cypher,
            "query_graph": json.dumps(result.query_graph),
            "timings": json.dumps(result.timings),
            "llm_calls": result.llm_calls,
            "llm_tokens": result.llm_tokens,
            "status": result.status,
            "warnings": json.dumps(result.warnings),
            "eval_id": eval_id,
            "question_id": question_id,
            "outcome": result.outcome,
            "fixes": json.dumps([asdict(f) for f in result.fixes]),
            "repair": json.dumps(result.repair) if result.repair is not None else None,
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
                "provenance": [json.dumps(a.provenance) for a in answers],
            })
        if result.kar is not None:
            write_kar(store, result.run_id, result.kar)

    store.run_in_transaction(write)

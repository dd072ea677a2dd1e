"""Run the compiled grounding on a store and apply the scope-expansion stop rule."""

from __future__ import annotations

import time

from afr.ground.compile import CompiledGrounding, compile_grounding
from afr.ground.query import GroundingQuery, GroundingResult
from afr.ground.schedule import cut_at_k, scope_schedule
from afr.store.base import Store

MAX_ROUNDS = 1000


def ground(store: Store, query: GroundingQuery, *, k: int = 20, l_max: int = 100
           ) -> GroundingResult:
    started = time.perf_counter()
    directed = store.get_meta("skb_directed") == "true"
    compiled = compile_grounding(query, schema_directed=directed, dialect=store.dialect,
                                 k=k, l_max=l_max)
    rows = _run_cyclic(store, compiled, query) if compiled.cyclic else store.query(
        compiled.statements[-1], _params(compiled.statements[-1], compiled.params))
    schedule = scope_schedule(l_max)
    answers = [(int(node), int(level)) for node, level in rows]
    kept, final = cut_at_k(answers, schedule, k)
    return GroundingResult(kept, final, schedule, sql=compiled.statements,
                           seconds=time.perf_counter() - started)


def _params(stmt: str, params: dict) -> dict | None:
    from afr.store.base import used_params

    return used_params(stmt, params)


def _run_cyclic(store: Store, compiled: CompiledGrounding, query: GroundingQuery) -> list:
    from afr.store.base import render_template

    d = store.dialect
    tables = compiled.tables
    try:
        for var, table in tables.items():
            for stmt in render_template("ground/fix_init.sql", d, table=table,
                                        domain=compiled.domains[var]):
                store.execute(stmt, _params(stmt, compiled.params))
        state = None
        for _ in range(MAX_ROUNDS):
            for step in compiled.steps:
                for stmt in render_template("ground/fix_step.sql", d, **step):
                    store.execute(stmt, _params(stmt, compiled.params))
            new_state = [tuple(store.run("ground/fix_state.sql", table=t)[0])
                         for t in tables.values()]
            if new_state == state:
                break
            state = new_state
        return store.run("ground/fix_result.sql", table=tables[query.target], max_level=False)
    finally:
        for table in tables.values():
            store.run("ground/fix_drop.sql", table=table)

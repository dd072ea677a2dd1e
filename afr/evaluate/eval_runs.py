"""Eval runs in the store: their settings, status and per-question rows.

``eval_runs`` holds one row per run (settings as JSON, so a resume repeats them),
``eval_results`` one row per question (final list, gold, metrics, timings, LLM cost) and
``eval_variants`` one ranked list per question and variant.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from afr.errors import AfrError
from afr.evaluate.questions import Question, load_questions
from afr.evaluate.variants import FINAL
from afr.resources import demo_skb_dir
from afr.settings import stored_tree
from afr.store.base import Store


@dataclass
class EvalSettings:
    """What defines a run; kept in eval_runs.config so a resume repeats it exactly."""

    source: str
    split: str | None = None
    limit: int | None = None
    sample: int | None = None
    seed: int = 0
    replay: str | None = None  # a questions.csv column whose Cypher replaces steps 1–2
    sweeps: dict[str, list] = field(default_factory=dict)
    concurrency: int = 1
    # the whole settings tree the run asks with (``afr.settings.to_dict``): a resume and
    # ``afr eval compare`` read it back (``afr.settings.with_stored``)
    ask: dict[str, Any] = field(default_factory=dict)

    def questions(self) -> list[Question]:
        return load_questions(source_path(self.source), split=self.split, limit=self.limit,
                              sample=self.sample, seed=self.seed)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalSettings:
        known = {f.name for f in fields(cls)}
        out = cls(**{k: v for k, v in data.items() if k in known})
        out.ask = stored_tree(out.ask) if out.ask else {}
        return out


def source_path(source: str) -> Path:
    """A question source; the word ``demo`` names the bundled demo SKB's questions."""
    path = Path(source).expanduser()
    if source == "demo" and not path.exists():
        return demo_skb_dir()
    return path


@dataclass
class EvalRun:
    eval_id: str
    name: str | None
    settings: EvalSettings
    status: str  # running | finished | interrupted | failed (a dead process's: interrupted)
    total: int = 0  # questions in the set
    pid: int | None = None  # the process that runs (or last ran) it, and its host
    host: str | None = None


def this_process() -> tuple[int, str]:
    """(pid, host name) of this process, as eval_runs records who runs a run."""
    return os.getpid(), socket.gethostname()


def process_gone(pid: int | None, host: str | None) -> bool:
    """Whether the process that ran a run is known to be gone: it ran on this host and no
    process has its pid. Another host's process cannot be checked: not known gone."""
    if pid is None or host != socket.gethostname():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):  # another user's process: alive
        return False
    return False


def _status(status: str | None, pid: int | None, host: str | None) -> str:
    """A run's status as stored, except that "running" with its process gone (killed, a
    crash, the machine restarted) reads "interrupted": it can be resumed."""
    if status == "running" and process_gone(pid, host):
        return "interrupted"
    return status or "?"


def _has_owner(store: Store) -> bool:
    """Whether eval_runs records the process of each run (schema 14)."""
    return store.schema_version() >= 14


def require_eval_tables(store: Store) -> None:
    if store.schema_version() < 2:
        raise AfrError(f"the store {store.location} holds no evaluations yet "
                       "(run 'afr eval SOURCE' first)")


def new_eval_run(settings: EvalSettings, *, name: str | None, total: int) -> EvalRun:
    """A run with its id, run by this process, not yet in the store (``store_eval_run``:
    once everything it needs has been checked)."""
    pid, host = this_process()
    return EvalRun(uuid.uuid4().hex[:12], name, settings, "running", total, pid, host)


def store_eval_run(store: Store, run: EvalRun) -> None:
    config = {**asdict(run.settings), "questions": run.total}
    with store.transaction():
        store.run("eval/insert_run.sql", {
            "eval_id": run.eval_id, "name": run.name, "dataset": run.settings.source,
            "split": run.settings.split, "config": json.dumps(config, default=str),
            "status": "running", "pid": run.pid, "host": run.host})


def create_eval_run(store: Store, settings: EvalSettings, *, name: str | None,
                    total: int) -> EvalRun:
    run = new_eval_run(settings, name=name, total=total)
    store_eval_run(store, run)
    return run


def claim_eval_run(store: Store, run: EvalRun) -> None:
    """Mark ``run`` as running in this process; refused while another live process on
    this host runs it."""
    pid, host = this_process()
    if run.status == "running" and run.pid not in (None, pid) and run.host == host \
            and not process_gone(run.pid, run.host):
        raise AfrError(f"eval {run.eval_id} is running in process {run.pid} on this host; "
                       "wait for it, or stop it (Ctrl-C) before resuming it")
    with store.transaction():
        store.run("eval/claim_run.sql", {"eval_id": run.eval_id, "pid": pid, "host": host})
    run.status, run.pid, run.host = "running", pid, host


def mark_stale_runs(store: Store) -> list[str]:
    """Store "interrupted" for the runs whose process is gone (``_status``); their ids."""
    if not _has_owner(store):
        return []
    stale = [r.eval_id for r in store.run("eval/running_runs.sql")
             if process_gone(r.pid, r.host)]
    for eval_id in stale:
        set_status(store, eval_id, "interrupted")
    return stale


def delete_eval_run(store: Store, ref: str) -> tuple[EvalRun, int, int]:
    """Delete a run, its question rows and its questions' logged runs, in one
    transaction: (the run, question rows deleted, logged runs deleted). Refused while it
    runs in a live process."""
    store.require_initialised()  # an older store gets the tables the delete touches
    run = find_eval_run(store, ref)
    if run.status == "running":
        where = f"process {run.pid} on {run.host}" if run.pid else "another process"
        raise AfrError(f"eval {run.eval_id} is running ({where}); stop it before deleting "
                       "it")
    params = {"eval_id": run.eval_id}
    with store.transaction():
        questions, runs = store.run("eval/delete_counts.sql", params)[0]
        store.run("eval/delete_run.sql", params)
    return run, int(questions), int(runs)


def find_eval_run(store: Store, ref: str) -> EvalRun:
    """An eval by id, unique id prefix, or name (the newest of that name)."""
    require_eval_tables(store)
    rows = store.run("eval/find_runs.sql", {"ref": ref})
    exact = [r for r in rows if r[0] == ref]
    named = [r for r in rows if r[1] == ref]
    if exact:
        eval_id = exact[0][0]
    elif named:
        eval_id = named[0][0]
    elif len(rows) == 1:
        eval_id = rows[0][0]
    elif rows:
        raise AfrError(f"{ref!r} matches {len(rows)} evals ({', '.join(r[0] for r in rows[:5])}"
                       "); give more of the id")
    else:
        raise AfrError(f"no eval {ref!r} in {store.location} (see 'afr eval list')")
    row = store.run("eval/get_run.sql", {"eval_id": eval_id}, owner=_has_owner(store))[0]
    config = row.config or {}
    return EvalRun(eval_id, row.name, EvalSettings.from_dict(config),
                   _status(row.status, row.pid, row.host), int(config.get("questions") or 0),
                   row.pid, row.host)


def set_status(store: Store, eval_id: str, status: str) -> None:
    with store.transaction():
        store.run("eval/set_status.sql", {"eval_id": eval_id, "status": status})


def load_results(store: Store, eval_id: str) -> list[dict[str, Any]]:
    cols = ("question_id", "position", "query", "run_id", "ranked", "gold", "metrics", "error",
            "status", "seconds", "timings", "llm_prompts", "llm_new_calls", "llm_tokens",
            "outcome", "steps")
    out = []
    for row in store.run("eval/results.sql", {"eval_id": eval_id}):
        item = dict(zip(cols, row, strict=True))
        item["question_id"] = str(item["question_id"])
        out.append(item)
    return out


def load_variants(store: Store, eval_id: str) -> dict[str, dict[str, dict[str, Any]]]:
    """question id → variant → {"ranked": [...], "metrics": {...}}."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for qid, variant, ranked, metrics in store.run("eval/variants.sql", {"eval_id": eval_id}):
        out.setdefault(str(qid), {})[variant] = {"ranked": ranked, "metrics": metrics}
    return out


def list_eval_runs(store: Store, *, limit: int = 50) -> list[dict[str, Any]]:
    """The store's eval runs, newest first, with their final hit@1 and MRR."""
    if store.schema_version() < 2:
        return []
    items = []
    for eval_id, created, name, dataset, split, status, config, metrics, done, pid, host \
            in store.run("eval/list_runs.sql", {"limit": limit}, owner=_has_owner(store)):
        config = config or {}
        status = _status(status, pid, host)
        final = ((metrics or {}).get("metrics") or {}).get(FINAL) or {}
        items.append({"eval_id": eval_id, "created_at": str(created)[:19], "name": name,
                      "source": dataset, "split": split, "status": status, "done": int(done),
                      "questions": config.get("questions"), "hit@1": final.get("hit@1"),
                      "mrr": final.get("mrr")})
    return items

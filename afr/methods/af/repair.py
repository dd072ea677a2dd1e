"""Step 3c: one bounded repair round, and the run's outcome.

After the deterministic fixes, a Cypher query can still be unusable: nothing in it could
be read, it names labels or relations the schema does not have, or it grounds to no
answer even at ``l_max``. Then — and only with an LLM, and at most once per question —
the LLM sees the question, its query, what went wrong, the closest names the schema
does have and a few example names (``cypher_repair.j2``), and writes the query again.

The reply is *used* when it is better, defined simply: it must read as a query (a
MATCH pattern and a target), and its quality — (grounds answers as written, only in part,
or none; minus the number of dropped parts) — must beat the original's, compared in that
order. A reply that is worse, empty or late leaves the original in place (a late or
failed call, and a reply with no query in it, is a ``Fallback``: the question goes on,
degraded).

``run_outcome`` names how the question's graph part went: ``valid`` (the Cypher worked
as written), ``fixed`` (after deterministic fixes), ``repaired`` (after the repair
round), ``relaxed`` (nothing grounded as written, a part of the query did:
``afr.methods.af.grounding``), ``unanswerable`` (nothing grounded and vector search is
weak: its best score is below the setting ``af.weak_vss``), ``failed`` (nothing
grounded, though vector search found something: the answers are vector search's alone).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from afr.cypher.extract import cut_prose_after, extract_query, has_query
from afr.errors import LLMError
from afr.llm.fallback import Fallback
from afr.llm.prompts import render_messages
from afr.methods.af.grounding import GroundedCypher, grounded_count
from afr.methods.af.write_cypher import schema_context
from afr.store.skb import SkbSchema
from afr.text import gist

OUTCOMES = ("valid", "fixed", "repaired", "relaxed", "unanswerable", "failed")
REPAIR = "the repair round"  # its Fallback's step
KEPT = "the query is kept as it was"

_CLOSEST = 3  # suggestions per unknown name


@dataclass
class RepairRound:
    """What the repair round did: why it ran, the reply, and whether it was used."""

    original: str
    problems: list[str]
    cypher: str | None = None  # the reply's query
    used: bool = False
    note: str = ""
    before: tuple[int, int] = (0, 0)  # quality of the original and of the reply
    after: tuple[int, int] | None = None
    suggestions: list[dict[str, Any]] = field(default_factory=list)
    failure: Fallback | None = None  # the call failed: the query is kept as it was

    def to_dict(self) -> dict[str, Any]:
        return {"original": self.original, "problems": self.problems, "cypher": self.cypher,
                "used": self.used, "note": self.note, "before": list(self.before),
                "after": list(self.after) if self.after is not None else None}


def quality(grounded: GroundedCypher) -> tuple[int, int]:
    """(2 when it grounds answers as written, 1 when only a part of it does, 0 when
    nothing does; minus the number of dropped parts)."""
    grounds = 0 if not grounded_count(grounded) else 1 if grounded.relaxed else 2
    return grounds, -len(grounded.resolved.dropped)


def _readable(grounded: GroundedCypher) -> bool:
    return bool(grounded.graph.symbols) and grounded.graph.target in grounded.graph.symbols


def _unknown_names(grounded: GroundedCypher, schema: SkbSchema) -> tuple[list[str], list[str]]:
    labels = sorted({s.label for s in grounded.graph.symbols.values()
                     if s.label and schema.node_type(s.label) is None})
    edges = sorted({e for t in grounded.graph.triplets for e in t.edges
                    if schema.edge_type(e) is None})
    return labels, edges


def problems(grounded: GroundedCypher, schema: SkbSchema, *, l_max: int) -> list[str]:
    """Why the query needs a repair round; empty when it does not."""
    out: list[str] = []
    if not _readable(grounded):
        reasons = "; ".join(d.reason for d in grounded.graph.dropped[:3])
        out.append("no MATCH pattern with a returned node could be read"
                   + (f" ({reasons})" if reasons else ""))
        return out
    labels, edges = _unknown_names(grounded, schema)
    out += [f"the label {x!r} is not a node label of this graph" for x in labels]
    out += [f"the relationship type {x!r} is not one of this graph" for x in edges]
    if not grounded_count(grounded) or grounded.relaxed:
        out.append(f"the query matches nothing in the graph (even with the {l_max} best "
                   "candidates for each named node)")
    return out


def _key(name: str) -> str:
    return re.sub(r"[\W_]+", " ", name.lower()).strip()


def _closest(written: str, names: list[str]) -> list[str]:
    by_key = {_key(n): n for n in names}
    hits = difflib.get_close_matches(_key(written), list(by_key), n=_CLOSEST, cutoff=0.3)
    return [by_key[h] for h in hits]


def suggestions(grounded: GroundedCypher, schema: SkbSchema) -> list[dict[str, Any]]:
    labels, edges = _unknown_names(grounded, schema)
    node_names = [t.label for t in schema.node_types.values()]
    edge_names = [e.label for e in schema.edge_types.values()]
    return ([{"kind": "label", "written": x, "closest": _closest(x, node_names)}
             for x in labels]
            + [{"kind": "relationship", "written": x, "closest": _closest(x, edge_names)}
               for x in edges])


def repair_messages(question: str, cypher: str, found: list[str],
                    hints: list[dict[str, Any]], schema: SkbSchema, target_type: str | None,
                    examples: dict[str, list[str]], *, prompts_dir: str | None
                    ) -> list[dict]:
    return render_messages("cypher_repair", prompts_dir, question=question, cypher=cypher,
                           problems=found, suggestions=hints,
                           **schema_context(schema, target_type, examples))


def repair_round(llm: Any, question: str, cypher: str, grounded: GroundedCypher,
                 schema: SkbSchema, *, ground: Callable[[str], GroundedCypher],
                 target_type: str | None, examples: dict[str, list[str]], l_max: int,
                 model: str | None = None, effort: str | None = None,
                 prompts_dir: str | None = None
                 ) -> tuple[RepairRound | None, GroundedCypher]:
    """At most one LLM call: (the round, or None when the query needs none; the steps 3–5
    to go on with — the reply's when it was used, else ``grounded``). ``ground`` runs
    steps 3–5 on a Cypher text. Raises nothing for the LLM: a failed call is in the
    note (and in ``failure``)."""
    found = problems(grounded, schema, l_max=l_max)
    if not found:
        return None, grounded
    hints = suggestions(grounded, schema)
    out = RepairRound(cypher, found, before=quality(grounded), suggestions=hints)
    messages = repair_messages(question, cypher, found, hints, schema, target_type, examples,
                               prompts_dir=prompts_dir)
    try:
        reply = llm.complete(messages, model=model, reasoning_effort=effort)
    except LLMError as exc:
        out.failure = Fallback.of(exc, REPAIR, KEPT)
        out.note = out.failure.note
        return out, grounded
    if not has_query(reply.text or ""):
        out.failure = Fallback.unusable(REPAIR, f"the repair reply holds no query: "
                                        f"{gist(reply.text or '')}", KEPT)
        out.note = out.failure.note
        return out, grounded
    text, unfenced = extract_query(reply.text or "")
    if unfenced:
        text = cut_prose_after(text)
    out.cypher = text.strip() or None
    again = ground(out.cypher)
    out.after = quality(again)
    if not _readable(again):
        out.note = "the repair reply could not be read as a query; kept the original"
    elif out.after > out.before:
        out.used = True
        out.note = (f"the repaired query is used: it grounds {grounded_count(again)} answers "
                    f"with {len(again.resolved.dropped)} dropped parts (the original: "
                    f"{grounded_count(grounded)} answers, "
                    f"{len(grounded.resolved.dropped)} dropped)")
        return out, again
    else:
        out.note = (f"the repaired query is not better ({grounded_count(again)} answers, "
                    f"{len(again.resolved.dropped)} dropped parts); kept the original")
    return out, grounded


def run_outcome(*, fixes: int, repaired: bool, grounded: int, top_vss: float | None,
                weak_vss: float, relaxed: bool = False) -> str:
    """The run's outcome (see the module docstring)."""
    if grounded:
        return "relaxed" if relaxed else "repaired" if repaired else "fixed" if fixes else "valid"
    if top_vss is None or top_vss < weak_vss:
        return "unanswerable"
    return "failed"

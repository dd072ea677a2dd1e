"""Step 8's prompt size against the evidence its descriptions keep (issue 27, item 8).

For every question of a file with gold Cypher: AF answers it with the gold Cypher replayed
(offline, no reranker, unlogged), and the k answers step 8 would rerank are described in
each form of ``[rerank] documents`` — capped (afr's former default), focused (the
question's Cypher first, one hop, capped lists), paper (§3.2: every relation, 1-1 / n-1
second hops, no cut). Per form and question it counts the characters of the k
descriptions and of the whole listwise prompt, and tokens **estimated as characters / 4**
(no tokenizer is installed; OpenAI's rule of thumb for English text — an estimate, not a
count).

Evidence kept: for each gold answer among the k, the facts its gold Cypher relies on —

- the relation to each named constant: the answer's neighbour through the Cypher's
  relation (in its direction) whose name or alias is the constant's name, one hop away;
  two hops away (through a variable, or a variable-length relation whose shortest match
  is two hops) the neighbour's neighbour. *Stated* when a relation line of that relation
  and direction lists the neighbour's name (one hop), or a "via MID:" block lists it under
  the second relation (two hops). Constants further than two hops are not checked;
- each attribute in its conditions: stated when a line "attribute: …" is there;
- each text condition (``text CONTAINS 'x'``): stated when the description contains x.

Only facts that hold in the graph count (a gold answer that reaches the constant by a
longer path than the form can show is counted apart). Kept % = stated / held, over all
gold answers among the candidates.

    python bench/rerank_tokens.py STORE QUESTIONS.csv [--column cypher] [-k 20]
                                  [--asked cypher_noisy] [--limit N] [--json OUT]
                                  [--focused one_hop=5,text=500]

``--asked`` answers with another column's Cypher (the noisy one: an LLM's mistakes) while
the facts still come from ``--column``'s gold Cypher: does a wrong query's focus lose the
evidence? ``--focused`` measures other caps for the focused form (``DocumentCaps`` fields), to
choose its defaults.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field, replace

from afr.cypher import ResolvedQuery, ResolvedTriplet, parse_cypher, resolve
from afr.llm.prompts import render_messages
from afr.pipeline.ask import Pipeline
from afr.pipeline.rerank import fence
from afr.settings import Settings, with_values
from afr.store import open_store
from afr.store.base import Store
from afr.vectors.descriptions import NO_FOCUS, Focus, describe
from afr.vectors.documents import RERANK_CAPS, DocumentCaps, build_documents

FORMS = ("capped", "focused", "paper")
CHARS_PER_TOKEN = 4  # the estimate: no tokenizer here


@dataclass(frozen=True)
class Fact:
    """One fact a gold Cypher relies on, as it holds for one gold answer."""

    kind: str  # "1-hop", "2-hop", "attribute", "text"
    relation: str = ""  # the relation's edge type (the last hop's, for two hops)
    direction: str = "any"  # of the last hop, as seen from its nearer node
    names: tuple[str, ...] = ()  # the neighbour(s) that state it (any one will do)
    mids: tuple[str, ...] = ()  # two hops: the middle nodes' names
    value: str = ""  # the attribute, or the text searched


@dataclass
class Tally:
    chars: list[int] = field(default_factory=list)  # the k descriptions, per question
    prompt: list[int] = field(default_factory=list)  # the listwise prompt, per question
    held: Counter = field(default_factory=Counter)
    stated: Counter = field(default_factory=Counter)


# ---- the graph's side: which facts hold -------------------------------------------------


def _neighbours(store: Store, node: int, edge_type: str, direction: str) -> list[tuple]:
    """(id, shown name, name) of ``node``'s neighbours through ``edge_type``."""
    out_side = "SELECT e.dst AS other FROM edges AS e WHERE e.src = $n AND e.type = $t"
    in_side = "SELECT e.src AS other FROM edges AS e WHERE e.dst = $n AND e.type = $t"
    sides = {"out": out_side, "in": in_side}.get(direction, f"{out_side} UNION {in_side}")
    return store.query(f"SELECT n.id, coalesce(n.name, n.ext_id), n.name FROM ({sides}) AS a "
                       "JOIN nodes AS n ON n.id = a.other", {"n": node, "t": edge_type})


def _named(store: Store, ids: list[int], name: str) -> set[int]:
    """Those of ``ids`` whose name or an alias is ``name`` (case aside)."""
    if not ids:
        return set()
    rows = store.query(
        "SELECT n.id FROM nodes AS n WHERE n.id IN (SELECT unnest(CAST($ids AS BIGINT[]))) "
        "AND (lower(n.name) = lower($s) OR EXISTS (SELECT 1 FROM node_aliases AS a "
        "WHERE a.node_id = n.id AND lower(a.alias) = lower($s)))", {"ids": ids, "s": name})
    return {int(r[0]) for r in rows}


def _hop_direction(t: ResolvedTriplet, start: str) -> str:
    if not t.directed:
        return "any"
    return "out" if t.head == start else "in"


def constant_facts(store: Store, node: int, q: ResolvedQuery) -> tuple[list[Fact], int]:
    """The relation facts of ``node`` for each named constant of ``q``, and how many
    constants it reaches only further than two hops (or not along the Cypher at all)."""
    facts, far = [], 0
    target = q.target or ""
    for var, sym in q.symbols.items():
        if var == target or not sym.is_constant:
            continue
        fact = _constant_fact(store, node, q, target, var, sym.search_strings[0])
        if fact is None:
            far += 1
        else:
            facts.append(fact)
    return facts, far


def _constant_fact(store: Store, node: int, q: ResolvedQuery, target: str, var: str,
                   name: str) -> Fact | None:
    direct = [t for t in q.triplets if {t.head, t.tail} == {target, var} and t.edge_type]
    for t in direct:
        d = _hop_direction(t, target)
        near = _neighbours(store, node, t.edge_type, d)
        hit = _named(store, [int(r[0]) for r in near], name)
        if hit:
            return Fact("1-hop", t.edge_type, d, tuple(str(r[1]) for r in near if r[0] in hit))
        if t.max_hops > 1:
            fact = _two_hops(store, near, t.edge_type, d, name)
            if fact:
                return fact
    for t1 in q.triplets:  # target -t1- mid -t2- constant
        if target not in (t1.head, t1.tail) or not t1.edge_type or t1.max_hops != 1:
            continue
        mid = t1.tail if t1.head == target else t1.head
        for t2 in q.triplets:
            if t2 is t1 or {t2.head, t2.tail} != {mid, var} or not t2.edge_type:
                continue
            near = _neighbours(store, node, t1.edge_type, _hop_direction(t1, target))
            fact = _two_hops(store, near, t2.edge_type, _hop_direction(t2, mid), name)
            if fact:
                return fact
    return None


def _two_hops(store: Store, near: list[tuple], edge_type: str, direction: str,
              name: str) -> Fact | None:
    mids, names = [], []
    for mid_id, mid_name, _ in near[:200]:
        onward = _neighbours(store, int(mid_id), edge_type, direction)
        hit = _named(store, [int(r[0]) for r in onward], name)
        if hit:
            mids.append(str(mid_name))
            names += [str(r[1]) for r in onward if r[0] in hit]
    if not mids:
        return None
    return Fact("2-hop", edge_type, direction, tuple(dict.fromkeys(names)), tuple(mids))


def condition_facts(store: Store, node: int, q: ResolvedQuery) -> list[Fact]:
    """The target's attribute and text conditions that hold for ``node``."""
    sym = q.symbols.get(q.target or "")
    if sym is None:
        return []
    row = store.query("SELECT n.text, n.attrs FROM nodes AS n WHERE n.id = $n", {"n": node})
    text, attrs = (row[0][0] or "", row[0][1] or {}) if row else ("", {})
    facts = []
    for c in sym.conditions:
        if c.attribute == "text" and isinstance(c.value, str):
            if c.value.lower() in text.lower():
                facts.append(Fact("text", value=c.value))
        elif c.attribute in attrs:
            facts.append(Fact("attribute", value=c.attribute))
    return facts


# ---- the description's side: which facts it states ---------------------------------------


def _listed(line: str, names: tuple[str, ...]) -> bool:
    """Whether a relation line's name list holds one of ``names`` as a whole item."""
    listed = line.split(" → ", 1)[-1] if " → " in line else line.split(" ← ", 1)[-1]
    listed = listed.rsplit(" (and ", 1)[0]
    padded = f", {listed},"
    return any(f", {n}," in padded for n in names)


def _label(labels: dict[str, str], edge_type: str, direction: str) -> tuple[str, ...]:
    label = labels.get(edge_type, edge_type)
    arrows = {"out": ("→",), "in": ("←",)}.get(direction, ("→", "←"))
    return tuple(f"{label} {a} " for a in arrows)


def stated(fact: Fact, doc: str, labels: dict[str, str]) -> bool:
    lines = doc.splitlines()
    if fact.kind == "text":
        return fact.value.lower() in doc.lower()
    if fact.kind == "attribute":
        return any(line.startswith(f"{fact.value}: ") for line in lines)
    heads = _label(labels, fact.relation, fact.direction)
    if fact.kind == "1-hop":
        return any(line.startswith("  " + h) and _listed(line, fact.names)
                   for line in lines for h in heads)
    block = None  # the middle node of the "via" block being read
    for line in lines:
        if line.startswith("  via ") and line.endswith(":"):
            block = line[len("  via "):-1]
        elif not line.startswith("    "):
            block = None
        elif block in fact.mids and any(line.startswith("    " + h) for h in heads) \
                and _listed(line, fact.names):
            return True
    return False


# ---- one question ------------------------------------------------------------------------


def forms_of(store: Store, ids: list[int], focus: Focus,
             caps_of: dict[str, DocumentCaps] | None = None) -> dict[str, dict[int, str]]:
    out = {}
    for form in FORMS:
        caps = (caps_of or RERANK_CAPS)[form]
        out[form] = describe(store, ids, caps, focus) if caps.second_hops == "query" \
            else build_documents(store, ids, "doc_rel", caps=caps)
    return out


def prompt_chars(question: str, docs: dict[int, str], ids: list[int],
                 types: dict[int, str]) -> int:
    candidates = [{"id": i, "type": types.get(n, ""), "text": fence(docs.get(n, ""))}
                  for i, n in enumerate(ids, 1)]
    messages = render_messages("rerank_listwise", None, question=question,
                               candidates=candidates)
    return sum(len(m["content"]) for m in messages)


def gold_ids(store: Store, answer_ids: list) -> set[int]:
    rows = store.query("SELECT id FROM nodes WHERE ext_id IN "
                       "(SELECT unnest(CAST($e AS VARCHAR[])))",
                       {"e": [str(a) for a in answer_ids]})
    return {int(r[0]) for r in rows}


def measure(store: Store, rows: list[dict], column: str, k: int,
            caps_of: dict[str, DocumentCaps] | None = None, asked: str | None = None) -> dict:
    """The numbers of the module's docstring; ``asked``: the column of the Cypher AF
    answers with (its focus, its candidates; default ``column``, the gold one)."""
    settings = with_values(Settings(), {"llm.offline": True, "ask.log": False,
                                        "rerank.method": "none", "ask.k": k})
    pipe = Pipeline(store, settings)
    schema = pipe.session.schema
    labels = {t.type: t.label for t in schema.edge_types.values()}
    tallies = {form: Tally() for form in FORMS}
    kinds: Counter = Counter()
    beyond = golds_in = 0
    for row in rows:
        cypher = row.get(column) or ""
        used = row.get(asked or column) or cypher
        if not cypher.strip():
            continue
        result = pipe.ask(row["query"], cypher=used, target_type=row.get("target_type") or None)
        ids = [a.node_id for a in result.answers]
        types = {a.node_id: a.type for a in result.answers}
        focus = result.retrieved.focus if result.retrieved.af else NO_FOCUS
        docs = forms_of(store, ids, focus, caps_of)
        for form in FORMS:
            tallies[form].chars.append(sum(len(d) for d in docs[form].values()))
            tallies[form].prompt.append(prompt_chars(row["query"], docs[form], ids, types))
        resolved = resolve(parse_cypher(cypher), schema)
        for node in gold_ids(store, json.loads(row["answer_ids"])) & set(ids):
            golds_in += 1
            facts, far = constant_facts(store, node, resolved)
            beyond += far
            for fact in facts + condition_facts(store, node, resolved):
                kinds[fact.kind] += 1
                for form in FORMS:
                    tallies[form].held[fact.kind] += 1
                    tallies[form].stated[fact.kind] += stated(fact, docs[form][node], labels)
    return {"questions": len(tallies["capped"].chars), "k": k, "gold_answers_in_k": golds_in,
            "facts": dict(kinds), "constants_beyond_two_hops": beyond,
            "forms": {form: summary(t) for form, t in tallies.items()}}


def summary(t: Tally) -> dict:
    held, said = sum(t.held.values()), sum(t.stated.values())

    def per_q(values: list[int]) -> dict:
        return {"mean": round(statistics.fmean(values)) if values else 0,
                "p50": round(statistics.median(values)) if values else 0,
                "max": max(values, default=0)}

    return {"description_chars": per_q(t.chars), "prompt_chars": per_q(t.prompt),
            "prompt_tokens_est": {key: round(v / CHARS_PER_TOKEN)
                                  for key, v in per_q(t.prompt).items()},
            "prompt_tokens_est_total": round(sum(t.prompt) / CHARS_PER_TOKEN),
            "evidence_kept_pct": round(100 * said / held, 1) if held else None,
            "by_kind": {kind: f"{t.stated[kind]}/{t.held[kind]}" for kind in sorted(t.held)}}


def print_table(out: dict) -> None:
    print(f"{out['questions']} questions, k = {out['k']}; {out['gold_answers_in_k']} gold "
          f"answers among the candidates; facts held: {out['facts']}; constants reached only "
          f"beyond two hops: {out['constants_beyond_two_hops']}")
    print("tokens are estimated as characters / 4 (no tokenizer installed)")
    print(f"{'form':<8} {'desc chars/q':>12} {'prompt chars/q':>14} {'tokens/q (est)':>14} "
          f"{'p50':>6} {'max':>7} {'evidence kept':>13}  by kind")
    for form, s in out["forms"].items():
        tok = s["prompt_tokens_est"]
        kept = "—" if s["evidence_kept_pct"] is None else f"{s['evidence_kept_pct']}%"
        print(f"{form:<8} {s['description_chars']['mean']:>12,} {s['prompt_chars']['mean']:>14,} "
              f"{tok['mean']:>14,} {tok['p50']:>6,} {tok['max']:>7,} {kept:>13}  "
              f"{s['by_kind']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store")
    ap.add_argument("questions")
    ap.add_argument("--column", default="cypher", help="the gold Cypher's column")
    ap.add_argument("--asked", help="the column of the Cypher AF answers with (default: "
                    "--column; e.g. cypher_noisy: its mistakes focus the descriptions)")
    ap.add_argument("-k", type=int, default=20)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--json", help="write the numbers here too")
    ap.add_argument("--focused", default="", help="caps of the focused form: FIELD=N,…")
    args = ap.parse_args(argv)
    caps_of = dict(RERANK_CAPS)
    for item in filter(None, args.focused.split(",")):
        key, value = item.split("=")
        caps_of["focused"] = replace(caps_of["focused"], **{key: int(value)})
    with open(args.questions, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))[:args.limit]
    store = open_store(args.store, read_only=True, create=False)
    try:
        out = measure(store, rows, args.column, args.k, caps_of, args.asked)
        out["focused_caps"] = str(caps_of["focused"])
    finally:
        store.close()
    print_table(out)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Steps 3–5 as one unit: a Cypher text → query graph → symbol candidates → grounded answers.

``ground_cypher`` is what ``afr ask`` runs after steps 1–2, and ``afr cypher --run`` runs
its second half, ``ground_fixed``, on the graph it fixed to show the fixes
(``afr.methods.af.cypher_report``), so both always make the same of the same Cypher:
parse, the deterministic fixes (``afr.cypher.fix``, unless ``af.fix`` is off), resolve.
``grounding_query`` is the one conversion from the resolved query graph (``afr.cypher``)
to the grounding problem (``afr.ground``); ``with_provenance`` explains each grounded
answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from afr.cypher import QueryGraph, ResolvedQuery, parse_cypher, resolve
from afr.cypher.fix import Fix, FixResult, fix_query_graph
from afr.cypher.model import Triplet, is_text_condition
from afr.cypher.resolve import ResolvedTriplet
from afr.errors import AfrError
from afr.ground import GroundingQuery, GroundingResult, GSymbol, GTriplet, ground
from afr.ground.run import witnesses
from afr.methods.af.named_relations import add_named_relations
from afr.methods.af.question_names import names_from_question, unmentioned_constants
from afr.methods.af.symbols import SymbolCandidates, complete_symbols, retrieve_symbols
from afr.methods.base import Session
from afr.retrieval.candidate import Candidate
from afr.retrieval.filters import AttributeCatalog
from afr.retrieval.timing import Timer
from afr.store.base import Store
from afr.store.skb import SkbSchema

# The kind of the fix ``_ground_turned`` makes (the schema's own fixes: afr.cypher.fix).
DIRECTION_DATA = "direction_data"
UNMENTIONED = "unmentioned_constant"  # a constant the question never names, left out


@dataclass
class GroundedCypher:
    """Everything steps 3–5 made of one Cypher query."""

    # as fixed (as parsed when fixes are off), and as the grounding mended it (a
    # relationship turned round, a constant the question never names left out)
    graph: QueryGraph
    resolved: ResolvedQuery
    fixes: list[Fix] = field(default_factory=list)
    symbols: dict[str, SymbolCandidates] = field(default_factory=dict)
    query: GroundingQuery | None = None  # None: nothing constrains the target
    result: GroundingResult | None = None
    timings: dict[str, float] = field(default_factory=dict)
    relaxed: Relaxed | None = None  # nothing satisfied every constraint: what grounded


@dataclass(frozen=True)
class Relaxed:
    """The part of the query whose grounding ``GroundedCypher.result`` holds, when the whole
    query grounded no answer even at l_max; and the note that says so."""

    query: ResolvedQuery
    note: str


def grounding_query(resolved: ResolvedQuery, symbols: dict[str, SymbolCandidates]
                    ) -> GroundingQuery | None:
    """The grounding problem of a resolved query, or None when nothing constrains the
    target (then the graph strand has nothing to add)."""
    if resolved.target is None or resolved.target not in resolved.symbols:
        return None
    target = resolved.symbols[resolved.target]
    if not resolved.triplets and not target.is_constant and not target.conditions:
        return None
    gsyms = {}
    for var, sym in resolved.symbols.items():
        cands = symbols[var]
        gsyms[var] = GSymbol(
            var, sym.node_type,
            candidates=tuple(cands.ids) if sym.is_constant else None,
            allowed=tuple(cands.allowed) if cands.allowed is not None else None,
            lead=cands.exact if sym.is_constant else 0,
            # step 4 finds candidates and filters nodes within the symbol's type
            typed=sym.node_type is not None,
        )
    triplets = tuple(GTriplet(t.head, t.edge_type, t.tail, t.directed, t.min_hops, t.max_hops,
                              t.alternatives)
                     for t in resolved.triplets)
    return GroundingQuery(gsyms, triplets, resolved.target)


def ground_cypher(session: Session, cypher: str, *, target_type: str | None = None,
                  timer: Timer | None = None, question: str | None = None) -> GroundedCypher:
    """Steps 3 (parse, resolve), 4 (symbol candidates) and 5 (grounding) of ``cypher``
    with the session's store and settings; ``question``: the question the Cypher was
    written for, whose named relations the fixes add (``fix_cypher``)."""
    timer = timer or Timer({})
    with timer.step("3_parse"):
        fixed = fix_cypher(parse_cypher(cypher), session.schema, session.catalog,
                           target_type=target_type, enabled=session.settings.af.fix,
                           question=question, store=session.store)
    return ground_fixed(session, fixed, target_type=target_type, timer=timer,
                        question=question)


def ground_fixed(session: Session, fixed: FixResult, *, target_type: str | None = None,
                 timer: Timer | None = None, question: str | None = None) -> GroundedCypher:
    """``ground_cypher`` from a query graph ``fix_cypher`` fixed already (`afr cypher`
    shows those fixes, then grounds the same graph): resolve, steps 4 and 5, and the
    grounding's own mends when the query grounds too little."""
    timer = timer or Timer({})
    af = session.settings.af
    with timer.step("3_parse"):
        resolved = resolve(fixed.graph, session.schema, mode=af.mode,
                           use_edge_types=af.use_edge_types, target_type=target_type)
        # A condition the fixes dropped (no such attribute) stays a hint: step 4 folds
        # what it cannot filter on into a constant's search string, as without fixes.
        for var, conditions in fixed.dropped_conditions.items():
            if var in resolved.symbols:
                resolved.symbols[var].conditions += conditions
    out = GroundedCypher(fixed.graph, resolved, fixed.fixes, timings=timer.timings)
    _ground_texts_first(session, out, timer)
    if af.fix and not _first_level_answers(out):  # a relationship written backwards?
        _ground_turned(session, out, timer)
    if af.fix and question is not None and not _first_level_answers(out):
        _ground_without_unmentioned(session, out, timer, question)
    if not grounded_count(out) and af.relax:
        _ground_relaxed(session, out, timer)
    return out


def grounded_count(grounded: GroundedCypher) -> int:
    """How many answers the grounding found (0 when there was none to do)."""
    return len(grounded.result.answers) if grounded.result is not None else 0


def _ground_texts_first(session: Session, out: GroundedCypher, timer: Timer) -> None:
    """Steps 4–5 with the text conditions as filters; without them when no answer
    satisfies them even at l_max (the ranking weighs them: never lose the graph's
    answers)."""
    _symbols_and_grounding(session, out, timer, texts=True)
    texts_applied = [var for var, s in out.symbols.items() if s.texts_applied]
    if texts_applied and not grounded_count(out):
        _symbols_and_grounding(session, out, timer, texts=False)
        for var in texts_applied:
            out.symbols[var].notes.append(
                "no grounded answer satisfies its text conditions: grounded without "
                "them; they are weighed in the ranking")


def _ground_relaxed(session: Session, out: GroundedCypher, timer: Timer) -> None:
    """No answer satisfies the relations and the target's own conditions together even
    at l_max. One of them is wrong — an LLM adds conditions the question never asked
    for, and guesses paths that do not exist — so ground each alone, in turn: the
    relations; then the target's conditions, only where they narrow its type to k
    answers or fewer (a condition most nodes meet is no evidence)."""
    k, l_max = session.settings.ask.k, session.settings.af.l_max
    for query, what in _relaxations(out.resolved):
        part = GroundedCypher(out.graph, query, out.fixes, timings=out.timings)
        _ground_texts_first(session, part, timer)
        found = grounded_count(part)
        if found and (query.triplets or found <= k):
            out.symbols.update(part.symbols)
            out.query, out.result = part.query, part.result
            out.relaxed = Relaxed(query, f"no answer meets every constraint (even with the "
                                         f"{l_max} best candidates for each named node): "
                                         f"grounded on {what} alone ({found} "
                                         f"answer{'s' * (found != 1)})")
            return


def _ground_without_unmentioned(session: Session, out: GroundedCypher, timer: Timer,
                                question: str) -> None:
    """No answer at the first scope level, and the query names a node the question never
    does (``unmentioned_constants``): an LLM's addition (a brand, a product viewed
    together) that no answer meets beside the question's own constraints. The query
    without that constant and its relationships is used when it grounds answers at the
    first level and still constrains the target."""
    for var in unmentioned_constants(out.resolved, question):
        rest = [t for t in out.resolved.triplets if var not in (t.head, t.tail)]
        if not rest:
            continue
        symbols = {v: s for v, s in out.resolved.symbols.items() if v != var}
        part = _first_level_grounding(session, out, timer, replace(
            out.resolved, symbols=symbols, triplets=rest))
        if part is not None:
            name = out.resolved.symbols[var].search_strings[0]
            part.graph = replace(
                out.graph, symbols={v: s for v, s in out.graph.symbols.items() if v != var},
                triplets=[g for g in out.graph.triplets if var not in (g.head, g.tail)])
            _adopt(out, part, Fix(
                UNMENTIONED, f"({var} {{name: {name!r}}})", name, None,
                f"the question never names {name!r}, and no answer meets it beside the "
                f"rest; without it, {len(part.result.answers)} answers"))
            return


def _first_level_grounding(session: Session, out: GroundedCypher, timer: Timer,
                           query: ResolvedQuery) -> GroundedCypher | None:
    """``query`` (a mended form of ``out``'s) grounded, text conditions first: the
    grounding when it has answers at the first scope level, else None."""
    part = GroundedCypher(out.graph, query, out.fixes, timings=out.timings)
    _ground_texts_first(session, part, timer)
    return part if _first_level_answers(part) else None


def _written_as(written: Triplet, resolved: ResolvedTriplet) -> bool:
    """Whether the query graph's relationship ``written`` is the one ``resolved`` reads."""
    return (written.head, written.tail, written.directed) == \
        (resolved.head, resolved.tail, resolved.directed) \
        and written.edge in (resolved.edge_label, resolved.edge_type)


def _adopt(out: GroundedCypher, part: GroundedCypher, fix: Fix) -> None:
    """``out`` grounded as ``part`` is, with the ``fix`` that made its query (and graph)."""
    out.graph, out.resolved, out.symbols = part.graph, part.resolved, part.symbols
    out.query, out.result = part.query, part.result
    out.fixes = [*out.fixes, fix]


def _first_level_answers(grounded: GroundedCypher) -> bool:
    """Whether the grounding found answers at its first scope level (the constants'
    own best matches)."""
    result = grounded.result
    return bool(result and result.answers and result.levels
                and result.answers[0][1] <= result.levels[0])


def _turnable(store: Store, resolved: ResolvedQuery, schema: SkbSchema,
              symbols: dict[str, SymbolCandidates]) -> Iterator[int]:
    """The one-hop directed relationships between the target and a constant, with one
    node type at both ends, that the data has only the other way round: the nodes of the
    constant's exact name have no such edge as written, and have some turned round. Lazily:
    each is read from the data only when the one before it did not ground."""
    for i, t in enumerate(resolved.triplets):
        if not t.directed or t.max_hops != 1 or t.alternatives or t.edge_type is None \
                or resolved.target not in (t.head, t.tail) or t.head == t.tail:
            continue
        var = t.tail if t.head == resolved.target else t.head
        named, e = symbols.get(var), schema.edge_types.get(t.edge_type)
        if named is None or not named.constant or named.exact == 0 or named.pattern \
                or e is None or e.source_type != e.target_type \
                or not schema.edge_directed(t.edge_type):
            continue
        ((leaving, reaching),) = store.run("ground/edge_sides.sql", {
            "ids": named.ids[:named.exact], "type": t.edge_type})
        written, turned = (leaving, reaching) if var == t.head else (reaching, leaving)
        if written == 0 and turned > 0:
            yield i


def _ground_turned(session: Session, out: GroundedCypher, timer: Timer) -> None:
    """No answer at the first scope level: a relationship between two nodes of one type
    may be written the wrong way round (the schema allows both). One the data has only
    the other way round is turned, when the query so grounds answers at the first level."""
    for i in _turnable(session.store, out.resolved, session.schema, out.symbols):
        t = out.resolved.triplets[i]
        turned = replace(out.resolved, triplets=[
            *out.resolved.triplets[:i], replace(t, head=t.tail, tail=t.head),
            *out.resolved.triplets[i + 1:]])
        part = _first_level_grounding(session, out, timer, turned)
        if part is not None:
            part.graph = replace(out.graph, triplets=[
                replace(g, head=g.tail, tail=g.head) if _written_as(g, t) else g
                for g in out.graph.triplets])
            _adopt(out, part, Fix(
                DIRECTION_DATA, f"({t.head})-[:{t.edge_label}]->({t.tail})",
                f"({t.head})->({t.tail})", f"({t.tail})->({t.head})",
                f"the named node has no {t.edge_type} edge this way round, and has some "
                f"the other; turned, {len(part.result.answers)} answers"))
            return


def _relaxations(resolved: ResolvedQuery) -> list[tuple[ResolvedQuery, str]]:
    """The query's relations without the target's own non-text conditions, and those
    conditions without the relations, as (query, what it keeps); for a query without
    relations, its target's text conditions without the other conditions ("more than 500
    senses" where none has as many: an LLM's number is often wrong, its words less so)."""
    target = resolved.symbols.get(resolved.target or "")
    if target is None or target.is_constant:
        return []
    own = [c for c in target.conditions if not is_text_condition(c)]
    texts = [c for c in target.conditions if is_text_condition(c)]
    if not resolved.triplets:
        if not (own and texts):
            return []
        return [(replace(resolved, symbols={target.var: replace(target, conditions=texts)}),
                 "the target's text conditions")]
    out = []
    if own:
        symbols = {**resolved.symbols, target.var: replace(target, conditions=texts)}
        out.append((replace(resolved, symbols=symbols), "the relations"))
    if target.conditions or target.name_patterns:
        out.append((replace(resolved, symbols={target.var: target}, triplets=[]),
                    "the target's own conditions"))
    return out


def _symbols_and_grounding(session: Session, out: GroundedCypher, timer: Timer, *,
                           texts: bool) -> None:
    """Steps 4 and 5 of the resolved query: its symbols' candidates, and the grounding
    with scope expansion (``texts``: the text conditions restrict their symbols)."""
    store, embedder, settings = session.store, session.embedder, session.settings
    af, k = settings.af, settings.ask.k
    with timer.step("4_symbols"):
        # Fusing BM25 into a constant's ranking belongs to the hybrid extension; the
        # paper's ranking keeps step 4 as published.
        lexical = settings.bm25 if af.ranking == "hybrid" and settings.ranking.symbols_lexical \
            else None
        out.symbols = retrieve_symbols(store, embedder, out.resolved, session.catalog,
                                       l_max=af.l_max, exact_names_first=af.exact_names_first,
                                       name_patterns=af.name_patterns,
                                       cut_first=af.cut_first, lexical=lexical, defer=True,
                                       texts=texts)

    def step5() -> None:  # run again when the deferred searches complete the candidates
        with timer.step("5_grounding"):
            out.query = grounding_query(out.resolved, out.symbols)
            out.result = ground(store, out.query, k=k, l_max=af.l_max, rule=af.schedule) \
                if out.query is not None else None

    deferred = [var for var, s in out.symbols.items() if s.deferred is not None]
    if deferred and _fewer_than_k_can_answer(out, k):
        # The exact names alone cannot ground k answers, so the similarity searches run
        # whatever that grounding finds: run them first and ground once.
        with timer.step("4_symbols"):
            complete_symbols(store, embedder, out.symbols, l_max=af.l_max)
        step5()
        return
    step5()
    if not deferred:
        return
    if grounded_count(out) >= k:
        # The exact names alone are every constant's level 1: k answers there are
        # where the full grounding stops too, so the similarity searches cannot change
        # the answers, and are never run.
        for var in deferred:
            out.symbols[var].deferred = None
            out.symbols[var].notes.append(
                f"similar names not searched: the exact names ground {k} or more "
                "answers at level 1")
        return
    with timer.step("4_symbols"):
        complete_symbols(store, embedder, out.symbols, l_max=af.l_max)
    step5()


def _fewer_than_k_can_answer(out: GroundedCypher, k: int) -> bool:
    """Whether the target's own domain (its text conditions' nodes, a named target's
    candidates) holds fewer than k nodes, before the deferred searches complete it."""
    query = grounding_query(out.resolved, out.symbols)
    most = query.most_answers() if query is not None else None
    return most is not None and most < k


def fix_cypher(graph: QueryGraph, schema: SkbSchema, catalog: AttributeCatalog, *,
               target_type: str | None = None, enabled: bool = True,
               question: str | None = None, store: Store | None = None) -> FixResult:
    """Step 3a on a parsed query: the deterministic fixes, with the store's attribute
    catalogue, then (given the ``question``) the relations it names beside those the
    query chose (``afr.methods.af.named_relations``) and (given the ``store`` too) its
    names for what the query misspelt or left unnamed (``afr.methods.af.question_names``); the
    graph as it is when ``enabled`` is off."""
    if not enabled:
        return FixResult(graph)
    attributes = {t: catalog.entries.get(t, {}) for t in schema.node_types}
    fixed = fix_query_graph(graph, schema, attributes, target_type=target_type)
    if question is not None:
        fixed.fixes.extend(add_named_relations(fixed.graph, schema, question))
        if store is not None:
            fixed.fixes.extend(names_from_question(store, fixed.graph, schema, question))
    return fixed


def with_provenance(store: Store, query: GroundingQuery, graph: Sequence[Candidate], *,
                    k: int, l_max: int, rule: str = "reference"
                    ) -> tuple[list[Candidate], list[str]]:
    """``graph`` with its first ``k`` answers' provenance set: their level and the named
    entities that link them (``afr.ground.run.witnesses``); and notes. Provenance is a
    courtesy, never a reason to lose the answers: a failure is a note."""
    first = list(graph[:k])
    notes: list[str] = []
    try:
        links = witnesses(store, query, [(c.node_id, c.level or 0) for c in first],
                          l_max=l_max, rule=rule)
    except AfrError as exc:
        notes.append(f"provenance not recorded ({exc})")
        links = {}
    explained = [replace(c, provenance={**c.provenance, "level": c.level,
                                        "linked_by": links.get(c.node_id, {})})
                 for c in first]
    return explained + list(graph[k:]), notes

"""Step 4: candidate nodes for every symbol of the query graph.

A constant (a symbol with a name/title) gets its top-``l_max`` nodes by vector
similarity of its search string over the relation-free documents, among the nodes that
pass its hard attribute filters (filters first, then the cut; ``af.cut_first``: the
reference code's order, the top l_max first and the filters then). Exact name or alias matches lead the list (score 1.0). A filter that cannot be
applied is appended to the search string instead. A variable with filters keeps every
matching node as its domain.

A substring condition on the name (``b.name CONTAINS "python"``, STARTS WITH, ENDS WITH)
means what Cypher means: the constant is every node whose name or an alias matches
(case-insensitive), all of them at scope level 1 (at most ``PATTERN_CAP`` · l_max: of
more, the first ``PATTERN_CAP`` · l_max + 1 by id are read, and the most similar of those
kept). When no node matches, the string is searched by similarity as an
``=`` would be, and a note says so. ``af.name_patterns`` off: always searched so (the
paper and its reference code).

The similarity search can wait (``retrieve_symbols(defer=True)``): when every constant has
exact name matches, step 5 grounds with those alone first, and ``complete_symbols`` runs
the searches only when that grounds fewer than k answers (``afr.methods.af.grounding``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from afr.cypher.model import SUBSTRING_OPERATORS, Condition, is_text_condition
from afr.cypher.resolve import ResolvedQuery, ResolvedSymbol
from afr.embed import Embedder
from afr.lexical import bm25, has_lexical_index
from afr.retrieval.filters import AttributeCatalog, FilterResult, filter_nodes
from afr.retrieval.fusion import fuse
from afr.retrieval.parallel import Read, run_reads
from afr.retrieval.text_match import match_text
from afr.settings import BM25Settings
from afr.store.base import Store
from afr.store.names import has_name_index, lookup_names
from afr.vectors.search import query_vector, search

PATTERN_CAP = 10  # a name pattern keeps at most this many times l_max matching nodes
TEXT_CAP = 200_000  # a text condition keeps at most this many nodes (as attribute filters)


@dataclass
class SymbolCandidates:
    var: str
    constant: bool
    search: str | None = None
    ids: list[int] = field(default_factory=list)  # ranked, best first (constants)
    scores: list[float] = field(default_factory=list)
    exact: int = 0  # how many leading ids share level 1 (exact names, name patterns)
    pattern: bool = False  # the ids are the nodes matching a name pattern (a filter)
    allowed: list[int] | None = None  # variables with filters: their domain
    filters: FilterResult | None = None
    # the symbol's text conditions (y.text CONTAINS …), and whether they restrict its
    # nodes in the grounding (else the hybrid ranking weighs them as evidence)
    texts: list[Condition] = field(default_factory=list)
    texts_applied: bool = False
    notes: list[str] = field(default_factory=list)
    # set while the similarity search waits (retrieve_symbols' defer): ids are the
    # exact name matches alone
    deferred: _Deferred | None = field(default=None, repr=False)


@dataclass
class _Search:
    """A constant's similarity search, as prepared: what it ranks, among which nodes."""

    strings: list[str]
    types: list[str] | None
    allowed: list[int] | None
    limit: int
    # cut first (``af.cut_first``): the filters' nodes, applied after the l_max cut
    keep_after: frozenset[int] | None = None


@dataclass
class _Deferred:
    """A similarity search not run yet, and the exact name matches that lead its list."""

    plan: _Search
    lead: list[int]
    lexical: BM25Settings | None  # fused with BM25 under these settings (None: not)


def _condition_text(c: Condition) -> str:
    value = " ".join(str(v) for v in c.value) if isinstance(c.value, tuple) else str(c.value)
    return f"{c.attribute.replace('_', ' ')} {value}"


def _interleave(lists: list[list[tuple[int, float]]], limit: int) -> list[tuple[int, float]]:
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for i in range(max((len(x) for x in lists), default=0)):
        for ranked in lists:
            if i < len(ranked) and ranked[i][0] not in seen:
                seen.add(ranked[i][0])
                out.append(ranked[i])
    return out[:limit]


def _prepare_symbol(store: Store, sym: ResolvedSymbol, catalog: AttributeCatalog, *,
                    l_max: int, texts: bool = True, name_patterns: bool = True,
                    cut_first: bool = False) -> tuple[SymbolCandidates, _Search | None]:
    """A symbol's filters and, for a constant, the search that ranks its candidates (None
    when there is nothing to rank). ``texts``: its text conditions restrict its nodes."""
    out = SymbolCandidates(sym.var, sym.is_constant)
    out.texts = [c for c in sym.conditions if is_text_condition(c)]
    conditions = [c for c in sym.conditions if not is_text_condition(c)]
    if conditions:
        out.filters = filter_nodes(store, sym.node_type, conditions, catalog)
        out.notes += [f"{c.attribute} {c.op} {c.value!r}: {why}"
                      for c, why in out.filters.unapplied]
        if out.filters.truncated:
            out.notes.append(f"more than {len(out.filters.ids or [])} nodes pass the "
                             "attribute filters: the first ones by id are kept")
    allowed = out.filters.ids if out.filters else None
    if texts and out.texts:
        allowed = _text_filter(store, sym, out, allowed)
    if not sym.is_constant:
        out.allowed = allowed
        return out, None
    unapplied = [c for c, _ in (out.filters.unapplied if out.filters else [])]
    if not out.texts_applied:
        unapplied += out.texts
    extra = [_condition_text(c) for c in unapplied]
    strings = [" ".join([s, *extra]) for s in sym.search_strings]
    out.search = " | ".join(strings)
    if allowed is not None and not allowed:
        out.notes.append("no node passes the attribute filters")
        return out, None
    limit = l_max
    if sym.name_patterns and name_patterns:
        shown = " AND ".join(f"{c.attribute} {c.op} {c.value!r}" for c in sym.name_patterns)
        cap = PATTERN_CAP * l_max
        matched = match_text(store, sym.name_patterns, field="name", node_type=sym.node_type,
                             ids=allowed, limit=cap + 1)
        if matched:
            out.pattern = True
            more = (f" (more match: the most similar of the first {len(matched)} by id "
                    "kept)") if len(matched) > cap else ""
            out.notes.append(f"{shown}: applied as a filter ({min(len(matched), cap)} "
                             f"nodes{more})")
            allowed, limit = matched, min(len(matched), cap)
        else:
            out.notes.append(f"{shown}: no name or alias matches; searched by similarity")
    types = [sym.node_type] if sym.node_type else None
    if cut_first and not out.pattern and allowed is not None:
        return out, _Search(strings, types, None, limit, frozenset(allowed))
    return out, _Search(strings, types, allowed, limit)


def _text_filter(store: Store, sym: ResolvedSymbol, out: SymbolCandidates,
                 allowed: list[int] | None) -> list[int] | None:
    """The symbol's nodes whose text satisfies its substring conditions (a regular
    expression stays evidence for the ranking): its domain in the grounding, so scope
    expansion goes on until k answers satisfy them too. None matching: they stay
    evidence, and the domain is as before."""
    substring = [c for c in out.texts if c.op in SUBSTRING_OPERATORS]
    if not substring or (allowed is not None and not allowed):
        return allowed
    shown = " AND ".join(f"{c.attribute} {c.op} {c.value!r}" for c in substring)
    matched = match_text(store, substring, field="text", node_type=sym.node_type,
                         ids=allowed, limit=TEXT_CAP + 1)
    if not matched:
        out.notes.append(f"{shown}: no node's text matches; weighed in the ranking instead")
        return allowed
    out.texts_applied = True
    more = f", the first {TEXT_CAP} by id kept" if len(matched) > TEXT_CAP else ""
    out.notes.append(f"{shown}: applied in the grounding ({min(len(matched), TEXT_CAP)} "
                     f"nodes{more})")
    return matched[:TEXT_CAP]


def _rank_all(store: Store, embedder: Embedder,
              plans: list[tuple[_Search, BM25Settings | None]]
              ) -> list[list[tuple[int, float]]]:
    """Each (search, lexical)'s candidates by vector similarity of its search strings
    (interleaved), fused with their BM25 rankings when ``lexical`` gives BM25's settings.
    The searches of all constants are independent reads, run at once where the store can
    (run_reads)."""
    reads: list[Read] = []
    for plan, lexical in plans:
        for text in plan.strings:
            vec = query_vector(store, embedder, text)
            reads.append(lambda conn, v=vec, p=plan: search(
                conn, "doc", v, p.limit, types=p.types, ids=p.allowed))
            if lexical is not None:
                reads.append(lambda conn, t=text, p=plan, b=lexical: bm25(
                    conn, t, params=b, types=p.types, ids=p.allowed, k=p.limit))
    results = iter(run_reads(store, reads))
    ranked = []
    for plan, lexical in plans:
        lists = []
        for _ in plan.strings:
            found = next(results)
            lists.append(_fuse_lexical(found, next(results), plan.limit)
                         if lexical is not None else found)
        best = _interleave(lists, plan.limit)
        if plan.keep_after is not None:  # cut first, then filter
            best = [r for r in best if r[0] in plan.keep_after]
        ranked.append(best)
    return ranked


def _fuse_lexical(found: list[tuple[int, float]], lexical: list[tuple[int, float]],
                  limit: int) -> list[tuple[int, float]]:
    """The vector ranking of a search string fused (reciprocal rank) with its BM25 ranking
    over the same nodes: a rare name an embedder reads poorly still finds its node. The
    scores stay the vector similarities (0 for a node only BM25 found)."""
    if not lexical:
        return found
    similarity = dict(found)
    fused = fuse([(found, 1.0), (lexical, 1.0)], method="rrf")[:limit]
    return [(n, similarity.get(n, 0.0)) for n, _ in fused]


def _exact_names(store: Store, wanted: list[tuple[ResolvedSymbol, list[int] | None]], *,
                 l_max: int) -> list[list[int]]:
    """For each (constant, its allowed nodes or None): the nodes whose name or an alias
    equals one of its search strings (case- and accent-folded), of its type, by id: point
    lookups in the name index (one statement for all constants)."""
    if not wanted:
        return []
    if not has_name_index(store):
        return _exact_names_scan(store, wanted, l_max=l_max)
    names = [name for sym, _ in wanted for name in sym.search_strings]
    hits = iter(lookup_names(store, names))
    found: list[list[int]] = []
    for sym, allowed in wanted:
        keep = set(allowed) if allowed is not None else None
        ids = {node for _ in sym.search_strings for node, node_type in next(hits)
               if (sym.node_type is None or node_type == sym.node_type)
               and (keep is None or node in keep)}
        found.append(sorted(ids)[:l_max])
    return found


def _exact_names_scan(store: Store, wanted: list[tuple[ResolvedSymbol, list[int] | None]], *,
                      l_max: int) -> list[list[int]]:
    """The same by a lower() scan, for stores loaded before the name index existed."""
    params: dict[str, object] = {
        "syms": [i for i, (sym, _) in enumerate(wanted) for _ in sym.search_strings],
        "names": [name for sym, _ in wanted for name in sym.search_strings],
        "sym_ids": list(range(len(wanted))),
        "types": [sym.node_type for sym, _ in wanted],
        "restricted": [allowed is not None for _, allowed in wanted],
        "allowed_syms": [i for i, (_, allowed) in enumerate(wanted) for _ in allowed or ()],
        "allowed_ids": [int(n) for _, allowed in wanted for n in allowed or ()],
        "limit": l_max,
    }
    found: list[list[int]] = [[] for _ in wanted]
    for sym, node in store.run("symbols/exact_names_scan.sql", params):
        found[int(sym)].append(int(node))
    return found


def retrieve_symbols(
    store: Store, embedder: Embedder, query: ResolvedQuery, catalog: AttributeCatalog, *,
    l_max: int, exact_names_first: bool = True, lexical: BM25Settings | None = None,
    defer: bool = False, texts: bool = True, name_patterns: bool = True,
    cut_first: bool = False,
) -> dict[str, SymbolCandidates]:
    """``lexical``: fuse each constant's vector ranking with BM25 under these settings
    (needs the lexical index; the hybrid ranking's ``ranking.symbols_lexical``, on by
    default).

    ``defer``: when every constant has exact name matches (and none is a name pattern),
    each one's candidates are those matches alone for now, and its similarity search waits
    (``SymbolCandidates.deferred``) for ``complete_symbols``. The grounding needs the
    search only when the exact names, all at level 1, ground fewer than k answers.

    ``texts``: the symbols' text conditions restrict their nodes (``_text_filter``)."""
    if not has_lexical_index(store):
        lexical = None
    prepared = {var: _prepare_symbol(store, sym, catalog, l_max=l_max, texts=texts,
                                     name_patterns=name_patterns, cut_first=cut_first)
                for var, sym in query.symbols.items()}
    plans = {var: plan for var, (_, plan) in prepared.items() if plan is not None}
    wanted = [(query.symbols[var], prepared[var][0].filters.ids
               if prepared[var][0].filters else None) for var in plans]
    leads = dict(zip(plans, _exact_names(store, wanted, l_max=l_max)
                     if exact_names_first else [[] for _ in plans], strict=True))
    defer = defer and bool(plans) and all(leads[var] and not prepared[var][0].pattern
                                          for var in plans)
    ranked = [[] for _ in plans] if defer else \
        _rank_all(store, embedder, [(plan, lexical) for plan in plans.values()])
    for (var, plan), found in zip(plans.items(), ranked, strict=True):
        out = prepared[var][0]
        _place(out, found, leads[var], l_max)
        if defer:
            out.deferred = _Deferred(plan, leads[var], lexical)
    return {var: out for var, (out, _) in prepared.items()}


def complete_symbols(store: Store, embedder: Embedder, symbols: dict[str, SymbolCandidates],
                     *, l_max: int) -> None:
    """Run the similarity searches ``retrieve_symbols`` deferred: each constant gets the
    candidates it would have had without ``defer``."""
    waiting = [(out, out.deferred) for out in symbols.values() if out.deferred is not None]
    ranked = _rank_all(store, embedder, [(wait.plan, wait.lexical) for _, wait in waiting])
    for (out, wait), found in zip(waiting, ranked, strict=True):
        _place(out, found, wait.lead, l_max)
        out.deferred = None


def _place(out: SymbolCandidates, ranked: list[tuple[int, float]], lead_ids: list[int],
           l_max: int) -> None:
    """A constant's candidates: its exact name matches first (score 1.0: the name asked),
    then its ranking; the first ``exact`` of them enter at level 1 together."""
    if out.pattern:  # the filter decides; exact names only order its nodes
        in_filter = {i for i, _ in ranked}
        lead_ids = [i for i in lead_ids if i in in_filter]
    lead = set(lead_ids)
    ranked = [(i, 1.0) for i in lead_ids] + [r for r in ranked if r[0] not in lead]
    if not out.pattern:
        ranked = ranked[:l_max]
    out.exact = len(ranked) if out.pattern else len(lead_ids)  # a filter's nodes: level 1
    out.ids = [i for i, _ in ranked]
    out.scores = [s for _, s in ranked]

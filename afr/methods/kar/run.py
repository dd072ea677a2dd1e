"""KAR, Knowledge-Aware Retrieval (Xia et al.): LLM query expansion grounded in the
knowledge-graph neighbourhoods of the entities a question names (``--method kar``).

K1 parse the question's entities (LLM, ``afr.methods.kar.parse``) · K2 link each to a
node, and the question itself as a pseudo-entity · K3 walk 2 hops around each node · K4
keep the k neighbours whose documents are closest to the question · K5 render the kept
paths as triples (``afr.methods.kar.graph``) · K6 let the LLM write n documents that
answer the question from them (``afr.methods.kar.expand``) · K7 retrieval of
q′ = q + expansions over the answer type(s) (``[kar] retriever``: dense over ``doc_rel``
as the paper, BM25, or both fused with q's own BM25 list, the default). Step 8 (the reranker) may
follow, as for every method.

Offline (no LLM): K1 is the offline formalizer's entity linking and K6 a deterministic
graph-PRF expansion; the run says so. That expansion is only as good as the links it
walks from, so it is built from the triples of trusted links only and counts beside the
question's own hybrid list (which leads) in proportion to that trust: with no trusted
link, K7 is the question's hybrid list and the trace says why (``_trust``). A failing
LLM degrades the same way, with a warning, and never loses the question. Settings: the
``[kar]`` section (``afr.settings``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from afr.embed import Embedder
from afr.errors import LLMError
from afr.lexical import bm25, has_lexical_index
from afr.llm import LLMUnavailableError
from afr.llm.fallback import Fallback
from afr.methods.base import Session, Turn
from afr.methods.kar.expand import (
    expand_with_llm,
    expanded_query,
    fit_context,
    graph_prf,
)
from afr.methods.kar.graph import (
    LinkedEntity,
    Triple,
    connect,
    keep_closest,
    link_entity,
    link_question,
    neighbourhoods,
    plain_relation,
    render_triple,
)
from afr.methods.kar.parse import DocumentStructure, ParsedEntity, ask_entities
from afr.retrieval.candidate import Candidate, Ranked
from afr.retrieval.fusion import fuse
from afr.retrieval.linking import MIN_LINK_CONFIDENCE, named_entities
from afr.retrieval.linking import LinkedEntity as NamedEntity
from afr.retrieval.lists import POOL, hybrid_fusion
from afr.retrieval.weights import dense_of, dense_trust
from afr.settings import RankingSettings
from afr.store.base import Store
from afr.store.skb import SkbSchema
from afr.vectors.documents import build_documents
from afr.vectors.search import query_vector, search

# Offline, q′'s lists weigh at most half the question's own hybrid list (RM3's usual
# interpolation of a query with its expansion): graph-PRF text is every neighbour's, and
# at the question's own weight, fused by rank, it reordered the top (WordNet dev, hit@1 /
# MRR of KAR: 48.9 / 57.0; at half weight by rank 51.1 / 57.4, by score 53.2 / 59.3;
# bench/real/RESULTS.md).
PRF_SHARE = 0.5


@dataclass
class KarTrace:
    """KAR's steps for one question: the run log (``run_kar_*``) and --explain read it."""

    candidates: list[Candidate]
    mode: str  # llm | offline
    entities: list[LinkedEntity] = field(default_factory=list)
    triples: list[Triple] = field(default_factory=list)
    expansions: list[str] = field(default_factory=list)
    expansion_source: str = "none"  # llm | graph_prf | none
    expanded_query: str = ""
    # how far K7 trusts q′ beside q (1 with the LLM's expansion; the graph-PRF's: the
    # trust of the links it was built from, its lists weighing PRF_SHARE of it), and
    # why, for --explain
    expansion_weight: float = 1.0
    expansion_note: str = ""
    neighbours: int = 0  # nodes reached in K3, over all entities
    # plain vector search of q itself over the answer types (the paper's "Base"): K2's
    # link of the question is its top m_q, and the evaluation's "1+7" variant is it
    base: list[tuple[int, float]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    fallbacks: list[Fallback] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """What the run log and ``--json`` keep of it."""
        return {
            "mode": self.mode,
            "entities": [e.__dict__ for e in self.entities],
            "neighbours": self.neighbours,
            "triples": [t.to_dict() for t in self.triples],
            "expansion_source": self.expansion_source,
            "expansions": self.expansions,
            "expanded_query": self.expanded_query,
            "expansion_weight": self.expansion_weight,
            "expansion_note": self.expansion_note,
        }


def run_kar(session: Session, question: str, types: Sequence[str], turn: Turn,
            structures: list[DocumentStructure] | None) -> KarTrace:
    """K1–K7 for one question; without an LLM (``turn.llm`` None) it runs offline.
    ``types``: the answer types searched by the question's own link (K2) and the final
    retrieval (K7)."""
    run = KarTrace([], "offline" if turn.llm is None else "llm")
    parsed, llm_down = _parse(session, question, turn, structures or [], run)
    qvec = query_vector(session.store, session.embedder, question)
    names, documents = _neighbourhood(session, question, qvec, types, parsed, turn, run)
    if turn.llm is not None and not llm_down:
        _expand_with_llm(session, question, turn, structures or [], names, documents, run)
    if run.expansion_source != "llm":
        with turn.timer.step("kar_6_graph_prf"):
            _expand_offline(session, names, documents, run)
    run.expanded_query = expanded_query(question, run.expansions)
    with turn.timer.step("kar_7_retrieval"):
        dense, found = _final_retrieval(session, question, list(types) or None, run)
    run.candidates = [Candidate(n, "kar", None, dense.get(n), _provenance(n, run))
                      for n, _ in found]
    return run


def _expand_offline(session: Session, names: dict[int, str], documents: dict[int, str],
                    run: KarTrace) -> None:
    """K6 without the LLM: the graph-PRF text of the triples whose link is trusted, and
    its weight in K7, the most trusted of those links. Nothing reads the triples for
    their relevance as the LLM does, so an untrusted link's neighbourhood would only add
    the words of nodes near a wrong start and push q's own answers down."""
    trust = {e.entity: e.trust for e in run.entities}
    # A link trusted less than the linking makes links at all is no link to walk from:
    # its triples would ride on a trusted link's weight.
    used = [t for t in run.triples if trust.get(t.entity, 0.0) >= MIN_LINK_CONFIDENCE]
    text = graph_prf([(plain_relation(t, names, session.schema), documents.get(t.tail, ""))
                      for t in used], session.settings.kar.prf_chars)
    run.expansions = [text] if text else []
    run.expansion_source = "graph_prf" if text else "none"
    run.expansion_weight = max((trust[t.entity] for t in used), default=0.0) if text else 0.0
    if text:
        run.expansion_note = (f"graph-PRF of {len(used)} of {len(run.triples)} triples "
                              f"(those of links trusted {MIN_LINK_CONFIDENCE} or more), "
                              f"weighted {PRF_SHARE * run.expansion_weight:.2f} (half "
                              f"its trust, {run.expansion_weight:.2f}) beside the "
                              "question's own hybrid list")
    elif run.triples:
        run.expansion_note = (f"no expansion: none of the links the triples start from is "
                              f"trusted {MIN_LINK_CONFIDENCE} or more (see the entities); "
                              "K7 is the question's hybrid list")
    else:
        run.expansion_note = "no expansion: no triples; K7 is the question's hybrid list"


def _final_retrieval(session: Session, question: str, types: list[str] | None,
                     run: KarTrace) -> tuple[dict[int, float], Ranked]:
    """K7: the expanded query's (``run.expanded_query``) list by ``[kar] retriever``, and
    the cosine similarities of the nodes the dense search scored. The hybrid's dense list
    weighs what the fusion trusts the embedder with (the hashing embedder next to
    nothing), so KAR gains from the expansion whatever the embedder."""
    store, settings = session.store, session.settings
    k, retriever = settings.ask.k, settings.kar.retriever
    if retriever != "vss" and not has_lexical_index(store):
        run.warnings.append(f"no lexical index: K7 searched vectors only ([kar] retriever "
                            f"{retriever}; 'afr index' builds it)")
        retriever = "vss"
    query = run.expanded_query
    depth = k if retriever == "vss" else max(POOL, k)
    vss = search(store, "doc_rel", query_vector(store, session.embedder, query), depth,
                 types=types) if retriever != "bm25" else []
    if retriever == "vss":
        return dict(vss), vss
    lexical = bm25(store, query, params=settings.bm25, types=types, k=depth)
    if retriever == "bm25":
        return {}, lexical[:k]
    # The question's own BM25 list stays one of the signals, as RM3 keeps the original
    # query beside its expansion: graph-PRF text adds terms of every neighbour, and on
    # its own it can bury the question's words. (Offline without an expansion q′ is q:
    # its lists are the question's own, searched once.)
    own = lexical if query == question else bm25(store, question, params=settings.bm25,
                                                 types=types, k=depth)
    ranking = settings.ranking
    if run.expansion_source == "llm":
        signals = [(vss, dense_of(ranking)), (lexical, ranking.lexical),
                   (own, ranking.lexical)]
        return dict(vss), fuse(signals, method=ranking.fusion, rrf_k=ranking.rrf_k)[:k]
    own_vss = search(store, "doc_rel", query_vector(store, session.embedder, question),
                     depth, types=types) if query != question else vss
    fused = _offline_fusion(question, own_vss, own, vss, lexical, ranking, types, run)
    # the similarities to q, where the list of q's own leads
    return {**dict(vss), **dict(own_vss)}, fused[:k]


def _offline_fusion(question: str, own_vss: Ranked, own: Ranked, vss: Ranked,
                    lexical: Ranked, ranking: RankingSettings, types: list[str] | None,
                    run: KarTrace) -> Ranked:
    """K7 after the graph-PRF: the question's own hybrid list (the hybrid method's), and
    q′'s vector and BM25 lists beside it at their weights times ``PRF_SHARE`` times the
    expansion's trust, fused linearly on min-max normalised scores. The expansion thus
    adds evidence at half its links' trust, and by scores, not ranks: a node q′ ranks
    first overtakes q's first only where q's list barely separates them. With no trusted
    link (q′ = q, or weight 0) the list is the hybrid method's."""
    own_hybrid = hybrid_fusion(own_vss, own, ranking, types)
    if not _expands(question, run):
        return own_hybrid
    weight = run.expansion_weight * PRF_SHARE
    signals = [(own_hybrid, ranking.lexical), (vss, dense_of(ranking) * weight),
               (lexical, ranking.lexical * weight)]
    return fuse(signals, method="linear")


def _expands(question: str, run: KarTrace) -> bool:
    """Whether the graph-PRF changed the question and is trusted at all."""
    return run.expanded_query != question and run.expansion_weight > 0.0


def _parse(session: Session, question: str, turn: Turn,
           structures: list[DocumentStructure], run: KarTrace
           ) -> tuple[list[ParsedEntity] | None, bool]:
    """K1: the entities the LLM reads in the question (None offline, or when it fails),
    and whether the LLM is down (then K6 goes without it too)."""
    if turn.llm is None:
        return None, False
    try:
        with turn.timer.step("kar_1_parse"):
            parsed, _ = ask_entities(turn.llm, question, structures, session.schema,
                                     prompts_dir=session.settings.prompts.dir)
        return parsed, False
    except LLMError as exc:
        timings = turn.timer.timings
        timings["kar_1_llm_failed"] = timings.pop("kar_1_parse", 0.0)
        llm_down = isinstance(exc, LLMUnavailableError)
        run.fallbacks.append(Fallback.of(
            exc, "KAR entity parsing",
            "using offline entity linking" + (" and the graph-PRF expansion"
                                              if llm_down else "")))
        return None, llm_down


def _neighbourhood(session: Session, question: str, qvec: np.ndarray, types: Sequence[str],
                   parsed: list[ParsedEntity] | None, turn: Turn, run: KarTrace
                   ) -> tuple[dict[int, str], dict[int, str]]:
    """K2–K5: link the entities, walk their neighbourhoods, keep the closest neighbours
    and render the paths to them as triples; (the names, the end documents) of them."""
    store, settings, timer = session.store, session.settings.kar, turn.timer
    with timer.step("kar_2_link"):
        run.base = link_question(store, qvec, types, max(session.settings.ask.k,
                                                         settings.m_q))
        run.entities = _link(store, session.schema, session.embedder, question,
                             run.base[:settings.m_q], parsed)
        _trust(run.entities, session)
    starts = [e.node_id for e in run.entities if e.node_id is not None]
    with timer.step("kar_3_4_neighbours"):
        hoods = neighbourhoods(store, starts, hops=settings.hops,
                               max_neighbours=settings.max_neighbours,
                               max_mid_degree=settings.max_mid_degree)
        run.neighbours = sum(len(v) for v in hoods.reached.values())
        kept = keep_closest(store, qvec, run.entities, hoods, settings.k)
    for start in sorted(hoods.guarded):
        run.warnings.append(
            f"KAR: the {settings.hops}-hop neighbourhood of node {start} was cut at hubs "
            f"(more than {settings.max_neighbours} second hops: middle nodes with more than "
            f"{settings.max_mid_degree} edges were not walked through)")
    with timer.step("kar_5_triples"):
        run.triples = connect(store, kept)
        names, documents = _names_and_documents(store, run.triples, settings.doc_chars)
        for t in run.triples:
            t.rendered = render_triple(t, names, session.schema)
    return names, documents


def _expand_with_llm(session: Session, question: str, turn: Turn,
                     structures: list[DocumentStructure], names: dict[int, str],
                     documents: dict[int, str], run: KarTrace) -> None:
    """K6 with the LLM: n expansions from the kept triples and documents (a failure
    leaves the graph-PRF expansion to ``run_kar``)."""
    settings = session.settings.kar
    context = fit_context({n: (names.get(n, str(n)), d) for n, d in documents.items()},
                          [(t.rendered, (t.head, t.tail)) for t in run.triples])
    try:
        with turn.timer.step("kar_6_expand"):
            run.expansions = expand_with_llm(
                turn.llm, question, structures, context, n=settings.n,
                temperature=settings.temperature, prompts_dir=session.settings.prompts.dir)
        run.expansion_source = "llm"
    except LLMError as exc:
        timings = turn.timer.timings
        timings["kar_6_llm_failed"] = timings.pop("kar_6_expand", 0.0)
        run.fallbacks.append(Fallback.of(exc, "KAR expansion",
                                         "using the graph-PRF expansion"))


def _link(store: Store, schema: SkbSchema, embedder: Embedder, question: str,
          question_nodes: Sequence[tuple[int, float]], parsed: list[ParsedEntity] | None
          ) -> list[LinkedEntity]:
    """K2: E_q = {q} ∪ the parsed entities (offline: the entities the question names,
    linked by name, which need no search). ``question_nodes``: the question's own
    links."""
    out = [LinkedEntity(i, "question", question, None, node, score)
           for i, (node, score) in enumerate(question_nodes)]
    if not out:
        out.append(LinkedEntity(0, "question", question, None, None, None))
    if parsed is None:  # offline, or the parse failed
        for ent in named_entities(store, question, schema):
            trust, why = _offline_trust(ent)
            out.append(LinkedEntity(len(out), "offline", ent.mention, ent.node_type,
                                    ent.node_id, 1.0, trust, why))
        return out
    for ent in parsed:
        hit = link_entity(store, embedder, ent.text, ent.node_type)
        out.append(LinkedEntity(len(out), "llm", ent.text, ent.node_type,
                                hit[0] if hit else None, hit[1] if hit else None))
    return out


def _trust(entities: Sequence[LinkedEntity], session: Session) -> None:
    """How far the graph-PRF may lean on each link (``LinkedEntity.trust``), as the offline
    formalizer trusts its entities (``afr.methods.af.offline._support``):
    - the question's own link is its nearest node by vectors: trusted as far as the fusion
      trusts the embedder (``dense_trust``: the hashing embedder next to nothing);
    - a name the question writes (capitalised, quoted, typed by a type word) is trusted
      as much as its link is sure (``afr.retrieval.linking``'s confidence);
    - an ordinary phrase that happens to name a node is not: its words are the question's,
      which BM25 already weighs, and its neighbours are no evidence (WordNet: "sponge
      cake" in a question about a trifle);
    - an entity the LLM parsed keeps full trust: the LLM chose it.
    Links trusted less than ``MIN_LINK_CONFIDENCE`` are not walked from (``_expand_offline``)."""
    embedder_trust = dense_trust(session.settings.ranking)
    for e in entities:
        if e.source == "question":
            e.trust = embedder_trust
            e.why = (f"the question's nearest node by vectors: trusted as the fusion trusts "
                     f"the embedder ({embedder_trust:.3f})")
        elif e.source == "llm":
            e.trust, e.why = 1.0, "parsed by the LLM"


def _offline_trust(ent: NamedEntity) -> tuple[float, str]:
    """(trust, why) of an entity the offline linking found (see ``_trust``)."""
    if ent.ordinary:
        return 0.0, ("an ordinary phrase that names a node: its words are the question's, "
                     "which BM25 already weighs")
    return ent.confidence, f"a name the question writes (link confidence {ent.confidence:.2f})"


def _names_and_documents(store: Store, triples: Sequence[Triple], doc_chars: int
                         ) -> tuple[dict[int, str], dict[int, str]]:
    """Names of every node the triples mention, and the ``doc`` documents of their ends."""
    ends = sorted({n for t in triples for n in (t.head, t.tail)})
    mids = {t.mid for t in triples if t.mid is not None}
    details = store.node_details(sorted(set(ends) | mids))
    names = {i: d.name or d.ext_id for i, d in details.items()}
    docs = build_documents(store, ends, "doc") if ends else {}
    return names, {i: d[:doc_chars] for i, d in docs.items()}


def _provenance(node_id: int, run: KarTrace) -> dict[str, Any]:
    """Why a KAR answer may have been found: the entities linked to it, and the kept
    triples that end in it (indices into the run's lists)."""
    entities = [e.entity for e in run.entities if e.node_id == node_id]
    triples = [i for i, t in enumerate(run.triples) if node_id in (t.head, t.tail)]
    out: dict[str, Any] = {}
    if entities:
        out["kar_entities"] = entities
    if triples:
        out["kar_triples"] = triples
    return out

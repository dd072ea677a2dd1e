"""`afr ask`: a session's method answers each question, and the shared finish turns its
list into the result.

``Pipeline`` only dispatches: it opens the session (what every question shares), makes
the configured method's retriever (``afr.methods.registry``), and per question runs it
and the finish (step 8, the run log: ``afr.pipeline.finish``). An LLM failure degrades the
question to the steps that still work, with a ``Fallback``; it never loses the question.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from afr.embed import Embedder, embedder_for_store, embedding_endpoint
from afr.errors import AfrError
from afr.lexical import query_tokenizer
from afr.llm import LLMClient, StoreLLMCache
from afr.methods.base import Question, QuestionLLM, Session, Turn
from afr.methods.registry import make_retriever
from afr.pipeline.finish import finish
from afr.pipeline.result import AskResult
from afr.retrieval.filters import AttributeCatalog
from afr.retrieval.weights import dense_weight, hybrid_dense_weight
from afr.settings import Settings, resolve_settings, with_values
from afr.store.base import VECTOR_VARIANTS, Store
from afr.text import clean_text
from afr.vectors.exact import use_exact_search

if TYPE_CHECKING:
    from afr.cypher import QueryGraph
    from afr.methods.af.cypher_report import CypherReport


class Pipeline:
    """A session of questions, answered by the method its settings name."""

    def __init__(self, store: Store, settings: Settings | None = None, *,
                 embedder: Embedder | None = None, llm: Any = None) -> None:
        self.session = open_session(store, settings or Settings(), embedder=embedder, llm=llm)
        self.retriever = make_retriever(self.session.settings.ask.method, self.session)

    @property
    def store(self) -> Store:
        return self.session.store

    @property
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def offline(self) -> bool:
        return self.session.llm is None

    def ask(self, question: str, *, cypher: str | None = None, target_type: str | None = None,
            eval_id: str | None = None, question_id: str | None = None) -> AskResult:
        """Answer ``question``. A given ``cypher`` (and ``target_type``) replaces steps 1–2:
        replayed or hand-written queries, benchmarks."""
        asked = Question(clean_text(question).strip(), cypher, target_type)
        if not asked.text:
            raise AfrError("the question is empty")
        llm = self.session.llm
        turn = Turn(QuestionLLM(llm) if llm is not None else None)
        found = self.retriever.retrieve(asked, turn)
        return finish(self.session, asked, found, turn, run_id=uuid.uuid4().hex,
                      eval_id=eval_id, question_id=question_id)


def open_session(store: Store, settings: Settings, *, embedder: Embedder | None = None,
                 llm: Any = None) -> Session:
    """What every question of a session shares, with the facts they all read read once
    here (set-up), not on the first question."""
    schema = store.skb_schema()  # first: a store without an SKB says so, and how to load one
    endpoint = embedding_endpoint(settings.embed, settings.llm)
    embedder = embedder or embedder_for_store(store, endpoint)
    # the fusions' dense weights for this store and embedder, as the runs will store them
    dense = dense_weight(store, embedder, settings.ranking)
    hybrid = hybrid_dense_weight(store, embedder, settings.ranking)
    settings = with_values(settings, {"ranking.dense": dense.weight,
                                      "ranking.hybrid_dense": hybrid.weight})
    session = Session(store, schema, embedder, AttributeCatalog.from_store(store),
                      settings, llm if llm is not None else llm_client(store, settings),
                      dense_from=dense.source, hybrid_dense_from=hybrid.source)
    # A lexical index built with another tokeniser than the settings name stops the
    # session here, before any question, rather than each question's BM25.
    query_tokenizer(store, settings.bm25)
    if settings.ask.method in ("sage", "af+sage"):
        from afr.vectors.similarity import has_similarity_graph

        has_similarity_graph(store)
    for variant in VECTOR_VARIANTS:
        store.embedding_model(variant)
    if settings.vectors.exact_search:
        use_exact_search(store)  # never the approximate index: ranks as DuckDB does
    store.reader(wait=False)  # a server's second connection opens while steps 1–3 run
    return session


def llm_client(store: Store, settings: Settings) -> LLMClient | None:
    """The session's LLM client; None offline (``llm.offline``, or no LLM configured)."""
    if settings.llm.offline is True:
        return None
    if not settings.llm.configured:
        if settings.llm.offline is False:
            raise AfrError("no LLM configured: set AFR_LLM_BASE_URL and AFR_LLM_MODEL "
                           "(and AFR_LLM_API_KEY), or pass --llm-url/--llm-model")
        return None
    return LLMClient(settings.llm, cache=StoreLLMCache(store), use_cache=settings.llm.use_cache)


def explain_cypher(store: Store, settings: Settings, text: str, graph: QueryGraph, *,
                   target_type: str | None = None, ground: bool = False, sql: bool = False,
                   question: str | None = None) -> CypherReport:
    """`afr cypher`: what AF makes of a Cypher query — the same steps 3–5, with the same
    settings, as an ask — offline and unlogged (``afr.methods.af.cypher_report``)."""
    from afr.methods.af.cypher_report import report_cypher

    session = open_session(store, with_values(settings, {"llm.offline": True,
                                                         "ask.log": False}))
    return report_cypher(session, text, graph, target_type=target_type, ground=ground,
                         sql=sql, question=question)


def ask(store: Store, question: str, settings: Settings | None = None) -> AskResult:
    """One question, end to end (see ``Pipeline`` for many): ``afr.ask``, an entry point
    of the Python API. Without ``settings`` it resolves them as the command line does
    (environment, settings file, defaults)."""
    return Pipeline(store, settings or resolve_settings().settings).ask(question)

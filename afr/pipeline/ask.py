"""`afr ask`: the eight steps of the Autofocus-Retriever, top to bottom.

1 target type (LLM) · 2 Cypher (LLM) · 3 parse + resolve · 4 symbol candidates ·
5 grounding with scope expansion (SQL) · 6 VSS over grounded answers · 7 VSS top-up ·
8 rerank (LLM). Without an LLM, steps 1–2 come from the offline formalizer and step 8
is skipped. An LLM failure degrades the question to the steps that still work, with a
warning; it never loses the question. A question waits at most 2 × timeout_s + 1 s on
failing LLM calls (``WaitBudget``), and a client marked down is not asked at all.

Timings name only what ran: ``1_target_type`` and ``8_rerank`` are the LLM's steps; the
time lost to a failed LLM step is under ``1-2_llm_failed`` or ``8_llm_failed``. With the
hybrid ranking the graph answers' provenance is part of ``6_7_hybrid`` (it runs beside
the question's vector search); with the paper's ranking it is ``provenance``.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from afr.embed import Embedder, embedder_for_store
from afr.errors import AfrError, LLMError, StoreError
from afr.ground import GroundingQuery
from afr.lexical import has_lexical_index
from afr.llm import LLMClient, LLMConfig, LLMUnavailableError, StoreLLMCache, WaitBudget
from afr.pipeline.config import AskConfig
from afr.pipeline.filters import AttributeCatalog
from afr.pipeline.fusion import FusionWeights
from afr.pipeline.grounding import GroundedCypher, ground_cypher, provenance
from afr.pipeline.hybrid_ranking import answer_types, baseline, plain_candidates, rank_hybrid
from afr.pipeline.offline import formalize, guess_target_type
from afr.pipeline.ranking import combine, graph_strand, graph_strand_all, vss_strand
from afr.pipeline.repair import repair_round, run_outcome
from afr.pipeline.rerank import rerank
from afr.pipeline.result import AskResult, Candidate, RankedAnswer
from afr.pipeline.runlog import write_run
from afr.pipeline.target_type import predict_target_type
from afr.pipeline.timing import Timer
from afr.pipeline.write_cypher import name_examples, write_cypher
from afr.settings import resolve_prompts_dir, resolve_steps
from afr.store.base import VECTOR_VARIANTS, NodeDetails, Store
from afr.store.skb import SkbSchema
from afr.text import clean_text
from afr.vectors.exact import use_exact_search
from afr.vectors.search import query_vector, save_query_vectors

if TYPE_CHECKING:
    from afr.pipeline.kar_parse import DocumentStructure


class Pipeline:
    """Holds what every question of a session shares: store, schema, embedder, LLM."""

    def __init__(self, store: Store, config: AskConfig | None = None, *,
                 embedder: Embedder | None = None, llm: Any = None,
                 full_graph_strand: bool = False) -> None:
        self.store = store
        #: Rank every grounded answer in step 6 (``AskResult.graph_ranked``), not just the
        #: ones this ask uses: the evaluation's "1-6" ablation needs the whole list.
        self.full_graph_strand = full_graph_strand
        self.config = _with_settings(config or AskConfig())
        self.schema: SkbSchema = store.skb_schema()
        self.embedder = embedder or embedder_for_store(store)
        self.catalog = AttributeCatalog.from_store(store)
        # Facts every question reads, read once here (set-up), not on the first question.
        if self.config.ranking == "hybrid" or self.config.method in ("bm25", "hybrid",
                                                                     "sage"):
            has_lexical_index(store)
        if self.config.method in ("sage", "af+sage"):
            from afr.vectors.similarity import has_similarity_graph

            has_similarity_graph(store)
        for variant in VECTOR_VARIANTS:
            store.embedding_model(variant)
        if self.config.exact_search:
            use_exact_search(store)  # never the approximate index: ranks as DuckDB does
        store.reader(wait=False)  # a server's second connection opens while steps 1–3 run
        self.llm = llm
        if self.llm is None and self.config.offline is not True:
            self.llm = _llm_from_config(store, self.config)
        self._examples: dict[str, list[str]] | None = None
        self._kar_structures: list[DocumentStructure] | None = None  # KAR's, read once

    @property
    def offline(self) -> bool:
        return self.llm is None

    def ask(self, question: str, *, eval_id: str | None = None,
            question_id: str | None = None, cypher: str | None = None,
            target_type: str | None = None) -> AskResult:
        """Answer ``question``. A given ``cypher`` (and ``target_type``) replaces steps 1–2:
        replayed or hand-written queries, benchmarks."""
        cfg = self.config
        question = clean_text(question).strip()
        if cypher is not None:
            cypher = clean_text(cypher)
        if not question:
            raise AfrError("the question is empty")
        result = AskResult(uuid.uuid4().hex, question, "offline" if self.offline else "llm", cfg)
        timer = Timer(result.timings)
        # Count this question's calls on its own: the shared client's totals mix in the
        # calls of other questions asked at the same time (afr eval --concurrency).
        llm = _QuestionLLM(self.llm) if self.llm is not None else None

        if cfg.method == "sage":  # hybrid seeds, expanded: no Cypher, no grounding
            return self._ask_sage(question, result, timer, target_type, eval_id, question_id)
        if cfg.method == "kar":  # query expansion from KG neighbourhoods: no Cypher
            return self._ask_kar(question, result, timer, llm, target_type, eval_id,
                                 question_id)
        if cfg.method not in ("af", "af+sage"):  # plain retrieval: no Cypher, no grounding
            return self._ask_plain(question, result, timer, target_type, eval_id, question_id)
        if cypher is not None:
            result.cypher, result.target_type = cypher, target_type
        else:
            self._formalize(question, result, timer, llm=llm)

        steps = self.ground_cypher(result.cypher or "", target_type=result.target_type,
                                   timer=timer)
        # The repair round rewrites the LLM's own Cypher; a given (replayed, hand-written)
        # query only when asked for explicitly (--repair).
        llm_failed = any(w.startswith("LLM failed") for w in result.warnings)
        if llm is not None and not llm_failed and (
                cfg.repair is True or (cfg.repair is None and cypher is None)):
            steps = self._repair(question, result, steps, timer, llm)
        result.fixes = steps.fixes
        result.query_graph = steps.graph.to_dict()
        result.resolved = steps.resolved
        if result.target_type is None and steps.resolved.target_type:
            result.target_type = steps.resolved.target_type
        result.symbols, result.grounding = steps.symbols, steps.result
        gquery = steps.query
        grounded = result.grounding.answers if result.grounding else []

        qvec = query_vector(self.store, self.embedder, question)
        if cfg.ranking == "hybrid":
            with timer.step("6_7_hybrid"):
                # the graph answers' provenance, on the connection that ranked them, while
                # the other one runs the question's vector search
                explain = None if gquery is None else partial(
                    _explain, query=gquery, k=cfg.k, l_max=cfg.l_max)
                candidates = rank_hybrid(self.store, qvec, result, self.schema, cfg,
                                         explain=explain)
        else:
            with timer.step("6_vss_grounded"):
                # Sized to what this ask uses: the quota, and the top k for provenance; the
                # evaluation's ablations ask for the whole list (full_graph_strand).
                result.graph_ranked = graph_strand_all(self.store, qvec, grounded) \
                    if self.full_graph_strand else \
                    graph_strand(self.store, qvec, grounded, max(cfg.graph_quota, cfg.k))
                graph_part = result.graph_ranked[:max(cfg.graph_quota, 0)]
        if cfg.ranking != "hybrid" and gquery is not None and result.graph_ranked:
            with timer.step("provenance"):
                result.warnings += provenance(self.store, gquery, result.graph_ranked[:cfg.k],
                                              l_max=cfg.l_max)
        if cfg.ranking != "hybrid":
            with timer.step("7_vss_topup"):
                vss = vss_strand(self.store, qvec, answer_types(result, self.schema),
                                 cfg.k + len(graph_part))
                candidates = combine(graph_part, vss, cfg.k)
                result.vss_ranked, result.pre_rerank = vss, list(candidates)
        top_vss = result.vss_ranked[0][1] if result.vss_ranked else None
        result.outcome = run_outcome(
            fixes=len(result.fixes), repaired=bool(result.repair and result.repair["used"]),
            grounded=len(grounded), top_vss=top_vss, weak_vss=cfg.weak_vss)
        if cfg.method == "af+sage":
            from afr.pipeline.sage import relational_skip

            skip = relational_skip(
                triplets=len(steps.resolved.triplets) if steps.resolved else 0,
                grounded=len(grounded), quota=cfg.graph_quota)
            candidates = self._expand(question, result, candidates, qvec, timer, skip=skip)
        self._finish_ask(question, result, candidates, timer, llm, eval_id, question_id)
        return result

    def _ask_plain(self, question: str, result: AskResult, timer: Timer,
                   target_type: str | None, eval_id: str | None,
                   question_id: str | None) -> AskResult:
        """``method`` vss, bm25 or hybrid: one list over the target type (given, else the
        offline formalizer's guess, else every candidate type)."""
        result.target_type = target_type or guess_target_type(question, self.schema)
        qvec = query_vector(self.store, self.embedder, question)
        with timer.step("7_" + self.config.method):
            candidates = plain_candidates(self.store, qvec, question, result, self.schema,
                                          self.config)
        self._finish_ask(question, result, candidates, timer, None, eval_id, question_id)
        return result

    def _ask_sage(self, question: str, result: AskResult, timer: Timer,
                  target_type: str | None, eval_id: str | None,
                  question_id: str | None) -> AskResult:
        """``method`` sage: the hybrid list over the target type (as ``method`` hybrid)
        seeds SAGE's expansion (afr.pipeline.sage)."""
        result.target_type = target_type or guess_target_type(question, self.schema)
        types = answer_types(result, self.schema)
        qvec = query_vector(self.store, self.embedder, question)
        with timer.step("7_hybrid"):
            seeds = baseline(self.store, qvec, question, types, self.config.k, "hybrid",
                             FusionWeights.from_settings())
        candidates = self._expand(question, result, seeds, qvec, timer)
        self._finish_ask(question, result, candidates, timer, None, eval_id, question_id)
        return result

    def _expand(self, question: str, result: AskResult, seed_list: list[Candidate],
                qvec: Any, timer: Timer, *, skip: str | None = None) -> list[Candidate]:
        """SAGE over ``seed_list``: the list before step 8."""
        types = answer_types(result, self.schema)
        from afr.pipeline.sage import SageSettings, expand_list

        settings = SageSettings.from_settings()
        if settings.policy == "always":
            skip = None  # the paper's "+Edge": expand after a relational Cypher too
        with timer.step("sage_expand"):
            candidates, trace, warnings = expand_list(
                self.store, qvec, question, seed_list, self.config.k, types, settings,
                skip=skip)
        result.sage = trace.to_dict()
        result.warnings += warnings
        result.pre_rerank = list(candidates)
        return candidates

    def _ask_kar(self, question: str, result: AskResult, timer: Timer, llm: Any,
                 target_type: str | None, eval_id: str | None,
                 question_id: str | None) -> AskResult:
        """``method`` kar (afr.pipeline.kar) over the target type (given, else the offline
        guess, else every candidate type); step 8 may follow."""
        result.target_type = target_type or guess_target_type(question, self.schema)
        types = answer_types(result, self.schema)
        # KAR's modules (and their prompt templates) load only when KAR runs: the other
        # methods and `afr cypher --run` start faster without them.
        from afr.pipeline.kar import KarSettings, run_kar
        from afr.pipeline.kar_parse import document_structures

        if llm is not None and self._kar_structures is None:
            self._kar_structures = document_structures(self.store, self.schema)
        run = run_kar(self.store, self.schema, self.embedder, self.catalog, question, types,
                      self.config.k, llm=llm, structures=self._kar_structures,
                      settings=KarSettings.from_settings(), timer=timer,
                      prompts_dir=self.config.prompts_dir)
        for fell in run.fallbacks:
            _llm_fell_back(result, fell.error, fell.steps, fell.instead)
        result.warnings += run.warnings
        result.kar = run.trace()
        result.pre_rerank, result.vss_ranked = list(run.candidates), run.base
        self._finish_ask(question, result, run.candidates, timer, llm, eval_id, question_id)
        return result

    def _finish_ask(self, question: str, result: AskResult, candidates: list[Candidate],
                    timer: Timer, llm: Any, eval_id: str | None,
                    question_id: str | None) -> None:
        """Step 8, the answers, the log."""
        cfg = self.config

        details = self.store.node_details([c.node_id for c in candidates])
        positions = self._rerank(question, candidates, result, llm=llm, details=details,
                                 timer=timer)
        self._finish(result, candidates, positions, details)
        if llm is not None:
            result.llm_calls, result.llm_new_calls = llm.calls, llm.new_calls
            result.llm_tokens, result.llm_tokens_all = llm.new_tokens, llm.tokens
        if result.warnings and result.status == "ok":
            result.status = "degraded" if any(w.startswith("LLM") for w in result.warnings) \
                else "ok"
        if cfg.log:
            try:
                write_run(self.store, result, eval_id=eval_id, question_id=question_id)
            except StoreError as exc:
                if eval_id is not None:  # an evaluation needs its log to resume: stop
                    raise
                # The answers are found; a store that cannot take the log (full disk,
                # read-only) should not cost the user them.
                result.warnings.append(f"this run was not logged ({exc})")
        save_query_vectors(self.store)  # after the answers, like the log

    def ground_cypher(self, cypher: str, *, target_type: str | None = None,
                      timer: Timer | None = None) -> GroundedCypher:
        """Steps 3–5 on a Cypher query, with this pipeline's settings (``afr cypher --run``
        and every ask)."""
        return ground_cypher(self.store, self.schema, self.embedder, self.catalog,
                             clean_text(cypher), self.config, target_type=target_type,
                             timer=timer)

    def _repair(self, question: str, result: AskResult, steps: GroundedCypher, timer: Timer,
                llm: Any) -> GroundedCypher:
        """Step 3c: at most one repair call (afr.pipeline.repair)."""
        cfg = self.config
        if self._examples is None:
            self._examples = name_examples(self.store)
        scratch = Timer({})  # the reply's steps 3–5 count in 3_repair, not twice
        with timer.step("3_repair"):
            done, steps_used = repair_round(
                llm, question, result.cypher or "", steps, self.schema,
                ground=lambda text: self.ground_cypher(text, target_type=result.target_type,
                                                       timer=scratch),
                target_type=result.target_type, examples=self._examples, l_max=cfg.l_max,
                model=cfg.step_models.get("cypher"), effort=cfg.step_effort.get("cypher"),
                prompts_dir=cfg.prompts_dir)
        if done is None:
            del result.timings["3_repair"]
            return steps
        result.repair = done.to_dict()
        if done.used:
            result.cypher = done.cypher
        if done.note.startswith("LLM"):
            result.warnings.append(done.note)
        return steps_used

    # -- steps 1 and 2 -----------------------------------------------------------------

    def _formalize(self, question: str, result: AskResult, timer: Timer, *,
                   llm: Any = None) -> None:
        cfg = self.config
        llm = llm or self.llm
        if llm is not None:
            try:
                with timer.step("1_target_type"):
                    if len(self.schema.candidate_types) == 1:
                        result.target_type = self.schema.candidate_types[0]
                    else:
                        result.target_type, _ = predict_target_type(
                            llm, question, self.schema,
                            model=cfg.step_models.get("target"),
                            effort=cfg.step_effort.get("target"), prompts_dir=cfg.prompts_dir)
                with timer.step("2_cypher"):
                    if self._examples is None:
                        self._examples = name_examples(self.store)
                    result.cypher = write_cypher(
                        llm, question, self.schema, result.target_type, self._examples,
                        model=cfg.step_models.get("cypher"),
                        effort=cfg.step_effort.get("cypher"), prompts_dir=cfg.prompts_dir)
                return
            except LLMError as exc:
                # The time went to the LLM's failure, not to a step that produced anything
                # (a target type found in step 1 stays, with its timing).
                failed = ("2_cypher",) if result.target_type else ("1_target_type",)
                lost = sum(result.timings.pop(s, 0.0) for s in failed)
                result.timings["1-2_llm_failed"] = round(lost, 6)
                _llm_fell_back(result, exc, "steps 1–2",
                               "using the offline formalizer for this question")
        with timer.step("2_cypher"):
            offline = formalize(self.store, question, self.schema, self.catalog)
        result.target_type = result.target_type or offline.target_type
        result.cypher = offline.cypher
        result.link_confidence = offline.confidence
        result.warnings += offline.notes

    # -- step 8 ------------------------------------------------------------------------

    def _rerank(self, question: str, candidates: list[Candidate], result: AskResult, *,
                llm: Any = None, method: str | None = None,
                details: dict[int, NodeDetails] | None = None,
                timer: Timer | None = None) -> dict[int, int] | None:
        """Step 8; ``method`` overrides the configured reranker (evaluation sweeps).
        ``details`` are the candidates' (when the caller has them already). None when
        nothing was reranked; ``timer`` gets ``8_rerank`` only when the LLM reranked."""
        cfg = self.config
        llm = llm or self.llm
        method = method or cfg.reranker
        if llm is None or method == "none" or not candidates:
            return None
        ids = [c.node_id for c in candidates]
        if details is None:
            details = self.store.node_details(ids)
        types = {i: d.type for i, d in details.items()}
        names = {s for sym in (result.resolved.symbols.values() if result.resolved else [])
                 for s in sym.search_strings}
        timer = timer or Timer({})
        try:
            with timer.step("8_rerank"):
                outcome = rerank(llm, self.store, question, ids, method=method,
                                 node_types=types, keep_names=names,
                                 with_relations=cfg.rerank_with_relations,
                                 concurrency=cfg.rerank_concurrency,
                                 model=cfg.step_models.get("rerank"),
                                 effort=cfg.step_effort.get("rerank"),
                                 prompts_dir=cfg.prompts_dir)
        except LLMError as exc:
            timer.timings["8_llm_failed"] = timer.timings.pop("8_rerank", 0.0)
            _llm_fell_back(result, exc, "step 8", "answers keep the retrieval order")
            return None
        result.rerank_prompts = outcome.prompts
        result.warnings += outcome.notes
        return {node: pos for pos, node in enumerate(outcome.order, 1)}

    def _finish(self, result: AskResult, candidates: list[Candidate],
                positions: dict[int, int] | None,
                details: dict[int, NodeDetails]) -> None:
        order = sorted(candidates, key=lambda c: positions[c.node_id]) if positions \
            else candidates
        for rank, c in enumerate(order, 1):
            d = details[c.node_id]
            result.answers.append(RankedAnswer(
                rank, c.node_id, d.ext_id, d.name, d.type, c.source, c.level, c.vss_score,
                positions.get(c.node_id) if positions else None, c.provenance,
            ))


def _explain(conn: Store, graph: list[Candidate], *, query: GroundingQuery, k: int,
             l_max: int) -> list[str]:
    """The provenance of the first k graph answers (step 6 of the hybrid ranking)."""
    return provenance(conn, query, graph[:k], l_max=l_max)


def _llm_fell_back(result: AskResult, exc: LLMError, steps: str, instead: str) -> None:
    skipped = isinstance(exc, LLMUnavailableError) and exc.skipped
    result.warnings.append(f"LLM {'skipped' if skipped else 'failed'} in {steps} ({exc}); "
                           f"{instead}")
    result.llm_failed(exc.kind if isinstance(exc, LLMUnavailableError) else "error", str(exc))


class _QuestionLLM:
    """The shared LLM client as seen by one question: same calls, own counters, and the
    question's own allowance for failing calls (``WaitBudget``)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.stats = client.stats
        self.calls = self.new_calls = self.tokens = self.new_tokens = 0
        self._lock = threading.Lock()  # the pointwise/pairwise reranker calls from threads
        self.budget = WaitBudget.for_question(client.config.timeout_s) \
            if isinstance(client, LLMClient) else None

    def complete(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        if self.budget is not None:
            kwargs.setdefault("budget", self.budget)
        reply = self.client.complete(messages, **kwargs)
        used = (reply.prompt_tokens or 0) + (reply.completion_tokens or 0)
        with self._lock:
            self.calls += 1
            self.tokens += used
            if not reply.cached:
                self.new_calls += 1
                self.new_tokens += used
        return reply


def _with_settings(config: AskConfig) -> AskConfig:
    """The config with per-step models, efforts and the prompt folder resolved: its own
    (explicit) values beat the settings file, which beats the defaults."""
    models, efforts = resolve_steps(config.step_models, config.step_effort)
    return replace(config, step_models=models, step_effort=efforts,
                   prompts_dir=resolve_prompts_dir(config.prompts_dir))


def _llm_from_config(store: Store, config: AskConfig):
    llm_config = LLMConfig.from_env(**config.llm)
    if not llm_config.configured:
        if config.offline is False:
            raise AfrError("no LLM configured: set AFR_LLM_BASE_URL and AFR_LLM_MODEL "
                           "(and AFR_LLM_API_KEY), or pass --llm-url/--llm-model")
        return None
    return LLMClient(llm_config, cache=StoreLLMCache(store), use_cache=config.use_cache)


def ask(store: Store, question: str, config: AskConfig | None = None) -> AskResult:
    """One question, end to end (see Pipeline for many)."""
    return Pipeline(store, config).ask(question)

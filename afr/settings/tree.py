"""The settings tree: every knob of afr, one frozen dataclass per section.

A section is a table of the settings file (``[af]``, ``[ranking]`` …) and a part of every
run's stored settings. Defaults live here and only here; the command line's options, the
file's checks and ``afr config`` are generated from these fields (``afr.settings.knobs``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, get_args

from afr.settings.knobs import knob, section

Method = Literal["af", "vss", "bm25", "hybrid", "kar", "sage", "af+sage"]
METHODS: tuple[str, ...] = get_args(Method)
Ranking = Literal["hybrid", "paper"]  # steps 6–7: the fused extension, or as published
RANKINGS: tuple[str, ...] = get_args(Ranking)
Reranker = Literal["pairwise", "listwise", "pointwise", "none"]
RERANKERS: tuple[str, ...] = get_args(Reranker)
Mode = Literal["strict", "lenient"]
Effort = Literal["minimal", "low", "medium", "high"]
EFFORTS: tuple[str, ...] = get_args(Effort)
Fusion = Literal["rrf", "linear"]
FUSIONS: tuple[str, ...] = get_args(Fusion)
SagePolicy = Literal["skip_if_relational", "always"]
LLM_STEPS = ("target", "cypher", "rerank")


@dataclass(frozen=True)
class AskSettings:
    """[ask] What every method shares: which method, how many answers, the run log."""

    method: Method = knob(
        "af", "af: the Autofocus-Retriever; vss / bm25 / hybrid: plain vector, BM25 or fused "
        "retrieval over the target type (no Cypher; BM25 needs 'afr index'). kar: "
        "Knowledge-Aware Retrieval, the question expanded from the KG neighbourhoods of its "
        "entities ([kar]). sage: the hybrid list's top 10 widened by their neighbours in the "
        "similarity graph ('afr index --similarity'); af+sage: AF's steps 1–7 as those seeds.",
        flag="--method")
    k: int = knob(20, "Answers handed to the reranker (and returned).", short="-k",
                  minimum=1, maximum=10000)
    log: bool = knob(True, "Write every ask to the run-log tables (runs, run_answers); "
                     "--no-log: do not.", flag="--no-log", flag_value=False)


@dataclass(frozen=True)
class AfSettings:
    """[af] The Autofocus-Retriever's steps 3–7."""

    l_max: int = knob(100, "Candidates per constant (scope expansion stops there).",
                      flag="--l-max", minimum=1, maximum=10000)
    alpha: float = knob(2 / 3, "Share of the k answers taken from the graph strand.",
                        flag="--alpha", minimum=0, maximum=1, shown="2/3")
    mode: Mode = knob(
        "strict", "strict: symbols filtered by their node type, unknown relations dropped; "
        "lenient: node types ignored, unknown relations match any.", flag="--mode")
    use_edge_types: bool = knob(True, "Let only the named relation satisfy a triplet "
                                "(--no-edge-types: any relation does).",
                                flag="--no-edge-types", flag_value=False)
    ranking: Ranking = knob(
        "hybrid", "Steps 6–7: hybrid (graph evidence fused with similarity and BM25 from the "
        "lexical index) or paper (graph answers first by level, as published).",
        flag="--ranking")
    exact_names_first: bool = knob(True, "Exact name and alias matches lead a constant's "
                                   "candidates.")
    fix: bool = knob(True, "Deterministic fixes of labels, relations, directions, "
                     "properties and RETURN before resolving (--no-fix: the Cypher as "
                     "written).", flag="--no-fix", flag_value=False)
    repair: bool | None = knob(
        None, "One LLM repair round for a Cypher query that cannot be read, names what the "
        "schema lacks or matches nothing [default: on when an LLM is configured, for the "
        "Cypher it wrote].", flag="--repair", flag_value=True, off_flag="--no-repair")
    weak_vss: float = knob(0.2, "A question whose Cypher matches nothing is 'unanswerable' "
                           "when the best vector-search score is below this.",
                           flag="--weak-vss", minimum=-1, maximum=1)


@dataclass(frozen=True)
class RerankSettings:
    """[rerank] Step 8."""

    method: Reranker = knob("pairwise", "Step 8 (needs an LLM).", flag="--reranker")
    concurrency: int = knob(8, "Parallel LLM calls of the pointwise reranker.",
                            flag="--concurrency", minimum=1, maximum=64)
    with_relations: bool = knob(True, "Candidate descriptions carry their relations.")


@dataclass(frozen=True)
class StepLLMSettings:
    """[llm.steps.STEP] The model and reasoning effort of one LLM step."""

    model: str | None = knob(None, "Model of this step (default: the LLM's model).")
    effort: Effort = knob("medium", "Reasoning effort of this step.")


def _step(effort: str) -> Any:
    return dataclasses.field(default_factory=lambda: StepLLMSettings(effort=effort))


@dataclass(frozen=True)
class StepsSettings:
    """[llm.steps] Per-step models and efforts (set on the command line with
    --step-model STEP=MODEL and --effort STEP=LEVEL)."""

    target: StepLLMSettings = _step("medium")
    cypher: StepLLMSettings = _step("medium")
    rerank: StepLLMSettings = _step("low")


@dataclass(frozen=True)
class LLMSettings:
    """[llm] The OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp …)."""

    base_url: str | None = knob(None, "OpenAI-compatible base URL, e.g. "
                                "http://localhost:8000/v1.", flag="--llm-url", metavar="URL",
                                env=("AFR_LLM_BASE_URL",), url=True)
    model: str | None = knob(None, "Model name.", flag="--llm-model", metavar="NAME",
                             env=("AFR_LLM_MODEL",))
    api_key: str | None = knob(None, "API key (the settings file may name its variable "
                               "with api_key_env instead).",
                               env=("AFR_LLM_API_KEY", "OPENAI_API_KEY"), secret=True)
    api_key_env: str | None = knob(None, "The environment variable holding the API key.",
                                   stored=False)
    timeout_s: float = knob(120.0, "Seconds one LLM call may take.",
                            env=("AFR_LLM_TIMEOUT",), minimum=0.001)
    max_retries: int = knob(4, "Retries of a failed call (backoff with jitter).", minimum=0)
    temperature: float = knob(0.0, "Sampling temperature.", minimum=0)
    max_tokens: int | None = knob(None, "Most tokens of a reply.", minimum=1)
    reasoning_effort: Effort | None = knob(None, "Reasoning effort of calls that name "
                                           "none.")
    offline: bool | None = knob(None, "Ignore any configured LLM: offline formalizer, no "
                                "reranking [default: offline exactly when no LLM is "
                                "configured].", flag="--offline", flag_value=True)
    use_cache: bool = knob(True, "Answer LLM calls from the llm_calls cache (--no-cache: "
                           "ask again; still logged).", flag="--no-cache", flag_value=False)
    steps: StepsSettings = section(StepsSettings)

    @property
    def configured(self) -> bool:
        return bool(self.model and (self.base_url or self.api_key))


@dataclass(frozen=True)
class PromptSettings:
    """[prompts] afr's prompt templates."""

    dir: str | None = knob(None, "A folder of your own prompt templates overriding afr's "
                           "(same file names).", flag="--prompts", directory=True)


@dataclass(frozen=True)
class RankingSettings:
    """[ranking] The hybrid ranking's fusion (steps 6–7, plain hybrid, SAGE's seeds)."""

    fusion: Fusion = knob("rrf", "rrf (reciprocal rank) or linear (min-max normalised).")
    rrf_k: float = knob(60.0, "The constant of reciprocal rank fusion.", minimum=0)
    dense: float | None = knob(
        None, "Weight of the question's vector similarity beside BM25 [default: the weight "
        "'afr index --calibrate' measured for the store's embedder, else the embedder's "
        "own: 0.002 for the built-in hash embedder (a tie-breaker), 1 for semantic ones].",
        minimum=0)
    lexical: float = knob(1.0, "Weight of the question's BM25.", minimum=0)
    graph: float = knob(2.0, "Weight of the graph strand (membership and rank).", minimum=0)
    level: float = knob(1.0, "Weight of the scope level inside the graph strand.", minimum=0)
    text: float = knob(1.0, "Weight of the Cypher's text conditions used as a signal.",
                       minimum=0)
    keep_vss: int = knob(0, "The vector search's first N always stay in the list.",
                         minimum=0)
    symbols_lexical: bool = knob(True, "Step 4: a name's vector ranking fused with its "
                                 "BM25.")


@dataclass(frozen=True)
class BM25Settings:
    """[bm25] The lexical index and its scoring."""

    k1: float = knob(1.2, "Term-frequency saturation.", minimum=0)
    b: float = knob(0.75, "Length normalisation.", minimum=0, maximum=1)
    stopwords: bool = knob(True, "Drop English stopwords (rebuild the index after a "
                           "change: 'afr index').")
    min_idf: float = knob(0.1, "Query terms of a lower idf (held by over ~90% of the "
                          "documents searched) are not scored.", minimum=0)


@dataclass(frozen=True)
class SageSettings:
    """[sage] SAGE: the similarity graph and its expansion."""

    k_seed: int = knob(10, "Seeds expanded; neighbours fill the other k - seeds.", minimum=1)
    bm25: float = knob(0.6, "Weight of BM25 in the neighbours' pruning score.", minimum=0)
    dense: float = knob(0.4, "Weight of vector similarity in the pruning score.", minimum=0)
    policy: SagePolicy = knob("skip_if_relational", "always: expand after a relational "
                              "Cypher too.")
    same_type: bool = knob(True, "Neighbours only of the target type.")
    min_text_chars: int = knob(200, "'afr index --similarity': a type whose median text is "
                               "this long is eligible (besides the candidate types).",
                               minimum=0)
    k_cand: int = knob(50, "Nearest neighbours per node and signal (candidates).", minimum=1)
    percentile: float = knob(95.0, "Kept: candidate pairs at or above this percentile.",
                             minimum=0, maximum=100)


@dataclass(frozen=True)
class KarSettings:
    """[kar] KAR, Knowledge-Aware Retrieval."""

    n: int = knob(3, "Expansions sampled (K6).", minimum=1)
    k: int = knob(10, "Neighbours kept per linked entity (K4).", minimum=1)
    hops: int = knob(2, "Neighbourhood radius (K3).", minimum=1, maximum=2)
    doc_chars: int = knob(1500, "Characters of each document in the K6 prompt.", minimum=1)
    temperature: float = knob(0.7, "Sampling temperature of the expansions.", minimum=0)
    max_neighbours: int = knob(50_000, "Hub guard: above this many 2-hop neighbours …",
                               minimum=1)
    max_mid_degree: int = knob(1000, "… middle nodes of a higher degree are skipped.",
                               minimum=1)
    m_q: int = knob(1, "Nodes linked to the question itself (K2).", minimum=1)
    prf_chars: int = knob(200, "Offline expansion: characters of each document.", minimum=0)


@dataclass(frozen=True)
class VectorSettings:
    """[vectors] Vector search."""

    exact_search: bool = knob(
        False, "Exact vector search only: never PostgreSQL's approximate HNSW index "
        "(slower on large SKBs; ranks exactly as DuckDB does).", flag="--exact",
        flag_value=True)
    memory_mb: int = knob(2048, "Largest in-memory search matrix per variant, in MB "
                          "(DuckDB; afr eval builds them).", env=("AFR_MEMORY_VECTORS_MB",),
                          minimum=0)


@dataclass(frozen=True)
class EmbedSettings:
    """[embed] An embedding endpoint of its own (else the LLM's)."""

    base_url: str | None = knob(None, "OpenAI-compatible base URL of the embedding "
                                "endpoint.", env=("AFR_EMBED_BASE_URL",), url=True)
    api_key: str | None = knob(None, "Its API key.", env=("AFR_EMBED_API_KEY",), secret=True)


@dataclass(frozen=True)
class StoreSettings:
    """[store] Where the SKB lives and how much memory its database may take."""

    db: str | None = knob(None, "A DuckDB file path, a postgresql:// URL or a "
                          "spark://MASTER/DATABASE URL [default: ./afr.duckdb].",
                          env=("AFR_DB",), stored=False)
    schema: str = knob("afr", "PostgreSQL schema holding afr's tables.",
                       env=("AFR_SCHEMA",), stored=False)
    duckdb_memory_mb: int | None = knob(
        None, "DuckDB's buffer pool in MB [default: half the machine's memory].",
        env=("AFR_DUCKDB_MEMORY_MB",), minimum=256, stored=False)
    pg_index_memory_mb: int = knob(1024, "Most maintenance_work_mem of one HNSW build, "
                                   "in MB.", env=("AFR_PG_INDEX_MEMORY_MB",), minimum=64,
                                   stored=False)
    spark_warehouse: str = knob("afr-spark", "Folder holding the Parquet tables of Spark "
                                "stores (one subfolder per database).",
                                env=("AFR_SPARK_WAREHOUSE",), stored=False)
    cache_dir: str | None = knob(None, "afr's cache (the demo store) [default: "
                                 "$XDG_CACHE_HOME/afr, else ~/.cache/afr].",
                                 env=("AFR_CACHE_DIR",), stored=False, in_file=False)


@dataclass(frozen=True)
class Settings:
    """Every setting of afr. Resolved once where a command starts (``afr.settings.
    resolve_settings``), passed down, and stored with every run."""

    ask: AskSettings = section(AskSettings)
    af: AfSettings = section(AfSettings)
    rerank: RerankSettings = section(RerankSettings)
    llm: LLMSettings = section(LLMSettings)
    prompts: PromptSettings = section(PromptSettings)
    ranking: RankingSettings = section(RankingSettings)
    bm25: BM25Settings = section(BM25Settings)
    sage: SageSettings = section(SageSettings)
    kar: KarSettings = section(KarSettings)
    vectors: VectorSettings = section(VectorSettings)
    embed: EmbedSettings = section(EmbedSettings)
    store: StoreSettings = section(StoreSettings)

    @property
    def graph_quota(self) -> int:
        """Answers taken from the graph strand: round(alpha · k)."""
        return round(self.af.alpha * self.ask.k)

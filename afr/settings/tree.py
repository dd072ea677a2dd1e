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
Documents = Literal["focused", "capped", "paper"]
Overflow = Literal["query_names", "candidates"]
Effort = Literal["none", "minimal", "low", "medium", "high"]
EFFORTS: tuple[str, ...] = get_args(Effort)
Fusion = Literal["rrf", "linear"]
FUSIONS: tuple[str, ...] = get_args(Fusion)
SagePolicy = Literal["skip_if_relational", "always"]
KarRetriever = Literal["hybrid", "vss", "bm25"]
Knn = Literal["exact", "lsh"]  # the similarity graph's candidates: exact kNN, or LSH
# The lexical index's stemmer: PyStemmer's Snowball algorithms (3.1), or none.
Stemmer = Literal[
    "english", "none", "porter", "arabic", "armenian", "basque", "catalan", "czech", "danish",
    "dutch", "dutch_porter", "esperanto", "estonian", "finnish", "french", "german", "greek",
    "hindi", "hungarian", "indonesian", "irish", "italian", "lithuanian", "nepali",
    "norwegian", "persian", "polish", "portuguese", "romanian", "russian", "serbian",
    "sesotho", "spanish", "swedish", "tamil", "turkish", "yiddish"]
STEMMERS: tuple[str, ...] = get_args(Stemmer)
Preset = Literal["paper", "reference"]
PRESET_NAMES: tuple[str, ...] = get_args(Preset)
Schedule = Literal["reference", "paper"]
Step6Order = Literal["level", "similarity"]
TopupExcludes = Literal["taken", "cypher"]
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
    preset: Preset | None = knob(
        None, "paper: AF-Retriever as the paper's text describes it; reference: as the "
        "authors' code runs it (docs/method.md). Values between afr's defaults and the "
        "settings file: any flag, variable or file entry still wins [default: none, "
        "afr's own choices].", flag="--preset", env=("AFR_PRESET",))


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
                                flag="--edge-types", flag_value=True,
                                off_flag="--no-edge-types")
    ranking: Ranking = knob(
        "hybrid", "Steps 6–7: hybrid (graph evidence fused with similarity and BM25 from the "
        "lexical index) or paper (graph answers first by level, as published).",
        flag="--ranking")
    exact_names_first: bool = knob(True, "Exact name and alias matches lead a constant's "
                                   "candidates.")
    name_patterns: bool = knob(True, "A name CONTAINS / STARTS WITH / ENDS WITH is a "
                               "filter (every node whose name or alias matches, at level "
                               "1); off: its string is searched by similarity like =.")
    cut_first: bool = knob(False, "A constant's candidates are its top l_max by similarity "
                           "before its attribute filters apply (the reference code's "
                           "order); off: filters first, then the cut.")
    schedule: Schedule = knob(
        "reference", "Step 5's scope levels: reference (1, then l ← int(1.5·l + 0.5): 1, 2, "
        "3, 5, 8 … 93) or paper (Algorithm 1 line 9, l ← l^1.5 + 0.5 while l < l_max, "
        "scopes of its first ⌊l⌋ candidates: 1, 2, 4, 8, 26).")
    step6_order: Step6Order = knob(
        "level", "Paper ranking, step 6: level (by scope level, then similarity) or "
        "similarity (all grounded answers by similarity to the question, Algorithm 1 line "
        "11).")
    topup_excludes: TopupExcludes = knob(
        "taken", "Paper ranking, step 7: the vector top-up skips the answers already taken "
        "(taken) or every grounded answer (cypher: Algorithm 1 line 12).")
    offline_class: bool = knob(
        True, "Offline formalizer: re-rank by the class the question asks for (\"which "
        "cheeses …\" → kinds and instances of the node cheese; docs/method.md, "
        "\"Offline mode\").",
        flag="--offline-class", flag_value=True, off_flag="--no-offline-class")
    hide_types: tuple[str, ...] = knob(
        (), "Node types (and their relations) left out of the step-2 prompt, e.g. "
        "field_of_study (the paper's Table 21); repeatable.", flag="--hide-type",
        metavar="TYPE")
    fix: bool = knob(True, "Deterministic fixes of labels, relations, directions, "
                     "properties and RETURN before resolving, the relations the question "
                     "names beside a wrong one, and a same-type relation the data has only "
                     "the other way round (--no-fix: the Cypher as written).",
                     flag="--fix", flag_value=True, off_flag="--no-fix")
    repair: bool | None = knob(
        None, "One LLM repair round for a Cypher query that cannot be read, names what the "
        "schema lacks or matches nothing [default: on when an LLM is configured, for the "
        "Cypher it wrote].", flag="--repair", flag_value=True, off_flag="--no-repair")
    relax: bool = knob(
        True, "When no answer meets every constraint even at l_max, ground the query's "
        "parts alone: its relations without the target's own conditions, else those "
        "conditions alone if they keep k answers or fewer (a query without relations: its "
        "text conditions alone, if they keep k or fewer); a number comparison left out "
        "that the question names ranks the answers, nearest first (outcome 'relaxed'; "
        "--no-relax: vector search alone, as published).", flag="--relax",
        flag_value=True, off_flag="--no-relax")
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
    documents: Documents = knob(
        "focused", "The candidates' descriptions. focused: the relations and attributes "
        "the question's Cypher names first, at most 5 names per relation it walks (its "
        "constants' nodes first) and 3 per other relation, second hops only along its "
        "paths to its constants, 1,000 characters of text and 3,000 of description; "
        "capped: at most 10 names per relation, 5 per second hop, 2,000 characters of "
        "text and 6,000 of document, second hops through a relation the node has one of; "
        "paper: every relation (up to 1,000 names), second hops through the 1-1 / n-1 "
        "relation types, no cut.")
    overflow: Overflow = knob(
        "query_names", "When a prompt overflows the context, first keep the relation lines "
        "naming a name of the query (query_names) or a retrieved candidate of the query's "
        "other symbols (candidates: the paper's rule), then no relations.")


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

    @property
    def incomplete(self) -> str | None:
        """What an LLM set up halfway lacks — a URL without a model, a model without a URL
        (or key): afr runs offline then, and says why. None when nothing is half set (an
        API key alone is common in environments and says nothing about afr)."""
        if self.offline is True or self.configured:
            return None
        if self.base_url:
            return (f"the LLM URL is set ({self.base_url}) but no model: set "
                    "AFR_LLM_MODEL or --llm-model")
        if self.model:
            return (f"the LLM model is set ({self.model}) but no URL: set AFR_LLM_BASE_URL "
                    "or --llm-url (or AFR_LLM_API_KEY for the OpenAI API)")
        return None


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
        None, "Weight of the question's vector similarity beside BM25 in the reciprocal "
        "rank fusions (steps 6–7, KAR, SAGE's seeds) [default: the weight "
        "'afr index --calibrate' measured for the store's embedder, else the embedder's "
        "own: 0.002 for the built-in hash embedder, 0.01 for semantic ones: BM25 leads].",
        minimum=0)
    hybrid_dense: float | None = knob(
        None, "Weight of the question's vector similarity beside BM25 in the hybrid list, "
        "fused linearly after min-max normalising each list's scores per question (and in "
        "af's list where the graph has no say) [default: the weight 'afr index "
        "--calibrate' measured for the store's embedder, else the embedder's own: 0.3 "
        "for the built-in hash embedder, 0.1 for semantic ones].", minimum=0)
    lexical: float = knob(1.0, "Weight of the question's BM25.", minimum=0)
    graph: float = knob(2.0, "Weight of the graph strand (membership and rank).", minimum=0)
    level: float = knob(1.0, "Weight of the scope level inside the graph strand.", minimum=0)
    text: float = knob(1.0, "Weight of the Cypher's text conditions used as a signal.",
                       minimum=0)
    keep_vss: int = knob(0, "The vector search's first N always stay in the list.",
                         minimum=0)
    keep_bm25: int = knob(1, "BM25's first N stay in the list when none of the graph's "
                          "answers is among BM25's first k.", minimum=0)
    symbols_lexical: bool = knob(True, "Step 4: a name's vector ranking fused with its "
                                 "BM25.")


@dataclass(frozen=True)
class BM25Settings:
    """[bm25] The lexical index and its scoring."""

    k1: float = knob(1.2, "Term-frequency saturation.", minimum=0)
    b: float = knob(0.75, "Length normalisation.", minimum=0, maximum=1)
    stemmer: Stemmer = knob("english", "Snowball stemmer of the index's and the queries' "
                            "words (PyStemmer), so that 'cycles' matches 'cycling'; none: "
                            "words as written. The index records it: after a change, "
                            "'afr index --rebuild'.")
    stopwords: bool = knob(True, "Drop afr's English stopwords (before stemming). The index "
                           "records it: after a change, 'afr index --rebuild'.")
    min_idf: float = knob(0.1, "Query terms of a lower idf (held by over ~90% of the "
                          "documents searched) are not scored (afr's rule, not Lucene's: "
                          "0 scores every term).", minimum=0)


@dataclass(frozen=True)
class SageSettings:
    """[sage] SAGE: the similarity graph and its expansion."""

    k_seed: int = knob(10, "Seeds expanded; neighbours fill the other k - seeds.", minimum=1)
    bm25: float = knob(0.6, "Weight of BM25 in the neighbours' pruning score.", minimum=0)
    dense: float = knob(0.4, "Weight of vector similarity in the pruning score, for a "
                        "semantic embedder (scaled by the fusion's trust in the store's).",
                        minimum=0)
    policy: SagePolicy = knob("skip_if_relational", "always: expand after a relational "
                              "Cypher too.")
    same_type: bool = knob(True, "Neighbours only of the target type.")
    compete: bool = knob(
        True, "The seed list's answers after the seeds compete with the neighbours for the "
        "other k - seeds places, by the same pruning score (off: the paper's seeds and "
        "top neighbours, the seed list filling only what neighbours leave).")
    min_text_chars: int = knob(200, "'afr index --similarity': a type whose median text is "
                               "this long is eligible (besides the candidate types).",
                               minimum=0)
    k_cand: int = knob(50, "Nearest neighbours per node and signal (candidates).", minimum=1)
    percentile: float = knob(95.0, "Kept: candidate pairs at or above this percentile.",
                             minimum=0, maximum=100)
    knn: Knn = knob("exact", "'afr index --similarity': the candidates by exact kNN "
                    "(quadratic), or lsh: approximate, among the nodes sharing a "
                    "random-hyperplane bucket (on Spark, either runs as Spark jobs).")
    lsh_tables: int = knob(8, "knn = lsh: independent bucketings (more: higher recall, "
                           "more pairs scored).", minimum=1, maximum=64)
    lsh_bits: int | None = knob(
        None, "knn = lsh: hyperplanes per bucketing (more: smaller buckets, fewer pairs "
        "scored, lower recall) [default: buckets of about 4 × k_cand nodes].", minimum=1,
        maximum=40)
    lsh_bucket_max: int = knob(2048, "knn = lsh: a larger bucket is scored in slices of "
                               "this many nodes.", minimum=2)


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
    retriever: KarRetriever = knob(
        "hybrid", "K7's retriever of the expanded query: vss (the paper's dense search), "
        "bm25 (its section 6.5) or hybrid (both, fused with [ranking]'s weights: the dense "
        "list weighs what the embedder is trusted with).")


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

    db: str | None = knob(None, "A DuckDB file path, a postgresql:// URL, a "
                          "spark://MASTER/DATABASE URL or a Spark Connect "
                          "sc://HOST:PORT/DATABASE URL [default: ./afr.duckdb].",
                          env=("AFR_DB",), stored=False)
    schema: str = knob("afr", "PostgreSQL schema holding afr's tables.",
                       env=("AFR_SCHEMA",), stored=False)
    duckdb_memory_mb: int | None = knob(
        None, "DuckDB's buffer pool in MB [default: half the machine's memory].",
        env=("AFR_DUCKDB_MEMORY_MB",), minimum=256, stored=False)
    pg_index_memory_mb: int = knob(1024, "Most maintenance_work_mem of one HNSW build, "
                                   "in MB.", env=("AFR_PG_INDEX_MEMORY_MB",), minimum=64,
                                   stored=False)
    replica_url: str | None = knob(
        None, "A postgresql:// URL of a read replica (a streaming standby) that takes the "
        "store's parallel reads; writes and the run log stay on the primary.",
        env=("AFR_PG_REPLICA_URL",), stored=False)
    spark_warehouse: str = knob("afr-spark", "Folder holding the Parquet tables of Spark "
                                "stores (one subfolder per database).",
                                env=("AFR_SPARK_WAREHOUSE",), stored=False)
    spark_batch: int = knob(16, "Questions `afr eval` asks at once on a Spark store; "
                            "the reads they send together whose results have the same "
                            "shape run as one Spark query (1: one job per statement).",
                            env=("AFR_SPARK_BATCH",), minimum=1, maximum=256, stored=False)
    spark_gather_ms: int = knob(1000, "Longest a Spark read of a batch waits for the "
                                "questions still busy elsewhere (an LLM call) before it "
                                "runs without them, in ms.", env=("AFR_SPARK_GATHER_MS",),
                                minimum=0, stored=False)
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

"""Settings: the one resolver of LLM endpoint, per-step models and effort, prompt folder.

Each value comes from the first that sets it: flags (what the caller passes explicitly —
the CLI passes only what was given on the command line or in an option's environment
variable), environment variables (``AFR_LLM_BASE_URL``, ``AFR_LLM_MODEL``,
``AFR_LLM_API_KEY`` or ``OPENAI_API_KEY``, ``AFR_LLM_TIMEOUT``), the settings file, the
built-in defaults (``resolve_llm``, ``resolve_steps``, ``resolve_prompts_dir``).

The settings file is optional. Looked up in this order, the first that exists wins:
``$AFR_CONFIG``, ``./afr.toml``, ``$XDG_CONFIG_HOME/afr/config.toml`` (else
``~/.config/afr/config.toml``)::

    [llm]
    base_url = "http://localhost:8000/v1"
    model = "gpt-oss-120b"
    api_key_env = "MY_PROVIDER_KEY"   # read the key from this variable (or: api_key = "…")
    timeout_s = 120
    max_retries = 4

    [llm.steps.target]                # target, cypher, rerank
    effort = "medium"
    [llm.steps.rerank]
    model = "gpt-oss-20b"
    effort = "low"

    [prompts]
    dir = "~/my-afr-prompts"

    [ranking]                         # BM25 and the hybrid ranking (docs/method.md)
    k1 = 1.2                          # BM25 term-frequency saturation
    b = 0.75                          # BM25 length normalisation
    stopwords = true                  # drop English stopwords (rebuild the index after a change)
    min_idf = 0.1                     # query terms of a lower idf (held by over ~90% of the
                                      # documents searched) are not scored
    fusion = "rrf"                    # rrf (reciprocal rank) or linear (min-max normalised)
    rrf_k = 60
    dense = 1.0                       # weights of the signals fused
    lexical = 1.0
    graph = 2.0
    level = 1.0
    text = 1.0
    offline_trust = 0.5               # the offline formalizer's Cypher counts this much
    keep_vss = 0                      # the vector search's top N always stay in the list
    symbols_lexical = true            # step 4: a name's vector ranking fused with its BM25

    [sage]                            # SAGE: similarity graph and expansion (docs/method.md)
    k_seed = 10                       # seeds expanded; neighbours fill the other k - seeds
    bm25 = 0.6                        # weights of the neighbours' pruning score (min-max
    dense = 0.4                       # normalised within the neighbour set)
    policy = "skip_if_relational"     # or "always": expand after a relational Cypher too
    same_type = true                  # neighbours only of the target type
    min_text_chars = 200              # `afr index --similarity`: a type whose median text
                                      # is this long is eligible (plus the candidate types)
    k_cand = 50                       # nearest neighbours per node and signal (candidates)
    percentile = 95                   # kept: candidate pairs at or above this percentile

    [kar]                             # --method kar (docs/method.md, "KAR")
    n = 3                             # expansions sampled (K6)
    k = 10                            # neighbours kept per linked entity (K4)
    hops = 2                          # neighbourhood radius, 1 or 2 (K3)
    doc_chars = 1500                  # characters of each document in the K6 prompt
    temperature = 0.7                 # sampling temperature of the expansions
    max_neighbours = 50000            # hub guard: above this many 2-hop neighbours …
    max_mid_degree = 1000             # … skip middle nodes of a higher degree
    m_q = 1                           # nodes linked to the question itself (K2)
    prf_chars = 200                   # offline expansion: characters of each document
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from afr.errors import AfrError, LLMError

STEPS = ("target", "cypher", "rerank")
EFFORTS = ("minimal", "low", "medium", "high")
DEFAULT_EFFORT = {"target": "medium", "cypher": "medium", "rerank": "low"}
FUSIONS = ("rrf", "linear")
# The [ranking] table's keys and defaults: BM25's parameters and the hybrid ranking's
# fusion (afr.pipeline.fusion), chosen by measurement (bench/).
RANKING_DEFAULTS: dict[str, Any] = {
    "k1": 1.2, "b": 0.75, "stopwords": True, "min_idf": 0.1, "fusion": "rrf", "rrf_k": 60.0,
    "dense": 1.0, "lexical": 1.0, "graph": 2.0, "level": 1.0, "text": 1.0,
    "offline_trust": 0.5, "keep_vss": 0, "symbols_lexical": True,
}
SAGE_POLICIES = ("skip_if_relational", "always")
# The [sage] table's keys and defaults (SAGE, docs/method.md; ours where the paper
# is silent): the expansion's budget and pruning weights, when it runs, and how
# `afr index --similarity` builds the graph.
SAGE_DEFAULTS: dict[str, Any] = {
    "k_seed": 10, "bm25": 0.6, "dense": 0.4, "policy": "skip_if_relational",
    "same_type": True, "min_text_chars": 200, "k_cand": 50, "percentile": 95.0,
}
# The [kar] table's keys and defaults (KAR, afr.pipeline.kar): the paper's n, k and hops,
# our own document cap, temperature and hub guard.
KAR_DEFAULTS: dict[str, Any] = {
    "n": 3, "k": 10, "hops": 2, "doc_chars": 1500, "temperature": 0.7,
    "max_neighbours": 50_000, "max_mid_degree": 1000, "m_q": 1, "prf_chars": 200,
}
_LLM_KEYS = {"base_url": str, "model": str, "api_key": str, "api_key_env": str,
             "timeout_s": (int, float), "max_retries": int, "temperature": (int, float),
             "max_tokens": int, "reasoning_effort": str, "steps": dict}


def config_path() -> Path | None:
    """The settings file in use, or None when there is none."""
    env = os.environ.get("AFR_CONFIG")
    if env:
        path = Path(env).expanduser()
        if not path.is_file():
            raise AfrError(f"AFR_CONFIG points to {path}, which is not a file")
        return path
    local = Path("afr.toml")
    if local.is_file():
        return local
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    user = base / "afr" / "config.toml"
    return user if user.is_file() else None


@lru_cache(maxsize=8)
def _read(path: str, mtime: float) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise AfrError(f"settings file {path}: {exc}") from None
    except OSError as exc:
        raise AfrError(f"settings file {path}: cannot read it ({exc.strerror})") from None
    _check(path, data)
    return data


def _check(path: str, data: dict[str, Any]) -> None:
    """Reject unknown keys and wrong types with the file and key named: a typo in a settings
    file should not be silently ignored."""
    known = {"llm", "prompts", "ranking", "sage", "kar"}
    for key in data:
        if key not in known:
            raise AfrError(f"settings file {path}: unknown section [{key}] "
                           f"(known: {', '.join(sorted(known))})")
    llm = data.get("llm", {})
    if not isinstance(llm, dict):
        raise AfrError(f"settings file {path}: 'llm' must be a table")
    for key, value in llm.items():
        if key not in _LLM_KEYS:
            raise AfrError(f"settings file {path}: unknown key llm.{key}")
        if not isinstance(value, _LLM_KEYS[key]) or isinstance(value, bool):
            raise AfrError(f"settings file {path}: llm.{key} has the wrong type")
    for step, spec in llm.get("steps", {}).items():
        if step not in STEPS:
            raise AfrError(f"settings file {path}: unknown step llm.steps.{step} "
                           f"(steps: {', '.join(STEPS)})")
        if not isinstance(spec, dict) or set(spec) - {"model", "effort"}:
            raise AfrError(f"settings file {path}: llm.steps.{step} takes model and effort")
        if "effort" in spec and spec["effort"] not in EFFORTS:
            raise AfrError(f"settings file {path}: llm.steps.{step}.effort must be one of "
                           f"{', '.join(EFFORTS)}")
    prompts = data.get("prompts", {})
    if not isinstance(prompts, dict) or set(prompts) - {"dir"}:
        raise AfrError(f"settings file {path}: [prompts] takes only dir")
    _check_table(path, "ranking", data.get("ranking", {}), RANKING_DEFAULTS,
                 lambda key, value: key != "fusion" or value in FUSIONS)
    _check_table(path, "kar", data.get("kar", {}), KAR_DEFAULTS, lambda key, value: (
        value >= (0 if key in ("temperature", "prf_chars") else 1)
        and (key != "hops" or value in (1, 2))))
    _check_table(path, "sage", data.get("sage", {}), SAGE_DEFAULTS, lambda key, value: (
        (key != "policy" or value in SAGE_POLICIES) and (key != "k_cand" or value >= 1)
        and (key != "percentile" or value <= 100)))


def _check_table(path: str, name: str, table: Any, defaults: Mapping[str, Any],
                 valid: Callable[[str, Any], bool]) -> None:
    """A settings table: known keys only, each of its default's type (a whole number
    where the default is one; numbers never negative), and ``valid`` for the rest."""
    if not isinstance(table, dict):
        raise AfrError(f"settings file {path}: '{name}' must be a table")
    for key, value in table.items():
        if key not in defaults:
            raise AfrError(f"settings file {path}: unknown key {name}.{key} "
                           f"(known: {', '.join(defaults)})")
        want = type(defaults[key])
        if want in (bool, str):
            ok = isinstance(value, want)
        else:
            ok = isinstance(value, int if want is int else int | float) \
                and not isinstance(value, bool) and value >= 0
        if not ok or not valid(key, value):
            raise AfrError(f"settings file {path}: {name}.{key} has the wrong type or value")


def load_settings() -> dict[str, Any]:
    """The parsed settings file (empty when there is none)."""
    path = config_path()
    if path is None:
        return {}
    return _read(str(path.resolve()), path.stat().st_mtime)


def llm_settings() -> dict[str, Any]:
    """LLMConfig fields from the file's [llm] table (api_key_env resolved, steps left
    out)."""
    llm = dict(load_settings().get("llm", {}))
    llm.pop("steps", None)
    key_env = llm.pop("api_key_env", None)
    if key_env and "api_key" not in llm:
        value = os.environ.get(key_env)
        if value:
            llm["api_key"] = value
    if "timeout_s" in llm:
        llm["timeout_s"] = float(llm["timeout_s"])
    if "temperature" in llm:
        llm["temperature"] = float(llm["temperature"])
    return llm


def step_settings() -> tuple[dict[str, str], dict[str, str]]:
    """Per-step (models, efforts) from the file's [llm.steps]."""
    steps = load_settings().get("llm", {}).get("steps", {})
    models = {s: v["model"] for s, v in steps.items() if "model" in v}
    efforts = {s: v["effort"] for s, v in steps.items() if "effort" in v}
    return models, efforts


def prompts_dir_setting() -> str | None:
    value = load_settings().get("prompts", {}).get("dir")
    return str(Path(value).expanduser()) if value else None


def ranking_settings() -> dict[str, Any]:
    """The [ranking] table over its defaults."""
    return {**RANKING_DEFAULTS, **load_settings().get("ranking", {})}


def sage_settings() -> dict[str, Any]:
    """The [sage] table over its defaults."""
    return {**SAGE_DEFAULTS, **load_settings().get("sage", {})}


def kar_settings() -> dict[str, Any]:
    """The [kar] table over its defaults."""
    return {**KAR_DEFAULTS, **load_settings().get("kar", {})}


def llm_environment() -> dict[str, Any]:
    """LLMConfig fields set by environment variables."""
    env = os.environ
    found = {
        "base_url": env.get("AFR_LLM_BASE_URL") or None,
        "model": env.get("AFR_LLM_MODEL") or None,
        "api_key": env.get("AFR_LLM_API_KEY") or env.get("OPENAI_API_KEY") or None,
        "timeout_s": _seconds(env.get("AFR_LLM_TIMEOUT"), "AFR_LLM_TIMEOUT"),
    }
    return {k: v for k, v in found.items() if v is not None}


def resolve_llm(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """LLMConfig fields: ``overrides`` (flags; None values count as unset) beat the
    environment, which beats the settings file. Fields none of them sets are left out,
    so LLMConfig's own defaults apply."""
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    return {**llm_settings(), **llm_environment(), **given}


def resolve_steps(models: Mapping[str, str] | None = None,
                  efforts: Mapping[str, str] | None = None
                  ) -> tuple[dict[str, str], dict[str, str]]:
    """Per-step (models, efforts): the explicit ``models`` / ``efforts`` beat the settings
    file, which beats the defaults (effort: ``DEFAULT_EFFORT``; model: none, i.e. the
    LLM's model)."""
    file_models, file_efforts = step_settings()
    return ({**file_models, **(models or {})},
            {**DEFAULT_EFFORT, **file_efforts, **(efforts or {})})


def resolve_prompts_dir(explicit: str | None = None) -> str | None:
    """The prompt folder: the explicit one, else the file's [prompts] dir, else None
    (afr's own templates)."""
    return explicit or prompts_dir_setting()


def _seconds(value: str | None, name: str) -> float | None:
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if seconds <= 0:
        raise LLMError(f"{name} must be a positive number of seconds, not {value!r}")
    return seconds


def parse_step_pairs(pairs: tuple[str, ...], what: str,
                     allowed: tuple[str, ...] | None = None) -> dict[str, str]:
    """``("cypher=gpt-4o", "rerank=small")`` → a dict; a clear error for anything else."""
    out: dict[str, str] = {}
    for pair in pairs:
        step, sep, value = pair.partition("=")
        step, value = step.strip(), value.strip()
        if not sep or step not in STEPS or not value:
            raise AfrError(f"{what} takes STEP=VALUE with STEP one of {', '.join(STEPS)}; "
                           f"got {pair!r}")
        if allowed is not None and value not in allowed:
            raise AfrError(f"{what} {step}: {value!r} is not one of {', '.join(allowed)}")
        out[step] = value
    return out

"""Options shared by commands, and the one place that turns them into an ``AskConfig``.

Only what the user gave is passed on (``explicit``): on the command line, or in an
option's environment variable. Everything else is left unset, so the library's one
settings resolver (``afr.settings``) fills it in from the environment, the settings file
and the defaults — and a flag always beats the file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from afr.settings import load_settings

from .context import handle_errors

if TYPE_CHECKING:
    from afr.pipeline.config import AskConfig

_GIVEN = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def given(name: str) -> bool:
    """Whether the running command's parameter ``name`` was given by the user."""
    return click.get_current_context().get_parameter_source(name) in _GIVEN


def explicit(**values: Any) -> dict[str, Any]:
    """The subset of ``values`` (parameter name → value) the user gave."""
    return {name: value for name, value in values.items() if given(name)}


# How many answers: one range and one default for -k, one for --top, on every command.
MAX_ANSWERS = 10000


# The method's knobs (defaults shown here are AskConfig's: they reproduce the paper).
def k_option(help: str = "Answers handed to the reranker (and returned)."):  # noqa: A002
    return click.option("-k", "k", default=20, show_default=True,
                        type=click.IntRange(1, MAX_ANSWERS), help=help)


def top_option(help: str = "Answers to print."):  # noqa: A002
    return click.option("--top", default=10, show_default=True,
                        type=click.IntRange(1, MAX_ANSWERS), help=help)


l_max_option = click.option(
    "--l-max", default=100, show_default=True, type=click.IntRange(1, 10000),
    help="Candidates per constant (scope expansion stops there).")
mode_option = click.option(
    "--mode", type=click.Choice(["strict", "lenient"]), default="strict", show_default=True,
    help="strict: symbols filtered by their node type, unknown relations dropped; "
         "lenient: node types ignored, unknown relations match any.")
no_edge_types_option = click.option(
    "--no-edge-types", is_flag=True, help="Let any relation satisfy a triplet.")

_ASK_PARAMS = ("k", "l_max", "alpha", "mode", "no_edge_types", "method", "ranking", "reranker",
               "rerank_concurrency", "llm_url", "llm_model", "offline", "no_cache",
               "step_model", "effort", "prompts_dir", "no_log", "no_fix", "repair",
               "weak_vss", "exact")


def ask_options(*, concurrency_flag: str) -> Callable:
    """Every option of the pipeline (ask and eval run), handed to the command as one
    ``config: AskConfig`` holding what the user gave. ``concurrency_flag`` names the
    reranker's concurrency option (eval's own --concurrency counts questions)."""
    options = [
        k_option(),
        l_max_option,
        click.option("--alpha", default=2 / 3, show_default="2/3", type=click.FloatRange(0, 1),
                     help="Share of the k answers taken from the graph strand."),
        mode_option,
        no_edge_types_option,
        click.option("--method", type=click.Choice(["af", "vss", "bm25", "hybrid", "kar",
                                                    "sage", "af+sage"]),
                     default="af", show_default=True,
                     help="af: the Autofocus-Retriever; vss / bm25 / hybrid: plain vector, "
                          "BM25 or fused retrieval over the target type (no Cypher). BM25 "
                          "needs 'afr index'. kar: Knowledge-Aware Retrieval, the question "
                          "expanded from the KG neighbourhoods of its entities (settings: "
                          "[kar]). sage: the hybrid list's top 10 widened by their "
                          "neighbours in the similarity graph ('afr index --similarity'); "
                          "af+sage: AF's steps 1–7 as those seeds."),
        click.option("--ranking", type=click.Choice(["hybrid", "paper"]), default="hybrid",
                     show_default=True,
                     help="Steps 6–7: hybrid (graph evidence fused with similarity and BM25 "
                          "from the lexical index 'afr embed' builds) or paper (graph answers "
                          "first by level, as published)."),
        click.option("--reranker", type=click.Choice(["pairwise", "listwise", "pointwise",
                                                      "none"]),
                     default="pairwise", show_default=True, help="Step 8 (needs an LLM)."),
        click.option(concurrency_flag, "rerank_concurrency", default=8, show_default=True,
                     type=click.IntRange(1, 64),
                     help="Parallel LLM calls of the pointwise reranker."),
        click.option("--llm-url", envvar="AFR_LLM_BASE_URL", metavar="URL",
                     help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1 "
                          "[env AFR_LLM_BASE_URL]."),
        click.option("--llm-model", envvar="AFR_LLM_MODEL", metavar="NAME",
                     help="Model name [env AFR_LLM_MODEL]."),
        click.option("--offline", is_flag=True,
                     help="Ignore any configured LLM: offline formalizer, no reranking."),
        click.option("--no-cache", is_flag=True,
                     help="Do not answer LLM calls from the llm_calls cache (still logged)."),
        click.option("--step-model", multiple=True, metavar="STEP=MODEL",
                     help="Model for one step (target, cypher, rerank); repeatable. "
                          "Default: the settings file, else --llm-model."),
        click.option("--effort", multiple=True, metavar="STEP=LEVEL",
                     help="Reasoning effort for one step (minimal/low/medium/high); "
                          "repeatable. Default: the settings file, else target=medium "
                          "cypher=medium rerank=low."),
        click.option("--prompts", "prompts_dir", type=click.Path(file_okay=False, exists=True),
                     help="A folder of your own prompt templates overriding afr's "
                          "(same file names)."),
        click.option("--no-log", is_flag=True,
                     help="Do not write the asks to the run-log tables (runs, run_answers)."),
        click.option("--no-fix", is_flag=True,
                     help="Use the Cypher as written: no deterministic fixes of labels, "
                          "relations, directions, properties and RETURN."),
        click.option("--repair/--no-repair", default=None,
                     help="One LLM repair round for a Cypher query that cannot be read, "
                          "names what the schema lacks or matches nothing [default: on "
                          "when an LLM is configured]."),
        click.option("--weak-vss", type=click.FloatRange(-1, 1), default=0.2,
                     show_default=True,
                     help="A question whose Cypher matches nothing is 'unanswerable' when "
                          "the best vector-search score is below this."),
        click.option("--exact", is_flag=True,
                     help="Exact vector search only: never PostgreSQL's approximate HNSW "
                          "index (slower on large SKBs; ranks exactly as DuckDB does)."),
    ]

    def decorate(f: Callable) -> Callable:
        @functools.wraps(f)
        @handle_errors  # a bad --effort is a one-line error like any other
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            params = {name: kwargs.pop(name) for name in _ASK_PARAMS}
            load_settings()  # a broken settings file is the first thing to say, before stores
            return f(*args, config=ask_config(**explicit(**params)), **kwargs)

        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper

    return decorate


def ask_config(**given_values: Any) -> AskConfig:
    """The one AskConfig of a command: option name → value, for the options the user gave
    (``explicit``). Extra AskConfig fields may be passed under their own names."""
    from afr.pipeline.config import AskConfig
    from afr.settings import EFFORTS, parse_step_pairs

    values = dict(given_values)
    fields: dict[str, Any] = {}
    for name in ("k", "l_max", "alpha", "mode", "method", "ranking", "reranker",
                 "rerank_concurrency", "prompts_dir", "repair", "weak_vss"):
        if name in values:
            fields[name] = values.pop(name)
    for flag, field, value in (("no_edge_types", "use_edge_types", False),
                               ("offline", "offline", True),
                               ("no_cache", "use_cache", False),
                               ("no_log", "log", False),
                               ("no_fix", "fix", False),
                               ("exact", "exact_search", True)):
        if values.pop(flag, False):
            fields[field] = value
    llm = {key: values.pop(name) for name, key in (("llm_url", "base_url"),
                                                   ("llm_model", "model"))
           if values.get(name)}
    values.pop("llm_url", None)
    values.pop("llm_model", None)
    if llm:
        fields["llm"] = llm
    if "step_model" in values:
        fields["step_models"] = parse_step_pairs(values.pop("step_model"), "--step-model")
    if "effort" in values:
        fields["step_effort"] = parse_step_pairs(values.pop("effort"), "--effort", EFFORTS)
    return AskConfig(**fields, **values)

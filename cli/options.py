"""Command-line options generated from the settings tree, and the one place that turns
what the user gave into resolved settings.

Each option is a setting of ``afr.settings.tree`` (its flag, help, choices, bounds and
default are the field's). An option the user did not give stays unset, so the settings
resolver (``afr.settings.resolve_settings``) fills it from the environment, the settings
file and the defaults — and a flag always beats the file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import click
from click.core import ParameterSource

from afr.settings import EFFORTS, LLM_STEPS, Setting, Settings, by_path

from .context import Context, UsageProblem, handle_errors

_GIVEN = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)

# The settings of an ask, as `afr ask` and `afr eval` take them on the command line.
ASK_SETTINGS = (
    "ask.k", "af.l_max", "af.alpha", "af.mode", "af.use_edge_types", "ask.method",
    "af.ranking", "rerank.method", "rerank.concurrency", "llm.base_url", "llm.model",
    "llm.offline", "af.offline_class", "llm.use_cache", "prompts.dir", "ask.log", "af.fix",
    "af.repair", "af.relax", "af.weak_vss", "vectors.exact_search", "ask.preset",
    "af.hide_types",
)
STEP_MODEL, STEP_EFFORT = "--step-model", "--effort"


def given(name: str) -> bool:
    """Whether the running command's parameter ``name`` was given by the user."""
    return click.get_current_context().get_parameter_source(name) in _GIVEN


def _param(path: str) -> str:
    return "s__" + path.replace(".", "__")


def setting_option(setting: Setting, *, flag: str | None = None,
                   help: str | None = None) -> Callable:  # noqa: A002 - click's word
    """The click option of one setting (unset unless given)."""
    k = setting.knob
    names = [n for n in (k.short, flag or k.flag) if n]
    text = (help or k.help) + (f" [env {', '.join(k.env)}]" if k.env else "")
    shown = k.shown or ("" if setting.default is None else
                        f"{setting.default:g}" if isinstance(setting.default, float)
                        else str(setting.default))
    if k.flag_value is not None:  # a switch
        if k.off_flag:
            return click.option(f"{names[-1]}/{k.off_flag}", _param(setting.path),
                                default=None, help=text)
        return click.option(*names, _param(setting.path), is_flag=True, default=None,
                            flag_value=k.flag_value, help=text)
    kind: Any = setting.kind
    if setting.many:  # repeatable; unset unless given at least once
        return click.option(*names, _param(setting.path), multiple=True, default=None,
                            type=click.Choice(setting.choices) if setting.choices else kind,
                            metavar=k.metavar, help=text)
    if setting.choices:
        kind = click.Choice(setting.choices)
    elif k.directory:
        kind = click.Path(file_okay=False, exists=True)
    elif setting.kind in (int, float) and (k.minimum is not None or k.maximum is not None):
        kind = (click.IntRange if setting.kind is int else click.FloatRange)(k.minimum,
                                                                           k.maximum)
    return click.option(*names, _param(setting.path), type=kind, default=None,
                        metavar=k.metavar, help=text + (f"  [default: {shown}]" if shown
                                                        else ""))


def _step_options() -> list[Callable]:
    return [
        click.option(STEP_MODEL, "step_models", multiple=True, metavar="STEP=MODEL",
                     help="Model for one step (target, cypher, rerank); repeatable. "
                          "Default: the settings file, else --llm-model."),
        click.option(STEP_EFFORT, "step_efforts", multiple=True, metavar="STEP=LEVEL",
                     help="Reasoning effort for one step (none/minimal/low/medium/high); "
                          "repeatable. Default: the settings file, else target=medium "
                          "cypher=medium rerank=low."),
    ]


def settings_options(paths: Sequence[str] = ASK_SETTINGS, *,
                     flags: dict[str, str] | None = None, helps: dict[str, str] | None = None,
                     steps: bool = True) -> Callable:
    """The options of ``paths`` (and ``--step-model``/``--effort``), handed to the command
    as one ``settings: Settings`` resolved from what the user gave. ``flags`` and
    ``helps`` rename or re-explain a setting's option for one command."""
    known = by_path(Settings)
    options = [setting_option(known[p], flag=(flags or {}).get(p), help=(helps or {}).get(p))
               for p in paths]
    if steps:
        options += _step_options()

    def decorate(f: Callable) -> Callable:
        @functools.wraps(f)
        @handle_errors  # a bad --effort is a one-line error like any other
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {p: kwargs.pop(_param(p)) for p in paths}
            chosen = {p: v for p, v in values.items() if given(_param(p)) and v is not None
                      and v != ()}
            if steps:
                chosen.update(step_pairs(kwargs.pop("step_models"), "model", STEP_MODEL))
                chosen.update(step_pairs(kwargs.pop("step_efforts"), "effort", STEP_EFFORT,
                                         EFFORTS))
            ctx = click.get_current_context().find_object(Context)
            return f(*args, settings=ctx.resolve(chosen).settings, **kwargs)

        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper

    return decorate


def step_pairs(pairs: tuple[str, ...], field: str, flag: str,
               allowed: tuple[str, ...] | None = None) -> dict[str, str]:
    """``("cypher=gpt-4o",)`` → ``{"llm.steps.cypher.model": "gpt-4o"}``; a clear error for
    anything else."""
    out: dict[str, str] = {}
    for pair in pairs:
        step, sep, value = pair.partition("=")
        step, value = step.strip(), value.strip()
        if not sep or step not in LLM_STEPS or not value:
            raise UsageProblem(f"{flag} takes STEP=VALUE with STEP one of "
                               f"{', '.join(LLM_STEPS)}; got {pair!r}")
        if allowed is not None and value not in allowed:
            raise UsageProblem(f"{flag} {step}: {value!r} is not one of {', '.join(allowed)}")
        out[f"llm.steps.{step}.{field}"] = value
    return out


# How many answers to print: the range of -k, one default, on every command.
MAX_ANSWERS = int(by_path(Settings)["ask.k"].knob.maximum or 10000)


def top_option(help: str = "Answers to print.") -> Callable:  # noqa: A002
    return click.option("--top", default=10, show_default=True,
                        type=click.IntRange(1, MAX_ANSWERS), help=help)

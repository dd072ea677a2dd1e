"""afr's settings: one tree of frozen sections (``tree``), resolved once where a command
starts — flags > environment > settings file > defaults (``resolve``) — and passed down.
Every run stores the tree that produced it (``to_dict``).

Nothing outside this package reads the environment or the settings file; the variables
afr reads are the tree's (each setting names its own) and ``ENVIRONMENT``'s.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from afr.settings.files import SettingsError, config_path
from afr.settings.knobs import Knob, Setting, by_path, leaves
from afr.settings.presets import PRESETS, preset_values
from afr.settings.reference import ENVIRONMENT, default_text
from afr.settings.resolve import (
    Resolved,
    build,
    differences,
    flatten,
    resolve_settings,
    sections,
    stored_tree,
    to_dict,
    value_at,
    with_stored,
    with_values,
)
from afr.settings.tree import (
    EFFORTS,
    FUSIONS,
    LLM_STEPS,
    METHODS,
    PRESET_NAMES,
    RANKINGS,
    RERANKERS,
    STEMMERS,
    AfSettings,
    AskSettings,
    BM25Settings,
    EmbedSettings,
    KarSettings,
    LLMSettings,
    PromptSettings,
    RankingSettings,
    RerankSettings,
    SageSettings,
    Settings,
    StepLLMSettings,
    StoreSettings,
    VectorSettings,
)


def debug_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether AFR_DEBUG asks for tracebacks."""
    return bool((os.environ if environ is None else environ).get("AFR_DEBUG"))


def cache_dir(store: StoreSettings) -> Path:
    """afr's cache folder: ``store.cache_dir`` (the resolver sets it: AFR_CACHE_DIR, else
    $XDG_CACHE_HOME/afr), else ~/.cache/afr."""
    return Path(store.cache_dir).expanduser() if store.cache_dir \
        else Path.home() / ".cache" / "afr"


__all__ = [
    "EFFORTS", "ENVIRONMENT", "FUSIONS", "LLM_STEPS", "METHODS", "PRESET_NAMES", "RANKINGS",
    "RERANKERS", "STEMMERS",
    "AfSettings", "AskSettings", "BM25Settings", "EmbedSettings", "KarSettings", "Knob",
    "LLMSettings", "PromptSettings", "RankingSettings", "RerankSettings", "Resolved",
    "SageSettings", "Setting", "Settings", "SettingsError", "StepLLMSettings",
    "StoreSettings", "VectorSettings", "build", "by_path", "cache_dir", "default_text", "config_path",
    "PRESETS", "debug_enabled", "differences", "flatten", "leaves", "preset_values",
    "resolve_settings",
    "sections", "stored_tree", "to_dict", "value_at", "with_stored", "with_values",
]

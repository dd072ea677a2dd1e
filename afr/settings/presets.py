"""Presets: named sets of setting values, applied between afr's defaults and the settings
file (flags > environment > settings file > preset > defaults).

A preset switches only ordinary settings, so each of its choices can be seen (``afr
config`` names "preset paper" as their source), overridden one by one, and is stored with
every run like any setting. ``ask.preset`` itself is stored too: ``afr eval show`` prints
it.

- ``paper``: AF-Retriever as the paper's text describes it (Algorithm 1, §3, Appendix A):
  the schedule of Algorithm 1 line 9 (l ← l^1.5 + 0.5), step 6 ranking C_cypher by
  similarity to the question alone (line 11), step 7 excluding all of C_cypher (line 12),
  constants filtered by node type but triplets by no edge type (the headline rows: Table
  18's "filter constants by node types"), field_of_study hidden from the step-2 prompt
  (Table 21), and none of afr's additions: no Cypher fixes, no repair round, no exact
  names first, no LIKE filter for name patterns, the paper's ranking (no fusion); the
  reranker's node descriptions as §3.2 describes them (every 1-hop relation, 2-hop ones
  through 1-1 / n-1 relation types) and its overflow rule (keep the relations to the
  retrieved non-target candidates, then none).
- ``reference``: the authors' code where it departs from that text (as the project's
  issue 26 describes it): the schedule l ← int(1.5·l + 0.5), step 6 ordering by (level,
  similarity), step 7 skipping only the answers already taken, exact name matches first,
  and a constant's candidates cut to l_max by similarity before its attribute filters
  apply. Everything else as ``paper``.

afr's own defaults are neither: no preset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_PAPER: dict[str, Any] = {
    "af.ranking": "paper",
    "af.schedule": "paper",
    "af.step6_order": "similarity",
    "af.topup_excludes": "cypher",
    "af.mode": "strict",
    "af.use_edge_types": False,
    "af.fix": False,
    "af.repair": False,
    "af.relax": False,
    "af.exact_names_first": False,
    "af.name_patterns": False,
    "af.cut_first": False,
    "af.hide_types": ("field_of_study",),
    "rerank.documents": "paper",
    "rerank.overflow": "candidates",
}

_REFERENCE: dict[str, Any] = {
    **_PAPER,
    "af.schedule": "reference",
    "af.step6_order": "level",
    "af.topup_excludes": "taken",
    "af.exact_names_first": True,
    "af.cut_first": True,
}

PRESETS: Mapping[str, Mapping[str, Any]] = {"paper": _PAPER, "reference": _REFERENCE}


def preset_values(name: str) -> Mapping[str, Any]:
    """The values preset ``name`` sets, by dotted path."""
    return PRESETS[name]

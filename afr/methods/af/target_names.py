"""A related target's name conditions (``y.title CONTAINS "failure"``): they narrow its
grounded answers, they do not make it a constant (``afr.cypher.resolve``).

Each condition keeps the grounded answers whose name or an alias satisfies it — a
substring match for CONTAINS / STARTS WITH / ENDS WITH (case-insensitive, escaped LIKE),
an exact, case- and accent-folded match for ``=`` and IN — when it keeps at least one
answer of the first scope level: the relations are the strong evidence, the words of a
title only a preference, so a title must not pull in the answers of a wider scope (a
namesake's papers at level 2) ahead of what the relations found first. Otherwise its
words are a ranking signal (BM25 under the hybrid ranking; the paper's ranking has none,
and similarity to the question orders the answers) and a note says so. A regular
expression is always a signal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from afr.cypher.model import SUBSTRING_OPERATORS, Condition
from afr.retrieval.text_match import match_text
from afr.store.base import Store
from afr.store.names import has_name_index, lookup_names


@dataclass(frozen=True)
class Narrowed:
    """The grounded answers the target's names kept, what could not filter, and why."""

    grounded: tuple[tuple[int, int], ...]
    signals: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


def narrow_by_names(store: Store, grounded: Sequence[tuple[int, int]],
                    names: Sequence[Condition]) -> Narrowed:
    kept = list(grounded)
    signals: list[str] = []
    notes: list[str] = []
    for cond in names:
        shown = f"{cond.attribute} {cond.op} {cond.value!r}"
        matched = _matching(store, cond, [n for n, _ in kept]) if kept else set()
        first = min((lv for _, lv in kept), default=0)
        if any(n in matched for n, lv in kept if lv == first):
            notes.append(f"{shown} on the target: kept {len(matched)} of {len(kept)} "
                         "grounded answers")
            kept = [(n, lv) for n, lv in kept if n in matched]
            continue
        signals.append(_words(cond))
        notes.append(f"{shown} on the target: no name of the first scope level's "
                     "answers matches; used as a ranking signal where the ranking has one")
    return Narrowed(tuple(kept), tuple(s for s in signals if s.strip()), tuple(notes))


def _matching(store: Store, cond: Condition, ids: list[int]) -> set[int]:
    """The nodes among ``ids`` whose name or an alias satisfies ``cond``."""
    if cond.op in SUBSTRING_OPERATORS and isinstance(cond.value, str):
        return set(match_text(store, [cond], field="name", ids=ids, limit=len(ids) + 1))
    if cond.op in ("=", "IN") and has_name_index(store):
        values = cond.value if isinstance(cond.value, tuple) else (cond.value,)
        among = set(ids)
        return {node for hits in lookup_names(store, [str(v) for v in values])
                for node, _ in hits if node in among}
    return set()


def _words(cond: Condition) -> str:
    """A condition's value as search words (a regular expression's words are its
    evidence: ``(?i)foo.*bar`` → ``foo bar``)."""
    values = cond.value if isinstance(cond.value, tuple) else (cond.value,)
    return re.sub(r"\\[a-zA-Z]|[^\w]+", " ", " ".join(str(v) for v in values)).strip()

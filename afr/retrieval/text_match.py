"""Cypher's substring operators (``CONTAINS``, ``STARTS WITH``, ``ENDS WITH``) as SQL
filters: a case-insensitive, escaped ``LIKE`` on a node's text, or on its name and aliases
(spaces and hyphens between words alike).

Used by step 4 (``b.name CONTAINS "python"`` selects the nodes whose name or an alias
contains it) and by the hybrid ranking (``x.text CONTAINS "…"`` on the target).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from afr.cypher.model import Condition
from afr.store.base import Store

Field = Literal["text", "name"]
_SEPARATORS = re.compile(r"[\s\-\u2010-\u2015]+")


def like_pattern(cond: Condition) -> str:
    """The LIKE pattern of a substring condition, lower-cased, wildcards escaped with a
    backslash (the templates say ``ESCAPE '\\'``), and each run of spaces or hyphens one
    ``_``: a value's wording seldom fixes how its words are joined ("command line" for
    "command-line", "black-and-white" for "black and white")."""
    value = cond.value.lower() if isinstance(cond.value, str) else str(cond.value)
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    escaped = _SEPARATORS.sub("_", escaped)
    return {"CONTAINS": f"%{escaped}%", "STARTS WITH": f"{escaped}%",
            "ENDS WITH": f"%{escaped}"}[cond.op]


def match_text(store: Store, conditions: Sequence[Condition], *, field: Field,
               node_type: str | None = None, ids: Iterable[int] | None = None,
               limit: int) -> list[int]:
    """The nodes (by id, at most ``limit``) that satisfy every substring condition on
    ``field`` (``name`` also matches aliases), optionally of one type and among ``ids``."""
    params: dict[str, object] = {"limit": limit, "node_type": node_type}
    conds = []
    for i, cond in enumerate(conditions):
        params[f"p{i}"] = like_pattern(cond)
        conds.append({"field": field, "param": f"p{i}"})
    id_list = None if ids is None else [int(n) for n in ids]
    if id_list is not None:
        if not id_list:
            return []
        params["ids"] = id_list
    # name conditions also look at aliases, which only the nodes table joins
    lower_texts = field == "text" and store.has_lower_texts()
    rows = store.run("lexical/text_match.sql", params, ids=id_list is not None,
                     node_type=node_type is not None, conditions=conds,
                     lower_texts=lower_texts)
    return [int(r[0]) for r in rows]

"""The name index: every node name and alias folded (``afr.text.fold_name``) into
``node_names``, so an exact-name lookup is an index point query on both stores.

Built by ``afr load`` inside its transaction, from what it just wrote; the folding is
Python's on both sides (index and lookup), so DuckDB and PostgreSQL key names alike.
``skb_names_index`` in afr_meta marks a store whose index is built (a store loaded before
schema version 6 has none, and its lookups scan instead).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from afr.store.base import Store
from afr.text import fold_name

NAMES_META_KEY = "skb_names_index"


def build_name_index(store: Store) -> int:
    """(Re)build ``node_names`` from the store's nodes and aliases; returns its rows."""
    seen: set[tuple[str, int]] = set()
    keys: list[str] = []
    ids: list[int] = []
    types: list[str] = []
    for name, node_id, node_type in store.run("names/sources.sql"):
        key = fold_name(name or "")
        if key and (key, node_id) not in seen:
            seen.add((key, node_id))
            keys.append(key)
            ids.append(node_id)
            types.append(node_type)
    store.run("names/clear.sql")
    store.write_rows("node_names", {
        "name_key": np.asarray(keys, dtype=object),
        "node_id": np.asarray(ids, dtype=np.int64),
        "type": np.asarray(types, dtype=object),
    })
    store.set_meta(NAMES_META_KEY, "1")
    return len(keys)


def has_name_index(store: Store) -> bool:
    return store.meta_fact(NAMES_META_KEY) == "1"


def lookup_names(store: Store, names: Sequence[str]) -> list[list[tuple[int, str]]]:
    """For each name: the (node id, type) of the nodes it names exactly (folded), by id."""
    keys = [fold_name(n) for n in names]
    wanted = sorted({k for k in keys if k})
    found: dict[str, list[tuple[int, str]]] = {k: [] for k in wanted}
    if wanted:
        rows = store.run("symbols/exact_names.sql", {f"k{i}": k for i, k in enumerate(wanted)},
                         keys=len(wanted))
        for pos, node_id, node_type in rows:
            found[wanted[int(pos)]].append((int(node_id), node_type))
    return [sorted(found.get(k, [])) for k in keys]

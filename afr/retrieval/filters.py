"""Hard attribute filters (step 4, and variables with conditions).

A condition from the Cypher (`y.year >= 2015`, `p.genres = 'jazz'`,
`d.published < '2020-01-01'`) becomes SQL only after its attribute was found in the
store's attribute catalogue (``node_attributes``); its value is always a bound parameter.
A condition that cannot apply — unknown attribute, a value of the wrong kind, a broken
regular expression — is returned as *unapplied* with the reason, so the caller can fold
it into the search string instead of losing it.
"""

from __future__ import annotations

import datetime as dt
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from afr.cypher.model import Condition
from afr.errors import StoreError
from afr.store.base import Store

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _norm(name: str) -> str:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name.strip().strip("`'\""))
    return re.sub(r"[^a-z0-9.]+", "_", name.lower()).strip("_")


@dataclass
class AttributeCatalog:
    """Attribute paths per node type, as loaded (``node_attributes``)."""

    entries: dict[str, dict[str, str]] = field(default_factory=dict)  # type → path → kind

    @classmethod
    def from_store(cls, store: Store) -> AttributeCatalog:
        catalog = cls()
        for node_type, path, value_type, _count in store.run("filters/catalog.sql"):
            catalog.entries.setdefault(node_type, {})[path] = value_type
        return catalog

    def lookup(self, node_type: str | None, attribute: str) -> tuple[str, str] | None:
        """(path, value_type) for a written attribute name, or None."""
        types = [node_type] if node_type else list(self.entries)
        paths: dict[str, str] = {}
        for t in types:
            paths.update(self.entries.get(t, {}))
        wanted = _norm(attribute)
        by_norm = {_norm(p): p for p in paths}
        if wanted in by_norm:
            path = by_norm[wanted]
            return path, paths[path]
        flat = {_norm(p).replace(".", "_"): p for p in paths}  # venue_name ~ venue.name
        if wanted.replace(".", "_") in flat:
            path = flat[wanted.replace(".", "_")]
            return path, paths[path]
        last = [p for p in paths if _norm(p.split(".")[-1]) == wanted]
        if len(last) == 1:
            return last[0], paths[last[0]]
        return None


@dataclass
class FilterResult:
    ids: list[int] | None  # None: no condition applied (unrestricted)
    applied: list[Condition] = field(default_factory=list)
    unapplied: list[tuple[Condition, str]] = field(default_factory=list)
    truncated: bool = False  # more nodes passed than the limit: the first ones are kept


def _clean(value: object) -> object:
    # PostgreSQL text cannot hold NUL; nothing meaningful is lost by dropping it.
    return value.replace("\x00", "") if isinstance(value, str) else value


def _plan(cond: Condition, path: str, value_type: str, param: str) -> tuple[dict, object]:
    """The template's description of one condition and its bound value, or ValueError."""
    op = cond.op
    values = cond.value if isinstance(cond.value, tuple) else (cond.value,)
    if op == "IN" and not values:
        raise ValueError("empty IN list")
    base = {"path": path.split("."), "param": param, "op": op,
            "list": value_type == "list"}
    first = values[0]
    if op == "=~":
        if not isinstance(first, str):
            raise ValueError("a regular expression must be a string")
        try:
            with warnings.catch_warnings():  # an LLM's odd regex is not the user's problem
                warnings.simplefilter("ignore")
                re.compile(first)
        except re.error as exc:
            raise ValueError(f"invalid regular expression ({exc})") from None
        return {**base, "kind": "regex", "op": "=~"}, first
    if isinstance(first, bool):
        if op != "=":
            raise ValueError("booleans only compare with =")
        return {**base, "kind": "boolean"}, "true" if first else "false"
    if isinstance(first, int | float):
        if value_type == "date" and isinstance(first, int) and 1000 <= first <= 9999 \
                and op != "IN":
            return {**base, "kind": "year"}, f"{first:04d}"
        if value_type not in ("number", "list", "string"):
            raise ValueError(f"cannot compare a {value_type} attribute with a number")
        if base["list"] and op not in ("=", "IN"):
            raise ValueError("only = and IN apply to numbers inside lists")
        if base["list"]:
            return {**base, "kind": "string"}, ([_num_text(v) for v in values] if op == "IN"
                                                 else _num_text(first))
        if op in ("CONTAINS", "STARTS WITH", "ENDS WITH"):
            raise ValueError(f"{op} needs a text value")
        if op == "IN":
            if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                raise ValueError("mixed IN list")
            return {**base, "kind": "number"}, [float(v) for v in values]
        return {**base, "kind": "number"}, float(first)
    if isinstance(first, dt.date) or (isinstance(first, str) and _ISO.match(first)
                                      and value_type == "date"):
        if value_type not in ("date", "string", "list"):
            raise ValueError(f"cannot compare a {value_type} attribute with a date")
        texts = [v.isoformat() if isinstance(v, dt.date) else str(v)[:10] for v in values]
        if op in ("CONTAINS", "STARTS WITH", "ENDS WITH"):
            return {**base, "kind": "string"}, str(_clean(texts[0]))
        return {**base, "kind": "date"}, texts if op == "IN" else texts[0]
    if isinstance(first, str):
        if value_type == "number":
            try:
                number = float(first)
            except ValueError:
                raise ValueError(f"cannot compare a number attribute with {first!r}") from None
            return {**base, "kind": "number"}, number
        texts = [str(_clean(v)) for v in values]
        return {**base, "kind": "string"}, texts if op == "IN" else texts[0]
    raise ValueError(f"unsupported value {first!r}")


def _num_text(v: object) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def filter_nodes(store: Store, node_type: str | None, conditions: Sequence[Condition],
                 catalog: AttributeCatalog, *, limit: int = 200_000) -> FilterResult:
    result = FilterResult(ids=None)
    plans: list[dict] = []
    params: dict[str, object] = {"node_type": node_type, "limit": limit + 1}
    for cond in conditions:
        found = catalog.lookup(node_type, cond.attribute)
        if found is None:
            where = f" on type {node_type!r}" if node_type else ""
            result.unapplied.append((cond, f"no attribute {cond.attribute!r}{where}"))
            continue
        path, value_type = found
        if value_type == "object":
            result.unapplied.append((cond, f"{path!r} holds objects, not values"))
            continue
        name = f"v{len(plans)}"
        try:
            plan, value = _plan(cond, path, value_type, name)
        except ValueError as exc:
            result.unapplied.append((cond, str(exc)))
            continue
        plans.append(plan)
        params[name] = value
        result.applied.append(cond)
    if not plans:
        return result
    try:
        rows = store.run("filters/nodes.sql", params, conditions=plans,
                         node_type=bool(node_type))
    except StoreError as exc:
        # A value the database still refuses (e.g. a regex its engine rejects): report it.
        result.unapplied += [(c, f"the database refused it ({exc})") for c in result.applied]
        result.applied = []
        return result
    ids = [int(r[0]) for r in rows]
    result.truncated = len(ids) > limit
    result.ids = ids[:limit]
    return result


@dataclass(frozen=True)
class AttributeOrder:
    """A comparison on a number attribute that no grounded answer met, kept as an order:
    the answers nearest to meeting it first ("more than 500 senses": the most senses)."""

    path: str  # as the catalogue has it (checked against the SKB's attributes)
    op: str  # >, >=, <, <= or =
    value: float

    def ranked(self, store: Store, ids: Sequence[int]) -> list[tuple[int, float]]:
        """The nodes of ``ids`` that hold the attribute, nearest first (ties by id)."""
        if not len(ids):
            return []
        rows = store.run("filters/values.sql", {"ids": [int(i) for i in ids]},
                         path=self.path.split("."))
        sign = 1.0 if self.op in (">", ">=") else -1.0
        scored = [(int(n), sign * float(v) if self.op != "=" else -abs(float(v) - self.value))
                  for n, v in rows if v is not None]
        return sorted(scored, key=lambda x: (-x[1], x[0]))


def attribute_order(catalog: AttributeCatalog, node_type: str | None, cond: Condition
                    ) -> AttributeOrder | None:
    """``cond`` as an order, when it compares a number attribute of ``node_type`` with a
    number."""
    found = catalog.lookup(node_type, cond.attribute)
    value = cond.value
    if found is None or found[1] != "number" or cond.op not in (">", ">=", "<", "<=", "=") \
            or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return AttributeOrder(found[0], cond.op, float(value))

"""The query graph: what step 3 (parse) hands to steps 4 and 5.

Plain data classes, no behaviour beyond small helpers, so every later step reads the
same tree. Labels and attribute names here are *as written in the Cypher*; checking
them against the SKB schema is the job of ``afr.cypher.resolve``. Two rules every later
step shares live here too: which conditions make a symbol a constant
(``name_search_strings``) and which symbols can constrain the target
(``target_component``).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

# Comparison operators a condition may carry, as canonical upper-case strings.
OPERATORS = ("=", "<", "<=", ">", ">=", "CONTAINS", "IN", "STARTS WITH", "ENDS WITH", "=~")

# Operators whose value must be text (a number written there is kept as its literal text).
TEXT_OPERATORS = ("CONTAINS", "STARTS WITH", "ENDS WITH", "=~")
# The text operators that are substring matches (a LIKE in SQL).
SUBSTRING_OPERATORS = ("CONTAINS", "STARTS WITH", "ENDS WITH")

# Longest variable-length relationship the grounding expands (``[:r*1..9]`` is capped).
MAX_HOPS = 3

# Integers beyond 64 bits cannot be bound as SQL parameters.
INT_RANGE = (-(2**63), 2**63 - 1)

# Property names that make a symbol a *constant*: their value is a search string that
# step 4 matches against node names (and aliases) by vector similarity.
NAME_PROPERTIES = ("name", "title", "displayname", "display_name")
# Properties that mean a node's text (its document's prose), not an attribute.
TEXT_PROPERTIES = ("text", "description", "abstract", "content", "summary")

# Operators through which a name property gives its symbol search strings.
NAME_SEARCH_OPERATORS = ("=", "IN", "CONTAINS", "STARTS WITH", "ENDS WITH", "=~")

Scalar = str | int | float | bool | dt.date
Value = Scalar | tuple[Scalar, ...]


@dataclass(frozen=True)
class Condition:
    """``var.attribute <op> value``; ``attribute`` may be dotted for nested attributes."""

    attribute: str
    op: str
    value: Value


@dataclass
class Symbol:
    """A node pattern variable. Anonymous nodes get generated names (``_anon1`` …)."""

    var: str
    label: str | None = None
    conditions: list[Condition] = field(default_factory=list)

    @property
    def is_constant(self) -> bool:
        """A symbol with a name/title value is a constant (searched by name)."""
        return any(name_search_strings(c) for c in self.conditions)


def name_search_strings(cond: Condition) -> list[str]:
    """The name strings ``cond`` gives its symbol to search for; empty when it is an
    ordinary attribute condition. The one rule for "this symbol is a constant"."""
    if cond.attribute.lower() not in NAME_PROPERTIES or cond.op not in NAME_SEARCH_OPERATORS:
        return []
    values = cond.value if isinstance(cond.value, tuple) else (cond.value,)
    return [str(v) for v in values if str(v).strip()]


class _Link(Protocol):
    head: str
    tail: str


L = TypeVar("L", bound=_Link)


def target_component(target: str, triplets: Sequence[L]) -> tuple[list[str], list[L]]:
    """The symbols connected to ``target`` (breadth-first from it, target first) and the
    triplets among them: only these can constrain the target's answers."""
    order, seen = [target], {target}
    i = 0
    while i < len(order):
        var = order[i]
        i += 1
        for t in triplets:
            for a, b in ((t.head, t.tail), (t.tail, t.head)):
                if a == var and b not in seen:
                    seen.add(b)
                    order.append(b)
    return order, [t for t in triplets if t.head in seen and t.tail in seen]


@dataclass(frozen=True)
class Triplet:
    """``(head)-[:edge]->(tail)``; ``directed=False`` for ``-[:edge]-``.

    ``edge`` is None for an untyped relationship. ``min_hops``/``max_hops`` describe
    variable-length patterns (``[:r*1..3]``); a plain relationship is 1..1.
    ``alternatives``: the other types of ``[:edge|b|c]``; each hop may take any of them.
    """

    head: str
    edge: str | None
    tail: str
    directed: bool = True
    min_hops: int = 1
    max_hops: int = 1
    alternatives: tuple[str, ...] = ()

    @property
    def edges(self) -> tuple[str, ...]:
        """Every type the relationship may have (empty: any)."""
        return (self.edge, *self.alternatives) if self.edge is not None else ()


@dataclass(frozen=True)
class Dropped:
    """A piece of the Cypher the parser could not use, and why."""

    text: str
    reason: str


@dataclass
class QueryGraph:
    symbols: dict[str, Symbol] = field(default_factory=dict)
    triplets: list[Triplet] = field(default_factory=list)
    target: str | None = None
    dropped: list[Dropped] = field(default_factory=list)

    def symbol(self, var: str) -> Symbol:
        if var not in self.symbols:
            self.symbols[var] = Symbol(var)
        return self.symbols[var]

    def problems(self) -> list[str]:
        """Broken invariants, as readable lines; empty for a valid query graph.

        These are the promises later steps rely on, whatever text was parsed: the
        target and every triplet endpoint are symbols, hop ranges are 1 <= min <= max
        <= MAX_HOPS, operators are known and every value has a type its operator can
        use (text for CONTAINS, a non-empty list for IN, finite numbers, 64-bit ints).
        """
        out: list[str] = []
        if self.target is not None and self.target not in self.symbols:
            out.append(f"target {self.target!r} is not a symbol")
        for key, sym in self.symbols.items():
            if not isinstance(sym, Symbol) or sym.var != key:
                out.append(f"symbol {key!r} is stored under another name")
                continue
            if not _good_name(sym.var):
                out.append(f"symbol name {sym.var!r} is empty or has control characters")
            if sym.label is not None and not _good_name(sym.label):
                out.append(f"label {sym.label!r} of {key} is empty or has control characters")
            for cond in sym.conditions:
                problem = _condition_problem(cond)
                if problem:
                    out.append(f"{key}: {problem}")
        for t in self.triplets:
            for end in (t.head, t.tail):
                if end not in self.symbols:
                    out.append(f"triplet endpoint {end!r} is not a symbol")
            for edge in t.edges:
                if not _good_name(edge):
                    out.append(f"edge {edge!r} is empty or has control characters")
            if t.alternatives and (t.edge is None or len(set(t.edges)) != len(t.edges)):
                out.append(f"alternative edges {t.alternatives!r} without a first edge or "
                           "repeated")
            if not isinstance(t.directed, bool):
                out.append("triplet direction is not a bool")
            if not (isinstance(t.min_hops, int) and isinstance(t.max_hops, int)
                    and 1 <= t.min_hops <= t.max_hops <= MAX_HOPS):
                out.append(f"hops {t.min_hops}..{t.max_hops} outside 1 <= min <= max <= "
                           f"{MAX_HOPS}")
        for d in self.dropped:
            if not (isinstance(d, Dropped) and isinstance(d.text, str)
                    and isinstance(d.reason, str) and d.reason):
                out.append(f"malformed dropped note {d!r}")
        return out

    def validate(self) -> QueryGraph:
        """Raise ValueError naming the broken invariants; return self when valid."""
        problems = self.problems()
        if problems:
            raise ValueError("invalid query graph: " + "; ".join(problems[:5]))
        return self

    def to_dict(self) -> dict:
        """JSON-ready form (dates as ISO strings, tuples as lists)."""

        def val(v: Value) -> object:
            if isinstance(v, tuple):
                return [val(x) for x in v]
            if isinstance(v, dt.date):
                return v.isoformat()
            return v

        return {
            "target": self.target,
            "symbols": [
                {
                    "var": s.var,
                    "label": s.label,
                    # a related target stays a variable (afr.cypher.resolve)
                    "constant": s.is_constant and not (
                        s.var == self.target and any(
                            self.target in (t.head, t.tail) for t in self.triplets)),
                    "conditions": [
                        {"attribute": c.attribute, "op": c.op, "value": val(c.value)}
                        for c in s.conditions
                    ],
                }
                for s in self.symbols.values()
            ],
            "triplets": [
                {
                    "head": t.head,
                    "edge": t.edge,
                    **({"alternatives": list(t.alternatives)} if t.alternatives else {}),
                    "tail": t.tail,
                    "directed": t.directed,
                    "min_hops": t.min_hops,
                    "max_hops": t.max_hops,
                }
                for t in self.triplets
            ],
            "dropped": [{"text": d.text, "reason": d.reason} for d in self.dropped],
        }


def _good_name(name: object) -> bool:
    return (isinstance(name, str) and bool(name.strip())
            and not any(ord(ch) < 32 or ord(ch) == 127 for ch in name))


def _scalar_problem(value: object) -> str | None:
    if isinstance(value, bool | str | dt.date):
        return None
    if isinstance(value, int):
        return None if INT_RANGE[0] <= value <= INT_RANGE[1] else "integer out of 64-bit range"
    if isinstance(value, float):
        return None if math.isfinite(value) else "number is not finite"
    return f"value of type {type(value).__name__}"


def _condition_problem(cond: Condition) -> str | None:
    """Why a condition breaks the invariants, or None."""
    if not isinstance(cond, Condition):
        return f"not a condition: {cond!r}"
    if not isinstance(cond.attribute, str) or not all(
            _good_name(part) for part in cond.attribute.split(".")):
        return f"bad attribute name {cond.attribute!r}"
    if cond.op not in OPERATORS:
        return f"unknown operator {cond.op!r}"
    value = cond.value
    if cond.op == "IN":
        if not isinstance(value, tuple) or not value:
            return "IN needs a non-empty list"
        for item in value:
            problem = _scalar_problem(item)
            if problem:
                return f"IN list item: {problem}"
        return None
    if isinstance(value, tuple):
        return f"{cond.op} with a list"
    problem = _scalar_problem(value)
    if problem:
        return problem
    if cond.op in TEXT_OPERATORS and not isinstance(value, str):
        return f"{cond.op} needs a text value"
    if cond.op in ("<", "<=", ">", ">=") and isinstance(value, bool):
        return "booleans cannot be ordered"
    return None


def is_text_condition(cond: Condition) -> bool:
    """A text match on a node's text (``y.text CONTAINS 'vodka'``, STARTS WITH, ENDS
    WITH, =~): evidence about the node's prose rather than an attribute's value."""
    return (cond.op in TEXT_OPERATORS and isinstance(cond.value, str)
            and cond.attribute.split(".")[-1].lower() in TEXT_PROPERTIES)

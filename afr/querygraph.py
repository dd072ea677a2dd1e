"""The query graph: what step 3 (parse) hands to steps 4 and 5.

Plain data classes, no behaviour beyond small helpers, so every later step reads the
same tree. Labels and attribute names here are *as written in the Cypher*; checking
them against the SKB schema is the job of ``afr.resolve``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

# Comparison operators a condition may carry, as canonical upper-case strings.
OPERATORS = ("=", "<", "<=", ">", ">=", "CONTAINS", "IN", "STARTS WITH", "ENDS WITH", "=~")

# Property names that make a symbol a *constant*: their value is a search string that
# step 4 matches against node names (and aliases) by vector similarity.
NAME_PROPERTIES = ("name", "title", "displayname", "display_name")

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
    def name_conditions(self) -> list[Condition]:
        return [c for c in self.conditions if c.attribute.lower() in NAME_PROPERTIES]

    @property
    def is_constant(self) -> bool:
        """A symbol with a name/title value is a constant (searched by name)."""
        return any(
            c.op in ("=", "CONTAINS", "IN", "STARTS WITH", "ENDS WITH") for c in self.name_conditions
        )


@dataclass(frozen=True)
class Triplet:
    """``(head)-[:edge]->(tail)``; ``directed=False`` for ``-[:edge]-``.

    ``edge`` is None for an untyped relationship. ``min_hops``/``max_hops`` describe
    variable-length patterns (``[:r*1..3]``); a plain relationship is 1..1.
    """

    head: str
    edge: str | None
    tail: str
    directed: bool = True
    min_hops: int = 1
    max_hops: int = 1


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
                    "constant": s.is_constant,
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
                    "tail": t.tail,
                    "directed": t.directed,
                    "min_hops": t.min_hops,
                    "max_hops": t.max_hops,
                }
                for t in self.triplets
            ],
            "dropped": [{"text": d.text, "reason": d.reason} for d in self.dropped],
        }

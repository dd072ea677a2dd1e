"""Query graph → Cypher text: the one renderer.

``render_cypher`` writes a ``QueryGraph`` back as one ``MATCH … [WHERE …] RETURN …``
query that ``parse_cypher`` reads as the same graph: ``afr cypher --fix`` prints a fixed
graph with it, and ``afr synth`` writes its gold and noisy Cypher with it. Name
conditions with ``=`` are written inline (``{name: "…"}``), the others after WHERE;
later mentions of a symbol carry its variable only. Pure, no schema needed.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from afr.cypher.model import NAME_PROPERTIES, Condition, QueryGraph, Scalar, Triplet

__all__ = ["render_cypher"]

_IDENT = re.compile(r"^[A-Za-z_]\w*$")


def quote_name(name: str) -> str:
    """A label, relationship type, variable or property as Cypher can read it back."""
    return name if _IDENT.match(name) else "`" + name.replace("`", "") + "`"


def quote_text(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _scalar(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date):
        return f"date({quote_text(value.isoformat())})"
    if isinstance(value, str):
        return quote_text(value)
    return repr(value)


def _value(cond: Condition) -> str:
    if isinstance(cond.value, tuple):
        return "[" + ", ".join(_scalar(v) for v in cond.value) + "]"
    return _scalar(cond.value)


def _inline(cond: Condition) -> bool:
    return (cond.op == "=" and cond.attribute.lower() in NAME_PROPERTIES
            and not isinstance(cond.value, tuple))


def _rel(t: Triplet) -> str:
    hops = "" if (t.min_hops, t.max_hops) == (1, 1) else f"*{t.min_hops}..{t.max_hops}"
    if t.edge is None:
        return f"[{hops}]" if hops else ""
    return f"[:{'|'.join(quote_name(e) for e in t.edges)}{hops}]"


def render_cypher(graph: QueryGraph, *, order: Sequence[Triplet] | None = None,
                  left: Sequence[str] | None = None, return_property: str | None = None
                  ) -> str:
    """The Cypher of ``graph``.

    ``order``: the triplets in the order to write them (default: the graph's).
    ``left``: for each of them, the variable written first (default: the head, or the
    symbol already written when only the tail was). ``return_property``: ``RETURN y.name``
    instead of ``RETURN y``.
    """
    triplets = list(graph.triplets if order is None else order)
    seen: set[str] = set()
    where: list[str] = []

    def node(var: str) -> str:
        name = quote_name(var)
        if var in seen:
            return f"({name})"
        seen.add(var)
        sym = graph.symbols.get(var)
        if sym is None:
            return f"({name})"
        label = f":{quote_name(sym.label)}" if sym.label is not None else ""
        inline = [c for c in sym.conditions if _inline(c)]
        first = inline[:1]  # one inline map key per property; the rest go to WHERE
        props = "".join(f" {{{quote_name(c.attribute)}: {_value(c)}}}" for c in first)
        where.extend(f"{name}.{'.'.join(quote_name(p) for p in c.attribute.split('.'))} "
                     f"{c.op} {_value(c)}" for c in sym.conditions if c not in first)
        return f"({name}{label}{props})"

    patterns: list[str] = []
    for i, t in enumerate(triplets):
        first = left[i] if left is not None else (
            t.tail if t.tail in seen and t.head not in seen else t.head)
        rel = _rel(t)
        if not t.directed:
            other = t.tail if first == t.head else t.head
            patterns.append(f"{node(first)}-{rel}-{node(other)}")
        elif first == t.head:
            patterns.append(f"{node(t.head)}-{rel}->{node(t.tail)}")
        else:
            patterns.append(f"{node(t.tail)}<-{rel}-{node(t.head)}")
    # The target first among lone symbols; symbols in no triplet still constrain nothing
    # but are kept so the graph reads back the same.
    lone = [v for v in graph.symbols if v not in seen]
    if graph.target in lone:
        lone.remove(graph.target)
        lone.insert(0, graph.target)
    patterns += [node(v) for v in lone]
    text = "MATCH " + ", ".join(patterns)
    if where:
        text += " WHERE " + " AND ".join(where)
    if graph.target is not None:
        target = quote_name(graph.target)
        text += f" RETURN {target}" + (f".{return_property}" if return_property else "")
    return text

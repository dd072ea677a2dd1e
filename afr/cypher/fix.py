"""Step 3a: deterministic repairs of a parsed query graph, before it meets the schema.

An LLM writes ``(d:Drugs)``, ``[:INTERACTS_WITH]``, ``(g:Gene)-[:target]->(d:Drug)`` on a
directed SKB, ``p.publication_year`` where the SKB has ``year``, or forgets RETURN. Left
alone, ``resolve`` drops each of these and the query grounds to little or nothing.
``fix_query_graph`` repairs what can be repaired without guessing, in this order:

1. **labels** — node labels and relationship types are matched to the schema: exactly,
   then ignoring case, separators, camel case and plurals (``Drugs`` → ``drug``,
   ``GeneProtein`` → ``gene/protein``), then by edit distance ("did you mean": at most
   ``len // 4`` edits of the schema name, names of 4+ characters, one best match only).
   A node label whose words all occur in exactly one node type becomes that type
   (``Gene`` → ``gene/protein``). A relationship type that names no edge type, but whose
   words all occur in exactly one edge type between the two symbols' (known) node types,
   becomes that edge type (``[:BRAND]`` between a product and a brand → ``has_brand``);
   the same check overrides a loose match whose edge type cannot join the two node types
   (``[:INTERACTS_WITH]`` between two genes → ``ppi``, not ``interacts with``).
1b. **types** — a symbol whose (valid) label its relations cannot join — ``(y:drug)
   -[:target]-(x:disease)`` where ``target`` joins drugs and genes — gets the one node
   type that every relation of it can join, given its neighbours' types (``x`` →
   ``gene/protein``). One symbol at a time, the one in most such conflicts first; the
   target only to the predicted target type; no guess on a tie; only symbols whose
   relations are all known (so the edge repairs above see the same types again).
2. **direction** — on a directed SKB, ``(a:A)-[:r]->(b:B)`` where ``r`` is declared B → A
   (and not A → B) is turned round. Undirected patterns are left alone.
3. **properties** — given the attribute catalogue (node type → attribute paths), a
   condition on an attribute the symbol's type lacks is mapped to its closest attribute
   (normalised name; the one path whose words contain or are contained in the written
   ones, ``publication_year`` → ``year``; a name-like property of the node itself,
   ``drug_name`` → ``name``; a typo away), or dropped with a note (also in
   ``graph.dropped``). Name properties (``name``, ``title`` …) are always valid.
4. **target** — when RETURN named nothing usable, the one symbol of the predicted target
   type becomes the target.

Repairs produce canonical schema names (node type / edge type keys); names already
written exactly as a type or its prompt label are kept, so a valid graph gets no fixes
and fixing twice is fixing once. Entity names are never touched (matching them is
step 4's job), and nothing is invented: no labels for unlabelled symbols, no triplets.
Pure: the input graph is not mutated, no I/O.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace

from afr.cypher.model import (
    NAME_PROPERTIES,
    Condition,
    Dropped,
    QueryGraph,
    Symbol,
    Triplet,
    is_text_condition,
)
from afr.store.skb import SkbSchema

__all__ = ["FIX_KINDS", "Fix", "FixResult", "fix_query_graph", "symbol_type", "triplet_text"]

# Every kind of Fix ``fix_query_graph`` makes, in the order the repairs run. More need
# more than the schema: the question's words (``edge_named``,
# afr.methods.af.named_relations), its names linked in the data (``name_respelled``,
# ``name_from_question``: afr.methods.af.question_names) and the data
# (``direction_data``, ``unmentioned_constant``: afr.methods.af.grounding).
FIX_KINDS = (
    "node_label",        # case / separators / plural: Drugs → drug
    "node_label_typo",   # edit distance: Diseaze → disease
    "node_label_words",  # the one node type with these words: Gene → gene/protein
    "edge_label",        # case / separators / plural: INTERACTS_WITH → interacts with
    "edge_label_typo",   # edit distance: drug_targest_gene_protein → target
    "edge_label_words",  # the words of one edge type between the two node types
    "node_label_edges",  # a label its relations cannot join: the one type they can
    "direction",         # (a)-[:r]->(b) turned round to the declared direction of r
    "property",          # normalised / name-like: publicationYear → year, drug_name → name
    "property_typo",     # edit distance: lenght_bp → length_bp
    "dropped_property",  # no attribute of the symbol's type fits: condition dropped
    "target",            # no usable RETURN: the symbol of the predicted target type
)

# Words a relationship type may carry that say nothing about which edge type it means.
_STOP_WORDS = frozenset({"a", "an", "the", "of", "to", "in", "on", "at", "with", "by", "for",
                         "from", "is", "are", "be", "and", "or", "as", "its"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]{2})")
_SPLIT = re.compile(r"[\W_]+")
_NO_RETURN = "no usable RETURN"


@dataclass(frozen=True)
class Fix:
    """One repair: what kind, where in the query, the text before and after, and why."""

    kind: str  # one of FIX_KINDS
    where: str  # the symbol or triplet as written, e.g. "(d:Drugs)" or "(a)-[:r]->(b)"
    before: str | None  # the label / relation / condition / target before the fix
    after: str | None  # … and after (None: dropped)
    note: str = ""


@dataclass
class FixResult:
    graph: QueryGraph  # a new graph; the input is untouched
    fixes: list[Fix] = field(default_factory=list)
    # The conditions ``dropped_property`` removed, per symbol: their text is still a hint
    # (step 4 folds unusable conditions into a constant's search string).
    dropped_conditions: dict[str, list[Condition]] = field(default_factory=dict)

    @property
    def kinds(self) -> list[str]:
        return [f.kind for f in self.fixes]


def fix_query_graph(graph: QueryGraph, schema: SkbSchema,
                    attributes: Mapping[str, Collection[str]] | None = None, *,
                    target_type: str | None = None) -> FixResult:
    """Repair ``graph`` against ``schema``; see the module docstring.

    ``attributes``: attribute paths per node type (the ``node_attributes`` catalogue).
    Node types missing from it are not checked; pass an empty collection for a type that
    has no attributes. Without it, conditions are left alone. ``target_type``: the node
    type step 1 predicted (a type or its label), used only when RETURN named nothing.
    """
    out = _copy(graph)
    fixes: list[Fix] = []
    _fix_node_labels(out, schema, fixes)
    _fix_edge_labels(out, schema, fixes)
    _fix_types(out, schema, target_type, fixes)
    if any(schema.edge_directed(e) for e in schema.edge_types):
        _fix_directions(out, schema, fixes)
    dropped: dict[str, list[Condition]] = {}
    if attributes is not None:
        _fix_properties(out, schema, _catalog(schema, attributes), fixes, dropped)
    if target_type:
        _fix_target(out, schema, target_type, fixes)
    return FixResult(out.validate(), fixes, dropped)


# -- names -----------------------------------------------------------------------------


def _words(name: str, singular: bool = True) -> list[str]:
    """Lower-case (singular) words: "GeneProteins" → gene, protein; "HAS_BRAND" → has, brand."""
    text = _CAMEL.sub(" ", name.strip().strip("`'\""))
    words = [w for w in _SPLIT.split(text.lower()) if w]
    return [_singular(w) for w in words] if singular else words


def _singular(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _compact(name: str, singular: bool = True) -> str:
    return "".join(_words(name, singular))


def _limit(name: str) -> int:
    """Edits a written name may be away from ``name`` (compact) to still mean it."""
    return max(1, len(name) // 4) if len(name) >= 4 else 0


def _distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment (Damerau–Levenshtein) distance; limit + 1 when above."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            best = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, before[j - 2] + 1)
            cur[j] = best
        if min(cur) > limit:
            return limit + 1
        before, prev = prev, cur
    return prev[-1]


def _match(written: str, names: Mapping[str, Iterable[str]],
           resolver: Callable[[str], str | None] | None = None) -> tuple[str, str] | None:
    """(key, how) for the one entry of ``names`` (key → the names it goes by) that
    ``written`` means: "exact", "normalised" or "typo"; None when none or several fit.
    ``resolver``: the schema's own lookup, tried before our looser normalisation."""
    exact = [k for k, ns in names.items() if written in ns]
    if exact:
        return (written if written in exact else exact[0]), "exact"
    known = resolver(written) if resolver is not None else None
    if known is not None and known in names:
        return known, "normalised"
    compact = _compact(written)
    if not compact:
        return None
    loose = [k for k, ns in names.items() if any(_compact(n) == compact for n in ns)]
    if loose:
        return (loose[0], "normalised") if len(loose) == 1 else None
    best: dict[str, int] = {}
    raw = _compact(written, singular=False)
    for key, ns in names.items():
        for n in ns:
            limit = _limit(_compact(n, singular=False))
            if not limit:
                continue
            d = min(_distance(raw, _compact(n, singular=False), limit),
                    _distance(compact, _compact(n), limit))
            if d <= limit:
                best[key] = min(best.get(key, d), d)
    if not best:
        return None
    low = min(best.values())
    winners = [k for k, d in best.items() if d == low]
    return (winners[0], "typo") if len(winners) == 1 else None


def _content_words(name: str) -> set[str]:
    return {w for w in _words(name) if w not in _STOP_WORDS}


def _unique_superset(written: str, names: Mapping[str, Iterable[str]]) -> str | None:
    """The one key whose names hold every content word of ``written`` ("Gene" →
    gene/protein); None when there are no such words or several keys fit."""
    wanted = _content_words(written)
    if not wanted:
        return None
    hits = [k for k, ns in names.items()
            if wanted <= set().union(*(_content_words(n) for n in ns))]
    return hits[0] if len(hits) == 1 else None


def _usable(name: str) -> bool:
    return bool(name.strip()) and not any(ord(ch) < 32 or ord(ch) == 127 for ch in name)


# -- 1. labels -------------------------------------------------------------------------


def _fix_node_labels(graph: QueryGraph, schema: SkbSchema, fixes: list[Fix]) -> None:
    names = {t.type: (t.type, t.label) for t in schema.node_types.values()}
    for sym in graph.symbols.values():
        if sym.label is None:
            continue
        found = _match(sym.label, names, schema.node_type)
        if found is None:
            by_words = _unique_superset(sym.label, names)
            found = (by_words, "words") if by_words is not None else None
        if found is None or found[1] == "exact" or not _usable(found[0]):
            continue
        node_type, how = found
        kind, note = {
            "normalised": ("node_label", "case, separators or plural"),
            "typo": ("node_label_typo", f"did you mean {node_type!r}?"),
            "words": ("node_label_words", f"the one node type with these words: {node_type}"),
        }[how]
        fixes.append(Fix(kind, _sym_text(sym), sym.label, node_type, note))
        sym.label = node_type


def _fix_edge_labels(graph: QueryGraph, schema: SkbSchema, fixes: list[Fix]) -> None:
    names = {t.type: (t.type, t.label) for t in schema.edge_types.values()}
    for i, t in enumerate(graph.triplets):
        ends = (symbol_type(graph, schema, t.head), symbol_type(graph, schema, t.tail))
        edges = list(t.edges)
        for j, edge in enumerate(edges):
            found = _edge_fix(edge, names, schema, ends)
            if found is None:
                continue
            edge_type, kind, note = found
            fixes.append(Fix(kind, triplet_text(t), edge, edge_type, note))
            edges[j] = edge_type
        if edges != list(t.edges):
            # two alternatives fixed to one type are one alternative
            kept = tuple(dict.fromkeys(edges))
            graph.triplets[i] = replace(t, edge=kept[0], alternatives=kept[1:])


def _edge_fix(edge: str, names: dict[str, tuple[str, str]], schema: SkbSchema,
              ends: tuple[str | None, str | None]) -> tuple[str, str, str] | None:
    """(edge type, fix kind, note) for a relationship type the schema spells otherwise;
    None when it is exact or has no usable match."""
    found = _match(edge, names, schema.edge_type)
    if found is not None and found[1] == "exact":
        return None
    if found is None or not _joins(schema, found[0], *ends):
        by_words = _by_words(schema, edge, *ends)
        if by_words is not None:
            found = (by_words, "words")
    if found is None or not _usable(found[0]):
        return None
    edge_type, how = found
    kind, note = {
        "normalised": ("edge_label", "case, separators or plural"),
        "typo": ("edge_label_typo", f"did you mean {edge_type!r}?"),
        "words": ("edge_label_words",
                  f"the one edge type between {ends[0]} and {ends[1]} with these words"),
    }[how]
    return edge_type, kind, note


def symbol_type(graph: QueryGraph, schema: SkbSchema, var: str | None) -> str | None:
    """The schema's node type of ``var``'s label (None: no such symbol, or no such type)."""
    sym = graph.symbols.get(var or "")
    return schema.node_type(sym.label) if sym is not None else None


def _joins(schema: SkbSchema, edge_type: str, a: str | None, b: str | None) -> bool:
    """Whether ``edge_type`` can join node types a and b (either way); True when unknown."""
    e = schema.edge_types.get(edge_type)
    if e is None or None in (a, b, e.source_type, e.target_type):
        return True
    return (e.source_type, e.target_type) in ((a, b), (b, a))


def _by_words(schema: SkbSchema, written: str, a: str | None, b: str | None) -> str | None:
    """The one edge type between node types a and b whose names hold every (non-stop)
    word of ``written``; None when a type is unknown, no word is left, or not unique."""
    if a is None or b is None:
        return None
    between = {e.type: (e.type, e.label) for e in schema.edge_types.values()
               if (e.source_type, e.target_type) in ((a, b), (b, a))}
    return _unique_superset(written, between)


# -- 1b. types -------------------------------------------------------------------------


def _fix_types(graph: QueryGraph, schema: SkbSchema, target_type: str | None,
               fixes: list[Fix]) -> None:
    wanted = None
    if target_type:
        wanted = target_type if target_type in schema.node_types \
            else schema.node_type(target_type)
    changed: set[str] = set()
    for _ in range(len(graph.symbols)):
        pick = _type_pick(graph, schema, wanted, changed)
        if pick is None:
            return
        var, node_type, note = pick
        sym = graph.symbols[var]
        fixes.append(Fix("node_label_edges", _sym_text(sym), sym.label, node_type, note))
        sym.label = node_type
        changed.add(var)


def _ends(schema: SkbSchema, t: Triplet) -> tuple[str, str, str] | None:
    """(edge type, source type, target type) of a one-hop triplet of one type with
    declared ends."""
    if t.edge is None or t.alternatives or (t.min_hops, t.max_hops) != (1, 1):
        return None
    e = schema.edge_types.get(schema.edge_type(t.edge) or "")
    if e is None or e.source_type is None or e.target_type is None:
        return None
    return e.type, e.source_type, e.target_type


def _type_pick(graph: QueryGraph, schema: SkbSchema, wanted: str | None,
               changed: set[str]) -> tuple[str, str, str] | None:
    """The next (symbol, node type, note) of the types repair, or None."""
    typed = {v: schema.node_type(s.label) for v, s in graph.symbols.items()}
    links: dict[str, list[tuple[tuple[str, str, str], str]]] = {}
    blocked: set[str] = set()  # symbols with a relation the schema does not know
    conflicts: dict[str, int] = {}
    for t in graph.triplets:
        ends = _ends(schema, t)
        if ends is None:
            if any(schema.edge_type(e) is None for e in t.edges):
                blocked |= {t.head, t.tail}
            continue
        links.setdefault(t.head, []).append((ends, t.tail))
        if t.tail != t.head:
            links.setdefault(t.tail, []).append((ends, t.head))
        a, b = typed.get(t.head), typed.get(t.tail)
        if a is not None and b is not None and (a, b) not in (ends[1:], ends[:0:-1]):
            for var in {t.head, t.tail}:
                conflicts[var] = conflicts.get(var, 0) + 1

    def fits(var: str, node_type: str) -> bool:
        for (_, src, dst), other in links.get(var, []):
            other_type = node_type if other == var else typed.get(other)
            if other_type is None:
                if node_type not in (src, dst):
                    return False
            elif (node_type, other_type) not in ((src, dst), (dst, src)):
                return False
        return True

    options: dict[str, str] = {}
    for var in conflicts:
        if typed.get(var) is None or var in changed or var in blocked:
            continue
        if var == graph.target and wanted is not None and typed[var] == wanted:
            continue  # the predicted target type backs the label
        fitting = [n for n in schema.node_types if fits(var, n)]
        if len(fitting) == 1 and fitting[0] != typed[var]:
            options[var] = fitting[0]
    if not options:
        return None
    if graph.target in options and options[graph.target] == wanted:
        best = [graph.target]
    else:
        # The target keeps its label unless the predicted target type says otherwise: the
        # answer's type is what the question asks for.
        options.pop(graph.target or "", None)
        most = max((conflicts[v] for v in options), default=0)
        best = [v for v in options if conflicts[v] == most]
    if len(best) != 1:
        return None
    var = best[0]
    edges = sorted({ends[0] for ends, _ in links[var]})
    return var, options[var], f"{', '.join(edges)} cannot join a {typed[var]} here; " \
        f"{options[var]} is the one node type that fits"


# -- 2. direction ----------------------------------------------------------------------


def _fix_directions(graph: QueryGraph, schema: SkbSchema, fixes: list[Fix]) -> None:
    for i, t in enumerate(graph.triplets):
        if (not t.directed or t.edge is None or t.alternatives or t.max_hops > 1
                or t.head == t.tail):
            continue
        e = schema.edge_types.get(schema.edge_type(t.edge) or "")
        if (e is None or e.source_type is None or e.target_type is None
                or not schema.edge_directed(e.type)):
            continue
        head = symbol_type(graph, schema, t.head)
        tail = symbol_type(graph, schema, t.tail)
        if head is None and tail is None:
            continue
        forward = head in (None, e.source_type) and tail in (None, e.target_type)
        backward = head in (None, e.target_type) and tail in (None, e.source_type)
        if forward or not backward:
            continue
        flipped = replace(t, head=t.tail, tail=t.head)
        fixes.append(Fix("direction", triplet_text(t), triplet_text(t), triplet_text(flipped),
                         f"{e.type} goes from {e.source_type} to {e.target_type}"))
        graph.triplets[i] = flipped


# -- 3. properties ---------------------------------------------------------------------


def _catalog(schema: SkbSchema,
             attributes: Mapping[str, Collection[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for written, paths in attributes.items():
        node_type = written if written in schema.node_types else schema.node_type(written)
        if node_type is None:
            continue
        known = out.setdefault(node_type, [])
        for path in paths:
            if (isinstance(path, str) and path not in known
                    and all(_usable(part) for part in path.split("."))):
                known.append(path)
    return out


def _fix_properties(graph: QueryGraph, schema: SkbSchema, catalog: Mapping[str, list[str]],
                    fixes: list[Fix], dropped: dict[str, list[Condition]]) -> None:
    for sym in graph.symbols.values():
        node_type = schema.node_type(sym.label)
        if node_type is None or node_type not in catalog:
            continue
        paths = catalog[node_type]
        kept: list[Condition] = []
        for cond in sym.conditions:
            attribute = cond.attribute
            if attribute.lower() in NAME_PROPERTIES or attribute in paths \
                    or is_text_condition(cond):  # the node's text is no attribute to fix
                kept.append(cond)
                continue
            found = _match_attribute(attribute, paths, node_type, schema)
            before = _cond_text(sym.var, cond)
            if found is None:
                note = (f"{node_type} has no attribute like {attribute!r}"
                        + (f" (it has: {', '.join(sorted(paths)[:8])})" if paths else ""))
                fixes.append(Fix("dropped_property", _sym_text(sym), before, None, note))
                graph.dropped.append(Dropped(before, f"{note}: condition dropped"))
                dropped.setdefault(sym.var, []).append(cond)
                continue
            path, how = found
            new = replace(cond, attribute=path)
            kind = "property_typo" if how == "typo" else "property"
            note = {"typo": f"did you mean {path!r}?",
                    "name": "a name-like property: the node's name",
                    "words": "the one attribute with these words",
                    "normalised": "case, separators or plural"}[how]
            fixes.append(Fix(kind, _sym_text(sym), before, _cond_text(sym.var, new), note))
            kept.append(new)
        sym.conditions = kept


def _match_attribute(written: str, paths: list[str], node_type: str,
                     schema: SkbSchema) -> tuple[str, str] | None:
    """(path, how) for an attribute the type lacks: "normalised", "words", "name" or
    "typo"; None when nothing (or more than one thing) fits."""
    compact = _compact(written)
    if not compact:
        return None
    for key in (_compact, lambda p: _compact(p.split(".")[-1])):  # whole path, last part
        hits = [p for p in paths if key(p) == compact]
        if hits:
            return (hits[0], "normalised") if len(hits) == 1 else None
    # publication_year → year, weight → molecular_weight: one path's words contain the
    # written words or are contained in them.
    words = _content_words(written)
    hits = [p for p in paths if (path_words := _content_words(p))
            and (path_words <= words or words <= path_words)]
    if words and hits:
        return (hits[0], "words") if len(hits) == 1 else None
    # drug_name on a drug, paperTitle on a paper, Names: the node's own name. (brand_name
    # on a product is not: that is another node's name.)
    parts = _words(written)
    own = _content_words(node_type) | _content_words(schema.node_types[node_type].label)
    if parts[-1] in ("name", "title") and set(parts[:-1]) <= own:
        return parts[-1], "name"
    names: dict[str, tuple[str, ...]] = {p: (p,) for p in paths}
    names.update({n: (n,) for n in ("name", "title") if n not in names})
    found = _match(written, names)
    return (found[0], "typo") if found is not None and found[1] == "typo" else None


# -- 4. target -------------------------------------------------------------------------


def _fix_target(graph: QueryGraph, schema: SkbSchema, target_type: str,
                fixes: list[Fix]) -> None:
    notes = [i for i, d in enumerate(graph.dropped) if d.reason.startswith(_NO_RETURN)]
    if not graph.symbols or (graph.target is not None and not notes):
        return
    wanted = target_type if target_type in schema.node_types else schema.node_type(target_type)
    if wanted is None:
        return
    typed = [v for v, s in graph.symbols.items() if schema.node_type(s.label) == wanted]
    if len(typed) > 1:
        typed = [v for v in typed if not graph.symbols[v].is_constant]
    if len(typed) != 1 or typed[0] == graph.target:
        return
    pick = typed[0]
    fixes.append(Fix("target", "RETURN", graph.target, pick,
                     f"no usable RETURN: {pick} is the one {wanted} in the pattern"))
    graph.target = pick
    note = Dropped("RETURN", f"{_NO_RETURN}: target set to {pick} (the predicted {wanted})")
    if notes:
        graph.dropped[notes[0]] = note
    else:
        graph.dropped.append(note)


# -- helpers ---------------------------------------------------------------------------


def _copy(graph: QueryGraph) -> QueryGraph:
    return QueryGraph(
        symbols={v: Symbol(s.var, s.label, list(s.conditions)) for v, s in graph.symbols.items()},
        triplets=list(graph.triplets),
        target=graph.target,
        dropped=list(graph.dropped),
    )


def _sym_text(sym: Symbol) -> str:
    return f"({sym.var}:{sym.label})" if sym.label is not None else f"({sym.var})"


def triplet_text(t: Triplet) -> str:
    """A relationship as a fix shows where it is: ``(a)-[:r|s*1..2]->(b)``."""
    hops = ""
    if (t.min_hops, t.max_hops) != (1, 1):
        hops = f"*{t.min_hops}..{t.max_hops}"
    rel = f"[:{'|'.join(t.edges)}{hops}]" if t.edges else (f"[{hops}]" if hops else "")
    return f"({t.head})-{rel}-{'>' if t.directed else ''}({t.tail})"


def _cond_text(var: str, cond: Condition) -> str:
    def show(v: object) -> str:
        return f"date({v.isoformat()!r})" if isinstance(v, dt.date) else repr(v)

    value = ("[" + ", ".join(map(show, cond.value)) + "]" if isinstance(cond.value, tuple)
             else show(cond.value))
    return f"{var}.{cond.attribute} {cond.op} {value}"

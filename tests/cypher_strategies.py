"""Hypothesis strategies for the Cypher parser: grammatical queries with the query graph
they must parse to, mutations of them, random text and huge inputs.

Shared by tests/test_cypher_fuzz.py (a few hundred cases per run) and
bench/fuzz_parser.py (tens of thousands).

The grammar draws a random query graph first and then *renders* it the many ways an LLM
might write it (keyword case, spacing, quote style, backticks, arrow direction, chains or
separate patterns, inline maps or WHERE, OR lists, reversed comparisons, comments, fences,
prose and reasoning around it), so the expected result of every rendering is known.
"""

from __future__ import annotations

import datetime as dt
import math
import re

from hypothesis import strategies as st

from afr.cypher.model import Condition, QueryGraph

VARS = ["y", "x", "a", "b1", "drug_1", "é", "Ωmega", "_v", "paperX", "n2"]
LABELS = ["drug", "disease", "gene/protein", "effect/phenotype", "anatomy part",
          "biological_process", "paper", "field_of_study", "product", "Brand", "module",
          "class", "side-effect", "Änderung", "odd:label", "x (y)"]
EDGES = ["indication", "drug_targets_gene/protein", "associated with", "ppi", "also viewed",
         "paper_cites_paper", "CITES", "has-brand", "parent:child", "interacts with"]
ATTRIBUTES = ["name", "title", "year", "price", "rating", "details.weight_kg", "release year",
              "publication_date", "venue", "prime_eligible"]
# Characters names are built from: quotes, backslashes, parentheses, keywords and
# unicode, everything that ever confused a parser.
NAME_ALPHABET = list("abcdefgxyzABCXYZ0123456789 -_.,;:()[]{}'\"\\/&+*=<>!?%#@~|") + [
    "é", "ß", "β", "漢", "–", "’", "\n", "\t", "😀", " MATCH ", " where ", " RETURN ", " and ",
    " OR ", " with "]
PROSE = ["Here is the query.", "Sure!", "The answer type is a drug.",
         "This finds every paper on the topic.", "Note: dates are ISO strings.",
         "I hope this helps.", "Query for the question:", "The graph has these labels."]
KEYWORDS_CASES = [str.upper, str.lower, str.title]

_ISO_LIKE = re.compile(r"\d{4}-\d{2}-\d{2}")
_BARE_LABEL_BAD = set("()[]{}:,|*=<>;$\\\"'\n\r`")


def _text_value_ok(s: str) -> bool:
    # Reply-level markers are cut before literals are read (a fence or a think tag inside
    # a name is indistinguishable from a real one), and date-looking strings become dates.
    return not (_ISO_LIKE.fullmatch(s) or "```" in s or "think>" in s or "\x00" in s
                or "<|" in s)


names = st.lists(st.sampled_from(NAME_ALPHABET), min_size=1, max_size=14).map("".join).filter(
    _text_value_ok)
ints = st.integers(-(2**63), 2**63 - 1) | st.integers(-3000, 3000)
floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
dates = st.dates(dt.date(1000, 1, 1), dt.date(9999, 12, 31))
scalars = st.one_of(names, ints, floats, dates, st.booleans())
orderable = st.one_of(names, ints, floats, dates)


@st.composite
def conditions(draw: st.DrawFn) -> Condition:
    attribute = draw(st.sampled_from(ATTRIBUTES))
    op = draw(st.sampled_from(["=", "=", "<", "<=", ">", ">=", "CONTAINS", "IN",
                               "STARTS WITH", "ENDS WITH", "=~"]))
    if op == "=":
        value = draw(scalars)
    elif op == "IN":
        value = tuple(draw(st.lists(scalars, min_size=1, max_size=4)))
    elif op in ("<", "<=", ">", ">="):
        value = draw(orderable)
    else:
        value = draw(names)
    return Condition(attribute, op, value)


@st.composite
def query_graphs(draw: st.DrawFn) -> QueryGraph:
    """A random valid query graph: a tree (sometimes with a cycle) of 1–5 symbols."""
    variables = draw(st.lists(st.sampled_from(VARS), min_size=1, max_size=5, unique=True))
    graph = QueryGraph()
    for var in variables:
        sym = graph.symbol(var)
        sym.label = draw(st.none() | st.sampled_from(LABELS))
        sym.conditions = draw(st.lists(conditions(), max_size=3))
    from afr.cypher.model import Triplet

    def triplet(a: str, b: str) -> Triplet:
        hops = draw(st.sampled_from([(1, 1)] * 5 + [(1, 2), (2, 2), (1, 3), (2, 3), (3, 3)]))
        head, tail = (a, b) if draw(st.booleans()) else (b, a)
        return Triplet(head, draw(st.none() | st.sampled_from(EDGES)), tail,
                       draw(st.booleans()), *hops)

    for i in range(1, len(variables)):
        graph.triplets.append(triplet(variables[i], variables[draw(st.integers(0, i - 1))]))
    if len(variables) > 2 and draw(st.integers(0, 4)) == 0:
        a, b = draw(st.lists(st.sampled_from(variables), min_size=2, max_size=2, unique=True))
        graph.triplets.append(triplet(a, b))
    graph.target = draw(st.sampled_from(variables))
    return graph


# -- rendering -------------------------------------------------------------------------


class _Writer:
    """Renders one query graph in a style drawn from hypothesis."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.kw = draw(st.sampled_from(KEYWORDS_CASES))
        self.spaced = draw(st.booleans())

    def ws(self) -> str:
        return self.draw(st.sampled_from([" ", " ", "  ", "\n", "\n  ", "\t"]))

    def pad(self) -> str:
        return self.draw(st.sampled_from(["", " "])) if self.spaced else ""

    def k(self, word: str) -> str:
        return self.kw(word)

    def string(self, s: str) -> str:
        quote = self.draw(st.sampled_from(["'", '"']))
        body = s.replace("\\", "\\\\").replace(quote, "\\" + quote)
        return quote + body + quote

    def name(self, name: str, bare_ok: bool = True) -> str:
        """A label / type / key: bare when possible, else backticked or double-quoted."""
        bare = (bare_ok and not (set(name) & _BARE_LABEL_BAD)
                and not re.search(r"\bwhere\b", name, re.IGNORECASE)
                and name == " ".join(name.split()))
        style = self.draw(st.sampled_from(["bare", "bare", "tick", "dquote"] if bare
                                          else ["tick", "dquote"]))
        if style == "bare":
            return name
        if style == "tick":
            return f"`{name}`"
        return '"' + name + '"'

    def var(self, var: str) -> str:
        return var if re.fullmatch(r"[^\W\d]\w*", var) else f"`{var}`"

    def attr(self, attribute: str) -> str:
        parts = attribute.split(".")
        return ".".join(p if re.fullmatch(r"[^\W\d]\w*", p) else f"`{p}`" for p in parts)

    def value(self, v: object) -> str:
        if isinstance(v, tuple):
            return "[" + ", ".join(self.value(x) for x in v) + "]"
        if isinstance(v, bool):
            return self.k("true" if v else "false")
        if isinstance(v, dt.date):
            if self.draw(st.booleans()):
                return f"date({self.string(v.isoformat())})"
            return self.string(v.isoformat())
        if isinstance(v, float):
            text = repr(v)
            return text if "e" not in text or self.draw(st.booleans()) else text.upper()
        if isinstance(v, int):
            return str(v)
        return self.string(str(v))

    def predicate(self, var: str, c: Condition) -> str:
        prop = f"{self.var(var)}.{self.attr(c.attribute)}"
        op = c.op
        if op in ("STARTS WITH", "ENDS WITH", "CONTAINS", "IN"):
            op = self.k(op)
        if c.op == "IN" and len(set(c.value)) == len(c.value) and len(c.value) > 1 \
                and self.draw(st.booleans()):
            # the OR form; the parser makes it an IN list again
            alts = [f"{prop} = {self.value(v)}" for v in c.value]
            return "(" + f" {self.k('or')} ".join(alts) + ")"
        if c.op in ("=", "<", "<=", ">", ">=") and not isinstance(c.value, tuple) \
                and self.draw(st.integers(0, 3)) == 0:
            flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "="}[c.op]
            return f"{self.value(c.value)} {flip} {prop}"
        if c.op in ("CONTAINS", "STARTS WITH", "ENDS WITH") and self.draw(st.integers(0, 3)) == 0:
            prop = f"toLower({prop})"
        text = f"{prop} {op} {self.value(c.value)}"
        return f"({text})" if self.draw(st.integers(0, 5)) == 0 else text


def _mapped(c: Condition) -> bool:
    return c.op == "=" and not isinstance(c.value, tuple)


@st.composite
def grammatical_queries(draw: st.DrawFn) -> tuple[str, QueryGraph]:
    """(reply text, the query graph it must parse to — with nothing dropped)."""
    graph = draw(query_graphs())
    w = _Writer(draw)
    seen: set[str] = set()
    where: list[str] = []

    def node(var: str) -> str:
        sym = graph.symbols[var]
        if var in seen:
            return f"({w.pad()}{w.var(var)}{w.pad()})"
        seen.add(var)
        inner = w.var(var)
        if sym.label is not None:
            inner += f"{w.pad()}:{w.pad()}{w.name(sym.label)}"
        inline = []
        for c in sym.conditions:
            if _mapped(c) and draw(st.booleans()) and not where_first.get(var):
                inline.append(c)
            else:
                where_first[var] = True  # keep the order: once one goes to WHERE, all do
                where.append(w.predicate(var, c))
        if inline:
            items = ", ".join(f"{w.name(c.attribute, bare_ok=False) if '.' not in c.attribute else w.attr(c.attribute)}"
                              f"{w.pad()}:{w.pad()}{w.value(c.value)}" for c in inline)
            inner += f" {{{w.pad()}{items}{w.pad()}}}"
        return f"({w.pad()}{inner}{w.pad()})"

    where_first: dict[str, bool] = {}

    def rel(t_edge: str | None, lo: int, hi: int) -> str:
        parts = ""
        if draw(st.integers(0, 4)) == 0:
            parts += draw(st.sampled_from(["r", "rel", "r2"]))
        if t_edge is not None:
            parts += f":{w.pad()}{w.name(t_edge)}"
        if (lo, hi) != (1, 1):
            forms = [f"*{lo}..{hi}"]
            if lo == hi:
                forms.append(f"*{lo}")
            if (lo, hi) == (1, 3):
                forms.append("*")
            if lo == 1:
                forms.append(f"*..{hi}")
            if hi == 3:
                forms.append(f"*{lo}..")
            parts += draw(st.sampled_from(forms))
        if not parts and draw(st.booleans()):
            return ""
        return f"[{w.pad()}{parts}{w.pad()}]"

    # each triplet as (a, b, arrow when a is written left, arrow when b is); chains
    # where the ends meet, turning a segment around when that makes it fit
    segments: list[tuple[str, str | None, str, str]] = []
    for t in graph.triplets:
        r = rel(t.edge, t.min_hops, t.max_hops)
        if t.directed:
            segments.append((t.head, t.tail, f"-{r}->", f"<-{r}-"))
        else:
            arrow = f"-{r}-" if r else "--"
            segments.append((t.head, t.tail, arrow, arrow))
    # nodes in no triplet still need a pattern
    for var in graph.symbols:
        if not any(var in (t.head, t.tail) for t in graph.triplets):
            segments.append((var, None, "", ""))

    patterns: list[str] = []
    current = ""
    last_right = None
    for a, b, ab, ba in segments:
        if b is None:
            if current:
                patterns.append(current)
            current, last_right = node(a), None
            continue
        left, right, arrow = (a, b, ab) if draw(st.booleans()) else (b, a, ba)
        if current and last_right in (a, b) and draw(st.integers(0, 3)) > 0:
            left, right, arrow = (a, b, ab) if last_right == a else (b, a, ba)
            pad = w.pad()
            current += f"{pad}{arrow}{pad}{node(right)}"
        else:
            if current:
                patterns.append(current)
            pad = w.pad()
            current = f"{node(left)}{pad}{arrow}{pad}{node(right)}"
        last_right = right
    patterns.append(current)

    clauses: list[str] = []
    group: list[str] = []
    for p in patterns:
        group.append(p)
        if draw(st.booleans()):
            clauses.append(f"{w.k('match')} " + ", ".join(group))
            group = []
    if group:
        clauses.append(f"{w.k('match')} " + ", ".join(group))
    text = w.ws().join(clauses)
    if where:
        text += w.ws() + w.k("where") + " " + f"{w.ws()}{w.k('and')} ".join(where)
    target = w.var(graph.target)
    ret = draw(st.sampled_from([target, f"{w.k('distinct')} {target}",
                                f"{target}.name {w.k('as')} answer", f"count({target})",
                                f"{w.k('distinct')} {target}.title"]))
    extra = [v for v in graph.symbols if v != graph.target]
    if extra and draw(st.booleans()):
        ret += ", " + w.var(extra[0])
    text += f"{w.ws()}{w.k('return')} {ret}"
    if draw(st.booleans()):
        text += f"{w.ws()}{w.k('order by')} {target}.name {w.k('desc')}"
    if draw(st.booleans()):
        text += f"{w.ws()}{w.k('limit')} {draw(st.integers(1, 100))}"
    if draw(st.integers(0, 4)) == 0:
        text = "// " + draw(st.sampled_from(PROSE)) + "\n" + text
    return _wrap(draw, text), graph


def _wrap(draw: st.DrawFn, query: str) -> str:
    style = draw(st.sampled_from(["plain", "fence", "fence", "prose", "think", "semicolon"]))
    if style == "fence":
        lang = draw(st.sampled_from(["cypher", "", "neo4j", "Cypher"]))
        after = draw(st.sampled_from(["", "\n\n" + draw(st.sampled_from(PROSE))]))
        return f"{draw(st.sampled_from(PROSE))}\n```{lang}\n{query}\n```{after}"
    if style == "prose":
        return f"{draw(st.sampled_from(PROSE))}\n\n{query}\n\n{draw(st.sampled_from(PROSE))}"
    if style == "think":
        return (f"<think>{draw(st.sampled_from(PROSE))} MATCH (wrong) RETURN wrong</think>\n"
                f"{query}")
    if style == "semicolon":
        return query + ";"
    return query


def shape(graph: QueryGraph) -> dict:
    """An order-free description for comparing query graphs."""

    def key(c: Condition) -> tuple:
        return (c.attribute, c.op, repr(c.value))

    def trip(t) -> tuple:
        ends = (t.head, t.tail) if t.directed else tuple(sorted((t.head, t.tail)))
        return (*ends, t.edge, t.directed, t.min_hops, t.max_hops)

    return {
        "target": graph.target,
        "symbols": {v: (s.label, sorted(map(key, s.conditions)))
                    for v, s in graph.symbols.items()},
        "triplets": sorted(map(trip, graph.triplets), key=repr),
    }


# -- mutations and noise ---------------------------------------------------------------

TOKENS = ["MATCH", "match", "WHERE", "RETURN", "return", "WITH", "AND", "OR", "NOT", "IN",
          "CONTAINS", "STARTS WITH", "ENDS", "UNION", "OPTIONAL", "ORDER BY", "LIMIT", "(", ")",
          "[", "]", "{", "}", "-", "->", "<-", "--", "<--", "-->", ":", ",", ".", "..", "*",
          "=", "<>", "<=", ">=", "=~", "'", '"', "`", "\\", "|", ";", "$x", "//", "/*", "*/",
          "```", "```cypher\n", "<think>", "</think>", "\n", "\n\n", " ", "\t", "\x00",
          "\x00S0\x00", "\x00B99\x00", "1", "-1.5", "1e999", "9" * 30, "date('2020-02-30')",
          "date(", "toLower(", "exists(", "true", "null", "[1,2]", "[[", "é", "漢", "😀", "\u202e",
          "\ufeff", "\r\n", "a.b", "x.y.z", "`a b`", "'it''s'", "*1..9", "*0", "*..",
          "<|channel|>final<|message|>"]


@st.composite
def mutated_queries(draw: st.DrawFn) -> str:
    """A grammatical reply with 1–8 random edits: delete, insert, duplicate, cut, swap."""
    text, _ = draw(grammatical_queries())
    for _ in range(draw(st.integers(1, 8))):
        n = len(text)
        kind = draw(st.sampled_from(["delete", "insert", "insert", "duplicate", "truncate",
                                     "swap", "case", "unicode"]))
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 12)))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] * draw(st.integers(1, 3)) + text[j:]
        elif kind == "truncate":
            text = text[:i]
        elif kind == "swap" and j > i:
            k = draw(st.integers(j, min(n, j + 12)))
            text = text[:i] + text[j:k] + text[i:j] + text[k:]
        elif kind == "case":
            text = text[:i] + text[i:j].swapcase() + text[j:]
        else:
            text = text[:i] + draw(st.text(min_size=1, max_size=3)) + text[i:]
    return text


random_texts = st.one_of(
    st.text(max_size=200),
    st.text(alphabet=st.sampled_from(list("()[]{}-<>:'\"`,.*= \nabcxyMATCHRETURNWHERE0129")),
            max_size=120),
    st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join),
    st.lists(st.sampled_from(TOKENS), max_size=40).map("".join),
)


@st.composite
def huge_inputs(draw: st.DrawFn, size: int = 100_000) -> str:
    """~size characters: a repeated query, token or mutation (the backtracking traps)."""
    kind = draw(st.sampled_from(["query", "token", "mixed"]))
    if kind == "query":
        unit, _ = draw(grammatical_queries())
    elif kind == "token":
        unit = draw(st.sampled_from(TOKENS))
    else:
        unit = draw(mutated_queries())
    unit = unit or "("
    prefix = draw(st.sampled_from(["", "MATCH (a) WHERE a.x = ", "MATCH (", "MATCH (a {n: ",
                                   "MATCH (a)-[", "MATCH (a) RETURN ", "<think>", "```"]))
    return prefix + unit * max(1, size // len(unit))


def check(graph: QueryGraph) -> list[str]:
    """Everything a parse result must satisfy, whatever the input; empty when fine."""
    problems = graph.problems()
    for d in graph.dropped:
        if "internal error" in d.reason or "parser failure" in d.reason \
                or "invalid query graph" in d.reason:
            problems.append(f"parser bug: {d.reason}")
        if "\x00" in d.text:
            problems.append("a masked placeholder leaked into a dropped note")
    for sym in graph.symbols.values():
        for c in sym.conditions:
            if isinstance(c.value, str) and "\x00" in c.value:
                problems.append("a masked placeholder leaked into a value")
            if isinstance(c.value, float) and not math.isfinite(c.value):
                problems.append("non-finite number")
    return problems

"""Step 3: Cypher text → query graph, with regular expressions and a small scanner.

LLM output is messy: code fences, prose and reasoning around the query, quotes and
parentheses inside names, lowercase keywords. The parser first *masks* string literals
and backticked names (so nothing inside them can be mistaken for syntax), then reads
MATCH patterns, WHERE conditions and the RETURN target clause by clause. It never
raises: whatever it cannot use is recorded as ``Dropped`` with a reason, and the rest
of the query still counts.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from afr.querygraph import Condition, Dropped, QueryGraph, Symbol, Triplet, Value

MAX_HOPS = 3

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*([\w-]*)[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_MASK = re.compile(r"\x00([SB])(\d+)\x00")
_KEYWORD = re.compile(
    r"\b(OPTIONAL\s+MATCH|MATCH|WHERE|RETURN|WITH|ORDER\s+BY|LIMIT|SKIP|UNION|UNWIND|CALL|"
    r"CREATE|MERGE|DELETE|SET)\b",
    re.IGNORECASE,
)
_NODE = re.compile(r"\(\s*([^()]*?)\s*\)")
_REL = re.compile(r"\s*(<)?\s*-\s*(?:\[([^\]]*)\])?\s*-\s*(>)?\s*")
_REL_SHORT = re.compile(r"\s*(<)?\s*(-->|--|->|<--)\s*")
_IDENT = r"(?:[A-Za-z_][\w]*|\x00B\d+\x00)"
_NODE_INNER = re.compile(
    rf"^\s*({_IDENT})?\s*((?::\s*{_IDENT}\s*)*)\s*(\{{.*\}})?\s*$", re.DOTALL
)
_REL_INNER = re.compile(
    rf"^\s*({_IDENT})?\s*(:\s*{_IDENT}(?:\s*\|\s*:?\s*{_IDENT})*)?\s*"
    r"(\*\s*(\d+)?\s*(?:\.\.\s*(\d+)?)?)?\s*(\{.*\})?\s*$",
    re.DOTALL,
)
_OPS = r"(=~|<=|>=|<>|!=|=|<|>|\bCONTAINS\b|\bSTARTS\s+WITH\b|\bENDS\s+WITH\b|\bIN\b)"
_PROP = r"(?:(?:toLower|toUpper|lower|upper|trim)\s*\(\s*)?([A-Za-z_]\w*)\.((?:[A-Za-z_]\w*|\x00B\d+\x00)(?:\.(?:[A-Za-z_]\w*|\x00B\d+\x00))*)\s*\)?"
_COND = re.compile(rf"^\s*{_PROP}\s*{_OPS}\s*(.+?)\s*$", re.IGNORECASE | re.DOTALL)
_COND_REVERSED = re.compile(rf"^\s*(.+?)\s*(<=|>=|=|<|>)\s*{_PROP}\s*$", re.DOTALL)
_LABEL_PRED = re.compile(rf"^\s*([A-Za-z_]\w*)\s*((?::\s*{_IDENT}\s*)+)$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_CALL = re.compile(r"^(?:date|datetime|localdatetime)\s*\(\s*(.*?)\s*\)$", re.IGNORECASE)
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "="}


@dataclass
class _Masked:
    text: str
    strings: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    def unmask(self, text: str) -> str:
        def put(m: re.Match[str]) -> str:
            kind, i = m.group(1), int(m.group(2))
            return self.strings[i] if kind == "S" else self.names[i]

        return _MASK.sub(put, text)

    def name(self, token: str) -> str:
        """An identifier as written, without backticks."""
        m = _MASK.fullmatch(token.strip())
        if m and m.group(1) == "B":
            return self.names[int(m.group(2))]
        return token.strip()


def _mask(text: str) -> _Masked:
    """Replace string literals and backticked names by placeholders."""
    masked = _Masked("")
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"`":
            quote, j, buf = ch, i + 1, []
            while j < n:
                c = text[j]
                if c == "\\" and quote != "`" and j + 1 < n:
                    nxt = text[j + 1]
                    buf.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
                    j += 2
                    continue
                if c == quote:
                    if j + 1 < n and text[j + 1] == quote:  # doubled quote inside
                        buf.append(quote)
                        j += 2
                        continue
                    break
                buf.append(c)
                j += 1
            else:
                # Unterminated: an apostrophe inside a bare word ("Alzheimer's") or a
                # cut-off reply. Treat the quote as an ordinary character.
                out.append(ch)
                i += 1
                continue
            value = "".join(buf)
            if quote == "`":
                masked.names.append(value)
                out.append(f"\x00B{len(masked.names) - 1}\x00")
            else:
                masked.strings.append(value)
                out.append(f"\x00S{len(masked.strings) - 1}\x00")
            i = j + 1
            continue
        out.append(ch)
        i += 1
    masked.text = "".join(out)
    return masked


def _extract_query(text: str) -> str:
    """The Cypher inside an LLM reply: fenced block, else from the first MATCH on."""
    text = _THINK.sub("", text or "")
    blocks = [b for _, b in _FENCE.findall(text)]
    with_match = [b for b in blocks if re.search(r"\bMATCH\b", b, re.IGNORECASE)]
    if with_match:
        return with_match[0]
    m = re.search(r"\b(OPTIONAL\s+)?MATCH\b", text, re.IGNORECASE)
    return text[m.start():] if m else text


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside (), [] and {}."""
    parts, depth, buf = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        if ch == sep and depth == 0:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf))
    return [p for p in (x.strip() for x in parts) if p]


def _split_bool(text: str, word: str) -> list[str]:
    """Split on a boolean keyword (AND / OR) outside brackets."""
    parts, depth, start = [], 0, 0
    pattern = re.compile(rf"\b{word}\b", re.IGNORECASE)
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = pattern.match(text, i)
            if m and (i == 0 or not text[i - 1].isalnum()):
                parts.append(text[start:i])
                start = i = m.end()
                continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


class _Parser:
    def __init__(self, text: str) -> None:
        self.raw = text
        self.graph = QueryGraph()
        self.anon = 0
        self.m = _mask(_extract_query(text))

    def drop(self, text: str, reason: str) -> None:
        self.graph.dropped.append(Dropped(self.m.unmask(text).strip()[:300], reason))

    # -- values ------------------------------------------------------------------------

    def value(self, token: str) -> Value | None:
        token = token.strip().rstrip(";").strip()
        m = _MASK.fullmatch(token)
        if m and m.group(1) == "S":
            s = self.m.strings[int(m.group(2))]
            if _ISO_DATE.match(s):
                try:
                    return dt.date.fromisoformat(s)
                except ValueError:
                    return s
            return s
        if _NUMBER.match(token):
            number = float(token)
            return int(number) if re.fullmatch(r"[+-]?\d+", token) else number
        low = token.lower()
        if low in ("true", "false"):
            return low == "true"
        date_call = _DATE_CALL.match(token)
        if date_call:
            inner = self.value(date_call.group(1))
            if isinstance(inner, dt.date):
                return inner
            if isinstance(inner, str):
                try:
                    return dt.date.fromisoformat(inner[:10])
                except ValueError:
                    return None
            return None
        if token.startswith("[") and token.endswith("]"):
            items = [self.value(x) for x in _split_top(token[1:-1], ",")]
            if any(x is None or isinstance(x, tuple) for x in items):
                return None
            return tuple(items)  # type: ignore[arg-type]
        return None

    # -- MATCH -------------------------------------------------------------------------

    def symbol_for(self, inner: str, clause: str) -> str | None:
        m = _NODE_INNER.match(inner)
        if not m:
            self.drop(f"({inner})", "node pattern not understood")
            return None
        var = self.m.name(m.group(1)) if m.group(1) else None
        if var is None:
            self.anon += 1
            var = f"_anon{self.anon}"
        sym = self.graph.symbol(var)
        labels = [self.m.name(x) for x in re.findall(rf":\s*({_IDENT})", m.group(2) or "")]
        if labels:
            if sym.label is None:
                sym.label = labels[0]
            elif sym.label != labels[0]:
                self.drop(f"({var}:{labels[0]})", f"{var} already has label {sym.label!r}")
            for extra in labels[1:]:
                self.drop(f"({var}:{extra})", "only the first label of a node is used")
        if m.group(3):
            self.map_conditions(sym, m.group(3))
        return var

    def map_conditions(self, sym: Symbol, text: str) -> None:
        for item in _split_top(text.strip()[1:-1], ","):
            key, sep, raw = item.partition(":")
            if not sep:
                self.drop(item, "property map entry without ':'")
                continue
            value = self.value(raw)
            if value is None:
                self.drop(item, "property value not understood")
                continue
            sym.conditions.append(Condition(self.m.name(key).strip(), "=", value))

    def relationship(self, inner: str | None) -> tuple[str | None, int, int] | None:
        if inner is None or not inner.strip():
            return None, 1, 1
        m = _REL_INNER.match(inner)
        if not m:
            self.drop(f"[{inner}]", "relationship pattern not understood")
            return None
        types = [self.m.name(t) for t in re.findall(_IDENT, m.group(2) or "")]
        edge = types[0] if types else None
        if len(types) > 1:
            self.drop(f"[{inner}]", "alternative relationship types: only the first is used")
        lo, hi = 1, 1
        if m.group(3):
            lo = int(m.group(4)) if m.group(4) else 1
            has_range = ".." in m.group(3)
            hi = int(m.group(5)) if m.group(5) else (MAX_HOPS if has_range or not m.group(4)
                                                     else lo)
            lo = max(1, lo)
            if hi > MAX_HOPS:
                self.drop(f"[{inner}]", f"variable length capped at {MAX_HOPS} hops")
                hi = MAX_HOPS
            lo = min(lo, hi)
        if m.group(6):
            self.drop(m.group(6), "properties on relationships are ignored")
        return edge, lo, hi

    def pattern(self, text: str) -> None:
        text = re.sub(rf"^\s*{_IDENT}\s*=\s*", "", text)  # path variable: p = (…)
        pos = 0
        node = _NODE.match(text, pos)
        if not node:
            self.drop(text, "a pattern must start with a node '(…)'")
            return
        left = self.symbol_for(node.group(1), text)
        pos = node.end()
        while pos < len(text):
            rel = _REL.match(text, pos)
            short = None if rel else _REL_SHORT.match(text, pos)
            if rel:
                back, inner, fwd = rel.group(1), rel.group(2), rel.group(3)
                pos = rel.end()
            elif short:
                arrow = short.group(2)
                back = "<" if (short.group(1) or arrow.startswith("<")) else None
                fwd = ">" if arrow.endswith(">") else None
                inner = None
                pos = short.end()
            else:
                self.drop(text[pos:], "unexpected text in a pattern")
                return
            node = _NODE.match(text, pos)
            if not node:
                self.drop(text[pos:], "a relationship must lead to a node '(…)'")
                return
            right = self.symbol_for(node.group(1), text)
            pos = node.end()
            spec = self.relationship(inner)
            if spec is not None and left is not None and right is not None:
                edge, lo, hi = spec
                if back and fwd:
                    self.drop(text, "a relationship cannot point both ways: read as undirected")
                    self.graph.triplets.append(Triplet(left, edge, right, False, lo, hi))
                elif back:
                    self.graph.triplets.append(Triplet(right, edge, left, True, lo, hi))
                else:
                    self.graph.triplets.append(Triplet(left, edge, right, bool(fwd), lo, hi))
            left = right

    # -- WHERE -------------------------------------------------------------------------

    def where(self, text: str) -> None:
        for part in _split_bool(text, "AND"):
            self.predicate(part)

    def predicate(self, text: str) -> None:
        text = text.strip()
        while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
            text = text[1:-1].strip()
        if re.match(r"^(NOT\b|EXISTS\b)", text, re.IGNORECASE):
            self.drop(text, "NOT / EXISTS are not supported")
            return
        alternatives = _split_bool(text, "OR")
        if len(alternatives) > 1:
            self.disjunction(text, alternatives)
            return
        if re.search(r"\b(XOR|NOT)\b", text, re.IGNORECASE):
            self.drop(text, "NOT / XOR are not supported")
            return
        if len(_split_bool(text, "AND")) > 1:
            self.where(text)
            return
        label = _LABEL_PRED.match(text)
        if label:
            sym = self.graph.symbol(label.group(1))
            names = [self.m.name(x) for x in re.findall(rf":\s*({_IDENT})", label.group(2))]
            if sym.label is None and names:
                sym.label = names[0]
            return
        cond = self.condition(text)
        if cond is None:
            return
        var, condition = cond
        self.graph.symbol(var).conditions.append(condition)

    def condition(self, text: str) -> tuple[str, Condition] | None:
        m = _COND.match(text)
        if m:
            var, attr, op, raw = m.group(1), m.group(2), m.group(3), m.group(4)
        else:
            r = _COND_REVERSED.match(text)
            if not r or _COND.match(r.group(1)):
                self.drop(text, "condition not understood")
                return None
            raw, op, var, attr = r.group(1), _FLIP[r.group(2)], r.group(3), r.group(4)
        op = " ".join(op.upper().split())
        if op in ("<>", "!="):
            self.drop(text, "inequality (<>) is not supported")
            return None
        value = self.value(raw)
        if value is None:
            self.drop(text, "value not understood (only literals can be compared)")
            return None
        if op == "IN" and not isinstance(value, tuple):
            value = (value,)  # type: ignore[assignment]
        attr = ".".join(self.m.name(p) for p in attr.split("."))
        return var, Condition(attr, op, value)

    def disjunction(self, text: str, alternatives: list[str]) -> None:
        """`a.p = x OR a.p = y` is an IN list; any other OR is dropped."""
        parsed = []
        for alt in alternatives:
            alt = alt.strip()
            while alt.startswith("(") and alt.endswith(")") and _balanced(alt[1:-1]):
                alt = alt[1:-1].strip()
            m = _COND.match(alt)
            value = self.value(m.group(4)) if m else None
            if not m or m.group(3).strip() != "=" or value is None:
                self.drop(text, "OR is only supported between equalities on one property")
                return
            parsed.append((m.group(1), m.group(2), value))
        keys = {(v, a) for v, a, _ in parsed}
        if len(keys) != 1:
            self.drop(text, "OR is only supported between equalities on one property")
            return
        var, attr = keys.pop()
        attr = ".".join(self.m.name(p) for p in attr.split("."))
        self.graph.symbol(var).conditions.append(
            Condition(attr, "IN", tuple(v for _, _, v in parsed))  # type: ignore[misc]
        )

    # -- RETURN ------------------------------------------------------------------------

    def returns(self, text: str) -> None:
        text = re.sub(r"^\s*DISTINCT\b", "", text, flags=re.IGNORECASE).strip()
        first = _split_top(text, ",")
        if not first:
            return
        item = re.split(r"\s+AS\s+", first[0], flags=re.IGNORECASE)[0].strip()
        names = re.findall(r"[A-Za-z_]\w*", self.m.unmask(item) if "\x00B" in item else item)
        for name in names:
            if name in self.graph.symbols:
                self.graph.target = name
                return
        self.drop(f"RETURN {text}", "RETURN names no variable of the pattern")

    # -- driver ------------------------------------------------------------------------

    def run(self) -> QueryGraph:
        text = self.m.text
        marks = [
            mk for mk in _KEYWORD.finditer(text)
            # "STARTS WITH" / "ENDS WITH" are operators, not WITH clauses
            if not (mk.group(1).upper() == "WITH"
                    and re.search(r"\b(STARTS|ENDS)\s+$", text[:mk.start()], re.IGNORECASE))
        ]
        if not marks:
            self.drop(self.raw[:200], "no MATCH clause found")
            return self.graph
        clauses = []
        for i, mk in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            clauses.append((" ".join(mk.group(1).upper().split()), text[mk.end():end]))
        saw_match = False
        for keyword, body in clauses:
            try:
                self.clause(keyword, body)
            except Exception as exc:  # noqa: BLE001 - one odd clause must not sink the query
                self.drop(f"{keyword} {body}", f"could not be parsed ({type(exc).__name__})")
            saw_match = saw_match or keyword.endswith("MATCH")
        if not saw_match:
            self.drop(self.raw[:200], "no MATCH clause found")
        self.fallback_target()
        return self.graph

    def clause(self, keyword: str, body: str) -> None:
        body = body.strip().rstrip(";").strip()
        if keyword in ("MATCH", "OPTIONAL MATCH"):
            if keyword == "OPTIONAL MATCH":
                self.drop(f"OPTIONAL MATCH {body}", "OPTIONAL MATCH read as MATCH")
            for pattern in _split_top(body, ","):
                self.pattern(pattern)
        elif keyword == "WHERE":
            self.where(body)
        elif keyword == "RETURN":
            # Prose after the query ("This returns …") ends at the first blank line.
            body = re.split(r"\n\s*\n", body)[0]
            self.returns(body)
        elif keyword in ("ORDER BY", "LIMIT", "SKIP"):
            return
        elif keyword == "WITH":
            self.drop(f"WITH {body}", "WITH is ignored; variables carry over")
        else:
            self.drop(f"{keyword} {body}", f"{keyword} is not supported")

    def fallback_target(self) -> None:
        if self.graph.target in self.graph.symbols:
            return
        if not self.graph.symbols:
            return
        variables = [v for v, s in self.graph.symbols.items() if not s.is_constant]
        pick = (variables or list(self.graph.symbols))[-1]
        if self.graph.target is None:
            self.graph.dropped.append(Dropped("RETURN", f"no usable RETURN: target set to {pick}"))
        self.graph.target = pick


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            return False
    return depth == 0


def parse_cypher(text: str) -> QueryGraph:
    """Parse an LLM's Cypher into a query graph; never raises."""
    try:
        return _Parser(text if isinstance(text, str) else str(text)).run()
    except Exception as exc:  # noqa: BLE001 - the contract is: never raise
        graph = QueryGraph()
        graph.dropped.append(Dropped(str(text)[:200], f"parser failure ({type(exc).__name__})"))
        return graph

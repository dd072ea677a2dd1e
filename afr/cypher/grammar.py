"""Step 3: Cypher text → query graph, with a small scanner and anchored regular expressions.

LLM output is messy: code fences, prose and reasoning around the query, quotes and
parentheses inside names, labels with ``/`` or spaces, lowercase keywords, comments,
cut-off replies. The parser first cuts the query out of the reply, then *masks* string
literals and backticked names (so nothing inside them can be mistaken for syntax), then
reads MATCH patterns, WHERE conditions and the RETURN target clause by clause. It never
raises: whatever it cannot use is recorded as ``Dropped`` with a reason, and the rest of
the query still counts.

Every step is linear in the input (plain scans with ``str.find``, bracket matching with a
stack, regular expressions that are anchored or use possessive quantifiers; WHERE nesting
deeper than _MAX_NESTING is dropped), so even a 100 KB reply of garbage parses in a
fraction of a second: no catastrophic backtracking (bench/fuzz_parser.py measures it).
"""

from __future__ import annotations

import datetime as dt
import math
import re

from afr.cypher.extract import cut_prose_after, extract_query
from afr.cypher.mask import (
    close_of,
    has_control,
    inside_brackets,
    mask,
    nesting,
    split_bool,
    split_top,
    strip_parens,
)
from afr.cypher.model import (
    INT_RANGE,
    MAX_HOPS,
    TEXT_OPERATORS,
    Condition,
    Dropped,
    QueryGraph,
    Symbol,
    Triplet,
    Value,
)

__all__ = ["MAX_HOPS", "parse_cypher"]

_NOTE_CHARS = 300  # dropped-note texts are cut to this length
_IDENT = r"(?:[^\W\d]\w*+|\x00B\d++\x00)"
_KEYWORD = re.compile(
    r"(?<![.:$\w])(OPTIONAL\s++MATCH|MATCH|WHERE|RETURN|WITH|ORDER\s++BY|LIMIT|SKIP|UNION|"
    r"UNWIND|CALL|CREATE|MERGE|DELETE|DETACH|SET|REMOVE|FOREACH)\b",
    re.IGNORECASE,
)
_VAR = re.compile(_IDENT)
_PATH_VAR = re.compile(rf"\s*+{_IDENT}\s*+=(?![=~])\s*+")
_RANGE = re.compile(r"\s*+(\d++)?\s*+(?:(\.\.)\s*+(\d++)?)?\s*+")
# v.attr, v.a.b (nested), toLower(v.attr): groups function, variable, attribute, ")"
_PROP = re.compile(
    r"\s*+(?:(toLower|toUpper|lower|upper|trim|ltrim|rtrim|toString)\s*+\(\s*+)?"
    rf"({_IDENT})\s*+\.\s*+({_IDENT}(?:\s*+\.\s*+{_IDENT})*+)\s*+(\))?\s*+",
    re.IGNORECASE,
)
_OP = re.compile(
    r"(=~|<=|>=|<>|!=|=|<|>|CONTAINS\b|STARTS\s++WITH\b|ENDS\s++WITH\b|IN\b)\s*+",
    re.IGNORECASE,
)
_CMP_OPS = re.compile(r"=~|<=|>=|<>|!=|=|<|>")
_LABEL_PRED = re.compile(rf"\s*+({_IDENT})\s*+((?::\s*+[^:\s][^:]*+)++)")
_NUMBER = re.compile(r"[+-]?+(?:\d++(?:\.\d*+)?|\.\d++)(?:[eE][+-]?+\d++)?")
_INTEGER = re.compile(r"[+-]?+\d++")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_CALL = re.compile(r"(?:date|datetime|localdatetime|localdate)\s*+\((.*)\)",
                        re.IGNORECASE | re.DOTALL)
_TEXT_CALL = re.compile(r"(?:toLower|toUpper|lower|upper|trim)\s*+\((.*)\)",
                        re.IGNORECASE | re.DOTALL)
_NOT = re.compile(r"NOT\b", re.IGNORECASE)
_EXISTS = re.compile(r"EXISTS\s*+([({])(.*)([)}])", re.IGNORECASE | re.DOTALL)
_XOR_NOT = re.compile(r"\b(?:XOR|NOT)\b", re.IGNORECASE)
_INLINE_WHERE = re.compile(r"\bWHERE\b", re.IGNORECASE)
_IS_NULL = re.compile(r"\bIS\s++(?:NOT\s++)?NULL\b", re.IGNORECASE)
_RETURN_TOKEN = re.compile(r"\x00[SB]\d++\x00|[^\W\d]\w*+")
_MAX_NESTING = 100  # deeper WHERE nesting is dropped: keeps the work linear in the input
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "="}
# Characters that cannot be part of a label or relationship type written without backticks.
_NOT_IN_NAME = set("()[]{}:,|*=<>;$\\\"'\x00\n\r")


# -- the parser ------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str) -> None:
        # NUL marks placeholders; a NUL in the input must not be able to forge one.
        self.raw = text.replace("\x00", " ")
        self.graph = QueryGraph()
        self.anon = 0
        query, unfenced = extract_query(self.raw)
        self.m = mask(query)
        if unfenced:  # after masking, so a "return" inside a name cannot end the query
            self.m.text = cut_prose_after(self.m.text)

    def drop(self, text: str, reason: str) -> None:
        text = text.strip()
        if len(text) > _NOTE_CHARS:
            cut = text[:_NOTE_CHARS]
            if cut.count("\x00") % 2:  # do not split a placeholder
                cut = cut[:cut.rfind("\x00")]
            text = cut + " …"
        note = self.m.unmask(text).replace("\x00", "")
        self.graph.dropped.append(Dropped(note[:_NOTE_CHARS + 2], reason))

    def new_anon(self) -> str:
        self.anon += 1
        while f"_anon{self.anon}" in self.graph.symbols:
            self.anon += 1
        return f"_anon{self.anon}"

    # -- names and values --------------------------------------------------------------

    def identifier(self, token: str) -> str | None:
        """A variable name as written (backticks removed), or None if it is not one."""
        token = token.strip()
        if not token or not _VAR.fullmatch(token):
            return None
        hit = self.m.placeholder(token)
        if hit:
            name = hit[1].strip()
            return name if name and not has_control(name) else None
        return token

    def loose_name(self, token: str) -> str | None:
        """A label or relationship type: backticked, quoted, or bare with / - and spaces."""
        token = token.strip()
        if not token:
            return None
        hit = self.m.placeholder(token)
        name = " ".join((hit[1] if hit else token).split())
        if not name or has_control(name) or (not hit and any(ch in _NOT_IN_NAME
                                                               for ch in token)):
            return None
        return name

    def value(self, token: str, text_op: bool = False) -> Value | None:
        """A literal (string, number, boolean, date, list); None if it is not one."""
        token = token.strip()
        while token.endswith(";"):
            token = token[:-1].rstrip()
        hit = self.m.placeholder(token)
        if hit:
            if hit[0] != "S":
                return None
            s = hit[1]
            if not text_op and _ISO_DATE.fullmatch(s):
                try:
                    return dt.date.fromisoformat(s)
                except ValueError:
                    return s
            return s
        if _NUMBER.fullmatch(token):
            if text_op:
                return token
            return _number(token)
        low = token.lower()
        if low in ("true", "false"):
            return str(low == "true").lower() if text_op else low == "true"
        call = _DATE_CALL.fullmatch(token)
        if call:
            inner = self.m.placeholder(call.group(1))
            if not inner or inner[0] != "S":
                return None
            try:
                day = dt.date.fromisoformat(inner[1].strip()[:10])
            except ValueError:
                return None
            return day.isoformat() if text_op else day
        call = _TEXT_CALL.fullmatch(token)
        if call:
            inner = self.m.placeholder(call.group(1))
            return inner[1] if inner and inner[0] == "S" else None
        if token.startswith("[") and token.endswith("]") and not text_op:
            items: list[Value | None] = []
            for item in split_top(token[1:-1], ","):
                if item.startswith("["):
                    return None  # nested lists mean nothing to a filter
                items.append(self.value(item))
            if any(x is None for x in items):
                return None
            return tuple(items)  # type: ignore[arg-type]
        return None

    # -- MATCH -------------------------------------------------------------------------

    def node(self, inner: str) -> str:
        """The symbol of one node pattern ``(var:Label {…})``; anonymous when unreadable."""
        head, where = inner, None
        brace = inner.find("{")
        props = None
        if brace >= 0:
            head, props = inner[:brace], inner[brace:].strip()
        wm = _INLINE_WHERE.search(head)
        if wm:
            head, where = head[:wm.start()], head[wm.end():]
        var_text, _, label_text = head.partition(":")
        var = self.identifier(var_text) if var_text.strip() else None
        if var_text.strip() and var is None:
            self.drop(f"({inner})", "node variable not understood: read as an anonymous node")
        if var is None:
            var = self.new_anon()
        sym = self.graph.symbol(var)
        if label_text.strip():
            labels = []
            for part in label_text.split(":"):
                if not part.strip():
                    continue  # (a:Label:) or (a::Label): a stray colon
                label = self.loose_name(part)
                if label is None:
                    self.drop(f"({inner})", "node label not understood")
                    labels = []
                    break
                labels.append(label)
            if labels:
                if sym.label is None:
                    sym.label = labels[0]
                elif sym.label != labels[0]:
                    self.drop(f"({var}:{labels[0]})", f"{var} already has label {sym.label!r}")
                for extra in labels[1:]:
                    self.drop(f"({var}:{extra})", "only the first label of a node is used")
        if props is not None:
            if props.endswith("}"):
                self.map_conditions(sym, props[1:-1])
            else:
                self.drop(props, "property map not closed")
        if where:
            self.where(where)
        return var

    def map_conditions(self, sym: Symbol, text: str) -> None:
        for item in split_top(text, ","):
            key, sep, raw = item.partition(":")
            attribute = self.attribute(key)
            if not sep or attribute is None:
                self.drop(item, "property map entry not understood")
                continue
            value = self.value(raw)
            if value is None or isinstance(value, tuple):
                self.drop(item, "property value not understood (only literals can be matched)")
                continue
            sym.conditions.append(Condition(attribute, "=", value))

    def attribute(self, text: str) -> str | None:
        """A (dotted) attribute name; backticked or quoted parts allowed."""
        parts = []
        for part in text.split("."):
            part = part.strip()
            hit = self.m.placeholder(part)
            name = hit[1].strip() if hit else (part if _VAR.fullmatch(part) else "")
            # A dot inside backticks still separates path steps: none may be empty
            # (`.release year`, `a..b`).
            if not name or has_control(name) or not all(
                    step.strip() for step in name.split(".")):
                return None
            parts.append(name)
        return ".".join(parts) if parts else None

    def relationship(self, inner: str | None) -> tuple[tuple[str, ...], int, int]:
        """(edge types, empty for any; min hops, max hops) of ``[r:A|B*1..2 {…}]``; never
        fails."""
        if inner is None or not inner.strip():
            return (), 1, 1
        body = inner
        brace = body.find("{")
        if brace >= 0:
            self.drop(body[brace:], "properties on relationships are ignored")
            body = body[:brace]
        wm = _INLINE_WHERE.search(body)
        if wm:
            self.drop(body[wm.start():], "conditions on relationships are ignored")
            body = body[:wm.start()]
        lo, hi = 1, 1
        star = body.find("*")
        if star >= 0:
            lo, hi = self.hops(body[star + 1:], inner)
            body = body[:star]
        var_text, colon, types_text = body.partition(":")
        if var_text.strip() and self.identifier(var_text) is None:
            self.drop(f"[{inner}]", "relationship not understood: read as any relationship")
            return (), lo, hi
        if not colon:
            return (), lo, hi
        types: list[str] = []
        for part in types_text.split("|"):
            name = self.loose_name(part.strip().lstrip(":"))
            if name is None:
                self.drop(f"[{inner}]", "relationship type not understood: read as any "
                                        "relationship")
                return (), lo, hi
            if name not in types:
                types.append(name)
        return tuple(types), lo, hi

    def hops(self, spec: str, inner: str) -> tuple[int, int]:
        m = _RANGE.fullmatch(spec)
        if not m:
            self.drop(f"[{inner}]", f"variable length not understood: read as 1..{MAX_HOPS}")
            return 1, MAX_HOPS
        first, dots, second = (_small_int(m.group(1)), m.group(2), _small_int(m.group(3)))
        lo = first if first is not None else 1
        if second is not None:
            hi = second
        elif dots or first is None:
            hi = MAX_HOPS
        else:
            hi = lo
        lo = max(1, lo)
        if hi > MAX_HOPS or lo > MAX_HOPS:
            self.drop(f"[{inner}]", f"variable length capped at {MAX_HOPS} hops")
        hi = max(1, min(hi, MAX_HOPS))
        lo = min(lo, hi)
        return lo, hi

    def pattern(self, text: str) -> None:
        """One comma-free pattern: a chain of nodes and relationships."""
        m = _PATH_VAR.match(text)
        pos = _skip_space(text, m.end() if m else 0)
        n = len(text)
        if pos >= n or text[pos] != "(":
            self.drop(text, "a pattern must start with a node '(…)'")
            return
        end = close_of(text, pos)
        if end < 0:
            self.drop(text[pos:], "node pattern not closed")
            return
        left = self.node(text[pos + 1:end])
        pos = _skip_space(text, end + 1)
        while pos < n:
            rel_start = pos
            arrow = self.arrow(text, rel_start)
            if arrow is None:
                return
            back, inner, forward, pos = arrow
            if pos >= n or text[pos] != "(":
                self.drop(text[rel_start:], "a relationship must lead to a node '(…)'")
                return
            end = close_of(text, pos)
            if end < 0:
                self.drop(text[rel_start:], "node pattern not closed")
                return
            right = self.node(text[pos + 1:end])
            types, lo, hi = self.relationship(inner)
            edge, others = (types[0], types[1:]) if types else (None, ())
            if back and forward:
                self.drop(text[rel_start:pos], "a relationship cannot point both ways: "
                                               "read as undirected")
                self.graph.triplets.append(Triplet(left, edge, right, False, lo, hi, others))
            elif back:
                self.graph.triplets.append(Triplet(right, edge, left, True, lo, hi, others))
            else:
                self.graph.triplets.append(Triplet(left, edge, right, forward, lo, hi,
                                                   others))
            left = right
            pos = _skip_space(text, end + 1)

    def arrow(self, text: str, start: int) -> tuple[bool, str | None, bool, int] | None:
        """The relationship at ``start``, ``<-[…]->`` or a shorter form: whether it points
        back, what its brackets hold (None: it has none), whether it points forward, and
        where the text after it starts; None (dropped) when it is not one."""
        n = len(text)
        pos = start
        back = text[pos] == "<"
        if back:
            pos = _skip_space(text, pos + 1)
        if pos >= n or text[pos] != "-":
            self.drop(text[start:], "unexpected text in a pattern")
            return None
        pos = _skip_space(text, pos + 1)
        inner = None
        if pos < n and text[pos] == "[":
            close = close_of(text, pos)
            if close < 0:
                self.drop(text[start:], "relationship not closed")
                return None
            inner = text[pos + 1:close]
            pos = _skip_space(text, close + 1)
            if pos < n and text[pos] == "-":
                pos = _skip_space(text, pos + 1)
        elif pos < n and text[pos] == "-":  # -- / --> / <--
            pos = _skip_space(text, pos + 1)
        forward = pos < n and text[pos] == ">"
        if forward:
            pos = _skip_space(text, pos + 1)
        return back, inner, forward, pos

    # -- WHERE -------------------------------------------------------------------------

    def where(self, text: str) -> None:
        if nesting(text) > _MAX_NESTING:
            self.drop(text, "WHERE nested too deeply")
            return
        # A work list instead of recursion: deeply nested parentheses cannot overflow.
        todo = list(reversed(split_bool(text, "AND")))
        while todo:
            part = strip_parens(todo.pop())
            if not part:
                continue
            alternatives = split_bool(part, "OR")
            conjuncts = split_bool(part, "AND")
            if len(alternatives) > 1:
                self.disjunction(part, alternatives)
            elif len(conjuncts) > 1:
                todo.extend(reversed(conjuncts))
            else:
                self.predicate(part)

    def predicate(self, text: str) -> None:
        if _NOT.match(text):
            self.drop(text, "NOT is not supported")
            return
        exists = _EXISTS.fullmatch(text)
        if exists:
            inner = exists.group(2).strip()
            inner = re.sub(r"^MATCH\b", "", inner, flags=re.IGNORECASE).strip()
            if inner.startswith("(") and not _INLINE_WHERE.search(inner):
                self.pattern(inner)
            else:
                self.drop(text, "EXISTS is only read with a plain pattern inside")
            return
        if _XOR_NOT.search(text) or _IS_NULL.search(text):
            self.drop(text, "NOT / XOR / IS NULL are not supported")
            return
        if text.startswith("("):
            close = close_of(text, 0)
            if close > 0 and text[close + 1:].lstrip()[:1] in ("-", "<"):
                # A pattern predicate (a)-[:r]->(b) constrains like a MATCH pattern.
                self.pattern(text)
                return
        label = _LABEL_PRED.fullmatch(text)
        if label:
            var = self.identifier(label.group(1))
            names = [self.loose_name(x) for x in label.group(2).split(":")[1:]]
            if var and names and all(names):
                sym = self.graph.symbol(var)
                if sym.label is None:
                    sym.label = names[0]
                elif sym.label != names[0]:
                    self.drop(text, f"{var} already has label {sym.label!r}")
                return
        if self.chained_comparison(text):
            return
        cond = self.condition(text)
        if cond is not None:
            var, condition = cond
            self.graph.symbol(var).conditions.append(condition)

    def chained_comparison(self, text: str) -> bool:
        """``2015 <= y.year < 2020`` → two conditions on y.year."""
        ops = list(_CMP_OPS.finditer(text))
        if len(ops) != 2 or not all(op.group(0) in ("<", "<=", ">", ">=") for op in ops):
            return False
        middle = text[ops[0].end():ops[1].start()]
        if not _PROP.fullmatch(middle):
            return False
        first = self.condition(text[:ops[1].start()])
        second = self.condition(middle + text[ops[1].start():])
        for cond in (first, second):
            if cond is not None:
                self.graph.symbol(cond[0]).conditions.append(cond[1])
        return True

    def split_condition(self, text: str) -> tuple[str, str, str, str] | None:
        """(var, attribute text, operator, raw value) of ``v.a OP value`` or ``value OP v.a``."""
        m = _PROP.match(text)
        if m and (m.group(1) is None) == (m.group(4) is None):
            op = _OP.match(text, m.end())
            if op:
                return m.group(2), m.group(3), op.group(1), text[op.end():]
        last = None
        for last in _CMP_OPS.finditer(text):  # noqa: B007 - the last operator is wanted
            pass
        if last is not None and last.group(0) in _FLIP:
            right = _PROP.fullmatch(text, last.end())
            if right and (right.group(1) is None) == (right.group(4) is None):
                return right.group(2), right.group(3), _FLIP[last.group(0)], text[:last.start()]
        return None

    def condition(self, text: str) -> tuple[str, Condition] | None:
        parts = self.split_condition(text)
        if parts is None:
            self.drop(text, "condition not understood")
            return None
        var_text, attr_text, op, raw = parts
        var = self.identifier(var_text)
        attribute = self.attribute(attr_text)
        if var is None or attribute is None:
            self.drop(text, "condition not understood")
            return None
        op = " ".join(op.upper().split())
        if op in ("<>", "!="):
            self.drop(text, "inequality (<>) is not supported")
            return None
        value = self.value(raw, text_op=op in TEXT_OPERATORS)
        if value is None:
            self.drop(text, "value not understood (only literals can be compared)")
            return None
        if op == "IN":
            if not isinstance(value, tuple):
                value = (value,)
            if not value:
                self.drop(text, "empty IN list")
                return None
        elif isinstance(value, tuple):
            self.drop(text, f"a list cannot follow {op}")
            return None
        elif isinstance(value, bool) and op != "=":
            self.drop(text, "booleans can only be compared with =")
            return None
        return var, Condition(attribute, op, value)

    def disjunction(self, text: str, alternatives: list[str]) -> None:
        """`a.p = x OR a.p = y` (or IN lists) is one IN list; any other OR is dropped."""
        key, values = None, []
        for alt in alternatives:
            parts = self.split_condition(strip_parens(alt))
            if parts is None:
                break
            var, attr = self.identifier(parts[0]), self.attribute(parts[1])
            op = " ".join(parts[2].upper().split())
            if var is None or attr is None or op not in ("=", "IN") or key not in (None,
                                                                                  (var, attr)):
                break
            value = self.value(parts[3])
            if value is None or (op == "=" and isinstance(value, tuple)):
                break
            key = (var, attr)
            values += list(value) if isinstance(value, tuple) else [value]
        else:
            if key is not None and values:
                self.graph.symbol(key[0]).conditions.append(
                    Condition(key[1], "IN", tuple(dict.fromkeys(values))))
                return
        self.drop(text, "OR is only supported between equalities on one property")

    # -- RETURN ------------------------------------------------------------------------

    def returns(self, text: str) -> None:
        text = re.sub(r"^\s*+DISTINCT\b", "", text, flags=re.IGNORECASE).strip()
        items = split_top(text, ",")
        if not items:
            self.drop("RETURN", "RETURN names nothing")
            return
        item = re.split(r"\s+AS\s+", items[0], maxsplit=1, flags=re.IGNORECASE)[0]
        for token in _RETURN_TOKEN.finditer(item):
            if token.group(0).startswith("\x00S"):
                continue  # a string literal, not a name
            name = self.identifier(token.group(0))
            if name in self.graph.symbols:
                self.graph.target = name
                return
        self.drop(f"RETURN {text}", "RETURN names no node of the pattern")

    # -- driver ------------------------------------------------------------------------

    def clauses(self) -> list[tuple[str, str]]:
        text = self.m.text
        inside = None
        marks = []
        for mk in _KEYWORD.finditer(text):
            word = mk.group(1).upper()
            if word == "WITH" and re.search(r"\b(?:STARTS|ENDS)\s*$",
                                            text[max(0, mk.start() - 20):mk.start()],
                                            re.IGNORECASE):
                continue  # STARTS WITH / ENDS WITH are operators, not WITH clauses
            if inside is None:
                inside = inside_brackets(text)
            if inside[mk.start()]:
                continue  # [:associated with], (n WHERE …), EXISTS { MATCH … }
            marks.append(mk)
        out = []
        for i, mk in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            out.append((" ".join(mk.group(1).upper().split()), text[mk.end():end]))
        return out

    def run(self) -> QueryGraph:
        clauses = self.clauses()
        saw_match = False
        for index, (keyword, body) in enumerate(clauses):
            if keyword == "UNION":
                rest = " ".join(f"{k} {b}" for k, b in clauses[index:])
                self.drop(rest, "UNION: only the first query is used")
                break
            try:
                self.clause(keyword, body)
            except Exception as exc:  # noqa: BLE001 - one odd clause must not sink the query
                # Not expected to happen (the fuzz tests look for this reason), but a bug
                # in one clause must not lose the others.
                self.drop(f"{keyword} {body}", f"internal error ({type(exc).__name__})")
            saw_match = saw_match or keyword.endswith("MATCH")
        if not saw_match:
            self.graph.dropped.append(Dropped(self.raw.strip()[:200], "no MATCH clause found"))
        self.fallback_target()
        return self.graph

    def clause(self, keyword: str, body: str) -> None:
        body = body.strip()
        while body.endswith(";"):
            body = body[:-1].rstrip()
        if keyword in ("MATCH", "OPTIONAL MATCH"):
            if keyword == "OPTIONAL MATCH":
                self.drop(f"OPTIONAL MATCH {body}", "OPTIONAL MATCH read as MATCH")
            patterns = split_top(body, ",")
            if not patterns:
                self.drop(keyword, "MATCH without a pattern")
            for pattern in patterns:
                self.pattern(pattern)
        elif keyword == "WHERE":
            self.where(body)
        elif keyword == "RETURN":
            self.returns(body)
        elif keyword in ("ORDER BY", "LIMIT", "SKIP"):
            return
        elif keyword == "WITH":
            if body and not re.fullmatch(r"[\w\s,*\x00]*", body):
                self.drop(f"WITH {body}", "WITH is ignored; variables carry over")
        else:
            self.drop(f"{keyword} {body}", f"{keyword} is not supported")

    def fallback_target(self) -> None:
        if self.graph.target in self.graph.symbols or not self.graph.symbols:
            return
        variables = [v for v, s in self.graph.symbols.items() if not s.is_constant]
        pick = (variables or list(self.graph.symbols))[-1]
        self.graph.dropped.append(Dropped("RETURN", f"no usable RETURN: target set to {pick}"))
        self.graph.target = pick


def _skip_space(text: str, pos: int) -> int:
    """The first position from ``pos`` on that is not whitespace (``len(text)``: none)."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _small_int(digits: str | None) -> int | None:
    """A hop count; absurdly long digit strings are just "many" (int() refuses > 4300 digits)."""
    if digits is None:
        return None
    return int(digits) if len(digits) <= 6 else 10**6


def _number(token: str) -> int | float | None:
    if len(token) > 400:  # no meaningful literal is this long; int() refuses > 4300 digits
        return None
    if _INTEGER.fullmatch(token):
        number = int(token)
        if INT_RANGE[0] <= number <= INT_RANGE[1]:
            return number
    try:
        value = float(token)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def parse_cypher(text: str) -> QueryGraph:
    """Parse an LLM's Cypher into a query graph; never raises.

    The result always passes ``QueryGraph.validate()``; what could not be used is listed
    in ``graph.dropped`` with the reason.
    """
    try:
        graph = _Parser(text if isinstance(text, str) else str(text)).run()
        problems = graph.problems()
        if not problems:
            return graph
        reason = "parser produced an invalid query graph: " + problems[0]
    except Exception as exc:  # noqa: BLE001 - the contract is: never raise
        reason = f"parser failure ({type(exc).__name__})"
    graph = QueryGraph()
    graph.dropped.append(Dropped(str(text)[:200], reason))
    return graph

"""One Spark statement for many callers of the same statement text: the statement lifted
over a table of their parameters.

Reads of a batch eval that share their text and differ only in bound values (a BM25
search, the answers' names for display, a grounding, the links between answers) would
each be analysed and planned by Spark, and a union of them planned again. Lifted, the
statement runs once: its parameters become columns of a table ``afr_p`` (one row per
caller, ``afr_read`` its position), every part of the statement that depends on a
parameter carries ``afr_read`` along, and the rows come back tagged with their caller's
position.

The rewrite is exact or refused (``lift`` returns None, the reads then run as a union
of the separate statements). Per SELECT that depends on the caller (it names a
parameter, a dependent CTE or derived table, or holds a dependent subquery):

- its first dependent source (the *anchor*) gives the row's caller; every other
  dependent source joins it on ``afr_read``; ``afr_p`` joins right after the anchor
  where the SELECT names a parameter, and comes first (cross joined) where there is
  no anchor; ``x IN (SELECT EXPLODE(<parameters>))`` as a conjunct of WHERE becomes a
  join with the exploded, distinct values (a semi-join, as alone);
- a dependent ``x IN (subquery)`` elsewhere becomes ``(afr_read, x) IN (…)``;
- a dependent ``[NOT] EXISTS (SELECT …)`` in WHERE (under AND, OR, NOT) is lifted
  over an ``afr_p`` of its own name and gains ``afr_read`` equal to the outer row's,
  so it stays correlated per caller (EXISTS is never NULL: exact under NOT and OR);
- a ``UNION [ALL]`` as a dependent CTE, derived table or IN subquery has each branch
  lifted with ``afr_read`` first (a plain UNION then removes duplicates per caller); a
  branch that depends on no parameter runs once and is cross joined with ``afr_p``;
- GROUP BY and every window's PARTITION BY gain ``afr_read``; an aggregate without
  GROUP BY (one row alone, even over no rows) is grouped by caller and padded with a
  row of NULLs for a caller with no rows, allowed only where that is what the aggregate
  gives over no rows (SUM, AVG, MIN, MAX under NULL-keeping arithmetic and casts);
- ``ORDER BY … LIMIT n`` becomes a ROW_NUMBER per caller, kept up to n (a parameter
  or a literal); a top-level ORDER BY is kept, and the rows of a caller keep the
  statement's order when split back (the callers' rows may interleave).

Refused, when it depends on the caller: a set operation at the top, or other than
UNION, or with its own ORDER BY or LIMIT; stars, OFFSET, RIGHT/FULL/NATURAL/USING
joins; an EXISTS outside WHERE, with a LIMIT or an aggregate without GROUP BY, or whose
own tables take the name of the outer query's anchor; scalar subqueries; recursive
CTEs; the rewrite's own names; anything else this module does not know. A statement
that depends on no parameter is marked ``shared`` and left to the caller (the store
runs it as any other read).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from sqlglot import exp, parse_one
from sqlglot.errors import SqlglotError

#: The table of the callers' parameters, and its columns.
PARAMS = "afr_p"
READ = "afr_read"
PREFIX = "afr_p_"
#: Stands for the VALUES of the parameters until a group is run.
VALUES_MARK = "afr_params_values"
#: The names the rewrite and the store make up (the dialect's own afr_ names, such as
#: afr_pos of a transpiled UNNEST, are not among them): a statement naming one is refused.
_OWN_NAME = re.compile(r"afr_(p|read|rn|lim|v|pv|branch|params_values|p_\w*|"
                       r"(in|top|agg|ex|one)\d+)$")


@dataclass(frozen=True)
class Lifted:
    """A statement lifted over ``afr_p``: its text (first column ``afr_read``), the
    parameters that are its columns, and those used as a LIMIT (each caller's must be a
    non-negative integer, or the caller runs alone and gets its own error)."""

    sql: str
    params: tuple[str, ...]
    limits: tuple[str, ...]
    shared: bool  # depends on no parameter: nothing to lift


class _Refused(Exception):
    """The statement holds something this rewrite does not lift exactly."""


@dataclass
class _Context:
    dependent: set[str] = field(default_factory=set)  # CTE names whose rows depend
    params: set[str] = field(default_factory=set)
    limits: set[str] = field(default_factory=set)
    made: set[str] = field(default_factory=set)  # joins made of exploded parameters
    count: int = 0  # aliases made, for unique names

    def alias(self, stem: str) -> str:
        self.count += 1
        return f"afr_{stem}{self.count}"


@lru_cache(maxsize=256)
def lift(sql: str) -> Lifted | None:
    """The statement lifted over its callers' parameters, or None where the rewrite
    would not be exact (the statement then runs per caller)."""
    try:
        tree = parse_one(sql, read="spark")
    except SqlglotError:
        return None
    if not isinstance(tree, exp.Select) or any(
            _OWN_NAME.match(i.name.lower()) for i in tree.find_all(exp.Identifier)):
        return None
    ctx = _Context()
    try:
        lifted = _lift_statement(tree, ctx)
    except _Refused:
        return None
    if lifted is None:
        return Lifted(sql, (), (), shared=True)
    if lifted.find(exp.Placeholder):
        return None  # a parameter in a place the rewrite did not reach
    with_ = lifted.args.get("with_") or exp.With(expressions=[])
    values = exp.select("*").from_(VALUES_MARK)
    with_.set("expressions", [exp.CTE(this=values, alias=exp.TableAlias(
        this=exp.to_identifier(PARAMS))), *with_.expressions])
    lifted.set("with_", with_)
    return Lifted(lifted.sql("spark"), tuple(sorted(ctx.params)), tuple(sorted(ctx.limits)),
                  shared=False)


def _lift_statement(tree: exp.Select, ctx: _Context) -> exp.Query | None:
    """The statement with its dependent CTEs and main SELECT lifted (None: independent)."""
    with_ = tree.args.get("with_")
    if with_ is not None:
        if with_.args.get("recursive"):
            raise _Refused
        tree.set("with_", None)
        for cte in with_.expressions:
            body = _lift_query(cte.this, ctx, top=False)
            if body is not None:
                cte.set("this", body)
                ctx.dependent.add(cte.alias_or_name.lower())
    main = _lift_query(tree, ctx, top=True)
    if main is None:
        if ctx.dependent:
            raise _Refused  # a dependent CTE the main query does not read: unexpected
        if with_ is not None:
            tree.set("with_", with_)
        return None
    if with_ is not None:
        main.set("with_", with_)
    return main


def _depends(node: exp.Expression, ctx: _Context) -> bool:
    return any(isinstance(n, exp.Placeholder) or (
        isinstance(n, exp.Table) and not n.args.get("db") and n.name.lower() in ctx.dependent)
        for n in node.walk())


def _lift_query(query: exp.Expression, ctx: _Context, *, top: bool) -> exp.Query | None:
    if not _depends(query, ctx):
        return None
    if isinstance(query, exp.Union):
        return _lift_union(query, ctx)
    if not isinstance(query, exp.Select) or query.args.get("with_"):
        raise _Refused
    return _Scope(query, ctx, top).lift()


def _lift_union(union: exp.Union, ctx: _Context) -> exp.Union:
    """A UNION [ALL] whose branches are lifted, each with ``afr_read`` first: the union
    then runs per caller (a plain UNION's duplicates are those of one caller's rows). An
    independent branch is computed once and cross joined with the callers."""
    if any(union.args.get(arg) for arg in ("with_", "order", "limit", "offset")):
        raise _Refused
    for side in ("this", "expression"):
        branch = union.args[side]
        if isinstance(branch, exp.Union):
            lifted = _lift_union(branch, ctx) if _depends(branch, ctx) else \
                _for_every_caller(branch, ctx)
        elif isinstance(branch, exp.Select):
            lifted = _lift_query(branch, ctx, top=False) or _for_every_caller(branch, ctx)
        else:
            raise _Refused
        union.set(side, lifted)
    return union


def _for_every_caller(query: exp.Query, ctx: _Context) -> exp.Select:
    """An independent query's rows once per caller, ``afr_read`` first."""
    name = ctx.alias("one")
    rows = exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier(name)))
    return exp.select(exp.alias_(exp.column(READ, PARAMS), READ),
                      exp.Column(this=exp.Star(), table=exp.to_identifier(name))).from_(
        rows).join(PARAMS, join_type="CROSS")


def _own_nodes(select: exp.Select) -> list[exp.Expression]:
    """The select's own nodes, not those inside its subqueries (a subquery is listed)."""
    return list(select.walk(prune=lambda n: n is not select and isinstance(
        n, (exp.Subquery, exp.Query))))


_UNKNOWN = ("laterals", "offset", "qualify", "windows", "sort", "cluster", "distribute",
            "pivots", "connect", "prewhere", "match", "into", "kind")


class _Scope:
    """One dependent SELECT being lifted."""

    def __init__(self, select: exp.Select, ctx: _Context, top: bool,
                 params: str = PARAMS) -> None:
        if any(select.args.get(arg) for arg in _UNKNOWN) or any(
                isinstance(e, exp.Star) or (isinstance(e, exp.Column) and e.is_star)
                for e in select.expressions):
            raise _Refused
        distinct = select.args.get("distinct")
        if distinct is not None and distinct.args.get("on"):
            raise _Refused
        self.select, self.ctx, self.top = select, ctx, top
        # what afr_p is called here: an EXISTS subquery's own is not the outer query's
        self.params = params
        self.anchor: str | None = None
        self.anchor_join: exp.Join | None = None  # None: the anchor is the FROM item
        self.names: set[str] = set()  # the FROM items' and joins' names
        self.uses_params = False

    def lift(self) -> exp.Select:
        select = self.select
        self._conjuncts_to_joins()
        sources = self._sources()
        self.names = {name.lower() for name, _, _ in sources}
        self.anchor, self.anchor_join = next(
            ((name, join) for name, dep, join in sources if dep), (None, None))
        self._join_on_anchor(sources)
        subqueries, exists = self._lift_subqueries()
        self._bind_params()
        self._join_params()
        for in_ in subqueries:
            in_.set("this", exp.Tuple(expressions=[_read(self.anchor), in_.this]))
        for inner in exists:
            self._correlate(inner)
        self._partition()
        select.set("expressions", [exp.alias_(_read(self.anchor), READ),
                                   *select.expressions])
        padded = self._group()
        if select.args.get("limit") is not None:
            if padded:
                raise _Refused
            return self._limited(self._output_names())
        if select.args.get("order") is not None and not self.top:
            select.set("order", None)  # no meaning without a LIMIT, none for the caller
        return self._padded(self._output_names()) if padded else select

    def _sources(self) -> list[tuple[str, bool, exp.Join | None]]:
        """Each FROM item and join: its name, whether it depends on the caller, its
        join (None for the FROM item); derived tables lifted on the way."""
        select = self.select
        out: list[tuple[str, bool, exp.Join | None]] = []
        from_ = select.args.get("from_")
        items = ([(from_.this, None)] if from_ is not None else []) + [
            (j.this, j) for j in select.args.get("joins") or []]
        for source, join in items:
            if join is not None and (join.args.get("using") or join.side in ("RIGHT", "FULL")
                                     or join.kind not in ("", "INNER", "CROSS", "SEMI",
                                                          "ANTI", "OUTER")
                                     or join.args.get("method")):
                raise _Refused
            if isinstance(source, exp.Table):
                dep = not source.args.get("db") and source.name.lower() in self.ctx.dependent
            elif isinstance(source, exp.Subquery) and source.alias in self.ctx.made:
                dep = True
            elif isinstance(source, exp.Subquery) and source.alias:
                inner = _lift_query(source.this, self.ctx, top=False)
                dep = inner is not None
                if dep:
                    source.set("this", inner)
            else:
                raise _Refused
            out.append((source.alias_or_name, dep, join))
        return out

    def _join_params(self) -> None:
        """``afr_p`` joined right after the anchor (each row's caller), or first where
        there is none, so that the join conditions after it can name the values."""
        select = self.select
        table = exp.to_table(PARAMS)
        if self.params != PARAMS:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(self.params)))
        joins = list(select.args.get("joins") or [])
        if self.anchor is None:
            self.anchor = self.params
            from_ = select.args.get("from_")
            if from_ is not None:
                joins.insert(0, exp.Join(this=from_.this, kind="CROSS"))
            select.set("from_", exp.From(this=table))
        elif self.uses_params:
            at = 0 if self.anchor_join is None else 1 + next(
                i for i, join in enumerate(joins) if join is self.anchor_join)
            joins.insert(at, exp.Join(this=table, on=_eq(self.params, self.anchor)))
        select.set("joins", joins or None)

    def _join_on_anchor(self, sources: list[tuple[str, bool, exp.Join | None]]) -> None:
        seen_anchor = False
        for name, dep, join in sources:
            if not dep:
                continue
            if not seen_anchor:
                seen_anchor = True
                if join is not None and join.side:  # a LEFT JOIN's right side
                    raise _Refused
                continue
            assert join is not None
            on = join.args.get("on")
            join.set("on", _eq(name, self.anchor) if on is None else exp.and_(
                on, _eq(name, self.anchor)))
            if join.kind == "CROSS":
                join.set("kind", None)

    def _conjuncts_to_joins(self) -> None:
        """``x IN (SELECT EXPLODE(<parameters>))`` ANDed into WHERE: a join with the
        callers' distinct values (NULLs and an empty list match nothing, as alone)."""
        where = self.select.args.get("where")
        if where is None:
            return
        kept = []
        for cond in where.this.flatten() if isinstance(where.this, exp.And) else [where.this]:
            values = _param_explode(cond)
            if values is None:
                kept.append(cond)
                continue
            name = self.ctx.alias("in")
            values = self._bind(values)
            rows = (exp.select(exp.alias_(exp.column(READ, PARAMS), READ),
                               exp.alias_(exp.Explode(this=values), "afr_v"))
                    .from_(PARAMS).distinct())
            self.select.join(exp.Subquery(this=rows, alias=exp.TableAlias(
                this=exp.to_identifier(name))), on=exp.EQ(
                this=cond.this, expression=exp.column("afr_v", name)), copy=False)
            self.ctx.made.add(name)  # the join is a dependent source of its own
        self.select.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)

    def _lift_subqueries(self) -> tuple[list[exp.In], list[_Scope]]:
        """Dependent IN and EXISTS subqueries, lifted (an IN's left side and an EXISTS's
        caller condition are added once the anchor is known)."""
        ins, exists = [], []
        for node in _own_nodes(self.select):
            if node is self.select:
                continue
            if isinstance(node, exp.Query) and not isinstance(node, exp.Subquery):
                # a query not in parentheses of its own (EXISTS)
                if _depends(node, self.ctx):
                    exists.append(self._lift_exists(node))
                continue
            if not isinstance(node, exp.Subquery):
                continue
            if isinstance(node.parent, (exp.Join, exp.From)):
                continue  # a derived table: lifted as a source
            inner = _lift_query(node.this, self.ctx, top=False)
            if inner is None:
                continue
            if not isinstance(node.parent, exp.In) or node.arg_key != "query":
                raise _Refused
            node.set("this", inner)
            ins.append(node.parent)
        return ins, exists

    def _lift_exists(self, query: exp.Query) -> _Scope:
        """A dependent [NOT] EXISTS (SELECT …) of WHERE (under AND, OR, NOT), lifted over
        an ``afr_p`` of its own name."""
        exists, node = query.parent, query.parent
        while isinstance(node.parent, (exp.And, exp.Or, exp.Not, exp.Paren)):
            node = node.parent
        if not (isinstance(exists, exp.Exists) and isinstance(query, exp.Select)
                and isinstance(node.parent, exp.Where) and node.parent.parent is self.select
                and not query.args.get("with_")):
            raise _Refused
        inner = _Scope(query, self.ctx, top=False, params=self.ctx.alias("ex"))
        if inner.lift() is not query:
            raise _Refused  # a LIMIT or a padded aggregate: a query of its own
        return inner

    def _correlate(self, inner: _Scope) -> None:
        """The EXISTS subquery's rows are those of the outer row's caller: its truth is
        what it is alone, for each caller (EXISTS is never NULL, so under NOT or OR too)."""
        assert self.anchor is not None and inner.anchor is not None
        if self.anchor.lower() in inner.names:
            raise _Refused  # there, the anchor's name is the subquery's own table
        inner.select.where(_eq(inner.anchor, self.anchor), copy=False)

    def _bind_params(self) -> None:
        for node in _own_nodes(self.select):
            if isinstance(node, exp.Placeholder):
                if isinstance(node.parent, exp.Limit):
                    self.ctx.limits.add(node.name)
                self.uses_params = True
                node.replace(self._column(node))

    def _bind(self, node: exp.Expression) -> exp.Expression:
        """``node`` with each parameter as its column of ``afr_p`` by its own name."""
        if isinstance(node, exp.Placeholder):
            return self._column(node, PARAMS)
        for ph in list(node.find_all(exp.Placeholder)):
            ph.replace(self._column(ph, PARAMS))
        return node

    def _column(self, placeholder: exp.Placeholder, table: str | None = None) -> exp.Column:
        if not placeholder.name:
            raise _Refused  # a positional ? has no name to be a column
        self.ctx.params.add(placeholder.name)
        table = table or self.params
        return exp.column(PREFIX + placeholder.name, table)

    def _partition(self) -> None:
        for node in _own_nodes(self.select):
            if isinstance(node, exp.Window):
                node.set("partition_by", [_read(self.anchor),
                                          *(node.args.get("partition_by") or [])])

    def _output_names(self) -> list[str]:
        names = [e.alias_or_name for e in self.select.expressions[1:]]
        if not all(names) or len({n.lower() for n in names}) < len(names):
            raise _Refused
        return names

    def _group(self) -> bool:
        """GROUP BY per caller; True when an aggregate without GROUP BY must be padded."""
        select = self.select
        group = select.args.get("group")
        params = [exp.column(PREFIX + p, self.params)
                  for p in sorted(_own_params(select, self.params))]
        if group is not None:
            group.set("expressions", [_read(self.anchor), *params, *group.expressions])
            return False
        if not any(isinstance(n, exp.AggFunc) and not n.find_ancestor(exp.Window)
                   for n in _own_nodes(select)):
            return False
        if select.args.get("having") or not all(
                _null_over_no_rows(e) for e in select.expressions[1:]):
            raise _Refused
        select.group_by(_read(self.anchor), *params, copy=False)
        return True

    def _limited(self, names: list[str]) -> exp.Select:
        """``ORDER BY … LIMIT n`` as the first n rows of each caller."""
        select = self.select
        if select.args.get("distinct"):
            raise _Refused  # ROW_NUMBER would count rows before DISTINCT removes any
        limit = select.args["limit"].expression
        order = select.args.get("order")
        keys = order.expressions if order is not None else [_read(self.anchor)]
        number = exp.Window(this=exp.RowNumber(), partition_by=[_read(self.anchor)],
                            order=exp.Order(expressions=keys))
        if not (isinstance(limit, exp.Literal) or (
                isinstance(limit, exp.Column) and limit.table == self.params)):
            raise _Refused
        select.set("limit", None)
        select.set("order", None)
        select.select(exp.alias_(number, "afr_rn"), exp.alias_(limit, "afr_lim"), copy=False)
        name = self.ctx.alias("top")
        outer = exp.select(READ, *(exp.column(n) for n in names)).from_(exp.Subquery(
            this=select, alias=exp.TableAlias(this=exp.to_identifier(name)))).where(
            "afr_rn <= afr_lim")
        return outer.order_by("afr_rn") if self.top else outer

    def _padded(self, names: list[str]) -> exp.Select:
        """An aggregate without GROUP BY: one row per caller, NULLs for a caller whose
        rows were none (what the aggregate gives over no rows, checked before)."""
        name = self.ctx.alias("agg")
        return exp.select(exp.alias_(exp.column(READ, PARAMS), READ),
                          *(exp.column(n, name) for n in names)).from_(PARAMS).join(
            exp.Subquery(this=self.select, alias=exp.TableAlias(
                this=exp.to_identifier(name))), on=_eq(name, PARAMS), join_type="LEFT")


def _own_params(select: exp.Select, params: str) -> set[str]:
    return {n.name[len(PREFIX):] for n in _own_nodes(select)
            if isinstance(n, exp.Column) and n.table == params and n.name.startswith(PREFIX)}


def _param_explode(cond: exp.Expression) -> exp.Expression | None:
    """The values of ``x IN (SELECT EXPLODE(v))`` where v names parameters only."""
    query = cond.args.get("query") if isinstance(cond, exp.In) else None
    if query is None or isinstance(cond.this, exp.Tuple):
        return None
    inner = query.this
    if not isinstance(inner, exp.Select) or len(inner.expressions) != 1 or any(
            inner.args.get(a) for a in inner.args if a != "expressions"):
        return None
    explode = inner.expressions[0].unalias()
    if type(explode) is not exp.Explode:
        return None
    values = explode.this
    if values.find(exp.Column, exp.Query) or not values.find(exp.Placeholder):
        return None
    return values.copy()


_NULL_KEEPING = (exp.Cast, exp.TryCast, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Paren,
                 exp.Neg, exp.Ln, exp.Floor, exp.Alias, exp.Literal, exp.DataType)
_NULL_OVER_NO_ROWS = (exp.Sum, exp.Avg, exp.Min, exp.Max)


def _null_over_no_rows(expression: exp.Expression) -> bool:
    """Whether the expression is NULL over no rows: its aggregates are, and what is
    around them keeps a NULL (a COUNT, a COALESCE or a bare literal would not)."""
    def walk(node: exp.Expression) -> bool:
        if isinstance(node, _NULL_OVER_NO_ROWS):
            return True
        if not isinstance(node, _NULL_KEEPING) or isinstance(node, exp.Literal):
            return False
        parts = [c for c in node.iter_expressions() if not isinstance(c, (
            exp.DataType, exp.Identifier))]
        return any(walk(c) for c in parts) and all(
            walk(c) or isinstance(c, exp.Literal) for c in parts)
    return walk(expression)


def _read(table: str | None) -> exp.Column:
    return exp.column(READ, table)


def _eq(left: str, right: str | None) -> exp.EQ:
    return exp.EQ(this=_read(left), expression=_read(right))

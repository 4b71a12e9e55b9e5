"""PostgreSQL: an ingest batch's rows as one JSON document a table, and the tables a batch
writes together in one statement (SCALE-6).

Why: on this machine a round trip to PostgreSQL costs the worker 0.15-0.3 ms of CPU (in
the kernel, before any work), and psycopg's dumping of one array a column (each JSON
value dumped on its own, each element's dumper looked up) cost more than the insert
itself: a 26-post batch's five INSERTs were 5 ms of its 20. Here each table's rows go
as one JSON text (encoded by :mod:`pbp.store.json_text`, orjson, in one call) that the
server unpacks with ``jsonb_array_elements``; and the rows that depend on each other go
in one statement, through data-modifying CTEs: a post and its first revision (the
revision names the post's new id), a roll and the post it was rolled for (DICE-3),
the declarations beside them. Five statements a batch became two, then one: a batch
that takes its new posts' ids with its live rounds (:mod:`pbp.store.ingest_reads`) writes
the posts and their revisions with the rest (:func:`insert_rolled`).

The values stored are those the ORM would store: each column's Python-side default for
a column the rows leave out, aware datetimes as naive UTC (:class:`UTCDateTime`), JSON
columns as the JSON value itself (None as JSON ``null``, as SQLAlchemy writes it), every
other value as its text cast to the column's type (a string is never cast to a sized
type, so a value too long fails as it did). A plan is made once per table and key set;
a column whose default is an SQL expression, or a type this module does not know, leaves
the caller's way in charge (None).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC
from itertools import repeat
from typing import Any

from sqlalchemy import JSON, Boolean, Float, Integer, String, Table, Text

from ..store import json_text
from ..store import models as m
from ..store.types import UTCDateTime, last_kept

#: per column, in the statement's order: (key, how to make its JSON value, default or _GIVEN)
_Plan = list[tuple[str, Any, Any]]
_GIVEN = object()
_PLANS: dict[tuple[Table, frozenset[str]], tuple[_Plan, str, str] | None] = {}


def plan(table: Table, keys: frozenset[str], dialect: Any) -> tuple[_Plan, str, str] | None:
    """(the plan, the column list, the SELECT list over ``e``, one element of the
    document) for rows of *keys*, or None when this module cannot write them."""
    key = (table, keys)
    if key in _PLANS:
        return _PLANS[key]
    out: _Plan = []
    selects: list[str] = []
    quote = dialect.identifier_preparer.quote
    written = written_columns(table, keys, _GIVEN)
    if written is None:
        _PLANS[key] = None
        return None
    for col, default in written:
        kind = col.type
        index = len(out)
        if isinstance(kind, UTCDateTime):
            convert: Any = _naive_utc
            selects.append(f"(e->>{index})::{kind.impl_instance.compile(dialect=dialect)}")
        elif isinstance(kind, JSON):
            convert = None
            compiled = kind.dialect_impl(dialect).compile(dialect=dialect)
            selects.append(f"e->{index}" if compiled == "JSONB" else f"(e->{index})::{compiled}")
        elif isinstance(kind, String | Text):
            convert = None
            selects.append(f"e->>{index}")   # never cast to VARCHAR(n): that would cut it
        elif isinstance(kind, Integer | Boolean | Float):
            convert = None
            selects.append(f"(e->>{index})::{kind.compile(dialect=dialect)}")
        else:   # a type decorator or a type not known here: SQLAlchemy's way
            _PLANS[key] = None
            return None
        out.append((col.key, convert, default))
    names = ", ".join(quote(table.c[k].name) for k, _, _ in out)
    made = _PLANS[key] = (out, names, ", ".join(selects))
    return made


def written_columns(table: Table, keys: frozenset[str], given: Any
                    ) -> list[tuple[Any, Any]] | None:
    """The columns an INSERT of rows holding *keys* names, in the table's order, each with
    *given* (the rows hold it) or its Python-side default (the rows leave it out, as
    ``table.insert()`` would fill it); a server default, an autoincrement key or NULL is
    left to the database. None when a left-out column's default is an SQL expression or a
    sequence (SQLAlchemy's way then)."""
    out: list[tuple[Any, Any]] = []
    for col in table.columns:
        if col.key in keys:
            out.append((col, given))
        elif col.default is not None and not col.primary_key:
            if not (col.default.is_callable or col.default.is_scalar):
                return None
            out.append((col, col.default))
    return out


def _utc_text(value: Any) -> Any:
    """An aware datetime as naive UTC text, as :class:`UTCDateTime` stores it (a naive one
    is refused there, and here)."""
    if value is None:
        return None
    if value.tzinfo is UTC:   # the usual: no conversion to make
        return value.replace(tzinfo=None).isoformat()
    return UTCDateTime().process_bind_param(value, None).isoformat()  # type: ignore[union-attr]


#: :func:`_utc_text`, the same time object converted once (most are the batch's ``now``)
_naive_utc = last_kept(_utc_text)


def row_function(plan: _Plan, given: Any, *, tail: bool = False) -> Any:
    """A plan's row values as one function written for *plan* (column entries: key,
    processor or None, default or *given*): ``row["a"]``,
    ``p1(row["b"])``, ``d2(None)``... in one tuple display, as dataclasses and SQLAlchemy
    write their own per-class code. Why (SCALE-6): the loop over a plan (unpacking each
    column's entry, testing its default) was most of the cost of a row, and an ingest batch
    makes some 150 rows; a test holds it equal to :func:`pbp.rounds.bulk._values`. With
    *tail*, a list (JSON arrays) with the tail's values after the row's."""
    if not plan:
        return (lambda _row, more: list(more)) if tail else (lambda _row: ())
    names: dict[str, Any] = {}
    parts = []
    for i, (key, processor, default) in enumerate(plan):
        if default is given:
            expr = f"row[{key!r}]"
        else:
            names[f"d{i}"] = default.arg
            expr = f"d{i}(None)" if default.is_callable else f"d{i}"
        if processor is not None:
            names[f"p{i}"] = processor
            expr = f"p{i}({expr})"
        parts.append(expr)
    if tail:
        exec(f"def values(row, more):\n    return [{', '.join(parts)}, *more]\n", names)   # noqa: S102
    else:
        exec(f"def values(row):\n    return ({', '.join(parts)},)\n", names)   # noqa: S102
    return names["values"]


def document(out: _Plan, rows: Sequence[dict[str, Any]],
             tail: Sequence[Sequence[Any]] | None = None) -> str:
    """The rows as one JSON array of arrays, each in the plan's column order, then the
    row's *tail* values (the plan's own function: :func:`row_function`)."""
    made = _FUNCTIONS.get(id(out))
    if made is None or made[0] is not out:
        made = _FUNCTIONS[id(out)] = (out, row_function(out, _GIVEN, tail=True))
    function = made[1]
    return json_text.dumps([function(row, more) for row, more in
                            zip(rows, tail if tail is not None else repeat(()), strict=False)])


#: each plan's function, by the plan's identity (plans are kept for the process)
_FUNCTIONS: dict[int, tuple[_Plan, Any]] = {}


class Part:
    """One table's INSERT in a statement: its column list, SELECT list over ``e`` (an element
    of its document) and document; *tail*'s values follow each row's, read from element
    ``width`` on (what the caller joins another part's new rows on)."""

    def __init__(self, table: Table, names: str, selects: str, doc: str, width: int) -> None:
        self.table, self.names, self.selects, self.doc, self.width = table, names, selects, doc, width

    def sql(self, param: str, dialect: Any, *, link: tuple[str, str, str] | None = None,
            returning: Sequence[str] = ()) -> str:
        """``INSERT ... SELECT ... FROM jsonb_array_elements(%(param)s::jsonb) AS e``;
        *link* (column, its expression, a join clause) fills one more column from another
        part's new rows (``JOIN r ON ...``)."""
        quote = dialect.identifier_preparer.quote
        names, selects, join = self.names, self.selects, ""
        if link is not None:
            names, selects, join = f"{quote(link[0])}, {names}", f"{link[1]}, {selects}", f" {link[2]}"
        back = ""
        if returning:
            back = " RETURNING " + ", ".join(quote(self.table.c[c].name) for c in returning)
        return (f"INSERT INTO {dialect.identifier_preparer.format_table(self.table)} ({names}) "
                f"SELECT {selects} FROM jsonb_array_elements(%({param})s::jsonb) AS e{join}{back}")


def part(table: Table, rows: Sequence[dict[str, Any]], dialect: Any,
         tail: Sequence[Sequence[Any]] | None = None) -> Part | None:
    """The :class:`Part` of *rows* (all holding the same keys: None when they do not, when
    there are none, or when the plan says no)."""
    if not rows:
        return None
    keys = frozenset(rows[0])
    if any(frozenset(r) != keys for r in rows[1:]):
        return None
    made = plan(table, keys, dialect)
    if made is None:
        return None
    out, names, selects = made
    return Part(table, names, selects, document(out, rows, tail), len(out))


def insert_posts(connection: Any, posts: Sequence[dict[str, Any]],
                 revisions: Sequence[tuple[str, dict[str, Any]]]) -> list[Any] | None:
    """New posts and their revisions ((the post's platform id, the revision's columns), in
    the thread of every post) in one statement; returns (id, platform_id) of each post, or
    None when this module cannot write them (the caller's way then)."""
    dialect = connection.dialect
    p = part(m.Post.__table__, posts, dialect)
    r = part(m.PostRevision.__table__, [c for _, c in revisions], dialect,
             [(pid,) for pid, _ in revisions])
    if p is None or (revisions and r is None):
        return None
    sql = f"WITH p AS ({p.sql('posts', dialect, returning=('id', 'platform_id'))})"
    params = {"posts": p.doc}
    if r is not None:
        sql += (f", r AS ({r.sql('revisions', dialect, link=('post_id', 'p.id', f'JOIN p ON p.platform_id = e->>{r.width}'))})")
        params["revisions"] = r.doc
    return list(connection.exec_driver_sql(sql + " SELECT id, platform_id FROM p", params))


def insert_rolled(connection: Any, rolls: Sequence[dict[str, Any]],
                  roll_posts: Sequence[tuple[int, int, dict[str, Any]]],
                  declarations: Sequence[dict[str, Any]], posts: Sequence[dict[str, Any]] = (),
                  revisions: Sequence[dict[str, Any]] = ()) -> bool:
    """A batch's rolls, the post each was rolled for ((round id, roll index, the roll post's
    columns but its roll id)) and its declarations, in one statement, with the new posts
    they name and their revisions (every id given: taken from the sequence); False
    (nothing written) when this module cannot write them."""
    dialect = connection.dialect
    parts = {"new_posts": part(m.Post.__table__, posts, dialect),
             "new_revisions": part(m.PostRevision.__table__, revisions, dialect),
             "rolls": part(m.RollRecord.__table__, rolls, dialect),
             "roll_posts": part(m.RollPost.__table__, [c for _, _, c in roll_posts], dialect,
                                [(rd, ix) for rd, ix, _ in roll_posts]),
             "declarations": part(m.Declaration.__table__, declarations, dialect)}
    given = {"new_posts": posts, "new_revisions": revisions, "rolls": rolls,
             "roll_posts": roll_posts, "declarations": declarations}
    if any(given[k] and parts[k] is None for k in parts) or (roll_posts and not rolls):
        return False
    ctes: list[str] = []
    params: dict[str, str] = {}
    for name, made in parts.items():
        if made is None:
            continue
        params[name] = made.doc
        if name == "roll_posts":
            w = made.width
            ctes.append(made.sql(name, dialect, link=(
                "roll_id", "r.id", f"JOIN r ON r.round_id = (e->>{w})::integer "
                                   f"AND r.roll_index = (e->>{w + 1})::integer")))
        elif name == "rolls":
            ctes.append(made.sql(name, dialect, returning=("id", "round_id", "roll_index")))
        else:
            ctes.append(made.sql(name, dialect))
    if not ctes:
        return True
    names = ["r" if k == "rolls" else k for k in params]
    *first, last = ctes
    sql = ", ".join(f"{n} AS ({c})" for n, c in zip(names, first, strict=False))
    connection.exec_driver_sql((f"WITH {sql} " if first else "") + last, params)
    return True

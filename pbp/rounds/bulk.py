"""Rows an ingest batch writes in bulk, not through the ORM's unit of work (SCALE-6).

Why: the unit of work writes each new row with a statement of its own on SQLite (it wants
every primary key back, in order, and SQLite's RETURNING cannot promise the order), and
spends more time deciding what to write than writing it. A batch's declarations and rolls
are plain :class:`Row` objects, never in the session: their column values go in with one
``INSERT ... executemany`` per table at the batch's end.

Nothing is hidden from a reader in the meantime: like autoflush, the pending rows are
written before the session runs any other statement (the ``do_orm_execute`` hook), so a
query in the batch sees every declaration and roll made before it. The rolls' ids are
then read back by (round, index), which is unique, to keep each roll's post beside it
(:class:`~pbp.store.models.RollPost`, DICE-3). What is written is exactly what the unit of
work would have written: the rolls are still immutable (no path updates them) and a
clash (a unique constraint) raises :class:`~sqlalchemy.exc.IntegrityError` as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from sqlalchemy import (
    Insert,
    Table,
    TypeDecorator,
    bindparam,
    event,
    func,
    insert,
    inspect,
    select,
    tuple_,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import ORMExecuteState, Session

from ..store import models as m
from . import bulk_pg
from .bulk_sqlite import quicker

#: ``session.info`` key of the running batch's pending rows
KEY = "pbp.bulk"


class Row:
    """A new row of :attr:`model` made in a batch: its column values as plain attributes.

    Why not the model itself: an ORM object routes every attribute set and read through
    its instrumentation (about 2 us a set), and a batch's declarations and rolls are made
    only to be inserted in bulk, never added to the session. A :class:`Row` reads like the
    new ORM object it stands for (a column never set reads None) and nothing else."""

    model: ClassVar[Any]
    keys: ClassVar[dict[str, str]]   # attribute -> column key

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __getattr__(self, name: str) -> Any:   # only for attributes never set
        if name in self.keys:
            return None
        raise AttributeError(f"{self.model.__name__} row has no {name!r}")


_ROWS: dict[Any, type[Row]] = {}


def new_row(model: Any, **values: Any) -> Any:
    """A :class:`Row` of *model* holding *values* (typed Any: it stands in for the model)."""
    kind = _ROWS.get(model)
    if kind is None:
        keys = {a.key: a.columns[0].key for a in inspect(model).column_attrs}
        kind = _ROWS[model] = type(f"{model.__name__}Row", (Row,), {"model": model, "keys": keys})
    return kind(**values)


def columns(obj: Any) -> dict[str, Any]:
    """The column values set on a transient ORM object or a :class:`Row`, by column key
    (those it leaves unset get the table's defaults)."""
    state = obj.__dict__
    if isinstance(obj, Row):
        keys = obj.keys
        return {keys[k]: v for k, v in state.items() if k != "id" and k in keys}
    return {a.columns[0].key: state[a.key] for a in inspect(type(obj)).column_attrs
            if a.key in state and a.key != "id"}


def insert_rows(session: Session, model: Any, rows: Sequence[dict[str, Any]],
                returning: Sequence[str] = ()) -> list[Any]:
    """INSERT *rows* into *model*'s table on the session's connection, the rows of one set
    of keys together (the columns a row leaves out take their defaults); returns the
    *returning* columns of every row, in no particular order (none on SQLite when
    *returning* is empty).

    With RETURNING (or the primary key, when *returning* is empty) SQLAlchemy sends a
    page of rows as one multi-row INSERT on both SQLite and PostgreSQL ("insertmanyvalues");
    without it psycopg sends a message per row."""
    table = model.__table__
    cols = [table.c[c] for c in returning] or list(table.primary_key.columns)
    connection = session.connection()
    # SQLite: rows nobody reads back go through the driver's own executemany (SCALE-6:
    # the multi-row VALUES with RETURNING is built and flattened in Python, row by row)
    batched = connection.dialect.insert_executemany_returning and (
        bool(returning) or connection.dialect.name != "sqlite")
    groups: dict[frozenset[str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(frozenset(row), []).append(row)
    out: list[Any] = []
    unnest = connection.dialect.name == "postgresql"
    sqlite = connection.dialect.name == "sqlite"
    for keys, group in groups.items():
        if unnest:
            stmt = _unnest_insert(table, tuple(sorted(keys)), tuple(c.key for c in cols))
            out.extend(connection.execute(stmt, {k: [row[k] for row in group] for k in keys}))
        elif sqlite and (batched or not returning) and (
                plain := _plain_insert(table, keys, connection.dialect)) is not None:
            sql, plan, made = plain
            values = list(map(made, group))
            if returning:   # multi-row VALUES ... RETURNING, a page at a time
                out.extend(_returning(connection, sql, len(plan), values, cols))
            else:           # nothing to read back: the driver's executemany
                connection.exec_driver_sql(sql, values)
        elif batched:
            out.extend(connection.execute(table.insert().returning(*cols), group))
        else:   # SQL-expression defaults, or an SQLite older than 3.35
            connection.execute(table.insert(), group)
    return out


#: bound values in one SQLite statement: the smallest limit (999, before SQLite 3.32)
_SQLITE_VARIABLES = 999


def _returning(connection: Any, sql: str, width: int, values: list[tuple[Any, ...]],
               cols: Sequence[Any]) -> list[Any]:
    """SQLite: *values* inserted by pages of multi-row ``VALUES (?, ...), (?, ...)``, the
    *cols* of each row returned (in no particular order: SQLite does not promise one)."""
    head, one = sql.rsplit(" VALUES ", 1)
    names = ", ".join(connection.dialect.identifier_preparer.quote(c.name) for c in cols)
    page = max(1, _SQLITE_VARIABLES // width)
    out: list[Any] = []
    for start in range(0, len(values), page):
        rows = values[start:start + page]
        flat = tuple(v for row in rows for v in row)
        out.extend(connection.exec_driver_sql(
            f"{head} VALUES {', '.join([one] * len(rows))} RETURNING {names}", flat).all())
    return out


#: per column, in the statement's order: (key, processor or None, default or _GIVEN)
_Plan = list[tuple[str, Any, Any]]
_GIVEN = object()
_PLAIN: dict[tuple[Table, frozenset[str]], tuple[str, _Plan, Any] | None] = {}


def _plain_insert(table: Table, keys: frozenset[str], dialect: Any
                  ) -> tuple[str, _Plan, Any] | None:
    """The driver's own ``INSERT ... VALUES (?, ...)`` for rows of *keys*, and how to make
    each row's values: the dialect's bind processor of each column (JSON, datetimes), and
    the Python-side default of each column the rows leave out, as ``table.insert()`` would.

    Why (SCALE-6): SQLAlchemy's executemany builds a parameter dict per row through the
    compiled statement's ``construct_params`` before processing it, a tenth of an ingest
    batch on SQLite; here a row is one tuple, processed by the same functions, made by a
    function written for the plan (:func:`pbp.rounds.bulk_pg.row_function`). None when a left-out column's
    default is an SQL expression or a sequence (SQLAlchemy's way then)."""
    if (table, keys) in _PLAIN:
        return _PLAIN[(table, keys)]
    plan: _Plan = []
    written = bulk_pg.written_columns(table, keys, _GIVEN)
    if written is None:
        _PLAIN[(table, keys)] = None
        return None
    for col, default in written:
        processor = quicker(col.type, col.type.dialect_impl(dialect).bind_processor(dialect),
                             dialect)
        plan.append((col.key, processor, default))
    quote = dialect.identifier_preparer.quote
    names = ", ".join(quote(table.c[k].name) for k, _, _ in plan)
    sql = (f"INSERT INTO {dialect.identifier_preparer.format_table(table)} ({names}) "
           f"VALUES ({', '.join('?' for _ in plan)})")
    made = _PLAIN[(table, keys)] = (sql, plan, bulk_pg.row_function(plan, _GIVEN))
    return made


def _values(plan: _Plan, row: dict[str, Any]) -> tuple[Any, ...]:
    """The reference: *row*'s values in the plan's order, each column's default filled in
    and its processor applied (what :func:`pbp.rounds.bulk_pg.row_function` writes out)."""
    out = []
    for key, processor, default in plan:
        if default is _GIVEN:
            value = row[key]
        elif default.is_callable:
            value = default.arg(None)   # SQLAlchemy's wrapper of the model's callable
        else:
            value = default.arg
        out.append(processor(value) if processor is not None else value)
    return tuple(out)


class _Binary(list):   # type: ignore[type-arg]
    """A column's values, sent as a binary array: psycopg's text format quotes and escapes
    each value (JSON above all: seven times the binary's cost, measured)."""


try:   # registered at import, before any connection copies psycopg's adapters
    from psycopg import adapters as _adapters
    from psycopg.types.array import ListBinaryDumper as _ListBinaryDumper
    _adapters.register_dumper(_Binary, _ListBinaryDumper)
except ImportError:   # pragma: no cover - SQLite only; a _Binary would then be a plain list
    pass


class _Arrays(TypeDecorator):   # type: ignore[type-arg]
    """An ARRAY whose bound value goes as :class:`_Binary`, after the dialect's own
    processing of its items (JSON wrapped for psycopg). A TypeDecorator, not an ARRAY
    subclass: the dialect replaces an ARRAY by its own implementation, whose processor
    returns a plain list (sent as text, as a benchmark's profile showed)."""

    impl = ARRAY
    cache_ok = True

    def bind_processor(self, dialect: Any) -> Any:
        inner = self.impl_instance.dialect_impl(dialect).bind_processor(dialect)
        return lambda value: _Binary(inner(value) if inner is not None else value)


_UNNEST: dict[tuple[Table, tuple[str, ...], tuple[str, ...]], Insert] = {}


def _unnest_insert(table: Table, keys: tuple[str, ...], returning: tuple[str, ...]) -> Insert:
    """``INSERT INTO t (keys) SELECT * FROM unnest(%(k)s::type[], ...) RETURNING ...``: one
    array a column, so the SQL text is the same for 1 row and for 300 (PostgreSQL).

    Why: SQLAlchemy's multi-row VALUES writes a different, long text per batch size, and
    psycopg converts a text it has not cached (long ones never are) on every execute; with
    one text a table, psycopg's cache and its prepared statements both apply."""
    key = (table, keys, returning)
    stmt = _UNNEST.get(key)
    if stmt is None:
        arrays = [bindparam(k, type_=_Arrays(table.c[k].type, dimensions=1)) for k in keys]
        rows = func.unnest(*arrays).table_valued(*keys).render_derived()
        stmt = _UNNEST[key] = insert(table).from_select(list(keys), select(*rows.c)).returning(
            *(table.c[c] for c in returning))
    return stmt


class Pending:
    """Declarations and rolls made in a batch, waiting for their bulk insert."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.declarations: list[Any] = []   # Declaration rows
        self.rolls: list[tuple[Any, dict[str, Any] | None]] = []   # RollRecord row, its post
        self.posts: list[Any] = []   # Post rows, their ids taken (their revisions with them)
        self._writing = False

    def write(self) -> None:
        """Insert every pending row now (one statement per table and key set; the posts
        first: the other rows name them)."""
        if self._writing or not (self.declarations or self.rolls or self.posts):
            return
        self._writing = True
        try:
            decls, rolls, posts = self.declarations, self.rolls, self.posts
            self.declarations, self.rolls, self.posts = [], [], []
            session = self.session
            connection = session.connection()
            post_rows = [{**columns(p), "id": p.id} for p in posts]
            revisions = [{**columns(r), "post_id": p.id} for p in posts for r in p.revisions]
            if connection.dialect.name == "postgresql" and bulk_pg.insert_rolled(
                    connection, [columns(r) for r, _ in rolls],
                    [(r.round_id, r.roll_index, post) for r, post in rolls if post is not None],
                    [columns(d) for d in decls], post_rows, revisions):
                return   # one statement (pbp.rounds.bulk_pg)
            if post_rows:
                insert_rows(session, m.Post, post_rows)
                insert_rows(session, m.PostRevision, revisions)
            if rolls and connection.dialect.name == "sqlite" and _linked_on_sqlite(
                    connection, session, rolls):
                rolls = []
            if rolls:
                made = insert_rows(session, m.RollRecord, [columns(r) for r, _ in rolls],
                                   ("id", "round_id", "roll_index"))
                kept = [(r, post) for r, post in rolls if post is not None]
                if kept:
                    ids = {(int(rd), int(ix)): int(i) for i, rd, ix in made}
                    if len(ids) < len(rolls):   # no RETURNING: read them by (round, index)
                        ids = {(int(rd), int(ix)): int(i) for i, rd, ix in session.execute(
                            select(m.RollRecord.id, m.RollRecord.round_id,
                                   m.RollRecord.roll_index)
                            .where(tuple_(m.RollRecord.round_id, m.RollRecord.roll_index)
                                   .in_([(r.round_id, r.roll_index) for r, _ in kept])))}
                    insert_rows(session, m.RollPost, [
                        {"roll_id": ids[(r.round_id, r.roll_index)], **post} for r, post in kept])
            if decls:
                insert_rows(session, m.Declaration, [columns(d) for d in decls])
        finally:
            self._writing = False


_ROLL_POST_KEYS = frozenset(("platform_id", "author", "revision"))
#: each roll's post beside it, the roll's id found by its (round, index): SQLite
_ROLL_POSTS = ("INSERT INTO roll_posts (roll_id, platform_id, author, revision) "
               "SELECT id, ?, ?, ? FROM rolls WHERE round_id = ? AND roll_index = ?")


def _linked_on_sqlite(connection: Any, session: Session,
                      rolls: Sequence[tuple[Any, dict[str, Any] | None]]) -> bool:
    """SQLite: the rolls through the driver's executemany (no RETURNING to build and read
    back), then each roll's post (DICE-3) by one executemany that finds the roll's id by
    its (round, index), which is unique (SCALE-6: the multi-row VALUES with RETURNING
    was built and flattened in Python, row by row). False, with nothing written, for a
    roll's post holding other columns than these (the way with RETURNING then)."""
    kept = [(r, post) for r, post in rolls if post is not None]
    if any(post.keys() != _ROLL_POST_KEYS for _, post in kept):
        return False
    insert_rows(session, m.RollRecord, [columns(r) for r, _ in rolls])
    if kept:
        made = connection.exec_driver_sql(_ROLL_POSTS, [
            (post["platform_id"], post["author"], post["revision"], r.round_id, r.roll_index)
            for r, post in kept])
        if made.rowcount != len(kept):   # a roll not found: never silently unlinked
            raise RuntimeError(f"{len(kept) - made.rowcount} roll(s) not found for their posts")
    return True


def pending(session: Session) -> Pending | None:
    """The running batch's pending rows (None outside a batch)."""
    return session.info.get(KEY)


@contextmanager
def bulk_batch(session: Session, enabled: bool = True) -> Iterator[Pending | None]:
    """Inside, :func:`pending` collects rows; they are written before any statement the
    session runs and at the end (not when the block raises: the caller rolls back)."""
    if not enabled:
        yield None
        return
    rows = session.info[KEY] = Pending(session)

    def before(_state: ORMExecuteState) -> None:
        rows.write()

    event.listen(session, "do_orm_execute", before)
    try:
        yield rows
        rows.write()
    finally:
        event.remove(session, "do_orm_execute", before)
        session.info.pop(KEY, None)

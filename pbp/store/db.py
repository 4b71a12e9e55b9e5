"""Engines, sessions and migrations.

``make_engine(url)`` gives an engine configured the same way everywhere (SQLite with
foreign keys on, WAL and a busy timeout; PostgreSQL with a connection pinged when it sat
idle in the pool, :mod:`pbp.store.ping`);
``session_scope(engine)`` a transaction that commits on success and rolls back on
error; ``upgrade(url)`` runs the Alembic migrations shipped inside the package to
head, so an installed ``pbp`` needs no ``alembic.ini``.

A PostgreSQL URL may carry ``?options=-csearch_path%3Dname`` to live in its own
schema (the tests do, so parallel runs never collide).

>>> engine = make_engine("sqlite://")
>>> engine.dialect.name
'sqlite'
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from ..errors import PbpError
from . import json_text, ping
from .models import RollRecord

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class ImmutableRoll(PbpError):
    """Something tried to change or delete a stored roll (PBP-4: a roll is made once)."""


def _wal(cur: Any, tries: int = 100) -> None:
    """Put the database in WAL mode, which the file keeps: asked only when it is not yet.

    Why the retries: switching a database to WAL needs it to itself for a moment, and
    SQLite answers "database is locked" at once, without waiting its busy timeout, when
    another connection holds it meanwhile: two workers opening a fresh database together
    (``pbp serve`` starts several) crashed one of them at its first statement."""
    for attempt in range(tries):
        try:
            if str(cur.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == tries - 1:
                raise
            time.sleep(0.05)


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for *url*, SQLite (default) or PostgreSQL; JSON columns through
    :mod:`pbp.store.json_text` on both."""
    kwargs.setdefault("json_serializer", json_text.dumps)
    kwargs.setdefault("json_deserializer", json_text.loads)
    if url.startswith("sqlite"):
        if url.startswith("sqlite:///") and url not in ("sqlite://", "sqlite:///:memory:"):
            Path(url[len("sqlite:///"):]).expanduser().parent.mkdir(parents=True, exist_ok=True)
        kwargs.setdefault("connect_args", {"timeout": 30})
        engine = create_engine(url, **kwargs)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            if ":memory:" not in url and url != "sqlite://":
                _wal(cur)
                cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()
            # pysqlite's own transaction handling breaks SAVEPOINT (used by the rolls'
            # insert-or-take-existing); let SQLAlchemy emit BEGIN itself.
            dbapi_conn.isolation_level = None

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            # IMMEDIATE: take the single write lock at BEGIN (waiting up to busy_timeout),
            # so a transaction never fails half-way when its read snapshot goes stale.
            # Reads (reading(engine): the panel's GET pages) begin DEFERRED: under WAL
            # they take no lock at all, so a page never holds up a worker's write.
            # query_only (SCALE-4): a read transaction cannot write at all, so a page that
            # writes on GET fails loudly (in tests first) instead of taking the lock.
            # The pragma is the connection's setting, sent only when it changes (a pooled
            # connection serves reads and writes in turn) and straight to the driver, like
            # the pragmas at connect: not a statement of the transaction.
            read = bool(conn.get_execution_options().get(DEFERRED))
            info = conn.connection.info
            if info.get("query_only") is not read:
                conn.connection.driver_connection.execute(f"PRAGMA query_only={'ON' if read else 'OFF'}")
                info["query_only"] = read
            conn.exec_driver_sql("BEGIN" if read else "BEGIN IMMEDIATE")

        return engine
    idle_s = kwargs.pop("ping_after_idle_s", ping.IDLE_S)
    engine = create_engine(url, **kwargs)
    if not kwargs.get("pool_pre_ping"):
        ping.install(engine, idle_s)   # pinged when idle a while, not at every checkout
    return engine


#: execution option of an engine whose transactions only read (see :func:`reading`)
DEFERRED = "pbp_read_only"


def reading(engine: Engine) -> Engine:
    """*engine* for transactions that only read, and cannot write (SCALE-4): on SQLite they
    begin DEFERRED and take no write lock (under WAL a reader never waits for a writer nor
    holds one up), with ``PRAGMA query_only`` on; on PostgreSQL they are ``READ ONLY``
    (``postgresql_readonly``) and ``REPEATABLE READ``, so that, as on SQLite, every statement
    of one read sees the same snapshot (a read-only transaction at that level never fails
    to serialize). Any INSERT, UPDATE or DELETE inside one fails ("attempt to
    write a readonly database", "cannot execute ... in a read-only transaction"): what must
    be written on a read request goes through a session of the plain engine."""
    found: Engine | None = getattr(engine, _READER, None)
    if found is None:        # one per engine: an idle poll asks for it every time (SCALE-3)
        if engine.dialect.name == "postgresql":
            # one snapshot for the whole read (READ COMMITTED takes one per statement: a
            # page's version and its rows could straddle a worker's commit)
            found = engine.execution_options(**{DEFERRED: True, "postgresql_readonly": True,
                                                "isolation_level": "REPEATABLE READ"})
        else:
            found = engine.execution_options(**{DEFERRED: True})
        setattr(engine, _READER, found)
    return found


#: where :func:`reading` keeps an engine's reading twin (on the engine: it goes with it)
_READER = "_pbp_reading"


_factories: dict[int, sessionmaker[Session]] = {}


def session_factory(engine: Engine) -> sessionmaker[Session]:
    key = id(engine)
    if key not in _factories:
        _factories[key] = sessionmaker(engine, expire_on_commit=False)
    return _factories[key]


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session in a transaction: commit on success, roll back on any exception."""
    session = session_factory(engine)()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


@event.listens_for(Session, "before_flush")
def _rolls_are_immutable(session: Session, _ctx: Any, _instances: Any) -> None:
    for obj in list(session.dirty) + list(session.deleted):
        if isinstance(obj, RollRecord) and (obj in session.deleted or session.is_modified(obj)):
            raise ImmutableRoll(f"roll #{obj.roll_index} of round {obj.round_id} is immutable")


def alembic_config(url: str) -> Any:
    """An Alembic Config pointing at the packaged migrations, for *url*."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    cfg.attributes["pbp_url"] = url
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at *url* to *revision* (head by default)."""
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str) -> None:
    """Migrate the database at *url* down to *revision* (``base`` empties it)."""
    command.downgrade(alembic_config(url), revision)


def current_revision(url: str) -> str | None:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()

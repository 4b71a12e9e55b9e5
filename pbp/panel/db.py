"""One engine per app, one SQLAlchemy session per request (closed at teardown).

Views commit explicitly after a service call succeeded; anything left open is
rolled back when the request ends. A GET or HEAD request only reads: its session begins
a deferred, read-only transaction (:func:`pbp.store.db.reading`: SQLite ``query_only``,
PostgreSQL ``READ ONLY``), so a page being rendered never holds the write lock a worker
is waiting for, and a write slipped into a GET fails loudly instead of taking it
(SCALE-4). The one write a read request may need (a login session's last-seen time,
every minute at most) goes through :func:`writer`, a short transaction of its own.
"""

from __future__ import annotations

from flask import Flask, current_app, g, has_request_context, request
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from ..store.db import make_engine, reading

#: methods whose requests only read
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def init_app(app: Flask) -> None:
    engine = app.config.get("DB_ENGINE") or make_engine(app.config["DATABASE_URL"])
    app.extensions["pbp_db"] = sessionmaker(bind=engine, expire_on_commit=False)
    read = reading(engine)
    app.extensions["pbp_db_read"] = sessionmaker(bind=read, expire_on_commit=False)
    app.extensions["pbp_engine_read"] = read    # Core reads of a GET (pbp.panel.live_quick)
    app.extensions["pbp_engine"] = engine
    app.teardown_appcontext(_close)


def engine() -> Engine:
    return current_app.extensions["pbp_engine"]  # type: ignore[no-any-return]


def session() -> Session:
    """The request's session, opened on first use."""
    if "db_session" not in g:
        g.db_session = current_app.extensions["pbp_db_read" if is_read() else "pbp_db"]()
    return g.db_session  # type: ignore[no-any-return]


def is_read() -> bool:
    """Whether this request only reads (its session cannot write)."""
    return has_request_context() and request.method in READ_METHODS


def writer() -> Session:
    """A session that may write, for the rare write of a read request: on a GET a separate
    session of the plain engine (the caller commits it at once, so the write lock is held
    for that statement only); on a POST the request's own session (a second writer would
    wait for the first's lock)."""
    if not is_read():
        return session()
    if "db_writer" not in g:
        g.db_writer = current_app.extensions["pbp_db"]()
    return g.db_writer  # type: ignore[no-any-return]


def end_reads() -> None:
    """End the read transaction of a read request before its template is rendered: the
    rows already loaded stay usable (``expire_on_commit=False``); a lazy load after this
    starts a new, short transaction. Nothing happens on a request that writes (its
    view commits when it is done)."""
    s = g.get("db_session")
    if s is not None and is_read():
        s.commit()


def _close(exc: BaseException | None) -> None:
    for name in ("db_writer", "db_session"):
        s = g.pop(name, None)
        if s is not None:
            if exc is not None:
                s.rollback()
            s.close()

"""One engine per app, one SQLAlchemy session per request (closed at teardown).

Views commit explicitly after a service call succeeded; anything left open is
rolled back when the request ends. A GET or HEAD request only reads: its session begins
a deferred transaction (:func:`pbp.store.db.reading`), so on SQLite a page being
rendered never holds the write lock a worker is waiting for (issue 17 item 4).
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
    app.extensions["pbp_db_read"] = sessionmaker(bind=reading(engine), expire_on_commit=False)
    app.extensions["pbp_engine"] = engine
    app.teardown_appcontext(_close)


def engine() -> Engine:
    return current_app.extensions["pbp_engine"]  # type: ignore[no-any-return]


def session() -> Session:
    """The request's session, opened on first use."""
    if "db_session" not in g:
        read = has_request_context() and request.method in READ_METHODS
        g.db_session = current_app.extensions["pbp_db_read" if read else "pbp_db"]()
    return g.db_session  # type: ignore[no-any-return]


def _close(exc: BaseException | None) -> None:
    s = g.pop("db_session", None)
    if s is not None:
        if exc is not None:
            s.rollback()
        s.close()

"""One engine per app, one SQLAlchemy session per request (closed at teardown).

Views commit explicitly after a service call succeeded; anything left open is
rolled back when the request ends.
"""

from __future__ import annotations

from flask import Flask, current_app, g
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from ..store.db import make_engine


def init_app(app: Flask) -> None:
    engine = app.config.get("DB_ENGINE") or make_engine(app.config["DATABASE_URL"])
    app.extensions["pbp_db"] = sessionmaker(bind=engine, expire_on_commit=False)
    app.extensions["pbp_engine"] = engine
    app.teardown_appcontext(_close)


def engine() -> Engine:
    return current_app.extensions["pbp_engine"]  # type: ignore[no-any-return]


def session() -> Session:
    """The request's session, opened on first use."""
    if "db_session" not in g:
        g.db_session = current_app.extensions["pbp_db"]()
    return g.db_session  # type: ignore[no-any-return]


def _close(exc: BaseException | None) -> None:
    s = g.pop("db_session", None)
    if s is not None:
        if exc is not None:
            s.rollback()
        s.close()

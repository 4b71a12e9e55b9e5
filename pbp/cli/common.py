"""What the commands share: the settings, the database they open, and errors as one line.

Why one opener: every command must use the same data directory wherever it is run
(:mod:`pbp.settings`), a command that only reads (``pbp status``, ``pbp narrator list``,
``pbp verify``) must not leave an empty database behind in a place nobody looks, and a
missing or empty database is said in words (where it was looked for, what creates it)
instead of a SQLAlchemy traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from sqlalchemy import Engine, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from ..errors import PbpError
from ..settings import Settings, load_settings
from ..store import models as m
from ..store.db import current_revision, make_engine, upgrade

#: Set (to anything) to see the traceback of an unexpected error instead of one line.
DEBUG_ENV = "PBP_DEBUG"


def settings() -> Settings:
    return load_settings()


def _sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (None for another database or an in-memory one)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise PbpError(f"not a database URL: {url!r}") from None
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database).expanduser()


def open_database(database_url: str | None = None, *, create: bool = False) -> Engine:
    """An engine on *database_url* (default: the settings'), migrated to head.

    With *create*, a missing SQLite file is created (``pbp narrator add`` on a fresh
    machine); without, a missing file or a database with no tables is an error that says
    where it looked.
    """
    conf = settings()
    url = database_url or conf.database_url
    where = "" if database_url else f" (data directory {conf.data_path})"
    path = _sqlite_file(url)
    if not create:
        if path is not None and not path.is_file():
            raise PbpError(f"no database at {path}{where}: `pbp serve` or `pbp narrator add` "
                           "creates it; PBP_DATA_DIR or PBP_DATABASE_URL names another")
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                tables = inspect(conn).has_table(m.Encounter.__tablename__)
        finally:
            engine.dispose()
        if not tables:
            raise PbpError(f"the database {_shown(url)} has no pbp tables: `pbp serve` or "
                           "`pbp narrator add` creates them")
        if current_revision(url) is None:   # tables made without Alembic (tests): as they are
            return make_engine(url)
    upgrade(url)
    return make_engine(url)


def _shown(url: str) -> str:
    """*url* without its password, for a message."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def one_line(exc: BaseException) -> str:
    """The message of an error a command let escape, on one line."""
    if isinstance(exc, SQLAlchemyError):
        cause = getattr(exc, "orig", None) or exc
        text = f"database error: {cause}"
    elif isinstance(exc, LookupError):
        text = str(exc.args[0]) if exc.args else type(exc).__name__
    elif isinstance(exc, OSError):
        text = f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    elif isinstance(exc, PbpError):
        text = str(exc)
    else:
        text = f"unexpected {type(exc).__name__}: {exc} (set {DEBUG_ENV}=1 to see where)"
    return " ".join(text.split())


def guarded(invoke: Callable[[], Any]) -> Any:
    """Run *invoke*; an error escaping it becomes one line on stderr and exit status 2.

    Click's own exits (usage errors, ``--help``, Ctrl-C) pass through untouched; with
    ``PBP_DEBUG`` set an unexpected error keeps its traceback.
    """
    try:
        return invoke()
    except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
        raise
    except Exception as exc:
        if os.environ.get(DEBUG_ENV) and not isinstance(exc, PbpError):
            raise
        click.echo(f"pbp: error: {one_line(exc)}", err=True)
        sys.exit(2)

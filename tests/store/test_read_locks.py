"""Issue 17 item 4: reads never lock. On SQLite a transaction that only reads (the panel's
GET pages, through :func:`pbp.store.db.reading`) begins DEFERRED and, under WAL, holds no
lock, so a worker's write goes through at once while a page is still being rendered. A
writing transaction still takes the write lock at BEGIN (IMMEDIATE)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from sqlalchemy import text

from pbp.panel import create_app
from pbp.panel.db import session
from pbp.store.db import make_engine, reading, session_factory, upgrade


def _worker_write(path: Path) -> float:
    """What a worker does: one write, with no patience (busy timeout 0.2 s). Its time."""
    start = time.monotonic()
    conn = sqlite3.connect(path, timeout=0.2, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE narrators SET language = 'pt'")
        conn.execute("COMMIT")
    finally:
        conn.close()
    return time.monotonic() - start


def test_a_page_being_read_does_not_hold_up_a_worker_write(tmp_path: Path) -> None:
    path = tmp_path / "pbp.sqlite"
    url = f"sqlite:///{path}"
    upgrade(url)
    engine = make_engine(url)
    try:
        page = session_factory(reading(engine))()
        page.execute(text("SELECT count(*) FROM narrators")).scalar()   # a read, still open
        assert _worker_write(path) < 0.2
        page.close()
        writer = session_factory(engine)()
        writer.execute(text("SELECT count(*) FROM narrators")).scalar()  # holds the write lock
        try:
            _worker_write(path)
            locked = False
        except sqlite3.OperationalError as exc:
            locked = "locked" in str(exc)
        writer.close()
        assert locked, "a writing transaction takes the write lock at BEGIN"
    finally:
        engine.dispose()


def test_panel_get_requests_read_deferred(tmp_path: Path) -> None:
    """The panel's GET pages use the reading engine; its POSTs the writing one."""
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    upgrade(url)
    app = create_app({"SECRET_KEY": "x", "DATABASE_URL": url})
    options: dict[str, bool] = {}
    for method in ("GET", "POST"):
        with app.test_request_context("/", method=method):
            options[method] = session().get_bind().get_execution_options().get("pbp_read_only", False)
    assert options == {"GET": True, "POST": False}

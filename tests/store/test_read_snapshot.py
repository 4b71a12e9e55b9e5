"""SCALE-4/SCALE-5: a page read is one snapshot. The encounter page takes its version first
and its rows after, then keeps the rendering under that version; if a worker's commit
landed between two of its statements, the page could show a post without the
declaration written with it (or the reverse), and keep that rendering. Under SQLite WAL a
deferred transaction reads one snapshot from its first read; on PostgreSQL a ``READ
COMMITTED`` transaction (the default) takes a new one per statement, so the reading engine
asks for ``REPEATABLE READ``."""

from __future__ import annotations

from sqlalchemy import text

from pbp.store.campaigns import Narrator
from pbp.store.db import make_engine, reading, session_factory, upgrade


def test_scale_4_a_read_transaction_sees_one_snapshot(empty_url: str) -> None:
    upgrade(empty_url)
    engine = make_engine(empty_url)
    try:
        page = session_factory(reading(engine))()
        before = page.execute(text("SELECT count(*) FROM narrators")).scalar()
        with engine.begin() as worker:     # a worker's batch, committed mid-page
            worker.execute(Narrator.__table__.insert().values(username="late", password_hash="x"))
        during = page.execute(text("SELECT count(*) FROM narrators")).scalar()
        page.close()
        assert during == before, "a read request's second statement saw a commit its first did not"
        again = session_factory(reading(engine))()
        assert again.execute(text("SELECT count(*) FROM narrators")).scalar() == before + 1
        again.close()
    finally:
        engine.dispose()

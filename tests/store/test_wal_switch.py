"""SQLite's switch to WAL at connect (pbp.store.db): two workers opening a fresh database
together must both start. SQLite answers "database is locked" at once, without its busy
timeout, to one of two connections switching the journal mode at the same moment; one
worker of ``tests/sources/test_shared_budget.py`` crashed so at its first statement."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from pbp.store import db


class _Racing:
    """A cursor over a real connection whose first *busy* journal-mode switches meet
    another connection's, as SQLite reports it."""

    def __init__(self, conn: sqlite3.Connection, busy: int) -> None:
        self.cur, self.busy, self.switches = conn.cursor(), busy, 0

    def execute(self, sql: str) -> Any:
        if sql == "PRAGMA journal_mode=WAL":
            self.switches += 1
            if self.busy:
                self.busy -= 1
                raise sqlite3.OperationalError("database is locked")
        return self.cur.execute(sql)


def test_the_switch_is_tried_again_while_another_connection_makes_it(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "fresh.sqlite")
    racing = _Racing(conn, busy=3)
    db._wal(racing)
    assert racing.switches == 4
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    again = _Racing(conn, busy=0)
    db._wal(again)                       # already WAL (the file keeps it): not switched again
    assert again.switches == 0


def test_another_error_is_not_swallowed(tmp_path: Path) -> None:
    class Broken(_Racing):
        def execute(self, sql: str) -> Any:
            raise sqlite3.OperationalError("disk I/O error")

    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        db._wal(Broken(sqlite3.connect(tmp_path / "x.sqlite"), busy=0))


def _open(url: str, start_at: float) -> None:
    from sqlalchemy import text

    time.sleep(max(0.0, start_at - time.time()))
    with db.make_engine(url).begin() as c:
        c.execute(text("CREATE TABLE IF NOT EXISTS t (x INTEGER)"))
        c.execute(text("INSERT INTO t VALUES (1)"))


def test_workers_opening_a_fresh_database_together_all_start(tmp_path: Path) -> None:
    """Four processes, ten fresh databases, each opened by all four at the same moment."""
    ctx = multiprocessing.get_context("spawn")
    for n in range(10):
        url = f"sqlite:///{tmp_path / f'fresh{n}.sqlite'}"
        start_at = time.time() + 2.0
        procs = [ctx.Process(target=_open, args=(url, start_at)) for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        assert [p.exitcode for p in procs] == [0, 0, 0, 0], n
        with sqlite3.connect(tmp_path / f"fresh{n}.sqlite") as c:
            assert c.execute("SELECT count(*) FROM t").fetchone()[0] == 4

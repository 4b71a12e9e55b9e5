"""The statements an engine sends, for tests that count what a code path asks of the
database (SCALE-3: an idle poll writes once; SCALE-4: a read writes nothing; SCALE-6:
what an ingest batch costs).

One listener for every such test, so they all count the same way."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event

#: a statement that writes, or opens or ends a savepoint
WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE|SAVEPOINT|RELEASE|REPLACE)\b", re.IGNORECASE)
#: a statement that changes rows
CHANGES = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)


def starting(*words: str) -> re.Pattern[str]:
    """Statements that start with one of *words* (``"SAVEPOINT"``, ``"BEGIN"``), any case."""
    return re.compile(r"^\s*(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE)


def _listen(engine: Engine, record: Callable[[Any, str], None]) -> Callable[[], None]:
    """``record(connection, statement)`` for each statement sent; returns what stops it."""
    def before(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        record(conn, statement)

    event.listen(engine, "before_cursor_execute", before)
    return lambda: event.remove(engine, "before_cursor_execute", before)


@contextmanager
def statements(engine: Engine, *, only: re.Pattern[str] | None = None,
               besides: re.Pattern[str] | None = None, fold: bool = False) -> Iterator[list[str]]:
    """Every statement sent to the database inside the block; *only* those it matches,
    *besides* those it matches; *fold*: each one's white space folded to single spaces
    (a statement compared with another, or as the assertion shows it)."""
    seen: list[str] = []

    def record(_conn: Any, statement: str) -> None:
        if (only is None or only.match(statement)) and (besides is None or not besides.match(statement)):
            seen.append(" ".join(statement.split()) if fold else statement)

    stop = _listen(engine, record)
    try:
        yield seen
    finally:
        stop()


class Transactions:
    """Transactions ended (committed or rolled back) on an engine until :meth:`close`,
    and how many of them changed rows (one that only read costs no write)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.ended = 0
        self.writes = 0
        self._dirty: set[int] = set()
        self._stop = _listen(engine, self._statement)
        event.listen(engine, "commit", self._end)
        event.listen(engine, "rollback", self._end)

    def _statement(self, conn: Any, statement: str) -> None:
        if CHANGES.match(statement):
            self._dirty.add(id(conn))

    def _end(self, conn: Any) -> None:
        self.ended += 1
        if id(conn) in self._dirty:
            self._dirty.discard(id(conn))
            self.writes += 1

    def close(self) -> None:
        self._stop()
        event.remove(self.engine, "commit", self._end)
        event.remove(self.engine, "rollback", self._end)

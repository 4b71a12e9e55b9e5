"""The statements an engine sends, for tests that count what a code path asks of the
database (SCALE-4: a read writes nothing; SCALE-6: what an ingest batch costs).

One listener for every such test, so they all count the same way."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event

#: a statement that writes, or opens or ends a savepoint
WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE|SAVEPOINT|RELEASE|REPLACE)\b", re.IGNORECASE)


@contextmanager
def statements(engine: Engine) -> Iterator[list[str]]:
    """Every statement sent to the database inside the block."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)

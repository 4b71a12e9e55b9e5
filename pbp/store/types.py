"""Column types shared by every table: UTC datetimes and JSON that work on SQLite and PostgreSQL.

Why a UTC type: SQLite has no time zone, PostgreSQL's ``timestamp`` neither; storing
naive UTC everywhere and handing back aware datetimes keeps deadline arithmetic
identical on both, and a naive value passed in by mistake is refused rather than
silently taken as local time.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

#: JSON column: JSONB on PostgreSQL, JSON text on SQLite.
JsonType = JSON().with_variant(JSONB(), "postgresql")


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out; stored naive UTC."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: pass an aware (UTC) datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):  # raw SQLite text
            value = datetime.fromisoformat(value)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def utcnow() -> datetime:
    return datetime.now(UTC)


def last_kept(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """*convert* with its last answer kept: the same object again gets it unconverted.
    Why (SCALE-6): a batch's rows hold some 300 times, most of them its one ``now``. For
    immutable values only (a datetime): the value kept cannot be freed and its identity
    taken by another. None gives None. The pair is one tuple, so a thread never reads a
    value with another's answer."""
    kept: list[tuple[Any, Any]] = [(None, None)]

    def converted(value: Any) -> Any:
        last = kept[0]
        if value is last[0]:
            return last[1]
        out = convert(value)
        kept[0] = (value, out)
        return out

    return converted

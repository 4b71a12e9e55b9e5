"""What a polling or delivery call needs besides ids: settings, a database, leases.

A worker process holds one of each (``workers.runtime.Runtime`` satisfies
:class:`Resources`); tests build their own. Why protocols and not the worker's classes:
the service sits below ``workers/`` and must not import it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy.engine import Engine

from ..settings import Settings


class Lease(Protocol):
    """A lease on a name; falsy when it was not acquired."""

    def __bool__(self) -> bool: ...
    def release(self) -> None: ...


class Leases(Protocol):
    def acquire(self, name: str, ttl: float) -> Any: ...
    def poll_lease(self, name: str, ttl: float) -> Any:
        """A lease for a poll, whose only write is its result's: with database leases it
        writes nothing itself (SCALE-3)."""
        ...


class Resources(Protocol):
    @property
    def settings(self) -> Settings: ...
    @property
    def engine(self) -> Engine: ...
    @property
    def leases(self) -> Leases: ...
    def backoff(self, retries: int, retry_after: float | None = None) -> float: ...


class Busy(Exception):
    """Another worker holds the lease (of a thread, a listing or a reply)."""


def utcnow() -> datetime:
    return datetime.now(UTC)


def error_note(exc: BaseException, now: datetime) -> str:
    """The ``last_error`` a narrator reads: when, which error, what it said (bounded)."""
    return f"{now:%Y-%m-%d %H:%M:%SZ} {type(exc).__name__}: {exc}"[:2000]

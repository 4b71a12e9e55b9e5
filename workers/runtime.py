"""Per-process resources of a worker: settings, database engine, lease backend.

Why per process (keyed by pid): a prefork worker forks after import, and a database
connection or Redis socket must never be shared across a fork.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from pbp.jobs.schedule import backoff
from pbp.settings import Settings, load_settings
from pbp.store.db import make_engine

from .locks import LeaseBackend, lease_backend

# The retry policy (retry_max, retry_base, retry_cap) and the lease TTL (poll_lease_ttl)
# are settings: ``runtime().settings``.

log = logging.getLogger("workers.enqueue")


@dataclass
class Runtime:
    settings: Settings
    engine: Engine
    leases: LeaseBackend

    def backoff(self, retries: int, retry_after: float | None = None) -> float:
        """:func:`pbp.jobs.schedule.backoff` with this process's ``retry_base`` and ``retry_cap``."""
        return backoff(retries, retry_after, base=self.settings.retry_base, cap=self.settings.retry_cap)


_cache: dict[tuple[int, Settings], Runtime] = {}


def runtime(settings: Settings | None = None) -> Runtime:
    settings = settings or load_settings()
    key = (os.getpid(), settings)
    rt = _cache.get(key)
    if rt is None:
        engine = make_engine(settings.database_url)
        lock_url = settings.lock_url or settings.broker_url
        rt = Runtime(settings, engine, lease_backend(lock_url, engine, prefix=settings.broker_keyprefix))
        _cache[key] = rt
    return rt


# --- enqueue after commit ------------------------------------------------------------------

_KEY = "pbp_after_commit"


def enqueue_after_commit(session: Session, signature: Any) -> None:
    """Send *signature* (``task.s(...)``) only once *session* commits; drop it on rollback.

    A task enqueued before the commit may run before the row it reads exists (or for a
    row that a rollback then removes). A publish that fails after the commit loses
    nothing: what it would have done is due in the database, and the next sweep sends it.
    """
    pending = session.info.get(_KEY)
    if pending is None:
        pending = session.info[_KEY] = []
        event.listen(session, "after_commit", _send_pending)
        event.listen(session, "after_soft_rollback", _drop_pending)
    pending.append(signature)


def _send_pending(session: Session) -> None:
    pending = session.info.get(_KEY) or []
    session.info[_KEY] = []
    send(pending)


def send(signatures: Iterable[Any]) -> None:
    """Send each of *signatures* now; a broker that is down costs nothing but a warning,
    for what they would have done is due in the database and the next sweep sends it."""
    for sig in signatures:
        try:
            sig.apply_async()
        except Exception as exc:  # broker down: the next sweep finds the work in the database
            log.warning("enqueue failed; the next sweep will send it",
                        extra={"task": sig.task, "error": f"{type(exc).__name__}: {exc}"})


def _drop_pending(session: Session, previous_transaction: Any) -> None:
    if previous_transaction.parent is None:  # the outermost transaction rolled back
        session.info[_KEY] = []

"""Per-process resources of a worker: settings, database engine, lease backend.

Why per process (keyed by pid): a prefork worker forks after import, and a database
connection or Redis socket must never be shared across a fork.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from pbp.settings import Settings, load_settings
from pbp.store.db import make_engine

from .locks import LeaseBackend, lease_backend

# The retry policy (retry_max, retry_base, retry_cap) and the lease TTL (poll_lease_ttl)
# are settings: ``runtime().settings``.
#: +- this fraction of a thread's interval is added at random to its next poll time.
POLL_JITTER = 0.1


@dataclass
class Runtime:
    settings: Settings
    engine: Engine
    leases: LeaseBackend

    def backoff(self, retries: int, retry_after: float | None = None) -> float:
        """:func:`backoff` with this process's ``retry_base`` and ``retry_cap``."""
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


def backoff(retries: int, retry_after: float | None = None, *, base: float | None = None,
            cap: float | None = None, rng: random.Random | None = None) -> float:
    """Seconds before retry number *retries* + 1: exponential with "equal jitter"
    (half fixed, half random), never below the platform's ``retry_after``. *base* and
    *cap* default to the settings' defaults; workers pass their ``retry_base``/``retry_cap``.

    >>> backoff(0, rng=random.Random(1)) <= 2 and backoff(3, rng=random.Random(1)) >= 8
    True
    >>> backoff(0, retry_after=30.0, rng=random.Random(1)) >= 30
    True
    """
    base = Settings.retry_base if base is None else base
    cap = Settings.retry_cap if cap is None else cap
    rng = rng or random
    step = min(cap, base * (2 ** retries))
    delay = step / 2 + rng.uniform(0, step / 2)
    if retry_after is not None:
        delay = max(delay, float(retry_after) + rng.uniform(0, min(5.0, base)))
    return delay


def jittered(interval: float, rng: random.Random | None = None) -> float:
    """*interval* +- POLL_JITTER of itself, so a thousand threads do not poll in step."""
    rng = rng or random
    return interval * (1 + rng.uniform(-POLL_JITTER, POLL_JITTER))


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
    import logging

    log = logging.getLogger("workers.enqueue")
    for sig in pending:
        try:
            sig.apply_async()
        except Exception as exc:  # broker down: the next sweep finds the work in the database
            log.warning("enqueue failed; the next sweep will send it",
                        extra={"task": sig.task, "error": f"{type(exc).__name__}: {exc}"})


def _drop_pending(session: Session, previous_transaction: Any) -> None:
    if previous_transaction.parent is None:  # the outermost transaction rolled back
        session.info[_KEY] = []

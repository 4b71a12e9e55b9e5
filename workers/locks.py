"""A lease on a name (one thread polled by one worker at a time), with an expiry.

Why a lease and not a mutex: a worker killed with -9 never releases anything; the
lease expires (``ttl``) and the next poll takes it. Two back ends, the same contract:

* :class:`RedisLease` — ``SET key token NX PX ttl``; released and extended only by the
  holder (a Lua compare-and-delete), so an expired holder cannot free someone else's lease.
* :class:`DatabaseLease` — a row in ``pbp_leases`` (name, holder, expires_at) taken by
  an INSERT, or by an UPDATE of an expired row; works on SQLite and PostgreSQL alike,
  for the embedded default where there is no Redis.

A poll takes :meth:`poll_lease` instead: in Redis the same lease; with the database a
lock that writes nothing (:mod:`workers.session_locks`: a file record lock on SQLite, an
advisory lock on PostgreSQL, freed when the holder dies), so an idle poll is one write
transaction, the cursor's (SCALE-3).

>>> from sqlalchemy import create_engine
>>> leases = DatabaseLease(create_engine("sqlite://"))
>>> a = leases.acquire("poll:1", ttl=30); b = leases.acquire("poll:1", ttl=30)
>>> bool(a), bool(b)
(True, False)
>>> a.release(); bool(leases.acquire("poll:1", ttl=30))
True
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from pbp.errors import ConfigError
from pbp.store.infra import leases_table

from .session_locks import SessionLock, SessionLocks

try:  # an optional dependency (the ``scale`` extra): only a Redis lock URL needs it
    import redis
except ImportError:  # pragma: no cover - the embedded default runs without it
    redis = None  # type: ignore[assignment]

#: created by migration 0004; ``create_all`` keeps a bare engine (tests) working
metadata = leases_table.metadata


@dataclass
class Lease:
    """A held lease; falsy when it was not acquired."""

    name: str
    holder: str
    backend: LeaseBackend | None

    def __bool__(self) -> bool:
        return self.backend is not None

    def release(self) -> None:
        if self.backend is not None:
            self.backend.release(self.name, self.holder)
            self.backend = None

    def extend(self, ttl: float) -> bool:
        return self.backend is not None and self.backend.extend(self.name, self.holder, ttl)


class LeaseBackend(Protocol):
    def acquire(self, name: str, ttl: float) -> Lease: ...
    def poll_lease(self, name: str, ttl: float) -> Lease | SessionLock: ...
    def release(self, name: str, holder: str) -> None: ...
    def extend(self, name: str, holder: str, ttl: float) -> bool: ...


_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
_EXTEND = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
           "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end")


class RedisLease:
    def __init__(self, url: str, prefix: str = "pbp:lease:", poll_locks: SessionLocks | None = None) -> None:
        if redis is None:
            raise ConfigError("a Redis lock URL needs the redis package (pip install 'pbp[scale]')")
        self.client: Any = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self.prefix = prefix
        self.poll_locks = poll_locks
        # EVALSHA of a script registered once, not EVAL of its text on every release
        self._release = self.client.register_script(_RELEASE)
        self._extend = self.client.register_script(_EXTEND)

    def acquire(self, name: str, ttl: float) -> Lease:
        holder = secrets.token_hex(8)
        ok = self.client.set(self.prefix + name, holder, nx=True, px=int(ttl * 1000))
        return Lease(name, holder, self if ok else None)

    def poll_lease(self, name: str, ttl: float) -> Lease | SessionLock:
        """A poll's lease: the same key (one SET, one EVALSHA), or, beside a SQLite file
        (*poll_locks*: every worker is on its host), the file's lock, which costs no
        round trip at all (SCALE-3)."""
        if self.poll_locks is not None:
            return self.poll_locks.acquire(name)
        return self.acquire(name, ttl)

    def release(self, name: str, holder: str) -> None:
        self._release(keys=[self.prefix + name], args=[holder])

    def extend(self, name: str, holder: str, ttl: float) -> bool:
        return bool(self._extend(keys=[self.prefix + name], args=[holder, int(ttl * 1000)]))


class DatabaseLease:
    def __init__(self, engine: Engine, clock: Any = time.time) -> None:
        self.engine = engine
        self.clock = clock
        self.locks = SessionLocks(engine)
        metadata.create_all(engine, tables=[leases_table], checkfirst=True)

    def poll_lease(self, name: str, ttl: float) -> SessionLock:
        """A poll's lease without a write (SCALE-3): the process's lock on *name*, held
        until released or the process dies (*ttl* is for the Redis back end's sake)."""
        return self.locks.acquire(name)

    def acquire(self, name: str, ttl: float) -> Lease:
        holder = secrets.token_hex(8)
        now = self.clock()
        t = leases_table
        try:
            with self.engine.begin() as conn:
                conn.execute(t.insert().values(name=name, holder=holder, expires_at=now + ttl))
            return Lease(name, holder, self)
        except IntegrityError:
            pass
        with self.engine.begin() as conn:
            taken = conn.execute(
                t.update().where(t.c.name == name, t.c.expires_at < now)
                .values(holder=holder, expires_at=now + ttl)).rowcount
        return Lease(name, holder, self if taken == 1 else None)

    def release(self, name: str, holder: str) -> None:
        t = leases_table
        with self.engine.begin() as conn:
            conn.execute(t.delete().where(t.c.name == name, t.c.holder == holder))

    def extend(self, name: str, holder: str, ttl: float) -> bool:
        t = leases_table
        with self.engine.begin() as conn:
            return conn.execute(t.update().where(t.c.name == name, t.c.holder == holder)
                                .values(expires_at=self.clock() + ttl)).rowcount == 1


def lease_backend(lock_url: str | None, engine: Engine, *, prefix: str = "") -> LeaseBackend:
    """Redis when *lock_url* is a Redis URL (usually the broker's), else the database.
    *prefix* is the settings' ``broker_keyprefix`` (deployments sharing one Redis). A poll's
    lease beside a SQLite file is the file's lock even with Redis: SQLite keeps every worker
    on one host, where that lock is as exclusive and needs no round trip."""
    if lock_url and lock_url.split("://", 1)[0] in {"redis", "rediss"}:
        local = SessionLocks(engine)
        return RedisLease(lock_url, prefix=prefix + "pbp:lease:",
                          poll_locks=local if local.path is not None else None)
    return DatabaseLease(engine)


@contextlib.contextmanager
def held(backend: LeaseBackend, name: str, ttl: float) -> Iterator[Lease]:
    """``with held(b, "poll:7", 120) as lease: if lease: ...`` — released on exit."""
    lease = backend.acquire(name, ttl)
    try:
        yield lease
    finally:
        lease.release()

"""Poll leases that write nothing: a lock the operating system or the database holds for
this process, and frees when the process (or its connection) dies (SCALE-3).

Why not the ``pbp_leases`` row for a poll: a row lease is written to take it and written
again to give it back, so an idle poll with database leases made three write
transactions (take, store, give back), each of them SQLite's one write lock. A claim
that must be visible to other workers before the fetch, without holding a transaction
over the network, cannot be a row and cost less than two writes. These locks cost none:

* **SQLite** (every worker on the one host that holds the file): a one-byte POSIX record
  lock (``lockf``) in ``<database>-pbp-leases``, at an offset from a 62-bit hash of the
  name. The kernel frees it when the holder's process ends, however it ends.
* **PostgreSQL**: ``pg_try_advisory_lock`` on one connection of this process kept for
  that (autocommit, outside the pool); the server frees it when the connection closes,
  a crashed worker's with it. A SELECT: nothing is written, nothing goes to the WAL.
* an in-memory SQLite database is seen by one process only: the in-process guard alone.

Both back ends lock per process, not per thread, so a set of names held in this process
guards the threads of one worker (``-P threads``) from each other.

>>> from sqlalchemy import create_engine
>>> locks = SessionLocks(create_engine("sqlite://"))
>>> a = locks.acquire("poll:1"); b = locks.acquire("poll:1")
>>> bool(a), bool(b)
(True, False)
>>> a.release(); bool(locks.acquire("poll:1"))
True
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool

#: every lock name taken in this process, per lock space (a file or a database): POSIX
#: record locks and advisory locks do not exclude two threads of one process
_held: dict[str, set[str]] = {}
_held_lock = threading.Lock()
#: connections and files left by a parent process after a fork: kept, never closed (closing
#: a PostgreSQL connection from the child would end the parent's session and its locks)
_orphans: list[Any] = []
_TRY = text("SELECT pg_try_advisory_lock(:k)")
_UNLOCK = text("SELECT pg_advisory_unlock(:k)")


def lock_key(name: str) -> int:
    """A stable 62-bit number for *name*: an advisory lock key and a byte offset.

    >>> lock_key("poll:1") == lock_key("poll:1") != lock_key("poll:2")
    True
    """
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big") >> 2


class SessionLock:
    """A held lock; falsy when it was not acquired."""

    __slots__ = ("name", "_owner")

    def __init__(self, name: str, owner: SessionLocks | None) -> None:
        self.name = name
        self._owner = owner

    def __bool__(self) -> bool:
        return self._owner is not None

    def release(self) -> None:
        if self._owner is not None:
            self._owner._release(self.name)
            self._owner = None

    def extend(self, ttl: float) -> bool:
        """Held until released or the process dies: nothing to extend."""
        return self._owner is not None


class SessionLocks:
    """Locks on names for this process: the file's or the database's (see the module)."""

    def __init__(self, engine: Engine) -> None:
        self.url = engine.url
        self.kind = engine.dialect.name
        database = self.url.database or ""
        self.path = (f"{database}-pbp-leases"
                     if self.kind == "sqlite" and database not in ("", ":memory:") else None)
        self.space = (f"sqlite:{self.path or id(engine)}" if self.kind == "sqlite"
                      else self.url.render_as_string(hide_password=True))
        self._lock = threading.Lock()
        self._pid = 0
        self._fd: int | None = None
        self._conn: Connection | None = None

    def acquire(self, name: str) -> SessionLock:
        with _held_lock:
            held = _held.setdefault(self.space, set())
            if name in held:
                return SessionLock(name, None)
            held.add(name)
        try:
            ok = self._take(name)
        except BaseException:
            self._forget(name)
            raise
        if not ok:
            self._forget(name)
            return SessionLock(name, None)
        return SessionLock(name, self)

    def _forget(self, name: str) -> None:
        with _held_lock:
            _held.get(self.space, set()).discard(name)

    def _release(self, name: str) -> None:
        try:
            self._give(name)
        finally:
            self._forget(name)

    # -- back ends ------------------------------------------------------------------
    def _fresh(self) -> None:
        """After a fork, the parent's file and connection stay the parent's."""
        if self._pid != os.getpid():
            _orphans.extend(x for x in (self._fd, self._conn) if x is not None)
            self._fd, self._conn, self._pid = None, None, os.getpid()

    def _take(self, name: str) -> bool:
        if self.kind == "postgresql":
            return bool(self._pg(_TRY, name))
        if self.path is None:
            return True                          # in-memory: this process only
        with self._lock:
            self._fresh()
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fd = self._fd
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, lock_key(name), os.SEEK_SET)
        except OSError:                          # EAGAIN / EACCES: another process holds it
            return False
        return True

    def _give(self, name: str) -> None:
        if self.kind == "postgresql":
            self._pg(_UNLOCK, name)
        elif self.path is not None and self._fd is not None and self._pid == os.getpid():
            fcntl.lockf(self._fd, fcntl.LOCK_UN, 1, lock_key(name), os.SEEK_SET)

    def _pg(self, sql: Any, name: str) -> Any:
        # the key as a signed bigint (advisory locks take int8), of the URL too: test runs
        # and deployments sharing one database in schemas of their own (search_path in
        # the URL) never lock each other's threads
        key = lock_key(f"{self.space} {name}") - (1 << 61)
        with self._lock:
            self._fresh()
            if self._conn is None:
                engine = create_engine(self.url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
                self._conn = engine.connect()
            try:
                return self._conn.execute(sql, {"k": key}).scalar()
            except Exception:
                # a dead connection took its locks with it: the next call opens a new one
                conn, self._conn = self._conn, None
                try:
                    conn.close()
                except Exception:  # noqa: S110  (it is gone either way)
                    pass
                raise

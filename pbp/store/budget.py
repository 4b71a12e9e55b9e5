"""Rate budgets shared by every worker process (issue 17, SCALE-1).

Why: the spacing between two requests to one forum host (``min_host_interval``) and the
Reddit client's quota (100 calls a minute, read back from the ``x-ratelimit-*`` headers)
were kept per process, so N worker processes asked a forum N times as often. A budget is
one *next allowed time* per key (``host:<name>``, ``reddit:<client id>``), moved forward by
one interval per request in a single atomic step, so every process takes its own slot:

* :class:`DatabaseBudget` -- one row per key in ``pbp_budgets``, taken by one
  ``UPDATE ... RETURNING`` (SQLite >= 3.35 and PostgreSQL alike); the default.
* :class:`RedisBudget` -- one hash per key moved by a Lua script; used when the
  ``rate_budget_url`` setting names a Redis server (no database transaction per request).
* :class:`LocalBudget` -- the same contract inside one process (no database configured:
  unit tests, one-off commands).

>>> b = LocalBudget(clock=lambda: 100.0)
>>> b.reserve("host:f", 2.0), b.reserve("host:f", 2.0), b.reserve("host:f", 2.0)
(0.0, 2.0, 4.0)
>>> b.reserve("host:f", 2.0, max_wait=5.0)
Traceback (most recent call last):
...
pbp.store.budget.BudgetDeferred: the next slot is 6.0 s away
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from ..errors import ConfigError
from .db import make_engine
from .infra import budgets_table, create_tables

try:  # optional (the ``scale`` extra): only a Redis budget URL needs it
    import redis
except ImportError:  # pragma: no cover
    redis = None  # type: ignore[assignment]

#: the panel's "requests this minute" window
WINDOW = 60.0


class BudgetDeferred(Exception):
    """The next slot is further away than the caller may wait: reschedule instead."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"the next slot is {wait:.1f} s away")
        self.wait = wait


@dataclass(frozen=True)
class BudgetUse:
    """What the panel shows of one key: its spacing, its requests in the last minute."""

    key: str
    interval: float | None
    window_calls: int
    calls: int
    next_at: float

    @property
    def per_minute(self) -> float | None:
        """Requests a minute the learnt interval allows (None: the caller's interval)."""
        return 60.0 / self.interval if self.interval else None


class RateBudget(Protocol):
    def reserve(self, key: str, interval: float, *, max_wait: float = math.inf,
                burst: float = 0.0) -> float:
        """Take the next slot of *key*; the seconds to wait before sending. Raises
        :class:`BudgetDeferred` (taking nothing) when that is more than *max_wait*. A
        learnt interval (:meth:`pace`) wins over *interval* when it is longer. *burst*
        (seconds of slots) lets that many intervals' worth go at once after a quiet spell
        (a generic cell rate: the long-run rate stays one per interval)."""
    def pace(self, key: str, interval: float | None, *, hold_for: float = 0.0) -> None:
        """Remember the server's spacing for *key*; *hold_for*: no request before then."""
    def usage(self, keys: Iterable[str] | None = None) -> list[BudgetUse]:
        """Each key's spacing and recent requests (for the panel)."""


class LocalBudget:
    """One process's budgets, in memory (no database: tests, one-off commands)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._rows: dict[str, list[Any]] = {}   # next_at, interval, window_start, window_calls, calls

    def reserve(self, key: str, interval: float, *, max_wait: float = math.inf,
                burst: float = 0.0) -> float:
        with self._lock:
            now = self.clock()
            row = self._rows.setdefault(key, [0.0, None, 0.0, 0, 0])
            at = max(now, row[0])
            if at - now - burst > max_wait:
                raise BudgetDeferred(at - now - burst)
            row[0] = at + max(interval, row[1] or 0.0)
            if row[2] <= now - WINDOW:
                row[2], row[3] = now, 0
            row[3] += 1
            row[4] += 1
            return max(0.0, at - now - burst)

    def pace(self, key: str, interval: float | None, *, hold_for: float = 0.0) -> None:
        with self._lock:
            row = self._rows.setdefault(key, [0.0, None, 0.0, 0, 0])
            row[1] = interval
            if hold_for > 0:
                row[0] = max(row[0], self.clock() + hold_for)

    def usage(self, keys: Iterable[str] | None = None) -> list[BudgetUse]:
        wanted = set(keys) if keys is not None else None
        now = self.clock()
        with self._lock:
            return [BudgetUse(k, r[1], r[3] if r[2] > now - WINDOW else 0, r[4], r[0])
                    for k, r in sorted(self._rows.items()) if wanted is None or k in wanted]


class DatabaseBudget:
    """Budgets as rows of ``pbp_budgets``: one atomic UPDATE per request."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock
        create_tables(engine, [budgets_table])   # a concurrent worker's creation is fine

    def reserve(self, key: str, interval: float, *, max_wait: float = math.inf,
                burst: float = 0.0) -> float:
        t = budgets_table
        for _ in range(3):
            now = self.clock()
            start = sa.case((t.c.next_at > now, t.c.next_at), else_=now)
            spacing = sa.case((t.c.spacing > interval, t.c.spacing), else_=interval)
            fresh = t.c.window_start > now - WINDOW
            stmt = (t.update().where(t.c.key == key)
                    .values(next_at=start + spacing,
                            window_start=sa.case((fresh, t.c.window_start), else_=now),
                            window_calls=sa.case((fresh, t.c.window_calls + 1), else_=1),
                            calls=t.c.calls + 1)
                    .returning(t.c.next_at, t.c.spacing))
            if math.isfinite(max_wait):
                stmt = stmt.where(t.c.next_at <= now + max_wait + burst)
            with self.engine.begin() as conn:
                row = conn.execute(stmt).first()
                if row is not None:
                    return max(0.0, float(row[0]) - max(interval, row[1] or 0.0) - now - burst)
                held = conn.execute(sa.select(t.c.next_at).where(t.c.key == key)).first()
            if held is not None:
                raise BudgetDeferred(float(held[0]) - now - burst)
            try:
                with self.engine.begin() as conn:
                    conn.execute(t.insert().values(key=key, next_at=now + interval, spacing=None,
                                                   window_start=now, window_calls=1, calls=1))
                return 0.0
            except IntegrityError:   # another process made the row first: take a slot in it
                continue
        raise BudgetDeferred(interval)  # pragma: no cover - three lost races in a row

    def pace(self, key: str, interval: float | None, *, hold_for: float = 0.0) -> None:
        t = budgets_table
        now = self.clock()
        values: dict[str, Any] = {"spacing": interval}
        if hold_for > 0:
            values["next_at"] = sa.case((t.c.next_at > now + hold_for, t.c.next_at),
                                        else_=now + hold_for)
        with self.engine.begin() as conn:
            if not conn.execute(t.update().where(t.c.key == key).values(**values)).rowcount:
                try:
                    conn.execute(t.insert().values(key=key, next_at=now + hold_for, spacing=interval,
                                                   window_start=now, window_calls=0, calls=0))
                except IntegrityError:  # pragma: no cover - made meanwhile; its pace is close
                    pass

    def usage(self, keys: Iterable[str] | None = None) -> list[BudgetUse]:
        t = budgets_table
        q = sa.select(t.c.key, t.c.spacing, t.c.window_start, t.c.window_calls, t.c.calls,
                      t.c.next_at).order_by(t.c.key)
        if keys is not None:
            q = q.where(t.c.key.in_(sorted(set(keys))))
        now = self.clock()
        with self.engine.connect() as conn:
            return [BudgetUse(k, iv, calls if start > now - WINDOW else 0, total, nxt)
                    for k, iv, start, calls, total, nxt in conn.execute(q)]


# KEYS[1]: the hash; ARGV: now, interval, max_wait (-1: any), window, burst
_RESERVE = """
local now = tonumber(ARGV[1]); local iv = tonumber(ARGV[2]); local maxw = tonumber(ARGV[3])
local burst = tonumber(ARGV[5])
local h = redis.call('hmget', KEYS[1], 'next_at', 'interval', 'window_start', 'window_calls')
local at = tonumber(h[1]) or 0
if at < now then at = now end
if maxw >= 0 and at - now - burst > maxw then return {0, tostring(at - now - burst)} end
local learnt = tonumber(h[2]) or 0
if learnt > iv then iv = learnt end
local ws = tonumber(h[3]) or 0; local wc = tonumber(h[4]) or 0
if ws <= now - tonumber(ARGV[4]) then ws = now; wc = 0 end
redis.call('hset', KEYS[1], 'next_at', tostring(at + iv), 'window_start', tostring(ws),
           'window_calls', wc + 1)
redis.call('hincrby', KEYS[1], 'calls', 1)
redis.call('expire', KEYS[1], 86400)
return {1, tostring(at - now - burst)}
"""


class RedisBudget:
    """Budgets as Redis hashes: one script call per request, no database transaction."""

    def __init__(self, url: str, prefix: str = "pbp:budget:",
                 clock: Callable[[], float] = time.time) -> None:
        if redis is None:
            raise ConfigError("a Redis budget URL needs the redis package (pip install 'pbp[scale]')")
        self.client: Any = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self.prefix = prefix
        self.clock = clock
        self._reserve = self.client.register_script(_RESERVE)

    def reserve(self, key: str, interval: float, *, max_wait: float = math.inf,
                burst: float = 0.0) -> float:
        ok, wait = self._reserve(keys=[self.prefix + key],
                                 args=[repr(self.clock()), repr(interval),
                                       repr(max_wait) if math.isfinite(max_wait) else "-1",
                                       repr(WINDOW), repr(burst)])
        if not int(ok):
            raise BudgetDeferred(float(wait))
        return max(0.0, float(wait))

    def pace(self, key: str, interval: float | None, *, hold_for: float = 0.0) -> None:
        name = self.prefix + key
        pipe = self.client.pipeline()
        if interval:
            pipe.hset(name, "interval", repr(interval))
        else:
            pipe.hdel(name, "interval")
        if hold_for > 0:
            current = float(self.client.hget(name, "next_at") or 0)
            pipe.hset(name, "next_at", repr(max(current, self.clock() + hold_for)))
        pipe.expire(name, 86400)
        pipe.execute()

    def usage(self, keys: Iterable[str] | None = None) -> list[BudgetUse]:
        names = ([self.prefix + k for k in sorted(set(keys))] if keys is not None
                 else sorted(n.decode() for n in self.client.scan_iter(self.prefix + "*")))
        now = self.clock()
        out = []
        for name in names:
            h = {k.decode(): v.decode() for k, v in self.client.hgetall(name).items()}
            if not h:
                continue
            start = float(h.get("window_start", 0))
            out.append(BudgetUse(name[len(self.prefix):], float(h["interval"]) if h.get("interval") else None,
                                 int(h.get("window_calls", 0)) if start > now - WINDOW else 0,
                                 int(h.get("calls", 0)), float(h.get("next_at", 0))))
        return out


_shared: dict[tuple[str, str], RateBudget] = {}
_shared_lock = threading.Lock()

def shared_budget(database_url: str, budget_url: str = "", prefix: str = "") -> RateBudget | None:
    """The budget every client of this process uses, one per configuration: Redis when
    *budget_url* (the ``rate_budget_url`` setting) is a Redis URL, ``local`` for one
    process's memory, ``none`` for no shared budget at all (each client alone, as before
    SCALE-1), else the database (an in-memory SQLite one is per process anyway)."""
    if budget_url == "none":
        return None
    key = (database_url, budget_url)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = _make(database_url, budget_url, prefix)
        return _shared[key]


def _make(database_url: str, budget_url: str, prefix: str) -> RateBudget:
    scheme = budget_url.split("://", 1)[0]
    if scheme in {"redis", "rediss"}:
        return RedisBudget(budget_url, prefix=prefix + "pbp:budget:")
    if budget_url == "local" or not database_url or database_url in ("sqlite://", "sqlite:///:memory:"):
        return LocalBudget()
    return DatabaseBudget(make_engine(budget_database(database_url)))


def budget_database(database_url: str) -> str:
    """Where the database budget lives: PostgreSQL's own database (a row lock per key), but
    on SQLite a file of its own beside the service's (``pbp.sqlite.budget``). SQLite has
    one write lock per file: a worker or a panel request that holds it (its transaction
    open while it reads a forum) would wait on its own lock for the budget row, until the
    busy timeout ("database is locked": the journey's opening reply never went out)."""
    if database_url.startswith("sqlite:///"):
        return database_url + ".budget"
    return database_url


def forget_shared_budgets() -> None:
    """Drop this process's budget clients (tests; a forked child builds its own)."""
    with _shared_lock:
        _shared.clear()


def usage_in(session: Any, keys: Iterable[str], clock: Callable[[], float] = time.time) -> list[BudgetUse]:
    """The database budgets' use read in the caller's own session (the panel's request):
    a second engine beside it would wait on the request's own SQLite lock."""
    t = budgets_table
    now = clock()
    rows = session.execute(sa.select(t.c.key, t.c.spacing, t.c.window_start, t.c.window_calls,
                                     t.c.calls, t.c.next_at).where(t.c.key.in_(sorted(set(keys)))))
    return [BudgetUse(k, iv, calls if start > now - WINDOW else 0, total, nxt)
            for k, iv, start, calls, total, nxt in rows]

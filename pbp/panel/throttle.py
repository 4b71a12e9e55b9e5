"""Failed logins, counted where every panel process sees them (issue 12, item 4).

Two counters per failed login, each locking only what it counts:

* the (name, address) **pair**: ``LOGIN_MAX_FAILURES`` (5) failures within
  ``LOGIN_WINDOW`` lock that name *from that address* for ``LOGIN_LOCKOUT`` seconds,
  doubled at each new lockout up to ``LOGIN_LOCKOUT_MAX``. Someone typing Alice's name
  with wrong passwords never locks Alice out from her own address, nor Bob from theirs.
* the **address**: ``LOGIN_ADDRESS_MAX_FAILURES`` (100) failures, whatever the names, lock
  the address (a guesser spraying many names from one place). It is far above what one
  pair can reach in a window (the pair locks at 5, then for 60, 120, 240, 480 s: at most
  about 25 failures in 15 minutes), so failures on one account never lock another one.

There is no name-wide counter on purpose: it would let anyone lock a narrator out by
typing their name from anywhere, the very trick the issue reports. A guesser with many
addresses still pays an argon2 verification per try and 5 tries per address per lockout.

Where: Redis when the panel is configured with one (``THROTTLE_REDIS_URL``: the settings'
``lock_url``, else the broker when it is Redis), else the database table
``login_throttle`` (:mod:`pbp.store.logins`). Either survives a restart and is shared by
every gunicorn worker. Requests refused while locked are not counted (nor checked).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.orm import Session

from ..errors import ConfigError
from ..store import logins

try:  # optional (the ``scale`` extra): only a Redis-backed panel needs it
    import redis
except ImportError:  # pragma: no cover - the embedded default runs without it
    redis = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Limits:
    """How many failures lock a key, within how long, and for how long."""

    failures: int
    window: float
    lockout: float
    lockout_max: float


class Store(Protocol):
    def wait(self, keys: list[str], now: float) -> float: ...
    def fail(self, key: str, limits: Limits, now: float) -> None: ...
    def clear(self, key: str) -> None: ...


#: how often a failure also forgets the counters nobody has touched for a while
PRUNE_ODDS = 0.02


class DatabaseStore:
    """Counters in ``login_throttle``, through the request's own session (on SQLite a
    second connection would wait for the request's write lock)."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self.session = session

    def wait(self, keys: list[str], now: float) -> float:
        return logins.locked_for(self.session(), keys, now=now)

    def fail(self, key: str, limits: Limits, now: float) -> None:
        s = self.session()
        logins.record_failure(s, key, now=now, limit=limits.failures, window=limits.window,
                              lockout=limits.lockout, lockout_max=limits.lockout_max)
        if random.random() < PRUNE_ODDS:   # now and then, not a full scan per failure
            logins.prune_failures(s, now=now, keep=limits.window + limits.lockout_max)
        s.commit()

    def clear(self, key: str) -> None:
        logins.clear_failures(self.session(), key)  # committed with the login itself


#: KEYS: count, lock, lockouts. ARGV: limit, window ms, lockout ms, lockout max ms, memory ms.
_FAIL = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n >= tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  local k = redis.call('INCR', KEYS[3])
  local ms = math.min(tonumber(ARGV[3]) * 2 ^ (k - 1), tonumber(ARGV[4]))
  redis.call('SET', KEYS[2], '1', 'PX', math.floor(ms))
  redis.call('PEXPIRE', KEYS[3], math.floor(ms) + tonumber(ARGV[5]))
end
return n
"""


class RedisStore:
    """Counters in Redis: a counting key that expires with its window, a lock key that
    expires with the lockout, a lockouts key remembered ``lockout_max`` past the lock."""

    def __init__(self, url: str, prefix: str = "") -> None:
        if redis is None:
            raise ConfigError("a Redis-backed panel needs the redis package (pip install 'pbp[scale]')")
        self.client: Any = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self.prefix = prefix + "pbp:login:"

    def _keys(self, key: str) -> list[str]:
        h = logins.digest(key)
        return [f"{self.prefix}{h}:n", f"{self.prefix}{h}:lock", f"{self.prefix}{h}:k"]

    def wait(self, keys: list[str], now: float) -> float:
        ttls = [self.client.pttl(self._keys(k)[1]) for k in keys]
        return max([0.0, *(t / 1000 for t in ttls if t > 0)])

    def fail(self, key: str, limits: Limits, now: float) -> None:
        self.client.eval(_FAIL, 3, *self._keys(key), limits.failures, int(limits.window * 1000),
                         int(limits.lockout * 1000), int(limits.lockout_max * 1000),
                         int(limits.lockout_max * 1000))

    def clear(self, key: str) -> None:
        self.client.delete(*self._keys(key))

    def close(self) -> None:
        self.client.close()


class LoginThrottle:
    """The policy above, over a :class:`Store`."""

    def __init__(self, store: Store, *, pair: Limits, address: Limits,
                 clock: Callable[[], float] = time.time) -> None:
        self.store, self.pair, self.address, self.clock = store, pair, address, clock

    @staticmethod
    def _keys(name: str, address: str) -> tuple[str, str]:
        return f"pair:{name.casefold()}\0{address}", f"addr:{address}"

    def retry_after(self, name: str, address: str) -> int:
        """Whole seconds until *name* may try again from *address* (0: now)."""
        wait = self.store.wait(list(self._keys(name, address)), self.clock())
        return int(wait + 0.999)

    def fail(self, name: str, address: str) -> None:
        pair, addr = self._keys(name, address)
        now = self.clock()
        self.store.fail(pair, self.pair, now)
        self.store.fail(addr, self.address, now)

    def succeed(self, name: str, address: str) -> None:
        """Forget the pair's failures (not the address's: logging in to one's own account
        must not reset a spray from the same place)."""
        self.store.clear(self._keys(name, address)[0])


def from_config(config: Any, session: Callable[[], Session]) -> LoginThrottle:
    """The throttle the app's configuration describes."""
    url = config.get("THROTTLE_REDIS_URL") or ""
    store: Store = (RedisStore(url, config.get("THROTTLE_REDIS_PREFIX") or "")
                    if url.split("://", 1)[0] in {"redis", "rediss"} else DatabaseStore(session))
    window, lockout, most = (float(config[k]) for k in ("LOGIN_WINDOW", "LOGIN_LOCKOUT", "LOGIN_LOCKOUT_MAX"))
    return LoginThrottle(
        store, pair=Limits(int(config["LOGIN_MAX_FAILURES"]), window, lockout, most),
        address=Limits(int(config["LOGIN_ADDRESS_MAX_FAILURES"]), window, lockout, most),
        clock=config.get("LOGIN_CLOCK") or time.time)

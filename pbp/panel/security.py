"""Passwords (argon2id), CSRF on every form, failed-login lockout, security headers.

Why argon2id: the current OWASP recommendation for password storage; argon2-cffi's
defaults follow RFC 9106's low-memory profile. The lockout is kept in memory per
process (with gunicorn, per worker): it slows a guesser down by a factor of the
worker count at worst, which is what it is for; it is not an account state.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import Flask, Response
from flask_wtf.csrf import CSRFProtect

from . import cookies

csrf = CSRFProtect()
_hasher = PasswordHasher()
#: Verified against when the name is unknown, so both paths cost one argon2 run.
_DUMMY_HASH = _hasher.hash("not a password")


def hash_password(password: str) -> str:
    if not password:
        raise ValueError("a password cannot be empty")
    return _hasher.hash(password)


def verify_password(stored: str | None, password: str) -> bool:
    """True when *password* matches *stored*; an unknown user (None) costs the same time."""
    try:
        return _hasher.verify(stored or _DUMMY_HASH, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    return _hasher.check_needs_rehash(stored)


@dataclass
class _Record:
    failures: list[float] = field(default_factory=list)
    locked_until: float = 0.0
    lockouts: int = 0


class LoginThrottle:
    """Counts failed logins per key (a lower-cased name, an address).

    >>> t = LoginThrottle(max_failures=2, window=60, lockout=10, clock=lambda: 0.0)
    >>> t.fail("a"); t.retry_after("a")
    0
    >>> t.fail("a"); t.retry_after("a")
    10
    """

    def __init__(self, *, max_failures: int = 5, window: float = 900, lockout: float = 60,
                 lockout_max: float = 3600, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_failures, self.window = max_failures, window
        self.lockout, self.lockout_max = lockout, lockout_max
        self.clock = clock
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    def retry_after(self, *keys: str) -> int:
        """Seconds until any of *keys* may try again (0: now)."""
        now = self.clock()
        with self._lock:
            waits = [r.locked_until - now for k in keys if (r := self._records.get(k))]
        return max([0, *(int(w + 0.999) for w in waits)])

    def fail(self, *keys: str) -> None:
        now = self.clock()
        with self._lock:
            for key in keys:
                r = self._records.setdefault(key, _Record())
                r.failures = [t for t in r.failures if now - t < self.window] + [now]
                if len(r.failures) >= self.max_failures:
                    r.locked_until = now + min(self.lockout * 2 ** r.lockouts, self.lockout_max)
                    r.lockouts += 1
                    r.failures.clear()
            if len(self._records) > 100_000:  # bounded: forget the oldest half
                for key in list(self._records)[: len(self._records) // 2]:
                    del self._records[key]

    def succeed(self, *keys: str) -> None:
        with self._lock:
            for key in keys:
                self._records.pop(key, None)


_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def _headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", _CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response


def init_app(app: Flask) -> None:
    cookies.init_app(app)
    csrf.init_app(app)
    app.extensions["pbp_login_throttle"] = LoginThrottle(
        max_failures=app.config["LOGIN_MAX_FAILURES"], window=app.config["LOGIN_WINDOW"],
        lockout=app.config["LOGIN_LOCKOUT"], lockout_max=app.config["LOGIN_LOCKOUT_MAX"],
        clock=app.config.get("LOGIN_CLOCK") or time.monotonic)
    app.after_request(_headers)

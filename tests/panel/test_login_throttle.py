"""Issue 12, item 4: login throttling that cannot be turned against others.

Failures count per (name, address) pair and per address, in the database (or Redis),
so one account's failures never lock another account, every worker sees the same
count, and a restart keeps it. The address comes from X-Forwarded-For only when the
operator trusts a proxy.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from sqlalchemy import func, select

from pbp.panel import create_app, sample
from pbp.store import logins
from pbp.store.db import make_engine
from pbp.store.logins import throttle_table

from .conftest import Client

X, Y = "203.0.113.7", "198.51.100.9"


def browser(app: Any, address: str = X, **headers: str) -> Client:
    c = Client(app.test_client())
    c.c.environ_base["REMOTE_ADDR"] = address
    for k, v in headers.items():
        c.c.environ_base["HTTP_" + k.upper().replace("-", "_")] = v
    return c


def throttled_app(db_url: str, **extra: Any) -> Any:
    return create_app({"TESTING": True, "SECRET_KEY": "k", "DATABASE_URL": db_url, "LOGIN_MAX_FAILURES": 5,
                       "LOGIN_ADDRESS_MAX_FAILURES": 100, "LOGIN_LOCKOUT": 60, **extra})


def test_issue12_4_twenty_failures_for_alice_never_lock_bob(db_url: str) -> None:
    """20 wrong passwords for account A from address X; account B logs in from X, and A
    itself still logs in from another address."""
    app = throttled_app(db_url)
    attacker = browser(app)
    codes = [attacker.login("alice", f"guess {i}").status_code for i in range(20)]
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}   # the pair locks at 5
    assert browser(app).login("bob").status_code == 302
    assert browser(app, Y).login("alice").status_code == 302    # alice elsewhere: not locked
    assert browser(app).login("alice").status_code == 429       # alice from X: locked


def test_issue12_4_the_address_cap_stops_a_spray_of_names(db_url: str) -> None:
    """Many names from one address (each below the pair limit) lock the address only."""
    app = throttled_app(db_url, LOGIN_MAX_FAILURES=3, LOGIN_ADDRESS_MAX_FAILURES=6)
    sprayer = browser(app)
    assert [sprayer.login(f"user{i}", "x").status_code for i in range(6)] == [401] * 6
    assert browser(app).login("bob").status_code == 429
    assert browser(app, Y).login("bob").status_code == 302


def test_issue12_4_the_refusal_says_how_long_in_words(db_url: str) -> None:
    app = throttled_app(db_url, LOGIN_MAX_FAILURES=2, LOGIN_LOCKOUT=60)
    c = browser(app)
    c.login("alice", "a"), c.login("alice", "b")
    r = c.login("alice")
    assert r.status_code == 429 and r.headers["Retry-After"] == "60"
    assert "Too many failed logins. Try again in 1 minute." in r.text
    c.c.environ_base["HTTP_ACCEPT_LANGUAGE"] = "pt"
    c.get("/login")
    r = c.post("/login", {"name": "alice", "password": "x"})
    assert r.status_code == 429 and "1 minuto" in r.text


def test_issue12_4_a_forwarded_header_is_ignored_unless_a_proxy_is_trusted(db_url: str) -> None:
    app = throttled_app(db_url, LOGIN_MAX_FAILURES=2)
    c = browser(app)
    for i in range(3):   # a new X-Forwarded-For each try: still one address, the socket's
        c.c.environ_base["HTTP_X_FORWARDED_FOR"] = f"192.0.2.{i}"
        c.login("alice", "wrong")
    c.c.environ_base["HTTP_X_FORWARDED_FOR"] = "192.0.2.99"
    assert c.login("alice").status_code == 429

    proxied = throttled_app(db_url, LOGIN_MAX_FAILURES=2, TRUSTED_PROXIES=1)
    behind = browser(proxied, "10.0.0.1", X_Forwarded_For=X)   # the proxy's own address
    assert behind.login("bob", "x").status_code == 401
    assert behind.login("bob", "y").status_code == 401
    assert behind.login("bob").status_code == 429                # bob from X (as the proxy says)
    other = browser(proxied, "10.0.0.1", X_Forwarded_For=Y)     # same proxy, another client
    assert other.login("bob").status_code == 302


def test_issue12_4_the_lockout_is_in_the_database_and_outlives_the_app(db_url: str) -> None:
    """A second app on the same database (another worker, or the panel restarted) sees it;
    what is stored is hashed: no name or address in the table."""
    first = throttled_app(db_url, LOGIN_MAX_FAILURES=3)
    c = browser(first)
    for _ in range(3):
        c.login("alice", "wrong")
    second = throttled_app(db_url, LOGIN_MAX_FAILURES=3)
    assert browser(second).login("alice").status_code == 429
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            keys = list(conn.execute(select(throttle_table.c.key)).scalars())
    finally:
        engine.dispose()
    assert len(keys) == 2 and all(len(k) == 64 and "alice" not in k and X not in k for k in keys)


def test_issue12_4_a_success_clears_the_pair_only(db_url: str) -> None:
    app = throttled_app(db_url, LOGIN_MAX_FAILURES=3, LOGIN_ADDRESS_MAX_FAILURES=4)
    c = browser(app)
    c.login("alice", "wrong"), c.login("alice", "wrong")
    assert c.login("alice").status_code == 302
    c.post("/logout", {})
    c.login("alice", "wrong"), c.login("alice", "wrong")   # 2 again: the pair restarted at 0
    assert c.login("alice").status_code == 429   # the address reached 4: its count was kept


def test_issue12_4_redis_backend_shared_and_isolated(db_url: str, redis_url: str) -> None:
    """With Redis configured, two apps (two processes) share one count, nothing is written
    to the database, and the isolation holds the same."""
    prefix = f"pbp:test:{uuid.uuid4().hex[:8]}:"
    apps = [throttled_app(db_url, THROTTLE_REDIS_URL=redis_url, THROTTLE_REDIS_PREFIX=prefix) for _ in range(2)]
    try:
        codes = [browser(apps[i % 2]).login("alice", f"g{i}").status_code for i in range(8)]
        assert codes == [401] * 5 + [429] * 3
        assert browser(apps[1]).login("bob").status_code == 302
        assert browser(apps[0], Y).login("alice").status_code == 302
        store = apps[0].extensions["pbp_login_throttle"].store
        left = max(store.client.pttl(k) for k in store.client.keys(prefix + "*:lock"))
        assert 55_000 < left <= 60_000
        engine = make_engine(db_url)
        try:
            with engine.connect() as conn:
                assert conn.execute(select(func.count()).select_from(throttle_table)).scalar() == 0
        finally:
            engine.dispose()
    finally:
        for app in apps:
            store = app.extensions["pbp_login_throttle"].store
            for key in store.client.keys(prefix + "*"):
                store.client.delete(key)
            store.close()


def test_issue12_4_lockouts_double_and_end(db_url: str) -> None:
    now = [time.time()]
    app = throttled_app(db_url, LOGIN_MAX_FAILURES=2, LOGIN_LOCKOUT=30, LOGIN_CLOCK=lambda: now[0])
    c = browser(app)
    c.login("alice", "a"), c.login("alice", "b")
    assert c.login("alice").status_code == 429
    now[0] += 31
    c.login("alice", "c"), c.login("alice", "d")     # the second lockout: 60 s
    now[0] += 59
    assert c.login("alice").status_code == 429
    now[0] += 2
    assert c.login("alice", sample.PASSWORD).status_code == 302


def test_issue12_4_idle_counters_are_forgotten(db_url: str) -> None:
    """The table does not grow for ever: a counter neither failing nor locked for a window
    plus the longest lockout is deleted (pbp.store.logins.prune_failures)."""
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            for key, t in (("old", 0.0), ("recent", 5000.0)):
                logins.record_failure(conn, key, now=t, limit=5, window=900, lockout=60, lockout_max=3600)
            logins.prune_failures(conn, now=5000.0, keep=900 + 3600)
            left = conn.execute(select(func.count()).select_from(throttle_table)).scalar()
    finally:
        engine.dispose()
    assert left == 1

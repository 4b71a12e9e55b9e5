"""SCALE-3: a pooled PostgreSQL connection is pinged before use only when it sat idle
(pbp.store.ping), on a real server: one put back a moment ago is handed out without a
round trip; a dead one is found and replaced when pinged, and, killed within the idle
window, fails one statement and is replaced at the next (the task's retry)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from pbp.store.db import make_engine

pytestmark = pytest.mark.integration


def _engine(postgres_url: str, idle_s: float) -> tuple[Engine, list[int]]:
    engine = make_engine(postgres_url, ping_after_idle_s=idle_s, pool_size=1, max_overflow=0)
    pings: list[int] = []
    real = engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return real(dbapi_connection)

    engine.dialect.do_ping = counted  # type: ignore[method-assign]
    return engine, pings


def _backend(engine: Engine) -> int:
    with engine.connect() as c:
        return int(c.execute(text("SELECT pg_backend_pid()")).scalar_one())


def _kill(postgres_url: str, pid: int) -> None:
    other = make_engine(postgres_url)
    with other.connect() as c:
        assert c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar_one()
        c.commit()
    other.dispose()


def test_scale3_a_connection_put_back_just_now_is_not_pinged(postgres_url: str) -> None:
    engine, pings = _engine(postgres_url, idle_s=60)
    first = _backend(engine)       # a new connection: pinged once
    again = [_backend(engine) for _ in range(5)]
    assert again == [first] * 5    # the same connection, each time
    assert len(pings) == 1
    engine.dispose()


def test_scale3_an_idle_connection_is_pinged_and_a_dead_one_replaced(postgres_url: str) -> None:
    """With no idle allowance (as if every connection had waited), each checkout pings,
    and a connection the server killed is thrown away before any statement uses it."""
    engine, pings = _engine(postgres_url, idle_s=0)
    first = _backend(engine)
    _kill(postgres_url, first)
    second = _backend(engine)      # no error: the ping found it dead, the pool made another
    assert second != first
    assert len(pings) >= 3         # the first checkout, the dead one, its replacement
    engine.dispose()


def test_scale3_a_connection_killed_within_the_window_fails_once_then_recovers(
        postgres_url: str) -> None:
    engine, pings = _engine(postgres_url, idle_s=3600)
    first = _backend(engine)
    _kill(postgres_url, first)
    with pytest.raises(OperationalError):   # unpinged: the statement meets the dead link
        _backend(engine)
    second = _backend(engine)      # SQLAlchemy invalidated it: a fresh connection now
    assert second != first
    engine.dispose()

"""A pooled PostgreSQL connection pinged before use only when it sat idle a while.

Why: ``pool_pre_ping`` asks the server "are you there?" at every checkout, a round trip
before each session's first statement. A worker's poll opens a session per thread and
finishes it in milliseconds, so most pings asked of a connection put back a moment ago;
each cost some 150-250 us of the worker's CPU on this machine, a fortieth of an ingest
batch (SCALE-6). What the ping guards against (a restarted server, a connection closed
by the server's or a firewall's idle timeout) happens to a connection that has waited,
so only a connection idle for :data:`IDLE_S` or more is pinged; one used just now is
handed out as it is.

If the server restarts within those seconds, the next statement on such a connection
fails once; SQLAlchemy then marks every pooled connection of that server invalid, the
task fails as any database outage makes it fail, and its retry gets fresh connections
(tests/store/test_ping.py kills a connection to show both).

The ping is the dialect's own (:meth:`~sqlalchemy.engine.Dialect.do_ping`, what
``pool_pre_ping`` sends); a failed one raises :class:`~sqlalchemy.exc.DisconnectionError`,
on which the pool throws the connection away and checks out another (SQLAlchemy's
documented recipe for pessimistic disconnect handling).
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Engine, event, exc

#: seconds a connection may sit in the pool and still be handed out unpinged
IDLE_S = 5.0

_CHECKED_IN = "pbp_checked_in"


def install(engine: Engine, idle_s: float = IDLE_S) -> None:
    """Ping *engine*'s connections at checkout when idle for *idle_s* seconds or more
    (0: always, as ``pool_pre_ping`` does)."""
    dialect = engine.dialect

    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info[_CHECKED_IN] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        last = record.info.get(_CHECKED_IN)
        if last is not None and time.monotonic() - last < idle_s:
            return   # put back a moment ago: a new connection has no mark and is pinged
        try:
            alive = dialect.do_ping(dbapi_connection)
        except Exception as error:   # noqa: BLE001 - any failure means a dead connection
            raise exc.DisconnectionError(f"the pooled connection did not answer: {error}") from error
        if alive is False:
            raise exc.DisconnectionError("the pooled connection did not answer")

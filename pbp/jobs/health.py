"""Heartbeats written, and problems told once (issue 18).

Why heartbeats in the database and not Celery's own events: the database is the one thing
every layout shares (embedded SQLite or PostgreSQL), it needs no listener process, and
``pbp status``, the panel and ``/healthz`` already read it. Beat writes ``beat:<host>`` on
its tick and measures the queues; a worker writes ``worker:<hostname>`` when it runs the
``pbp.heartbeat`` task beat sends every ``heartbeat_interval`` on the rounds queue — so a
fresh worker heartbeat proves a worker is taking tasks from the queue deadlines use, not
just that its process exists.

:class:`Watch` turns the verdict (:mod:`pbp.store.health`) into log lines: one ERROR when a
process goes stale, one INFO when it answers again, never one per check. ``pbp serve``'s
supervisor runs one; beat runs one for the workers when no supervisor does.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, update
from sqlalchemy.engine import Engine

from ..store.db import session_scope
from ..store.health import Health, Problem, health
from ..store.infra import heartbeats_table

log = logging.getLogger("pbp.jobs.health")

#: Rows not refreshed for a day are a process that is gone for good (a worker renamed,
#: a machine retired); they are dropped so the freshest row decides.
FORGET_AFTER = 86400.0


def beat_name() -> str:
    return f"beat:{socket.gethostname()}"


def record(engine: Engine, name: str, role: str, *, state: str = "alive",
           detail: dict[str, Any] | None = None, at: float | None = None) -> None:
    """Write *name*'s heartbeat (an upsert: update, insert when there was no row)."""
    at = time.time() if at is None else at
    values = {"role": role, "state": state, "seen_at": at, "pid": os.getpid(),
              "host": socket.gethostname(), "detail": json.dumps(detail or {}, sort_keys=True)}
    t = heartbeats_table
    with engine.begin() as conn:
        done = conn.execute(update(t).where(t.c.name == name).values(**values)).rowcount
        if not done:
            conn.execute(t.insert().values(name=name, **values))
        conn.execute(delete(t).where(t.c.seen_at < at - FORGET_AFTER))


def forget(engine: Engine, name: str) -> None:
    """Drop *name*'s row (``pbp serve`` clears its give-up when it starts the child again)."""
    with engine.begin() as conn:
        conn.execute(delete(heartbeats_table).where(heartbeats_table.c.name == name))


def ago(seconds: float | None) -> str:
    """``130`` -> ``"2 minutes"``: a duration as an operator says it."""
    if seconds is None:
        return "ever"
    s = max(0, round(seconds))
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if s >= size:
            n = round(s / size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{s} second{'s' if s != 1 else ''}"


#: what a stopped process stops from happening, said once per role
CONSEQUENCE = {"worker": "rounds are not being resolved and replies are not being posted",
               "beat": "deadlines are not being swept and threads are not being polled"}
NAMES = {"worker": "the worker", "beat": "beat"}


def describe(problem: Problem) -> str:
    """A problem in English words (the CLI and the logs; the panel has its own, translated)."""
    who = NAMES.get(problem.role, problem.role)
    if problem.code == "given_up":
        return (f"pbp serve stopped restarting {who} after {problem.restarts} restarts within "
                f"{ago(problem.window)}; see the log above for why it exits")
    if problem.code == "never":
        return f"{who} has not answered yet; {CONSEQUENCE.get(problem.role, '')}"
    return f"{who} has not answered for {ago(problem.age_s)}; {CONSEQUENCE.get(problem.role, '')}"


class Watch:
    """Logs each incident once: ERROR when a role goes stale, INFO when it answers again.

    *roles* limits what this watcher speaks for (beat watches the workers; the supervisor
    of ``pbp serve`` watches both, and beat then stays quiet, so nothing is said twice).
    """

    def __init__(self, engine: Engine, stale_after: float, roles: tuple[str, ...] = ("worker", "beat"),
                 *, grace: float | None = None) -> None:
        self.engine = engine
        self.stale_after = stale_after
        self.roles = roles
        self.started = time.monotonic()
        #: a freshly started service has sent no heartbeat yet: "never" is not an incident
        #: until it has had a stale period's time to send one
        self.grace = stale_after if grace is None else grace
        self.down: set[str] = set()

    def check(self, now: datetime | None = None) -> Health:
        with session_scope(self.engine) as s:
            verdict = health(s, now or datetime.now(UTC), stale_after=self.stale_after)
        young = time.monotonic() - self.started < self.grace
        for role in self.roles:
            p = getattr(verdict, role)
            if p.stale and role not in self.down:
                if young and p.last_seen is None and p.given_up is None:
                    continue
                self.down.add(role)
                for problem in verdict.problems:
                    # a give-up was logged by the supervisor that gave up, when it did
                    if problem.role == role and problem.code != "given_up":
                        log.error(describe(problem), extra={"role": role, "incident": "start"})
            elif not p.stale and role in self.down:
                self.down.discard(role)
                log.info(f"{NAMES.get(role, role)} answers again", extra={"role": role, "incident": "end"})
        return verdict

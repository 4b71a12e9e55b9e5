"""Is anyone resolving the rounds? The heartbeats of the workers and beat, read (issue 18).

Why in the store: the dashboard, ``pbp status``, ``pbp health``, ``/healthz`` and the
watchers that log an incident (``pbp serve``'s supervisor, beat) must give one answer to
"is the worker alive", so the rows are read and judged once, here. A process is *stale*
when its last heartbeat is older than ``heartbeat_stale`` seconds, when it never sent one,
or when ``pbp serve`` gave up restarting it after that heartbeat. The words for a problem
are the caller's (English in the CLI and logs, flask-babel in the panel); this module
returns what happened, in figures.

>>> from datetime import UTC, datetime
>>> now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
>>> rows = [{"name": "worker:w1@h", "role": "worker", "state": "alive",
...          "seen_at": now.timestamp() - 130, "pid": 7, "host": "h", "detail": "{}"}]
>>> h = judge(rows, now, stale_after=60)
>>> h.worker.stale, round(h.worker.age_s), h.beat.stale, h.beat.last_seen is None
(True, 130, True, True)
>>> [p.code for p in h.problems]
['stale', 'never']
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, inspect, select
from sqlalchemy.orm import Session

from . import queries
from .infra import heartbeats_table
from .models import Round

#: The processes whose heartbeats are judged, in the order they are shown.
ROLES = ("worker", "beat")


@dataclass(frozen=True)
class ProcessHealth:
    """One role (every worker together, or beat): its freshest heartbeat and the verdict."""

    role: str
    name: str | None = None
    last_seen: datetime | None = None
    age_s: float | None = None
    stale: bool = True
    #: ``{"restarts": n, "window": s, "at": unix time}`` when pbp serve stopped restarting it
    given_up: dict[str, Any] | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> str:
        return "stale" if self.stale else "ok"


@dataclass(frozen=True)
class Problem:
    """Something a narrator or operator must hear about. ``code``: ``stale`` (no heartbeat
    for ``age_s``), ``never`` (no heartbeat at all), ``given_up`` (``restarts`` restarts within
    ``window`` seconds, then pbp serve stopped restarting the process)."""

    code: str
    role: str
    age_s: float | None = None
    restarts: int | None = None
    window: float | None = None


@dataclass(frozen=True)
class Health:
    now: datetime
    stale_after: float
    worker: ProcessHealth
    beat: ProcessHealth
    #: messages waiting per queue, as beat last measured them (None: not measured)
    queues: dict[str, int] | None = None
    overdue_rounds: int = 0
    oldest_overdue: datetime | None = None

    @property
    def ok(self) -> bool:
        return not (self.worker.stale or self.beat.stale)

    @property
    def waiting(self) -> int | None:
        return None if self.queues is None else sum(self.queues.values())

    @property
    def oldest_overdue_s(self) -> float | None:
        return None if self.oldest_overdue is None else (self.now - self.oldest_overdue).total_seconds()

    @property
    def problems(self) -> list[Problem]:
        out = []
        for p in (self.worker, self.beat):
            if p.given_up is not None:
                out.append(Problem("given_up", p.role, restarts=int(p.given_up.get("restarts", 0)),
                                   window=float(p.given_up.get("window", 0))))
            if p.stale:
                out.append(Problem("never", p.role) if p.last_seen is None
                           else Problem("stale", p.role, age_s=p.age_s))
        return out

    def as_json(self) -> dict[str, Any]:
        """What ``/healthz`` and ``pbp status --json`` print: states and figures, no secrets."""
        def one(p: ProcessHealth) -> dict[str, Any]:
            return {"state": p.state, "name": p.name,
                    "last_seen": p.last_seen.isoformat() if p.last_seen else None,
                    "age_s": None if p.age_s is None else round(p.age_s, 1),
                    "given_up": p.given_up}
        return {"worker": self.worker.state, "beat": self.beat.state,
                "processes": {"worker": one(self.worker), "beat": one(self.beat)},
                "queues": self.queues, "waiting": self.waiting,
                "overdue_rounds": self.overdue_rounds,
                "oldest_overdue_s": None if self.oldest_overdue_s is None else round(self.oldest_overdue_s, 1),
                "stale_after_s": self.stale_after,
                "problems": [{**vars(p), "age_s": None if p.age_s is None else round(p.age_s, 1)}
                             for p in self.problems]}


def _detail(row: Mapping[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(row.get("detail") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def judge(rows: Iterable[Mapping[str, Any]], now: datetime, stale_after: float, *,
          overdue: tuple[int, datetime | None] = (0, None)) -> Health:
    """The verdict on heartbeat *rows* (``pbp_heartbeats`` mappings) at *now*."""
    rows = list(rows)
    roles: dict[str, ProcessHealth] = {}
    queues = None
    for role in ROLES:
        alive = sorted((r for r in rows if r["role"] == role and r["state"] == "alive"),
                       key=lambda r: r["seen_at"], reverse=True)
        gave = max((r for r in rows if r["role"] == role and r["state"] == "given_up"),
                   key=lambda r: r["seen_at"], default=None)
        best = alive[0] if alive else None
        seen = datetime.fromtimestamp(best["seen_at"], UTC) if best else None
        age = (now - seen).total_seconds() if seen else None
        given_up = None
        if gave is not None and (best is None or gave["seen_at"] >= best["seen_at"]):
            given_up = {**_detail(gave), "at": gave["seen_at"]}
        stale = age is None or age > stale_after or given_up is not None
        detail = _detail(best) if best else {}
        roles[role] = ProcessHealth(role, best["name"] if best else None, seen, age, stale,
                                    given_up, detail)
        if role == "beat" and isinstance(detail.get("queues"), dict):
            queues = {str(k): int(v) for k, v in detail["queues"].items()}
    return Health(now, stale_after, roles["worker"], roles["beat"], queues, *overdue)


def heartbeat_rows(session: Session) -> list[dict[str, Any]]:
    """Every heartbeat row (none before the table exists: a database not yet migrated)."""
    if not inspect(session.connection()).has_table(heartbeats_table.name):
        return []
    return [dict(r) for r in session.execute(select(heartbeats_table)).mappings()]


def overdue_rounds(session: Session, now: datetime) -> tuple[int, datetime | None]:
    """How many open rounds are past their deadline, and the oldest such deadline; a round
    whose announcement waits for a narrator's approval is not counted (its clock waits)."""
    rounds = [r for r in session.scalars(select(Round).where(Round.state == "open",
                                                             Round.deadline <= now)
                                         .order_by(Round.deadline))
              if not queries.announcement_held(session, r)]
    return len(rounds), (rounds[0].deadline if rounds else None)


def health(session: Session, now: datetime | None = None, *, stale_after: float) -> Health:
    """The service's health as the database shows it at *now* (default: the clock)."""
    now = now or datetime.now(UTC)
    return judge(heartbeat_rows(session), now, stale_after, overdue=overdue_rounds(session, now))


def last_heartbeat(session: Session, role: str) -> float | None:
    """Unix time of *role*'s freshest ``alive`` heartbeat (tests and the watchers)."""
    if not inspect(session.connection()).has_table(heartbeats_table.name):
        return None
    return session.scalar(select(func.max(heartbeats_table.c.seen_at))
                          .where(heartbeats_table.c.role == role,
                                 heartbeats_table.c.state == "alive"))

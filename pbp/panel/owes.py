"""STALL-9: the "who owes a post" page, across every campaign the narrator runs.

Why its own page and not a dashboard column: the narrator's question is per player
("who am I waiting for, since when, is that usual for them?"), not per encounter. The
rows and the players' records come from one store call (:func:`pbp.store.owes.owes`,
a fixed handful of queries whatever the number of campaigns); this module only turns
times into words a narrator reads at a glance ("in 5 h", "overdue by 2 h").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import Blueprint, render_template
from flask_login import current_user, login_required

from ..store import owes as store
from ..store.types import utcnow
from .access import campaigns
from .db import session

bp = Blueprint("owes", __name__)


@dataclass(frozen=True)
class Relative:
    """How far a deadline is: ``kind`` ``minutes`` | ``hours`` | ``days`` ahead, or
    ``overdue`` (``n`` whole hours past, at least 1: "overdue by 1 h" a minute past)."""

    kind: str
    n: int


def relative(deadline: datetime, now: datetime) -> Relative:
    """*deadline* from *now*: whole minutes under an hour (rounded up), whole hours under
    48 h (rounded down, never later than it says), whole days after; past it, whole
    hours overdue (rounded down, at least 1)."""
    seconds = (deadline - now).total_seconds()
    if seconds <= 0:
        return Relative("overdue", max(1, int(-seconds // 3600)))
    if seconds < 3600:
        return Relative("minutes", max(1, -int(-seconds // 60)))
    if seconds < 48 * 3600:
        return Relative("hours", int(seconds // 3600))
    return Relative("days", int(seconds // 86400))


def delay_hours(delay: timedelta | None) -> str:
    """An average delay in hours with one decimal (``7.5``), or "" when none."""
    return "" if delay is None else f"{delay.total_seconds() / 3600:.1f}"


@bp.route("/owes")
@login_required
def index():  # type: ignore[no-untyped-def]
    s = session()
    camps = campaigns(s, current_user.id)
    now = utcnow()
    data = store.owes(s, [c.id for c in camps], now)
    rows = [(o, relative(o.deadline, now), data.records.get(o.player.casefold())) for o in data.owed]
    records = sorted(data.records.values(), key=lambda r: r.player.casefold())
    return render_template("panel/owes.html", rows=rows, records=records, delay_hours=delay_hours,
                           now=now)

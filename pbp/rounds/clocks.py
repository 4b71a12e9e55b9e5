"""STALL-5 clocks: when a round's deadline falls, in the campaign's time zone.

Why a rule of its own: a deadline at 03:00 or on a Sunday morning is a deadline nobody
meets, and the player who sleeps is the one penalised. The rule, exactly:

* *Excluded time* is every local minute inside the campaign's quiet hours
  (``"23:00-08:00"``: from 23:00 up to, not including, 08:00; a span that crosses
  midnight is the night) and, with weekends excluded, every minute of a local Saturday
  or Sunday. Adjacent excluded minutes form one span (Friday 23:00 to Monday 08:00).
* A round opens, and its naive deadline is ``opens_at + round length``. If that instant
  lies in an excluded span that began at *S* and ends at *E*, the deadline becomes
  ``E + (naive - S)``: the part of the window that fell into the span is moved past it,
  whole. If that lands in another span, the step repeats. A deadline outside every span
  stays as it is; quiet hours earlier in the window do not lengthen it.
* Local wall time decides membership, real (UTC) time measures lengths, so across a DST
  change the quiet night is 10 or 8 real hours and the moved part keeps its real length.

>>> from datetime import UTC, datetime
>>> c = Clock("America/Sao_Paulo", parse_quiet("23:00-08:00"), weekends=False)
>>> place(c, datetime(2026, 12, 2, 5, 0, tzinfo=UTC)).isoformat()   # 02:00 local: 3 h in
'2026-12-02T14:00:00+00:00'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_QUIET = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")
_MINUTE = timedelta(minutes=1)
#: the longest excluded span walked (a weekend and two nights is 57 h)
_LONGEST = timedelta(days=4)


def parse_quiet(text: str | None) -> tuple[time, time] | None:
    """``"23:00-08:00"`` as (start, end); ``""``/None: no quiet hours. Raises ValueError on
    anything else (``"25:00-08:00"``, ``"23:00"``, a span of no length)."""
    if not text or not text.strip():
        return None
    m = _QUIET.match(text)
    if m is None:
        raise ValueError(f"quiet hours {text!r}: write them as HH:MM-HH:MM")
    h1, m1, h2, m2 = (int(g) for g in m.groups())
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59:
        raise ValueError(f"quiet hours {text!r}: not a time of day")
    start, end = time(h1, m1), time(h2, m2)
    if start == end:
        raise ValueError(f"quiet hours {text!r}: start and end are the same")
    return start, end


@dataclass(frozen=True)
class Clock:
    """A campaign's excluded time: its zone, quiet hours and whether weekends count."""

    timezone: str = "UTC"
    quiet: tuple[time, time] | None = None
    weekends: bool = False

    @property
    def zone(self) -> ZoneInfo:
        try:
            return ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):   # a bad setting must not stop a round
            return ZoneInfo("UTC")

    @property
    def active(self) -> bool:
        return self.quiet is not None or self.weekends


def clock_of(campaign: Any) -> Clock:
    """The clock of a campaign row (a bad quiet-hours value stored before validation: none)."""
    try:
        quiet = parse_quiet(getattr(campaign, "quiet_hours", "") or "")
    except ValueError:
        quiet = None
    return Clock(campaign.timezone or "UTC", quiet, bool(getattr(campaign, "skip_weekends", False)))


def excluded(clock: Clock, at: datetime) -> bool:
    """Whether the instant *at* is in quiet hours or a weekend, in the clock's zone."""
    local = at.astimezone(clock.zone)
    if clock.weekends and local.weekday() >= 5:
        return True
    if clock.quiet is None:
        return False
    start, end = clock.quiet
    now = local.time().replace(tzinfo=None)
    return start <= now < end if start < end else (now >= start or now < end)


def _floor(at: datetime) -> datetime:
    return at.replace(second=0, microsecond=0)


def span(clock: Clock, at: datetime) -> tuple[datetime, datetime] | None:
    """The excluded span holding *at* as (start, end), whole minutes; None outside one.
    Every boundary is a whole local minute, so walking minute by minute is exact."""
    here = _floor(at)
    if not excluded(clock, here):
        return None
    start = here
    while excluded(clock, start - _MINUTE) and here - start < _LONGEST:
        start -= _MINUTE
    end = here + _MINUTE
    while excluded(clock, end) and end - here < _LONGEST:
        end += _MINUTE
    return start, end


def place(clock: Clock, naive: datetime) -> datetime:
    """The deadline for a window whose naive end is *naive* (the rule in the module text)."""
    deadline = naive
    for _ in range(8):
        found = span(clock, deadline) if clock.active else None
        if found is None:
            return deadline
        start, end = found
        deadline = end + (deadline - start)
    return deadline


def hours_words(hours: float) -> str:
    """A length as the replies print it: ``12``, ``1.5``, ``0.5``."""
    return f"{hours:g}"

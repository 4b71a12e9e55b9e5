"""STALL-9: the weekly "who owes a post" list into the outbox, once per campaign per week.

Why the ISO week in the campaign's zone is the key: beat ticks many times a week, a
worker may run the task twice, and beat may be down at the hour and catch up later.
The reply's idempotency key ``owes:<campaign id>:<ISO year>-W<week>`` is unique in the
database, so whichever run comes first after the chosen weekday and hour queues the
list, every later run that week finds it, and the next week has a new key.

The list is one campaign's only (its players read it in its thread; another campaign's
players are none of their business), in the campaign's language, in the thread's markup.
"""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..render.owes import OwedLine, owes_text
from ..store import models as m
from ..store.owes import owes, weekly_campaigns
from .replies import marker_for, reply_platform


def due_week(campaign: m.Campaign, now: datetime) -> str | None:
    """The ISO week (``2026-W49``) whose weekly list is due at *now*, or None (no weekly
    post asked for, or this week's weekday and hour not come yet in the campaign's zone).

    >>> c = m.Campaign(timezone="Europe/Moscow", owes_weekday=0, owes_hour=9)
    >>> from datetime import UTC
    >>> due_week(c, datetime(2026, 11, 30, 5, 59, tzinfo=UTC)), due_week(c, datetime(2026, 11, 30, 6, 0, tzinfo=UTC))
    (None, '2026-W49')
    """
    if campaign.owes_weekday is None:
        return None
    try:
        zone = ZoneInfo(campaign.timezone or "UTC")
    except (KeyError, ValueError):
        zone = ZoneInfo("UTC")
    local = now.astimezone(zone)
    year, week, _day = local.isocalendar()
    day = datetime.fromisocalendar(year, week, int(campaign.owes_weekday) % 7 + 1).date()
    moment = datetime.combine(day, time(int(campaign.owes_hour or 0) % 24), tzinfo=zone)
    return f"{year}-W{week:02d}" if local >= moment else None


def _lines(session: Session, campaign: m.Campaign, now: datetime) -> list[OwedLine]:
    data = owes(session, [campaign.id], now)
    out = []
    for o in data.owed:
        rec = data.records.get(o.player.casefold())
        delay = rec.average_delay.total_seconds() / 3600 if rec and rec.average_delay is not None else None
        out.append(OwedLine(encounter=o.encounter, round_number=o.round_number, deadline=o.deadline,
                            timezone=o.timezone, player=o.player, character=o.character,
                            away_until=o.away_until, average_delay_hours=delay,
                            misses=rec.misses if rec else 0))
    return out


def queue_weekly_owes(session: Session, now: datetime) -> list[int]:
    """Queue every campaign's weekly list that is due at *now* and not yet queued this
    week; the new replies' ids (held in approval mode, as every reply is)."""
    queued: list[int] = []
    for campaign, thread in weekly_campaigns(session):
        week = due_week(campaign, now)
        if week is None:
            continue
        key = f"owes:{campaign.id}:{week}"
        if session.scalar(select(m.Reply.id).where(m.Reply.idempotency_key == key)) is not None:
            continue
        platform = reply_platform(thread)
        body = owes_text(_lines(session, campaign, now), campaign.language or "en", platform, now,
                         marker_for(key))
        reply = m.Reply(thread_id=thread.id, round_id=None, kind="owes", idempotency_key=key,
                        marker=marker_for(key), platform=platform, language=campaign.language or "en",
                        body=body, state="held" if campaign.approval_mode else "pending", created_at=now)
        try:
            with session.begin_nested():
                session.add(reply)
        except IntegrityError:      # a concurrent run queued it first
            continue
        queued.append(reply.id)
    return queued


__all__ = ["due_week", "queue_weekly_owes"]

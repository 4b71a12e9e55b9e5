"""STALL-4 early close: a round resolves once every expected player has declared, after
the campaign's grace for edits; and STALL-5's deadline for a round that opens now.

Who is *expected*: a player-controlled combatant still standing (PBP-2's "missing"),
minus the players away at that moment (STALL-1's :func:`pbp.store.queries.away_players`)
and minus combatants run by the narrator (their ``player`` is one of the narrator's
platform names, or the sheet says ``run_by_narrator``): neither holds a round open.

The grace counts from the latest on-time declaration pbp has seen (``created_at``, the
moment it was read): an edit inside the grace is read like any edit before a deadline,
so it counts; a new post inside it starts the grace again.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from ..store import models as m
from ..store import queries
from .clocks import clock_of, place
from .declare import narrator_names
from .policy import policy_for


def run_by_narrator(session: Session, rnd: m.Round) -> set[int]:
    """Combatant ids the narrator plays in *rnd*'s encounter (they never hold it open)."""
    enc = rnd.encounter
    names = narrator_names(session, enc.campaign, enc.thread)
    return {c.id for c in enc.combatants
            if (c.player and c.player.casefold() in names) or (c.sheet or {}).get("run_by_narrator")}


def away_in(session: Session, rnd: m.Round, at: datetime) -> set[str]:
    """The players of *rnd* away at *at*, casefolded (the STALL-1 hook)."""
    return {p.casefold() for p in queries.away_players(session, rnd.encounter.campaign_id, at)}


def expected(session: Session, rnd: m.Round, at: datetime) -> list[m.Combatant]:
    """Who an early close still waits for at *at* (see the module text)."""
    away = away_in(session, rnd, at)
    narrator = run_by_narrator(session, rnd)
    return [c for c in queries.missing_players(session, rnd)
            if c.id not in narrator and (c.player or "").casefold() not in away]


def closes_early_at(session: Session, rnd: m.Round, at: datetime) -> datetime | None:
    """When *rnd* may resolve before its deadline, judged at *at*: the latest player's
    declaration plus the grace; None while someone is expected, or when no player has
    declared at all (a round everyone is away from waits for its deadline)."""
    policy = policy_for(rnd.encounter.campaign, rnd.encounter)
    if not policy.early_close or expected(session, rnd, at):
        return None
    narrator = run_by_narrator(session, rnd)
    players = {c.id for c in rnd.encounter.combatants if c.player and c.id not in narrator}
    seen = [d.created_at for d in queries.round_declarations(session, rnd.id)
            if d.combatant_id in players]
    if not seen:
        return None
    return max(seen) + timedelta(minutes=policy.close_grace_minutes)


def round_deadline(enc: m.Encounter, opens_at: datetime, hours: float | None = None) -> datetime:
    """The deadline of a round of *enc* opening at *opens_at* (STALL-5): its length (the
    encounter's, else the campaign's), moved out of quiet hours and weekends
    (:func:`pbp.rounds.clocks.place`), then kept on a whole minute."""
    from_policy = policy_for(enc.campaign, enc).round_hours if hours is None else hours
    length = timedelta(hours=from_policy)
    return whole_minute(place(clock_of(enc.campaign), opens_at + length), length)


#: rounds at least this long get whole-minute deadlines; shorter ones (a demo's half-minute
#: rounds) keep their second, and print it, since a minute would be a large share of them
WHOLE_MINUTE_FROM = timedelta(minutes=10)


def whole_minute(dt: datetime, length: timedelta = WHOLE_MINUTE_FROM) -> datetime:
    """*dt* rounded *up* to a whole minute for a round of *length*: deadlines are kept at the
    precision they are printed, so "by 07:09" is exactly the deadline and a round is never
    shorter than its length (issue 11 item 5). A round shorter than ``WHOLE_MINUTE_FROM``
    keeps *dt* as it is (the reply then prints its seconds: never earlier than the real one)."""
    if length < WHOLE_MINUTE_FROM:
        return dt
    if dt.second or dt.microsecond:
        return dt.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return dt

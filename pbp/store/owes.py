"""STALL-9: who owes a post where, and each player's record (average delay, misses).

Why one module and a handful of queries: the page spans every campaign a narrator runs,
so it must not ask the database once per encounter or per player (the panel's query
budgets, tests/panel/test_queries.py). Five flat queries load the open rounds, the
player combatants, every declaration with its post time, the resolved rounds and the
absences; the rest is arithmetic on those rows.

The words, as measured here:

* **owes a post**: a player's combatant, standing and not an object, with no on-time
  declaration in an open round (the same rule as reminders and early close, PBP-2);
* **delay**: from the round's opening to the player's first post declaring in it (a
  late post too: it was a post, only late); the **average delay** is over every round
  the player posted in, across the campaigns given;
* **miss**: a resolved round in which the player's combatant was expected (standing
  at the round's opening, by its ``state_before`` snapshot) and got no on-time
  declaration, except while the player was away (STALL-1: nobody is penalised for an
  announced absence).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .campaigns import Campaign, Thread
from .models import Combatant, Declaration, Encounter, Post, Round
from .standing import Absence


@dataclass(frozen=True)
class OwedPost:
    """One player owing one post in one open round."""

    campaign_id: int
    campaign: str
    timezone: str
    encounter_id: int
    encounter: str
    thread_url: str
    thread_title: str
    platform: str
    round_number: int
    deadline: datetime
    player: str
    character: str
    away_until: datetime | None


@dataclass(frozen=True)
class PlayerRecord:
    """A player's history over the campaigns read (key: the name casefolded)."""

    player: str
    posted: int
    average_delay: timedelta | None
    misses: int


@dataclass(frozen=True)
class Owes:
    """The page's (and the weekly post's) content: who owes what, and the records."""

    owed: tuple[OwedPost, ...]
    records: dict[str, PlayerRecord]


def _expected(rnd: Round, c: Combatant) -> bool:
    """Whether *c* was expected to post in *rnd*: standing at its opening (by the round's
    snapshot; the combatant's row when the round has none)."""
    if (c.sheet or {}).get("is_object"):
        return False
    for data in (rnd.state_before or {}).get("combatants", []) or []:
        if isinstance(data, dict) and data.get("key") == c.key:
            return not data.get("down") and int(data.get("hp", 1) or 0) > 0
    return not c.down


def _away(absences: Sequence[Absence], at: datetime) -> Absence | None:
    live = [a for a in absences if a.active_at(at)]
    return max(live, key=lambda a: (a.starts_at, a.id)) if live else None


def owes(session: Session, campaign_ids: Sequence[int], at: datetime) -> Owes:
    """Who owes a post in *campaign_ids* at *at*, soonest deadline first, and every
    player's record there."""
    ids = list(campaign_ids)
    if not ids:
        return Owes((), {})
    rounds_rows = session.execute(
        select(Round, Encounter.campaign_id, Encounter.status)
        .join(Encounter, Encounter.id == Round.encounter_id)
        .where(Encounter.campaign_id.in_(ids), Round.state.in_(("open", "resolved")))
        .order_by(Round.id)).all()
    combatants = list(session.scalars(
        select(Combatant).join(Encounter, Encounter.id == Combatant.encounter_id)
        .where(Encounter.campaign_id.in_(ids), Combatant.player.is_not(None))
        .order_by(Combatant.id)))
    declared = session.execute(
        select(Declaration.round_id, Declaration.combatant_id, Declaration.late, Post.posted_at)
        .join(Round, Round.id == Declaration.round_id)
        .join(Encounter, Encounter.id == Round.encounter_id)
        .outerjoin(Post, Post.id == Declaration.post_id)
        .where(Encounter.campaign_id.in_(ids), Declaration.deleted.is_(False))).all()
    absences = list(session.scalars(select(Absence).where(Absence.campaign_id.in_(ids))))
    heads = {enc.id: (enc, camp, thread) for enc, camp, thread in session.execute(
        select(Encounter, Campaign, Thread).join(Campaign, Campaign.id == Encounter.campaign_id)
        .join(Thread, Thread.id == Encounter.thread_id).where(Encounter.campaign_id.in_(ids)))}

    by_encounter: dict[int, list[Combatant]] = defaultdict(list)
    for c in combatants:
        by_encounter[c.encounter_id].append(c)
    on_time: set[tuple[int, int]] = set()
    first_post: dict[tuple[int, int], datetime] = {}
    for round_id, combatant_id, late, posted_at in declared:
        if not late:
            on_time.add((round_id, combatant_id))
        if posted_at is not None:
            key = (round_id, combatant_id)
            if key not in first_post or posted_at < first_post[key]:
                first_post[key] = posted_at
    away_of: dict[tuple[int, str], list[Absence]] = defaultdict(list)
    for a in absences:
        away_of[(a.campaign_id, a.player.casefold())].append(a)

    owed: list[OwedPost] = []
    delays: dict[str, list[timedelta]] = defaultdict(list)
    misses: dict[str, int] = defaultdict(int)
    names: dict[str, str] = {}
    for rnd, campaign_id, status, in rounds_rows:
        for c in by_encounter.get(rnd.encounter_id, []):
            player = c.player or ""
            who = player.casefold()
            names.setdefault(who, player)
            key = (rnd.id, c.id)
            if key in first_post:
                delays[who].append(max(timedelta(0), first_post[key] - rnd.opens_at))
            if key in on_time or not _expected(rnd, c):
                continue
            gone = _away(away_of.get((campaign_id, who), []), rnd.deadline if rnd.state == "resolved" else at)
            if rnd.state == "resolved":
                if gone is None:
                    misses[who] += 1
            elif status != "finished":
                enc, camp, thread = heads[rnd.encounter_id]
                owed.append(OwedPost(
                    campaign_id=camp.id, campaign=camp.name, timezone=camp.timezone or "UTC",
                    encounter_id=enc.id, encounter=enc.name, thread_url=thread.url,
                    thread_title=thread.title, platform=thread.platform, round_number=rnd.number,
                    deadline=rnd.deadline, player=player, character=c.name,
                    away_until=gone.until if gone is not None else None))
    owed.sort(key=lambda o: (o.deadline, o.campaign, o.encounter_id, o.player.casefold()))
    records = {who: PlayerRecord(player=names[who], posted=len(delays[who]),
                                 average_delay=(sum(delays[who], timedelta(0)) / len(delays[who])
                                                if delays[who] else None),
                                 misses=misses[who])
               for who in names}
    return Owes(tuple(owed), records)


def weekly_campaigns(session: Session) -> list[tuple[Campaign, Thread]]:
    """Campaigns that asked for the weekly who-owes post, with the thread it goes to."""
    rows: list[Any] = session.execute(
        select(Campaign, Thread).join(Thread, Thread.id == Campaign.owes_thread_id)
        .where(Campaign.archived.is_(False), Campaign.owes_weekday.is_not(None))
        .order_by(Campaign.id)).all()
    return [(c, t) for c, t in rows]


__all__ = ["OwedPost", "Owes", "PlayerRecord", "owes", "weekly_campaigns"]

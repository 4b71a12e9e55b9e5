"""A small campaign to play rounds in: three heroes against two goblins (forum-d20)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, select

from pbp.rounds import service
from pbp.rules.model import Combatant, Weapon
from pbp.sources.base import PostRecord
from pbp.store import models as m
from pbp.store.db import session_scope

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def at(hours: float = 0, minutes: float = 0) -> datetime:
    return T0 + timedelta(hours=hours, minutes=minutes)


def heroes_and_goblins() -> list[Combatant]:
    def hero(key: str, name: str, player: str, **stats: int) -> Combatant:
        base = {"luta": 5, "pontaria": 2, "fortitude": 3, "reflexos": 3, "str_mod": 2,
                "dex_mod": 1, "level": 2, "armor": 2, "initiative": 2}
        return Combatant(key=key, name=name, player=player, stats={**base, **stats}, hp=20,
                         max_hp=20, weapons=(Weapon("sword", "1d8", aliases=("espada", "меч")),))

    def goblin(key: str, name: str) -> Combatant:
        return Combatant(key=key, name=name, side="goblins", hp=9, max_hp=9,
                         stats={"luta": 2, "fortitude": 1, "reflexos": 2, "str_mod": 0,
                                "dex_mod": 2, "level": 1, "armor": 1, "initiative": 2},
                         weapons=(Weapon("dagger", "1d4", aliases=("adaga", "кинжал")),),
                         aliases=(name.split()[-1],))

    return [hero("aria", "Aria", "alice", initiative=4), hero("bram", "Bram", "bob"),
            hero("cyd", "Cyd", "carol", initiative=1),
            goblin("gob1", "Goblin Snag"), goblin("gob2", "Goblin Rot")]


@dataclass
class World:
    engine: Engine
    campaign_id: int
    thread_id: int
    encounter_id: int

    def ingest(self, posts: Sequence[PostRecord], now: datetime) -> list[int]:
        with session_scope(self.engine) as s:
            return service.ingest_posts(s, self.thread_id, list(posts), now=now)

    def open(self, now: datetime, **kw: Any) -> int:
        with session_scope(self.engine) as s:
            return service.open_round(s, self.encounter_id, now, **kw)

    def resolve(self, round_id: int, now: datetime) -> int | None:
        with session_scope(self.engine) as s:
            return service.resolve_round(s, round_id, now)

    def reply(self, key: str) -> m.Reply | None:
        with session_scope(self.engine) as s:
            return s.scalar(select(m.Reply).where(m.Reply.idempotency_key == key))

    def count(self, model: Any, *where: Any) -> int:
        from sqlalchemy import func

        with session_scope(self.engine) as s:
            return int(s.scalar(select(func.count()).select_from(model).where(*where)) or 0)

    def declarations(self, round_id: int) -> dict[str, list[m.Declaration]]:
        with session_scope(self.engine) as s:
            out: dict[str, list[m.Declaration]] = {}
            for d in s.scalars(select(m.Declaration).where(m.Declaration.round_id == round_id)
                               .order_by(m.Declaration.id)):
                out.setdefault(d.combatant.key, []).append(d)
                s.expunge(d)
            return out


def make_world(engine: Engine, *, ruleset: str = "forum-d20", language: str = "en",
               platform: str = "bbcode", timezone_name: str = "America/Sao_Paulo",
               houserules: dict | None = None, early_close: bool = False,
               approval: bool = False, reminder_hours: Sequence[float] = (2.0,),
               combatants: Sequence[Combatant] | None = None, surprise: bool = False,
               surprised: Sequence[str] = (), slug: str = "goblins") -> World:
    with session_scope(engine) as s:
        campaign = m.Campaign(name="Goblin Road", slug=slug, ruleset=ruleset, language=language,
                              timezone=timezone_name, houserules=houserules or {},
                              approval_mode=approval, round_hours=24,
                              reminder_hours=list(reminder_hours), early_close=early_close)
        s.add(campaign)
        s.flush()
        thread = m.Thread(campaign_id=campaign.id, kind="file", url=f"scenario://{slug}",
                          platform=platform, options={"narrators": ["GM"]})
        s.add(thread)
        s.flush()
        eid = service.start_encounter(s, thread.id, combatants or heroes_and_goblins(),
                                      name="Ambush on the Goblin Road", surprise=surprise,
                                      surprised=surprised, now=T0)
        return World(engine, campaign.id, thread.id, eid)


def post(pid: str, author: str, when: datetime, text: str, *, change: str = "new",
         fmt: str = "bbcode", edited_at: datetime | None = None) -> PostRecord:
    return PostRecord(platform_id=pid, author=author, posted_at=when, body=text, text=text,
                      fmt=fmt, change=change, edited_at=edited_at)  # type: ignore[arg-type]

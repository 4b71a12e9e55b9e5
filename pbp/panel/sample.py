"""A sample fight, built through the real service layer, for the panel's tests, browser
tests, benchmark and screenshots.

``seed(session)`` writes two narrators (``alice`` narrates the campaign, ``bob`` only
his own), a forum-d20 campaign in approval mode, a thread and an encounter; round 1
is declared (posts ingested and parsed by :func:`pbp.rounds.service.ingest_posts`) and
resolved; the narrator approved its result (round 2 opened) and then held it back again
before it went out, so it waits for approval and round 2's clock with it (issue 11 item
4); round 2 has posts of its own: one edited after its roll, one full of ``<script>`` and
BBCode tricks, one player silent.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from ..rounds import lifecycle, service
from ..rules.model import Combatant, Weapon
from ..sources.base import PostRecord
from ..store import models as m
from ..store import queries
from .security import hash_password

PASSWORD = "correct horse battery"
EVIL = ('<script>alert("pwned")</script>[url=javascript:alert(1)]click[/url] '
        '<img src=x onerror=alert(2)> [b]bold[/b] {{ 7*7 }} I attack Goblin 2 [roll]1d20+4[/roll]')
HEROES = ["Aria", "Brom", "Cato", "Dara", "Edric", "Fenna", "Garr", "Hilde", "Ivo", "Jora",
          "Kael", "Lira", "Mott", "Nessa", "Orin", "Pell", "Quin", "Rhea", "Sten", "Tova"]

_HASHES: dict[str, str] = {}


def _hash(password: str) -> str:
    """Hashing is slow on purpose; tests seed many databases, so hash once per process."""
    if password not in _HASHES:
        _HASHES[password] = hash_password(password)
    return _HASHES[password]


def roster(combatants: int) -> list[Combatant]:
    players = min(len(HEROES), max(1, combatants // 2))
    out = []
    for i in range(combatants):
        if i < players:
            name = HEROES[i]
            out.append(Combatant(key=name.lower(), name=name, side="players", player=f"{name.lower()}_p",
                                 stats={"str": 3, "dex": 2, "con": 2, "ac": 16, "bab": 3}, hp=20, max_hp=20,
                                 weapons=(Weapon("longsword", "1d8+3", threat=19, skill="str", aliases=("sword",)),)))
        else:
            n = i - players + 1
            out.append(Combatant(key=f"goblin-{n}", name=f"Goblin {n}", side="monsters",
                                 stats={"str": 0, "dex": 1, "ac": 15, "bab": 1}, hp=6, max_hp=6,
                                 weapons=(Weapon("short sword", "1d6", threat=19, skill="str"),)))
    return out


def _post(i: int, author: str, at: datetime, body: str, **kw: Any) -> PostRecord:
    return PostRecord(platform_id=f"p{i}", author=author, posted_at=at, body=body, text=body, fmt="bbcode", **kw)


def seed(session: Session, *, combatants: int = 6, posts: int = 0, now: datetime | None = None,
         approval: bool = True) -> dict[str, Any]:
    """Seed the sample; *posts* > 0 adds that many more posts to the open round (bench)."""
    now = now or datetime.now(UTC)
    alice = m.Narrator(username="alice", display_name="Alice", language="en", password_hash=_hash(PASSWORD))
    bob = m.Narrator(username="bob", display_name="Bob", language="en", password_hash=_hash(PASSWORD))
    session.add_all([alice, bob])
    session.flush()
    camp = m.Campaign(name="The Sunken Keep", slug="sunken-keep", ruleset="forum-d20", language="en",
                      timezone="Europe/Lisbon", owner_id=alice.id, approval_mode=approval, round_hours=24.0)
    other = m.Campaign(name="Bob's Game", slug="bobs-game", ruleset="dnd5e", owner_id=bob.id)
    session.add_all([camp, other])
    session.flush()
    session.add_all([m.CampaignNarrator(campaign_id=camp.id, narrator_id=alice.id, role="owner"),
                     m.CampaignNarrator(campaign_id=other.id, narrator_id=bob.id, role="owner")])
    thread = m.Thread(campaign_id=camp.id, kind="forum", url="http://127.0.0.1:9/viewtopic.php?t=1",
                      title="Into the keep", last_poll=now - timedelta(minutes=3), error_count=1,
                      last_error="HTTP 503 from the forum (retrying)")
    other_thread = m.Thread(campaign_id=other.id, kind="reddit", url="https://reddit.invalid/comments/abc/x",
                            platform="markdown")
    session.add_all([thread, other_thread])
    session.flush()

    t0 = now - timedelta(hours=30)
    team = roster(combatants)
    heroes = [c for c in team if c.player]
    foes = [c for c in team if not c.player] or heroes
    enc_id = service.start_encounter(session, thread.id, team, name="Gate fight", now=t0)
    other_enc = service.start_encounter(session, other_thread.id, roster(2), name="Bob's fight", now=t0)
    # the chain's secrets drawn from a fixed source: the same sample every time, and its
    # dice verify like a real encounter's (DICE-1), not as "no chain"
    draws = (f"sample-secret-{k}" for k in itertools.count(1))
    with lifecycle.seeded(lambda: next(draws)):
        r1 = service.open_round(session, enc_id, t0, deadline=t0 + timedelta(hours=24))
    opening = queries.reply_by_key(session, f"{r1}:opening")
    if opening is not None and opening.state == "held":
        service.approve_reply(session, opening.id, alice.id, t0)
    first = [_post(k + 1, h.player or "", t0 + timedelta(minutes=10 * k + 5),
                   f"{h.name} lunges. I attack {foes[k % len(foes)].name} with my longsword [roll]1d20+6[/roll]")
             for k, h in enumerate(heroes[:3])]
    service.ingest_posts(session, thread.id, first, now=t0 + timedelta(hours=1))
    held = service.resolve_round(session, r1, t0 + timedelta(hours=24))
    if approval and held is not None:   # approved (round 2 opens), then held back again
        service.approve_reply(session, held, alice.id, t0 + timedelta(hours=24, minutes=5))
        service.hold(session, queries.reply_by_key(session, f"{r1}:resolution").id)  # type: ignore[union-attr]
    r2 = service.current_round(session, enc_id)
    assert r2 is not None and r2.id != r1
    t2 = r2.opens_at
    second = [
        _post(101, heroes[0].player or "", t2 + timedelta(minutes=5),
              f'"Stay behind me!" I attack {foes[0].name} [roll]1d20+6[/roll] and then I move towards the gate'),
        _post(102, heroes[1 % len(heroes)].player or "", t2 + timedelta(minutes=9), EVIL),
    ]
    service.ingest_posts(session, thread.id, second, now=t2 + timedelta(minutes=10))
    edited = _post(101, heroes[0].player or "", t2 + timedelta(minutes=5),
                   f'"Stay behind me!" I attack {foes[-1].name} [roll]1d20+6[/roll] and then I move towards the gate',
                   change="edited", edited_at=t2 + timedelta(minutes=30))
    service.ingest_posts(session, thread.id, [edited], now=t2 + timedelta(minutes=31))
    extra = []
    for k in range(posts):
        h = heroes[k % len(heroes)]
        extra.append(_post(1000 + k, h.player or "", t2 + timedelta(minutes=40 + k),
                           f"{h.name} presses on. I attack {foes[k % len(foes)].name} [roll]1d20+6[/roll] "
                           f"\"Round {k}!\""))
    for start in range(0, len(extra), 50):
        service.ingest_posts(session, thread.id, extra[start:start + 50], now=t2 + timedelta(hours=1))
    session.flush()
    reply = queries.reply_by_key(session, f"{r1}:resolution")
    return {"alice": alice.id, "bob": bob.id, "campaign": camp.id, "other_campaign": other.id,
            "encounter": enc_id, "other_encounter": other_enc, "round1": r1, "round": r2.id,
            "reply": reply.id if reply else None, "thread": thread.id}

"""A sample fight in the store, for the panel's tests, browser tests, benchmark and demo.

``seed(session, combatants=6, posts=8)`` writes two narrators (``alice`` narrates the
campaign, ``bob`` does not), a campaign, a forum thread, an encounter with an open
round, posts beside their declarations (one action inferred, one post late, one edited
after its roll, one with a ``<script>`` and BBCode tricks) and a held resolution reply.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy.orm import Session

from ..store.models import (Campaign, CampaignNarrator, Combatant, Declaration, Encounter, Narrator, Post,
                            Reply, RollRecord, Round, Thread)
from .security import hash_password

PASSWORD = "correct horse battery"
EVIL = ('<script>alert("pwned")</script>[url=javascript:alert(1)]click[/url] '
        '<img src=x onerror=alert(2)> [b]bold[/b] {{ 7*7 }}')

#: Hashing is slow on purpose; tests seed many databases, so hash once per process.
_HASHES: dict[str, str] = {}


def _hash(password: str) -> str:
    if password not in _HASHES:
        _HASHES[password] = hash_password(password)
    return _HASHES[password]


def seed(session: Session, *, combatants: int = 6, posts: int = 8, now: datetime | None = None,
         approval: bool = True) -> dict[str, Any]:
    now = now or datetime.now(timezone.utc)
    alice = Narrator(username="alice", display_name="Alice", language="en", password_hash=_hash(PASSWORD))
    bob = Narrator(username="bob", display_name="Bob", language="en", password_hash=_hash(PASSWORD))
    session.add_all([alice, bob])
    session.flush()
    camp = Campaign(name="The Sunken Keep", slug="sunken-keep", ruleset="forum-d20", language="en",
                    timezone="Europe/Lisbon", owner_id=alice.id, approval_mode=approval)
    other = Campaign(name="Bob's Game", slug="bobs-game", ruleset="dnd5e", owner_id=bob.id)
    session.add_all([camp, other])
    session.flush()
    session.add_all([CampaignNarrator(campaign_id=camp.id, narrator_id=alice.id, role="owner"),
                     CampaignNarrator(campaign_id=other.id, narrator_id=bob.id, role="owner")])
    thread = Thread(campaign_id=camp.id, kind="forum", url="http://127.0.0.1:9/viewtopic.php?t=1",
                    title="Into the keep", last_poll=now - timedelta(minutes=3), error_count=1,
                    last_error="HTTP 503 from the forum (retrying)")
    other_thread = Thread(campaign_id=other.id, kind="reddit", url="https://reddit.invalid/comments/abc/x")
    session.add_all([thread, other_thread])
    session.flush()
    enc = Encounter(campaign_id=camp.id, thread_id=thread.id, name="Gate fight", ruleset="forum-d20",
                    status="active", round_number=1)
    other_enc = Encounter(campaign_id=other.id, thread_id=other_thread.id, name="Bob's fight", ruleset="dnd5e")
    session.add_all([enc, other_enc])
    session.flush()
    heroes = [("aria", "Aria", "aria_p"), ("brom", "Brom", "brom_p"), ("cato", "Cato", "cato_p")]
    rows: list[Combatant] = []
    for i in range(combatants):
        if i < len(heroes):
            key, name, player = heroes[i]
            rows.append(Combatant(encounter_id=enc.id, key=key, name=name, side="players", player=player,
                                  hp=20, max_hp=20, initiative=20 - i,
                                  sheet={"stats": {"dex": 2, "str": 1}, "weapons": [{"name": "sword", "damage": "1d8"}]}))
        else:
            n = i - len(heroes) + 1
            rows.append(Combatant(encounter_id=enc.id, key=f"goblin-{n}", name=f"Goblin {n}", side="enemies",
                                  hp=7 - (n % 5), max_hp=7, initiative=15 - (i % 10) / 2,
                                  sheet={"stats": {"dex": 1}, "weapons": [{"name": "spear", "damage": "1d6"}]}))
    session.add_all(rows)
    session.add(Combatant(encounter_id=other_enc.id, key="x", name="X"))
    session.flush()
    enc.order = [c.key for c in rows]
    rnd = Round(encounter_id=enc.id, number=1, state="open", opens_at=now - timedelta(hours=20),
                deadline=now + timedelta(hours=4), seed="s3cret", commitment=hashlib.sha256(b"s3cret").hexdigest(),
                order=list(enc.order))
    session.add(rnd)
    session.flush()
    players = [c for c in rows if c.player]
    roll_index = 0
    post_rows: list[Post] = []
    for i in range(posts):
        actor = players[i % len(players)] if players else rows[0]
        target = rows[len(players) + (i % max(1, len(rows) - len(players)))] if len(rows) > len(players) else rows[0]
        body = EVIL if i == 1 else f"{actor.name} swings at {target.name}! [roll]1d20+5[/roll] \"Take that!\""
        p = Post(thread_id=thread.id, platform_id=f"p{i + 1}", author=actor.player or "gm",
                 posted_at=rnd.opens_at + timedelta(minutes=5 * i + 1), body=body, text=body, fmt="bbcode",
                 content_hash=hashlib.sha256(body.encode()).hexdigest(), round_id=rnd.id,
                 edited_at=(rnd.opens_at + timedelta(hours=2)) if i == 2 else None)
        session.add(p)
        session.flush()
        post_rows.append(p)
        if i >= len(players):       # one declaration per player: later posts are chatter
            continue
        roll = RollRecord(round_id=rnd.id, roll_index=roll_index, post_id=p.id, tag_index=0, kind="tag",
                          actor=actor.key, written="1d20+5", expression="1d20+5", total=11 + i, natural=6 + i,
                          faces=[6 + i], breakdown=f"1d20 ({6 + i}) + 5 = {11 + i}")
        roll_index += 1
        session.add(roll)
        actions = [{"kind": "attack", "target": target.key, "weapon": "sword", "text": f"swings at {target.name}",
                    "explicit": True, "confidence": 1.0, "position": 0, "options": {}}]
        if i == 0:
            actions.append({"kind": "move", "target": None, "weapon": None, "text": "steps towards the gate",
                            "explicit": False, "confidence": 0.6, "position": 30, "options": {}})
        session.add(Declaration(round_id=rnd.id, combatant_id=actor.id, post_id=p.id, actions=actions,
                                speech=["Take that!"], speech_count=3 if i == 0 else 1, speech_limit=2,
                                late=(i == 1), edited_after_roll=(i == 2),
                                errors=[{"rule": "FD-3", "message": "two standard actions: over the action budget"}]
                                if i == 2 else []))
    session.flush()
    reply = Reply(thread_id=thread.id, round_id=rnd.id, kind="resolution", idempotency_key=f"{rnd.id}:resolution",
                  marker=f"pbp:{rnd.id}", platform="bbcode", language="en", body="Round 1 resolved.",
                  state="held" if approval else "pending")
    session.add(reply)
    session.flush()
    return {"alice": alice.id, "bob": bob.id, "campaign": camp.id, "other_campaign": other.id,
            "encounter": enc.id, "other_encounter": other_enc.id, "round": rnd.id, "reply": reply.id,
            "thread": thread.id, "posts": [p.id for p in post_rows],
            "combatants": {c.key: c.id for c in rows}, "other_combatant": None}

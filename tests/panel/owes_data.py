"""STALL-9 test data: three campaigns of alice (the sample's and two here) and one of
bob's, with players who posted early, late, never, and one away. Times are set relative
to *now* so the expectations below are worked out by hand (see test_owes.py)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbp.store import models as m


def _round(s: Session, enc: m.Encounter, number: int, opens: datetime, deadline: datetime,
           state: str) -> m.Round:
    seed = f"owes-{enc.id}-{number}"
    rnd = m.Round(encounter_id=enc.id, number=number, opens_at=opens, deadline=deadline, state=state,
                  seed=seed, commitment=hashlib.sha256(seed.encode()).hexdigest(),
                  resolved_at=deadline if state == "resolved" else None)
    s.add(rnd)
    s.flush()
    return rnd


def _declare(s: Session, thread: m.Thread, rnd: m.Round, c: m.Combatant, at: datetime, *,
             late: bool = False) -> None:
    body = f"{c.name} attacks [roll]1d20+3[/roll]"
    post = m.Post(thread_id=thread.id, platform_id=f"{rnd.id}-{c.id}", author=c.player or "", posted_at=at,
                  body=body, text=body, fmt="bbcode", content_hash=hashlib.sha256(body.encode()).hexdigest(),
                  round_id=rnd.id)
    s.add(post)
    s.flush()
    s.add(m.Declaration(round_id=rnd.id, combatant_id=c.id, post_id=post.id, late=late))


def _fight(s: Session, owner: m.Narrator, name: str, slug: str, tz: str, kind: str, url: str,
           people: list[tuple[str, str | None, bool]]) -> tuple[m.Thread, m.Encounter, dict[str, m.Combatant]]:
    camp = m.Campaign(name=name, slug=slug, ruleset="forum-d20", timezone=tz, owner_id=owner.id)
    s.add(camp)
    s.flush()
    s.add(m.CampaignNarrator(campaign_id=camp.id, narrator_id=owner.id, role="owner"))
    thread = m.Thread(campaign_id=camp.id, kind=kind, url=url, title=f"{name} thread",
                      platform="markdown" if kind == "reddit" else "bbcode")
    s.add(thread)
    s.flush()
    enc = m.Encounter(campaign_id=camp.id, thread_id=thread.id, name=f"{name} fight", ruleset="forum-d20",
                      status="active")
    s.add(enc)
    s.flush()
    out = {}
    for who, player, down in people:
        c = m.Combatant(encounter_id=enc.id, key=who.lower(), name=who, player=player, down=down,
                        side="players" if player else "monsters", hp=0 if down else 10)
        s.add(c)
        out[who] = c
    s.flush()
    return thread, enc, out


def seed_owes(s: Session, now: datetime) -> dict[str, Any]:
    """The rows; returns the ids the tests look for."""
    alice = s.scalars(select(m.Narrator).where(m.Narrator.username == "alice")).one()
    bob = s.scalars(select(m.Narrator).where(m.Narrator.username == "bob")).one()
    h = timedelta(hours=1)
    # Ashen Road (São Paulo): vex posts on time, lum misses round 1, is late in round 2
    t1, e1, c1 = _fight(s, alice, "Ashen Road", "ashen-road", "America/Sao_Paulo", "forum",
                        "http://127.0.0.1:9/viewtopic.php?t=77",
                        [("Vex", "vex_p", False), ("Lum", "lum_p", False), ("Pip", "pip_p", True),
                         ("Ogre", None, False)])
    r = _round(s, e1, 1, now - 72 * h, now - 48 * h, "resolved")
    _declare(s, t1, r, c1["Vex"], r.opens_at + 2 * h)
    r = _round(s, e1, 2, now - 48 * h, now - 24 * h, "resolved")
    _declare(s, t1, r, c1["Vex"], r.opens_at + 6 * h)
    _declare(s, t1, r, c1["Lum"], r.opens_at + 30 * h, late=True)
    r3 = _round(s, e1, 3, now - 24 * h, now + 5 * h + timedelta(minutes=30), "open")
    _declare(s, t1, r3, c1["Lum"], r3.opens_at + 1 * h)
    # Frost Pass (Moscow, Reddit): Vex_P is vex_p again; dorn is away all along
    t2, e2, c2 = _fight(s, alice, "Frost Pass", "frost-pass", "Europe/Moscow", "reddit",
                        "http://127.0.0.1:9/r/pbp/comments/fp/frost_pass/",
                        [("Kira", "kira_p", False), ("Vexa", "Vex_P", False), ("Dorn", "dorn_p", False)])
    r = _round(s, e2, 1, now - 50 * h, now - 26 * h, "resolved")
    _declare(s, t2, r, c2["Kira"], r.opens_at + 10 * h)
    _declare(s, t2, r, c2["Vexa"], r.opens_at + 2 * h)
    r2 = _round(s, e2, 2, now - 26 * h, now - 2 * h - timedelta(minutes=10), "open")
    s.add(m.Absence(campaign_id=e2.campaign_id, player="Dorn_P", starts_at=now - 60 * h, until=now + 48 * h,
                    note="holiday"))
    # bob's game: zed owes a post alice must never see
    _t3, e3, _c3 = _fight(s, bob, "Bob Secret", "bob-secret", "UTC", "forum", "http://127.0.0.1:9/t=99",
                          [("Zed", "zed_p", False)])
    _round(s, e3, 1, now - 1 * h, now + 20 * h, "open")
    s.flush()
    return {"ashen": e1.id, "frost": e2.id, "ashen_round": r3.id, "frost_round": r2.id,
            "ashen_campaign": e1.campaign_id, "frost_campaign": e2.campaign_id, "frost_thread": t2.id,
            "ashen_thread": t1.id}

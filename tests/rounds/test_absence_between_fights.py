"""STALL-1 between fights: an absence posted while no encounter is live in the thread is
read, kept for the campaign, and the next encounter's rounds see it; ``.back`` ends it.

Round trip through the round service: the first encounter ends, Bram's player posts the
absence, a second encounter starts in the same thread, its round opens, and the opening
reply's status block (STALL-8) says who is away. The date 2026-12-10 is after the round's
deadline (opened 2026-11-30 16:00 UTC + 24 h), so the absence covers it.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbp.rounds import service
from pbp.store import models as m
from pbp.store import standing as store
from pbp.store.db import session_scope

from .world import World, at, heroes_and_goblins, make_world, post

AWAY = {"en": (".away until 2026-12-10", "Away: Bram"),
        "pt": (".ausente até 10/12", "Ausentes: Bram"),
        "ru": (".отсутствую до 10.12", "Отсутствуют: Bram")}


def _second_fight(engine, lang: str, posts) -> tuple[World, str]:  # type: ignore[no-untyped-def]
    w = make_world(engine, language=lang, slug=f"between-{lang}")
    with session_scope(engine) as s:
        service.end_encounter(s, w.encounter_id, at(1), None)
    w.ingest(posts, now=at(3))
    with session_scope(engine) as s:
        eid = service.start_encounter(s, w.thread_id, heroes_and_goblins(),
                                      name="Second ambush", now=at(3, 30))
    nxt = World(engine, w.campaign_id, w.thread_id, eid)
    rid = nxt.open(at(4))
    return nxt, nxt.reply(f"{rid}:opening").body


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_STALL1_an_absence_posted_between_fights_counts_in_the_next_encounter(engine, lang):
    text, away = AWAY[lang]
    w, body = _second_fight(engine, lang, [post("p1", "bob", at(2), text)])
    with session_scope(engine) as s:
        rows = store.absences(s, w.campaign_id, player="bob")
        assert len(rows) == 1 and rows[0].until.date().isoformat() >= "2026-12-10"
        entry = s.scalar(select(m.AuditEntry).where(m.AuditEntry.action == "absence.start",
                                                    m.AuditEntry.campaign_id == w.campaign_id))
        assert entry is not None and entry.encounter_id is None
    assert away in body[body.rindex("pbp-reply:") - 2000:]


def test_STALL1_a_back_between_fights_ends_the_absence(engine):
    w, body = _second_fight(engine, "en", [post("p1", "bob", at(2), ".away until 2026-12-10"),
                                           post("p2", "bob", at(2, 30), ".back")])
    assert "Away:" not in body
    with session_scope(engine) as s:
        (row,) = store.absences(s, w.campaign_id, player="bob")
        assert row.ended_by == "post"


def test_STALL1_a_narrator_post_between_fights_starts_no_absence(engine):
    w, body = _second_fight(engine, "en", [post("p1", "GM", at(2), ".away until 2026-12-10")])
    with session_scope(engine) as s:
        assert store.absences(s, w.campaign_id, player="GM") == []

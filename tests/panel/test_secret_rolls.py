"""DICE-2 in the panel: the narrator sees a secret roll's value, expression, roller and post
(the reply preview, which is what the thread will read, does not); reveals one or all
(audited, reason optional, told to the thread through the outbox); rolls in secret from the
panel; and cannot override a secret roll. Hostile input is refused in words."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from pbp.rounds import service
from pbp.sources.base import PostRecord
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Reply, RollRecord, RollReveal, Round

from .test_encounter import _page, _preview


def _flash(client: Any, r: Any) -> str:
    assert r.status_code == 303, r.text
    html = client.get(r.headers["Location"]).text
    return " ".join(re.findall(r'class="flash (?:ok|error)"[^>]*>(.*?)</', html, re.DOTALL))


def secret_post(db_url: str, ids: dict[str, Any]) -> RollRecord:
    """Aria's player rolls perception in secret in the open round 2, through the service."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        rnd = s.get(Round, ids["round"])
        at = rnd.opens_at + timedelta(minutes=40)
        service.ingest_posts(s, ids["thread"], [PostRecord(
            platform_id="p-secret", author="aria_p", posted_at=at, fmt="bbcode",
            body="Aria watches the dark. [roll hidden]1d20+4 perception[/roll]",
            text="Aria watches the dark. [roll hidden]1d20+4 perception[/roll]")],
            now=at + timedelta(minutes=1))
    with session_scope(engine) as s:
        rec = s.scalar(select(RollRecord).where(RollRecord.hidden.is_(True)))
        assert rec is not None
        s.expunge(rec)
    engine.dispose()
    return rec


def assert_preview(preview: str, rec: RollRecord) -> None:
    """The reply preview is what the thread would read if the round resolved now: the roll
    sealed; or, when that result ends the fight (round 2's seed is random here), revealed
    with the hidden key, as the encounter's end does."""
    preview = html.unescape(preview)
    if "The fight is over." in preview:
        assert f"Aria's secret roll #{rec.roll_index} of round 2 (perception), revealed: 1d20+4 = " \
               f"{rec.total}" in preview and "hidden-key=" in preview
    else:
        assert f"Aria rolled in secret (sealed {rec.seal[:6]}…)" in preview and rec.seal in preview
        assert "1d20+4" not in preview and f"= {rec.total} (dice" not in preview


def _section(html: str) -> str:
    return html.split('id="secret-rolls"')[1].split("</section>")[0]


def test_DICE_2_the_narrator_sees_the_value_the_preview_only_the_seal(alice: Any, ids: dict[str, Any],
                                                                     db_url: str) -> None:
    rec = secret_post(db_url, ids)
    page = _page(alice, ids)
    section = _section(page)
    assert f'id="secret-{rec.id}"' in section and 'data-sealed="yes"' in section
    assert f">{rec.total}<" in section and rec.breakdown in section
    assert "1d20+4" in section and "perception" in section and "post by aria_p" in section
    assert_preview(_preview(page), rec)


def test_DICE_2_reveal_one_then_all_from_the_panel(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    rec = secret_post(db_url, ids)
    base = f"/encounters/{ids['encounter']}/secret"
    assert alice.post(f"{base}/reveal", {"reveal-roll_id": rec.id}, csrf=False).status_code == 400
    assert alice.post(f"/encounters/{ids['other_encounter']}/secret/reveal",
                      {"reveal-roll_id": rec.id}).status_code == 404
    # the narrator's own secret roll; a hostile expression is refused in words
    said = _flash(alice, alice.post(f"{base}/roll", {"secret-expression": "1d20; DROP TABLE rolls",
                                                     "secret-label": "x"}))
    assert "Not changed" in said and "is not a dice expression" in said
    said = _flash(alice, alice.post(f"{base}/roll", {"secret-expression": "999999d6"}))
    assert "Not changed" in said
    said = _flash(alice, alice.post(f"{base}/roll", {"secret-expression": "2d6+1",
                                                     "secret-label": "ambush at the gate?"}))
    assert "Rolled in secret" in said
    # reveal Aria's, with a reason
    said = _flash(alice, alice.post(f"{base}/reveal", {"reveal-roll_id": rec.id,
                                                       "reveal-reason": "she spots the ogre"}))
    assert "Revealed" in said
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        mine = s.scalar(select(RollRecord).where(RollRecord.kind == "narrator"))
        assert mine.hidden and mine.expression == "2d6+1" and mine.label == "ambush at the gate?"
        reveal = s.scalar(select(RollReveal).where(RollReveal.roll_id == rec.id))
        assert reveal.narrator_id == ids["alice"] and reveal.reason == "she spots the ogre"
        reply = s.get(Reply, reveal.reply_id)
        assert reply.kind == "reveal" and reply.state == "held"        # approval mode holds it
        assert f"Aria's secret roll #{rec.roll_index} of round 2 (perception), revealed: 1d20+4 = " \
               f"{rec.total}" in reply.body and "she spots the ogre" in reply.body
        assert f"#{mine.roll_index} revealed" not in reply.body         # still sealed
        audit = s.scalar(select(AuditEntry).where(AuditEntry.action == "roll.reveal"))
        assert audit.narrator_id == ids["alice"] and audit.after["revealed"] == [rec.id]
        assert s.scalar(select(AuditEntry).where(AuditEntry.action == "roll.secret")) is not None
    section = _section(_page(alice, ids))
    assert f'id="secret-{rec.id}" data-sealed="no"' in section and "she spots the ogre" in section
    # reveal all, no reason: the narrator's roll, in a reply of its own
    said = _flash(alice, alice.post(f"{base}/reveal", {}))
    assert "Revealed" in said
    with session_scope(engine) as s:
        bodies = [r.body for r in s.scalars(select(Reply).where(Reply.kind == "reveal").order_by(Reply.id))]
        mine = s.scalar(select(RollRecord).where(RollRecord.kind == "narrator"))
        assert len(bodies) == 2 and f"The narrator's secret roll #{mine.roll_index}" in bodies[1]
    engine.dispose()
    assert "Nothing to reveal" in _flash(alice, alice.post(f"{base}/reveal", {}))
    assert 'id="reveal-all"' not in _section(_page(alice, ids))


def test_DICE_2_a_secret_roll_cannot_be_overridden(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    rec = secret_post(db_url, ids)
    said = _flash(alice, alice.post(f"/encounters/{ids['encounter']}/override/roll",
                                    {"roll_id": rec.id, "total": 20, "reason": "fudge"}))
    assert "Not changed" in said and "secret roll" in said

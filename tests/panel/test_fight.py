"""The fight controls of the encounter page and the approval queue (issue 11 items 2, 4, 5,
6): start and end an encounter, approve held replies (one queue on the dashboard), switch
approval off, move a deadline (announced), post a correction; hostile and nonsense values
are refused in words, never a traceback."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, select

from pbp.rounds import service
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Campaign, Encounter, Override, Reply, RollRecord, Round

from .test_encounter import _page


def _flash(client: Any, r: Any) -> str:
    assert r.status_code == 303, r.text
    html = client.get(r.headers["Location"]).text
    return " ".join(re.findall(r'class="flash (?:ok|error)"[^>]*>(.*?)</', html, re.DOTALL))


def _new_encounter(db_url: str, ids: dict[str, Any]) -> int:
    """A second encounter of alice's thread, in setup (as the panel creates one)."""
    with session_scope(make_engine(db_url)) as s:
        from_sample = s.get(Encounter, ids["encounter"])
        eid = service.start_encounter(s, ids["thread"], [], name="Second fight")
        enc = s.get(Encounter, eid)
        for c in from_sample.combatants[:3]:
            enc.combatants.append(type(c)(key=c.key, name=c.name, side=c.side, player=c.player,
                                          sheet=dict(c.sheet), hp=c.hp, max_hp=c.max_hp))
        from_sample.status = "finished"    # one live encounter in the thread
    return eid


def test_start_the_encounter_from_the_panel(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    eid = _new_encounter(db_url, ids)
    html = alice.get(f"/encounters/{eid}").text
    assert "Start the encounter" in html and 'id="start-form"' in html
    url = f"/encounters/{eid}/start"
    assert alice.post(url, {}, csrf=False).status_code == 400                      # no CSRF token
    said = _flash(alice, alice.post(url, {"surprise": "y", "surprised": "<script>x</script>"}))
    assert "Not changed" in said and "<script>" not in said                        # not a choice
    said = _flash(alice, alice.post(url, {}))
    assert "The opening waits for your approval" in said                           # approval mode
    with session_scope(make_engine(db_url)) as s:
        rnd = service.current_round(s, eid)
        assert (rnd.number, rnd.state) == (1, "open")
        opening = s.scalar(select(Reply).where(Reply.idempotency_key == f"{rnd.id}:opening"))
        assert opening.state == "held" and rnd.commitment in opening.body
    html = alice.get(f"/encounters/{eid}").text
    assert 'id="clock-held"' in html and "Start the encounter" not in html
    said = _flash(alice, alice.post(url, {}))
    assert "Not changed: the encounter has started already (round 1)" in said
    assert alice.post(f"/encounters/{ids['other_encounter']}/start", {}).status_code == 404


def test_end_the_encounter_needs_the_box_ticked(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/encounters/{ids['encounter']}/end"
    assert "tick the box" in _flash(alice, alice.post(url, {}))
    said = _flash(alice, alice.post(url, {"confirm": "y"}))
    assert "Encounter ended" in said
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Encounter, ids["encounter"]).status == "finished"
        assert s.get(Round, ids["round"]).state == "cancelled"
        closing = s.scalar(select(Reply).where(Reply.kind == "closing"))
        assert "Round 2 is closed without a result" in closing.body
    assert "This encounter is over." in _page(alice, ids)
    assert "over already" in _flash(alice, alice.post(url, {"confirm": "y"}))


def test_the_dashboard_has_one_queue_of_held_replies_and_approves_from_it(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    html = alice.get("/").text
    queue = html.split('id="approval-queue"')[1].split("</section>")[0]
    assert f'id="held-{ids["reply"]}"' in queue and "resolution" in queue
    r = alice.post(f"/encounters/{ids['encounter']}/override/reply",
                   {"reply_id": ids["reply"], "action": "post", "reason": "checked", "round_number": 1})
    assert "Change recorded." in _flash(alice, r)
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Reply, ids["reply"]).state == "pending"
        r2 = s.get(Round, ids["round"])
        assert r2.deadline > r2.opens_at and "post your declarations by" in s.get(Reply, ids["reply"]).body
    assert 'id="approval-queue"' not in alice.get("/").text


def test_switching_approval_off_releases_the_held_replies(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    r = alice.post(f"/campaigns/{ids['campaign']}", {"name": "The Sunken Keep", "ruleset": "forum-d20",
                                                     "language": "en", "timezone": "Europe/Lisbon",
                                                     "houserules": ""})
    assert r.status_code == 302
    with session_scope(make_engine(db_url)) as s:
        assert not s.get(Campaign, ids["campaign"]).approval_mode
        assert s.scalar(select(func.count()).select_from(Reply).where(Reply.state == "held")) == 0
        assert s.get(Reply, ids["reply"]).state == "pending"
        notes = list(s.scalars(select(AuditEntry.note).where(AuditEntry.action == "override.reply.approve")))
    assert notes == ["approval mode switched off"]


def test_moving_a_deadline_is_announced_and_nonsense_is_refused(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    base = f"/encounters/{ids['encounter']}/override/deadline"
    for bad in ("2026-13-45T99:99", "tomorrow", "<script>"):
        assert "Not changed" in _flash(alice, alice.post(base, {"round_id": ids["round"], "deadline": bad,
                                                               "reason": "x"}))
    assert alice.post(base, {"round_id": "abc", "deadline": "2099-01-01T12:00", "reason": "x"}).status_code == 404
    assert alice.post(base, {"round_id": ids["round1"] + 999, "deadline": "2099-01-01T12:00",
                             "reason": "x"}).status_code == 404
    # round 2's announcement (round 1's result) is held: no notice, the announcement will say it
    _flash(alice, alice.post(base, {"round_id": ids["round"], "deadline": "2099-01-01T12:00", "reason": "x"}))
    with session_scope(make_engine(db_url)) as s:
        assert s.scalar(select(Reply).where(Reply.kind == "notice")) is None
        s.get(Campaign, ids["campaign"]).approval_mode = False
        service.approve_reply(s, ids["reply"], ids["alice"])
    _flash(alice, alice.post(base, {"round_id": ids["round"], "deadline": "2099-01-02T12:30",
                                    "reason": "the forum was down"}))
    with session_scope(make_engine(db_url)) as s:
        notice = s.scalar(select(Reply).where(Reply.kind == "notice"))
        assert notice.state == "pending"
        assert "post your declarations by 2099-01-02 12:30 (Europe/Lisbon, UTC+00:00)" in notice.body
        assert "forum was down" not in notice.body


def test_an_override_after_the_result_is_posted_offers_a_correction(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    correct = f"/encounters/{ids['encounter']}/correct"
    said = _flash(alice, alice.post(correct, {"round_id": ids["round1"], "reason": "x", "round_number": 1}))
    assert "not posted yet: re-resolve it instead" in said          # round 1's result is held
    with session_scope(make_engine(db_url)) as s:
        s.get(Campaign, ids["campaign"]).approval_mode = False
        service.approve_reply(s, ids["reply"], ids["alice"])
        for reply in s.scalars(select(Reply).where(Reply.round_id == ids["round1"])):
            reply.state = "sent"
        roll = s.get(RollRecord, ids["rolls1"][0])
    r = alice.post(f"/encounters/{ids['encounter']}/override/roll",
                   {"roll_id": roll.id, "total": 1, "reason": "typo fix", "round_number": 1})
    said = _flash(alice, r)
    assert "already posted: post a correction to apply it" in said   # never a silent "recorded"
    html = _page(alice, ids, 1)
    assert 'id="correction"' in html and "Post the correction" in html
    assert "post a correction to apply" in html
    assert "Not changed" in _flash(alice, alice.post(correct, {"round_id": ids["round1"], "reason": "",
                                                               "round_number": 1}))
    assert alice.post(correct, {"round_id": "1 OR 1=1", "reason": "x"}).status_code == 404
    said = _flash(alice, alice.post(correct, {"round_id": ids["round1"], "reason": "typo fix",
                                              "round_number": 1}))
    assert "Correction queued" in said
    with session_scope(make_engine(db_url)) as s:
        reply = s.scalar(select(Reply).where(Reply.kind == "correction"))
        assert reply.state == "pending" and f"roll #{roll.roll_index}" in reply.body
        assert "typo fix" not in reply.body
        assert s.scalar(select(Override).where(Override.kind == "round.correct")).reason == "typo fix"
    assert "nothing to correct" in _flash(alice, alice.post(correct, {"round_id": ids["round1"], "reason": "again",
                                                                      "round_number": 1}))

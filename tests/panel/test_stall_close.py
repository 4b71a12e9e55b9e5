"""The panel's STALL-4/5 controls through its routes: the campaign form's early close
(on for a new campaign), grace, quiet hours, weekends and extension limit, with bad values
refused in words; an encounter's own round length; extension requests granted or refused
from the encounter page, audited, the thread told."""

from __future__ import annotations

import html
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from pbp.rounds import service
from pbp.sources.base import PostRecord
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Campaign, Encounter, ExtensionRequest, Reply, Round

FORM = {"name": "The Sunken Keep", "ruleset": "forum-d20", "language": "en", "timezone": "Europe/Lisbon",
        "houserules": "", "round_hours": "24", "reminder_hours": "2"}


def test_STALL4_a_new_campaign_form_closes_early_by_default(alice: Any) -> None:
    page = alice.get("/campaigns/new").text
    assert '<input checked id="early_close" name="early_close" type="checkbox" value="y">' in page
    assert 'name="close_grace_minutes" type="text" value="10"' in page
    assert 'name="extension_limit_hours" type="text" value="12"' in page


def test_STALL5_campaign_clock_settings_are_saved_and_audited(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/campaigns/{ids['campaign']}"
    r = alice.post(url, {**FORM, "early_close": "y", "close_grace_minutes": "5",
                         "quiet_hours": " 23:30 - 7:00 ", "skip_weekends": "y", "extension_limit_hours": "6,5"})
    assert r.status_code == 302, r.text
    with session_scope(make_engine(db_url)) as s:
        c = s.get(Campaign, ids["campaign"])
        assert (c.early_close, c.close_grace_minutes, c.quiet_hours, c.skip_weekends, c.extension_limit_hours) \
            == (True, 5, "23:30-07:00", True, 6.5)
        entry = s.scalars(select(AuditEntry).where(AuditEntry.action == "campaign.settings")
                          .order_by(AuditEntry.id.desc())).first()
        assert entry.after["value"]["quiet_hours"] == "23:30-07:00"
        assert entry.before["value"]["quiet_hours"] == ""
    page = alice.get(url).text
    assert 'value="23:30-07:00"' in page and 'value="6.5"' in page


def test_STALL5_bad_clock_values_are_refused_in_words_and_nothing_is_saved(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/campaigns/{ids['campaign']}"
    for field, value, words in [
            ("quiet_hours", "25:00-08:00", "Quiet hours: two times of day as HH:MM-HH:MM"),
            ("quiet_hours", "23:00", "Quiet hours: two times of day as HH:MM-HH:MM"),
            ("close_grace_minutes", "ten", "Minutes for edits: a whole number from 0 to 1440"),
            ("extension_limit_hours", "-1", "Extensions: a number of hours from 0 (always ask me) to 168")]:
        r = alice.post(url, {**FORM, field: value})
        assert r.status_code == 400 and words in html.unescape(r.text), (field, value)
    with session_scope(make_engine(db_url)) as s:
        c = s.get(Campaign, ids["campaign"])
        assert (c.quiet_hours, c.close_grace_minutes, c.extension_limit_hours) == ("", 10, 12.0)


def test_STALL5_an_encounter_gets_its_own_round_length(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/encounters/{ids['encounter']}/round-length"
    r = alice.post(url, {"round_hours": "0"})
    assert r.status_code == 303
    assert "Round length must be more than 0 hours." in html.unescape(alice.get(f"/encounters/{ids['encounter']}").text)
    r = alice.post(url, {"round_hours": "6"})
    page = html.unescape(alice.get(r.headers["Location"]).text)
    assert "Rounds of this encounter now last 6 hours, from the next round on." in page
    assert 'id="enc-round-hours" name="round_hours" type="text" inputmode="decimal" value="6"' in page
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Encounter, ids["encounter"]).round_hours == 6.0
        entry = s.scalars(select(AuditEntry).where(AuditEntry.action == "encounter.round_hours")).one()
        assert (entry.before, entry.after) == (None, {"value": 6.0})   # None before: the campaign's
    assert alice.post(f"/encounters/{ids['other_encounter']}/round-length", {"round_hours": "6"}).status_code == 404


def _ask(db_url: str, ids: dict[str, Any], body: str) -> tuple[int, datetime]:
    """Cato's player asks for more time in the open round 2 (over the 12 h limit)."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        rnd = s.get(Round, ids["round"])
        at = datetime.now(UTC) - timedelta(minutes=1)
        service.ingest_posts(s, ids["thread"], [PostRecord(
            platform_id="p900", author="cato_p", posted_at=at, body=body, text=body, fmt="bbcode")],
            now=at)
        req = s.scalars(select(ExtensionRequest)).one()
        return req.id, rnd.deadline


def test_STALL5_a_queued_extension_is_granted_from_the_encounter_page(alice: Any, ids: dict[str, Any],
                                                                       db_url: str) -> None:
    req_id, before = _ask(db_url, ids, "I defend.\n.extend 2d")
    page = html.unescape(alice.get(f"/encounters/{ids['encounter']}").text)
    assert "Cato (cato_p): 48 h more" in page and "waits for you" in page
    assert f'id="extension-grant-{req_id}"' in page
    r = alice.post(f"/encounters/{ids['encounter']}/extensions/{req_id}", {"decision": "grant"})
    assert r.status_code == 303
    assert "Extension granted; the thread is told of the new deadline." in html.unescape(alice.get(r.headers["Location"]).text)
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Round, ids["round"]).deadline == before + timedelta(hours=48)   # no quiet hours set
        req = s.get(ExtensionRequest, req_id)
        assert (req.state, req.automatic, req.narrator_id) == ("granted", False, ids["alice"])
        reply = s.scalars(select(Reply).where(Reply.idempotency_key == f"{ids['round']}:extension:{req_id}:decided")).one()
        assert "The narrator granted Cato 48 h more." in reply.body
        assert s.scalars(select(AuditEntry.actor).where(AuditEntry.action == "round.extension.granted")).one() == "alice"
    r = alice.post(f"/encounters/{ids['encounter']}/extensions/{req_id}", {"decision": "refuse"})
    assert "this request was already decided" in html.unescape(alice.get(r.headers["Location"]).text)


def test_STALL5_a_queued_extension_refused_keeps_the_deadline(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    req_id, before = _ask(db_url, ids, ".prorrogar 3 dias")
    r = alice.post(f"/encounters/{ids['encounter']}/extensions/{req_id}", {"decision": "refuse"})
    assert "Extension refused; the thread is told." in html.unescape(alice.get(r.headers["Location"]).text)
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Round, ids["round"]).deadline == before
        assert s.get(ExtensionRequest, req_id).state == "refused"
    # another narrator's encounter cannot reach it
    assert alice.post(f"/encounters/{ids['other_encounter']}/extensions/{req_id}",
                      {"decision": "grant"}).status_code == 404
    assert alice.post(f"/encounters/{ids['encounter']}/extensions/{req_id}",
                      {"decision": "maybe"}).status_code == 400

"""The panel's STALL-3 controls through its routes: the campaign form's ladder settings
(saved and audited; bad values refused in words, nothing saved), and the encounter page's
ladder table showing each player's reminder, notification (channel and state), missed
rounds in a row and narrator-run, after the ladder's steps ran through the service."""

from __future__ import annotations

import html
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from pbp.rounds import ladder
from pbp.rounds.early import expected
from pbp.store import queries
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Campaign, Round

FORM = {"name": "The Sunken Keep", "ruleset": "forum-d20", "language": "en", "timezone": "Europe/Lisbon",
        "houserules": "", "round_hours": "24", "reminder_hours": "2"}


def test_STALL3_ladder_settings_are_saved_and_audited(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/campaigns/{ids['campaign']}"
    r = alice.post(url, {**FORM, "notify_hours": "4,5", "missed_limit": "2", "auto_narrator_run": "y",
                         "narrator_account": " u/the_gm "})
    assert r.status_code == 302, r.text
    with session_scope(make_engine(db_url)) as s:
        c = s.get(Campaign, ids["campaign"])
        assert (c.notify_hours, c.missed_limit, c.auto_narrator_run, c.narrator_account) == (4.5, 2, True, "the_gm")
        entry = s.scalars(select(AuditEntry).where(AuditEntry.action == "campaign.settings")
                          .order_by(AuditEntry.id.desc())).first()
        assert entry.after["value"]["missed_limit"] == 2 and entry.before["value"]["missed_limit"] == 0
    page = alice.get(url).text
    assert 'name="notify_hours" type="text" value="4.5"' in page and 'value="the_gm"' in page


def test_STALL3_bad_ladder_values_are_refused_in_words_and_nothing_is_saved(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/campaigns/{ids['campaign']}"
    for extra, words in [
            ({"notify_hours": "soon"}, "Direct notification: a number of hours before the deadline"),
            ({"notify_hours": "0"}, "Direct notification: a number of hours before the deadline"),
            ({"missed_limit": "-1"}, "Missed rounds: a whole number from 0 (never tell me) to 50"),
            ({"missed_limit": "two"}, "Missed rounds: a whole number from 0 (never tell me) to 50"),
            ({"narrator_account": "<script>"}, "Your account: the user name you have on the thread"),
            # cato_p plays Cato: as the narrator's account, Cato's posts would be the narrator's
            ({"narrator_account": "Cato_P"}, "Cato_P plays Cato in this campaign: as a narrator's account"),
            ({"missed_limit": "0", "auto_narrator_run": "y"},
             "Narrator-run after missed rounds needs a number of missed rounds above 0.")]:
        r = alice.post(url, {**FORM, **extra})
        assert r.status_code == 400 and words in html.unescape(r.text), extra
    with session_scope(make_engine(db_url)) as s:
        c = s.get(Campaign, ids["campaign"])
        assert (c.notify_hours, c.missed_limit, c.auto_narrator_run, c.narrator_account) == (None, 0, False, "")


def run_ladder_steps(db_url: str, ids: dict[str, Any]) -> list[str]:
    """Reminder, notification (halfway through the open round) and one miss with a limit
    of 1 and narrator-run on, through the ladder's service functions; the players."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        rnd = s.get_one(Round, ids["round"])
        c = rnd.encounter.campaign
        c.notify_hours, c.missed_limit, c.auto_narrator_run = 12.0, 1, True
        half = rnd.deadline - timedelta(hours=12) - rnd.opens_at     # T−12 h
        held = queries.announcement(s, rnd)
        if held is not None and held.state == "held":
            held.state = "sent"       # the sample holds round 2's announcement: its clock waits
        owing = expected(s, rnd, rnd.opens_at + half)
        ladder.audit_reminded(s, rnd, owing, rnd.opens_at + half / 2, 2.0)
        ladder.queue_notifications(s, rnd.id, rnd.opens_at + half + timedelta(minutes=1))
        ladder.count_misses(s, rnd, owing, rnd.deadline)
        players = sorted({o.player for o in owing if o.player})
    engine.dispose()
    return players


def test_STALL3_the_encounter_page_shows_each_players_ladder_state(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    players = run_ladder_steps(db_url, ids)
    assert players
    page = html.unescape(alice.get(f"/encounters/{ids['encounter']}/ladder").text)
    table = page[page.index('id="ladder"'):]
    table = table[:table.index("</table>")]
    for p in players:
        assert f"<strong>{p}</strong>" in table
    # the sample's thread is a machina forum: no private messages, an @mention waits to go out
    assert table.count("@mention in the thread · waiting to be sent") == len(players)
    assert table.count("narrator told") == len(players)
    assert "The narrator is told after 1 missed round in a row." in page   # one round, said so


def test_STALL3_the_ladder_page_is_linked_and_only_for_the_campaigns_narrators(
        alice: Any, ids: dict[str, Any]) -> None:
    page = alice.get(f"/encounters/{ids['encounter']}").text
    assert f'href="/encounters/{ids["encounter"]}/ladder" id="ladder-link"' in page
    assert alice.get(f"/encounters/{ids['other_encounter']}/ladder").status_code == 404


def test_STALL3_each_ladder_step_reads_as_a_sentence_in_the_encounters_audit_log(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    players = run_ladder_steps(db_url, ids)
    page = html.unescape(alice.get(f"/encounters/{ids['encounter']}").text)
    p = players[0]
    for words in (f"pbp reminded {p} in the thread, 2 h before the deadline",
                  f"pbp queued a direct notification to {p} (mention, pending)",
                  f"{p} missed the round: 1 in a row",
                  f"{p} missed 1 round in a row: the narrator is told",
                  f"the characters of {p} are run by the narrator now"):
        assert words in page, words

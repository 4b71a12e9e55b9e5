"""Start and end a fight through the service (issue 11 item 2), deadlines announced and
printed at their precision (item 5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from pbp.errors import PbpError
from pbp.panel import overrides as panel_overrides
from pbp.render import when
from pbp.rounds import lifecycle, service
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world

TZ = "America/Sao_Paulo"


def test_starting_an_encounter_opens_round_one_with_its_opening_and_commitment(engine):
    w = make_world(engine)
    with session_scope(engine) as s:
        rid = service.start_encounter_now(s, w.encounter_id, at(0), None)
        with pytest.raises(PbpError, match="started already"):
            service.start_encounter_now(s, w.encounter_id, at(1), None)
    with session_scope(engine) as s:
        rnd = s.get(m.Round, rid)
        assert (rnd.number, rnd.state, rnd.surprise) == (1, "open", False)
        assert len(rnd.order) == 5 and rnd.deadline == at(24)
        commitment = rnd.commitment
        entry = s.scalar(select(m.AuditEntry).where(m.AuditEntry.action == "encounter.start"))
        assert entry.after["round"] == 1
    opening = w.reply(f"{rid}:opening")
    assert opening.state == "pending"
    assert commitment in opening.body and "Initiative order" in opening.body
    assert f"Post your declarations by {when(at(24), TZ)}." in opening.body


def test_starting_with_a_surprise_round_as_the_narrator_sets_it(engine):
    w = make_world(engine, ruleset="beyonders")
    with session_scope(engine) as s:
        with pytest.raises(PbpError, match="unknown combatant"):
            service.start_encounter_now(s, w.encounter_id, at(0), None, surprise=True,
                                        surprised=["nobody"])
        rid = service.start_encounter_now(s, w.encounter_id, at(0), None, surprise=True,
                                          surprised=["gob1", "gob2"])
        rnd = s.get(m.Round, rid)
        assert (rnd.number, rnd.surprise) == (0, True)
    assert "surprise round" in w.reply(f"{rid}:opening").body


def test_in_approval_mode_the_opening_waits_and_the_clock_with_it(engine):
    w = make_world(engine, approval=True)
    with session_scope(engine) as s:
        rid = service.start_encounter_now(s, w.encounter_id, at(0), None)
    assert w.reply(f"{rid}:opening").state == "held"
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(48)) == []


def test_ending_an_encounter_closes_its_round_says_so_and_opens_nothing(engine):
    w = make_world(engine, reminder_hours=(2,))
    with session_scope(engine) as s:
        rid = service.start_encounter_now(s, w.encounter_id, at(0), None)
        service.send_reminder(s, rid, at(22))
        reply_id = service.end_encounter(s, w.encounter_id, at(23), None)
        with pytest.raises(PbpError, match="over already"):
            service.end_encounter(s, w.encounter_id, at(23), None)
    with session_scope(engine) as s:
        rnd = s.get(m.Round, rid)
        assert (rnd.state, rnd.closed_at) == ("cancelled", at(23))
        assert s.get(m.Encounter, w.encounter_id).status == "finished"
        assert service.due_rounds(s, at(48)) == [] and service.due_reminders(s, at(23)) == []
        with pytest.raises(PbpError, match="finished"):
            service.open_round(s, w.encounter_id, at(30))
        closing = s.get(m.Reply, reply_id)
        assert closing.kind == "closing" and closing.state == "pending"
        body = closing.body
    assert "The narrator has ended this encounter. No further round will open." in body
    assert "Round 1 is closed without a result; posts made for it are not resolved." in body
    assert body.rstrip().endswith(f"pbp-reply:{rid}:closing[/size]")


def test_an_opening_never_sent_is_cancelled_when_the_encounter_ends(engine):
    w = make_world(engine, approval=True)
    with session_scope(engine) as s:
        rid = service.start_encounter_now(s, w.encounter_id, at(0), None)
        service.end_encounter(s, w.encounter_id, at(1), None)
    assert w.reply(f"{rid}:opening").state == "cancelled"    # no opening of a closed round
    assert w.reply(f"{rid}:closing").state == "held"         # approval mode: held like all


def test_the_closing_reply_in_portuguese_and_russian(engine):
    for lang, text in (("pt", "O narrador encerrou este combate."), ("ru", "Ведущий завершил этот бой.")):
        w = make_world(engine, language=lang, slug=f"g-{lang}")
        with session_scope(engine) as s:
            service.start_encounter_now(s, w.encounter_id, at(0), None)
            rid = service.end_encounter(s, w.encounter_id, at(1), None)
            assert text in s.get(m.Reply, rid).body


# --- deadlines (issue 11 item 5) --------------------------------------------------------------


def test_deadlines_are_kept_on_a_whole_minute_never_shorter_than_the_round():
    odd = datetime(2026, 12, 1, 7, 8, 54, tzinfo=UTC)
    assert lifecycle.whole_minute(odd) == datetime(2026, 12, 1, 7, 9, tzinfo=UTC)
    exact = datetime(2026, 12, 1, 7, 9, tzinfo=UTC)
    assert lifecycle.whole_minute(exact) == exact


def test_a_short_round_keeps_its_second():
    """A round under ten minutes (a demo's half-minute round) is not stretched by up to a
    minute: its deadline keeps the second, which the reply prints."""
    odd = datetime(2026, 12, 1, 7, 8, 54, tzinfo=UTC)
    assert lifecycle.whole_minute(odd, timedelta(seconds=32)) == odd
    assert lifecycle.whole_minute(odd, timedelta(minutes=10)) == datetime(2026, 12, 1, 7, 9, tzinfo=UTC)


def test_a_deadline_never_prints_earlier_than_it_is():
    """07:08:54 must not read "by 07:08": seconds are printed when a deadline has them, a
    fraction of a second rounds up."""
    assert when(datetime(2026, 12, 1, 7, 8, 54, tzinfo=UTC), "UTC") == "2026-12-01 07:08:54 (UTC, UTC+00:00)"
    assert when(datetime(2026, 12, 1, 7, 8, 54, 300_000, tzinfo=UTC), "UTC").startswith("2026-12-01 07:08:55")
    assert when(datetime(2026, 12, 1, 7, 9, tzinfo=UTC), "UTC").startswith("2026-12-01 07:09 (")


def test_a_round_opened_at_odd_seconds_gets_a_whole_minute_deadline(engine):
    w = make_world(engine)
    opened = at(0) + timedelta(seconds=54)
    rid = w.open(opened)
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).deadline == at(24, 1)     # 24 h, rounded up to the minute
    assert f"by {when(at(24, 1), TZ)}." in w.reply(f"{rid}:opening").body


@pytest.mark.parametrize("lang,sentence", [
    ("en", "The narrator moved the deadline: post your declarations by {new}."),
    ("pt", "O narrador mudou o prazo: publiquem suas declarações até {new}."),
    ("ru", "Ведущий перенёс срок: публикуйте заявки до {new}."),
])
def test_a_moved_deadline_is_announced_in_the_thread(engine, lang, sentence):
    w = make_world(engine, language=lang)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        ov = panel_overrides.set_deadline(s, rid, at(30), "the forum was down", None)
        notice = s.scalar(select(m.Reply).where(m.Reply.kind == "notice"))
        assert notice.idempotency_key == f"{rid}:deadline:{ov.id}" and notice.state == "pending"
        body = notice.body
    assert sentence.format(new=when(at(30), TZ)) in body
    assert when(at(24), TZ) in body                      # what it was
    assert "the forum was down" not in body              # the reason is private (item 7)

"""STALL-3, the escalation ladder, through the round service and the beat sweep's list of
due work, against a clock. The times are worked out from the rules text and the
campaign's settings: a 24 h round opened at T0 has its deadline at T0+24 h; a reminder
at T−12 h falls at T0+12 h, a direct notification at T−4 h at T0+20 h; with
``missed_limit`` 2 the narrator is told at the second missed deadline (T0+48 h)."""

from __future__ import annotations

from sqlalchemy import select

from pbp.jobs import delivery
from pbp.rounds import ladder, service
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post


def _ladder_world(engine, *, auto: bool = True, language: str = "en"):  # type: ignore[no-untyped-def]
    w = make_world(engine, reminder_hours=(12.0,), language=language)
    with session_scope(engine) as s:
        c = s.get_one(m.Campaign, w.campaign_id)
        c.notify_hours, c.missed_limit, c.auto_narrator_run = 4.0, 2, auto
        c.narrator_account = "the_gm"
        t = s.get_one(m.Thread, w.thread_id)
        t.kind, t.url, t.platform = "reddit", "https://www.reddit.com/r/pbp/comments/abc123/ambush/", "markdown"
    return w


def _audit(engine, action: str) -> list[m.AuditEntry]:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        rows = list(s.scalars(select(m.AuditEntry).where(m.AuditEntry.action == action)
                              .order_by(m.AuditEntry.id)))
        s.expunge_all()
        return rows


def _notes(engine) -> list[m.Notification]:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        rows = list(s.scalars(select(m.Notification).order_by(m.Notification.id)))
        s.expunge_all()
        return rows


def test_STALL3_each_step_at_its_time_reminder_notification_misses_narrator_and_back(engine):
    w = _ladder_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag")], now=at(1))
    with session_scope(engine) as s:
        # step 1, T−12 h: the reminder (not a minute before), for bob and carol only
        assert service.due_reminders(s, at(11, 59)) == []
        assert delivery.due_work(s, at(12)).reminders == [rid]
        service.send_reminder(s, rid, at(12))
    assert sorted(a.entity_id for a in _audit(engine, "ladder.remind")) == ["bob", "carol"]
    with session_scope(engine) as s:
        # step 2, T−4 h: the direct notification, seen by the beat sweep's list
        assert delivery.due_work(s, at(19, 59)).notify_rounds == ()
        assert delivery.due_work(s, at(20)).notify_rounds == (rid,)
        ids = ladder.queue_notifications(s, rid, at(20))
        assert len(ids) == 2
        assert ladder.queue_notifications(s, rid, at(20, 5)) == []     # never twice
        assert ladder.due_notifications(s, at(21)) == []
    notes = _notes(engine)
    assert [(n.key, n.channel, n.state) for n in notes] == [
        (f"{rid}:bob:notify", "reddit", "pending"), (f"{rid}:carol:notify", "reddit", "pending")]
    # the deadline T0+24 h = 2026-12-01 12:00 UTC, said in São Paulo's time (UTC−3)
    assert "2026-12-01 09:00 (America/Sao_Paulo)" in notes[0].body
    assert "https://www.reddit.com/r/pbp/comments/abc123/ambush/" in notes[0].body
    assert "Bram" in notes[0].body and "round 1" in notes[0].body
    # step 3, the deadline: one miss each for bob and carol, none for alice
    w.resolve(rid, at(24))
    assert [(a.entity_id, a.after["missed_in_row"]) for a in _audit(engine, "ladder.missed")] == [
        ("bob", 1), ("carol", 1)]
    assert _audit(engine, "ladder.narrator") == []
    with session_scope(engine) as s:
        rid2 = service.current_round(s, w.encounter_id).id
    assert rid2 != rid
    w.ingest([post("p2", "alice", at(25), "I attack Goblin Snag")], now=at(25))
    w.resolve(rid2, at(48))
    # step 4, the second miss in a row: the narrator told (a PM to the_gm), both narrator-run
    told = _audit(engine, "ladder.narrator")
    assert sorted(a.after["player"] for a in told) == ["bob", "carol"]
    assert sorted(a.entity_id for a in _audit(engine, "ladder.narrator_run")) == ["bob", "carol"]
    narrator_notes = [n for n in _notes(engine) if n.step == "narrator"]
    assert {(n.recipient, n.channel, n.state) for n in narrator_notes} == {("the_gm", "reddit", "pending")}
    assert "missed 2 rounds in a row" in narrator_notes[0].body
    with session_scope(engine) as s:
        sheets = {c.key: dict(c.sheet or {}) for c in s.get_one(m.Encounter, w.encounter_id).combatants}
        assert sheets["bram"].get("run_by_narrator") is True and sheets["cyd"].get("run_by_narrator") is True
        assert not sheets["aria"].get("run_by_narrator")
        rid3 = service.current_round(s, w.encounter_id).id
    # a post from carol ends her count and the narrator-run the ladder set; bob's stays
    w.ingest([post("p3", "carol", at(49), "I attack Goblin Rot")], now=at(49))
    back = _audit(engine, "ladder.player_back")
    assert [(a.entity_id, a.after["missed_before"], a.after["narrator_run_ended"]) for a in back] == [
        ("carol", 2, ["cyd"])]
    with session_scope(engine) as s:
        sheets = {c.key: dict(c.sheet or {}) for c in s.get_one(m.Encounter, w.encounter_id).combatants}
        assert "run_by_narrator" not in sheets["cyd"] and sheets["bram"]["run_by_narrator"] is True
        states = {r.player: r for r in s.scalars(select(m.LadderPlayer))}
        assert (states["carol"].missed_in_row, states["carol"].narrator_run_since) == (0, None)
        assert states["bob"].missed_in_row == 2 and states["bob"].narrator_run_since is not None
        # bob is narrator-run now: round 3's notification goes to alice only (carol posted)
        ids = ladder.queue_notifications(s, rid3, at(48 + 20))
        assert [s.get_one(m.Notification, i).player for i in ids] == ["alice"]


def test_STALL3_without_auto_the_narrator_is_told_and_nobody_is_narrator_run_pt(engine):
    """The campaign in Portuguese, no automatic narrator-run: the narrator's message says
    the character still acts by its standing order, in Portuguese."""
    w = _ladder_world(engine, auto=False, language="pt")
    rid = w.open(at(0))
    w.resolve(rid, at(24))
    with session_scope(engine) as s:
        rid2 = service.current_round(s, w.encounter_id).id
    w.resolve(rid2, at(48))
    assert _audit(engine, "ladder.narrator_run") == []
    narrator = [n for n in _notes(engine) if n.step == "narrator"]
    assert len(narrator) == 3                               # alice, bob and carol all missed
    assert "perdeu 2 rodadas seguidas" in narrator[0].body and "ordem permanente" in narrator[0].body


def test_STALL3_file_thread_has_no_direct_channel_said_not_sent(engine):
    w = make_world(engine, reminder_hours=(12.0,))
    with session_scope(engine) as s:
        s.get_one(m.Campaign, w.campaign_id).notify_hours = 4.0
    rid = w.open(at(0))
    with session_scope(engine) as s:
        ladder.queue_notifications(s, rid, at(20))
    notes = _notes(engine)
    assert {(n.channel, n.state) for n in notes} == {("none", "skipped")}
    assert notes[0].last_error == "no direct channel on this platform"
    with session_scope(engine) as s:
        assert delivery.due_work(s, at(21)).notes == ()


def test_STALL3_an_away_player_is_not_notified_nor_counted(engine, monkeypatch):
    from pbp.store import queries
    w = _ladder_world(engine)
    monkeypatch.setattr(queries, "away_players", lambda session, campaign_id, at: {"bob"})
    rid = w.open(at(0))
    with session_scope(engine) as s:
        ladder.queue_notifications(s, rid, at(20))
    assert [n.player for n in _notes(engine)] == ["alice", "carol"]
    w.resolve(rid, at(24))
    assert sorted(a.entity_id for a in _audit(engine, "ladder.missed")) == ["alice", "carol"]

"""The round lifecycle around resolution: reminders, early close, surprise round, approval
mode, posts seen too late, edits after the deadline, previews and re-resolution."""

from __future__ import annotations

from sqlalchemy import select

from pbp.rounds import service
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post


def test_reminders_name_who_has_not_posted_once_per_threshold(engine):
    w = make_world(engine, reminder_hours=(12, 2))
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag")], now=at(1))
    with session_scope(engine) as s:
        assert service.due_reminders(s, at(11)) == []
        assert service.due_reminders(s, at(12)) == [rid]
        reply_id = service.send_reminder(s, rid, at(12))
        assert service.send_reminder(s, rid, at(12, 5)) is None          # once
        assert service.due_reminders(s, at(13)) == []
        body = s.get(m.Reply, reply_id).body
    assert "Still to post:\nBram (@bob)\nCyd (@carol)\n" in body
    assert "Reminder: the deadline is 2026-12-01 09:00 (America/Sao_Paulo, UTC-03:00)." in body
    w.ingest([post("p2", "bob", at(14), "#defend"), post("p3", "carol", at(15), "#defend")], now=at(15))
    with session_scope(engine) as s:
        assert service.due_reminders(s, at(22)) == [rid]
        assert service.send_reminder(s, rid, at(22)) is None             # everyone posted
        assert service.due_reminders(s, at(22, 30)) == []


def test_early_close_when_everyone_has_declared(engine):
    w = make_world(engine, early_close=True)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "#defend"), post("p2", "bob", at(1), "#defend")], now=at(1))
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(2)) == []
    w.ingest([post("p3", "carol", at(2), "#defend")], now=at(2))
    with session_scope(engine) as s:   # STALL-4: the campaign's default 10-minute grace
        assert service.due_rounds(s, at(2, 9)) == []
        assert service.due_rounds(s, at(2, 10)) == [rid]


def test_surprise_round_where_the_narrator_flags_it(engine):
    w = make_world(engine, ruleset="beyonders", surprise=True, surprised=["gob1", "gob2"])
    rid = w.open(at(0))
    with session_scope(engine) as s:
        rnd = s.get(m.Round, rid)
        assert (rnd.number, rnd.surprise) == (0, True)
    assert "surprise round" in w.reply(f"{rid}:opening").body
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword"),
              post("p2", "GM", at(1), "Goblin Snag: attacks Aria")], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        nxt = service.current_round(s, w.encounter_id)
        assert (nxt.number, nxt.surprise) == (1, False)
        codes = [e.code for e in s.scalars(select(m.EventRecord).where(
            m.EventRecord.round_id == rid, m.EventRecord.actor == "gob1"))]
    assert "attack.hit" not in codes and "attack.miss" not in codes   # surprised: no action


def test_approval_mode_holds_the_resolution_until_a_narrator_approves(engine):
    w = make_world(engine, approval=True)
    rid = w.open(at(0))
    reply_id = w.resolve(rid, at(25))
    with session_scope(engine) as s:
        assert s.get(m.Reply, reply_id).state == "held"
        assert reply_id not in service.pending_replies(s)
        service.approve_reply(s, reply_id, narrator_id=None, now=at(26))
        assert reply_id in service.pending_replies(s)


def test_a_post_seen_after_resolution_is_kept_and_shown_in_the_next_reply(engine):
    w = make_world(engine)
    r1 = w.open(at(0))
    w.resolve(r1, at(24))
    # posted during round 1's window, but the poller only saw it now
    w.ingest([post("late", "alice", at(23), "I attack Goblin Snag [roll]1d20+5[/roll]")], now=at(24, 30))
    d = w.declarations(r1)["aria"][0]
    assert {"code": "after-resolution"} in d.notes and d.actions
    with session_scope(engine) as s:
        assert s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "tag")) is None  # seed is public
        r2 = service.current_round(s, w.encounter_id).id
    w.resolve(r2, at(49))
    body = w.reply(f"{r2}:resolution").body
    assert "Aria — round 1: seen after the round was resolved; not counted" in body


def test_an_edit_after_the_deadline_is_recorded_but_does_not_count(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "#defend")], now=at(1))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag", change="edited",
                   edited_at=at(24, 10))], now=at(24, 10))
    d = w.declarations(rid)["aria"][0]
    assert d.actions[0]["kind"] == "defend" and {"code": "edited-after-deadline"} in d.notes
    with session_scope(engine) as s:
        assert [r.change for r in s.scalars(select(m.PostRevision).order_by(m.PostRevision.id))] \
            == ["new", "edited"]


def test_preview_keeps_nothing_and_matches_the_resolution(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]")], now=at(1))
    counts = [w.count(t) for t in (m.RollRecord, m.EventRecord, m.Reply, m.Round)]
    with session_scope(engine) as s:
        preview = service.preview_reply(s, rid, now=at(25))
    assert [w.count(t) for t in (m.RollRecord, m.EventRecord, m.Reply, m.Round)] == counts
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).state == "open"
    w.resolve(rid, at(25))
    final = w.reply(f"{rid}:resolution").body

    def same(text: str) -> list[str]:   # the next round's seed is drawn when it really opens
        return [ln for ln in text.splitlines() if "Dice commitment" not in ln and "[size" not in ln]

    assert same(preview) == same(final)


def test_reresolve_after_an_override_keeps_every_roll(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]")], now=at(1))
    w.resolve(rid, at(25))
    n = w.count(m.RollRecord)
    with session_scope(engine) as s:
        service.waive_penalty(s, rid, "bram", reason="storm knocked the power out")
        service.reresolve_round(s, rid, at(26))
    assert w.count(m.RollRecord) >= n
    with session_scope(engine) as s:
        assert service.verify_round(s, rid).ok
    body = w.reply(f"{rid}:resolution").body
    assert "Bram's late post is excused by the narrator." in body
    # issue 11 item 7: the narrator's reason is private unless marked public
    assert "Bram: latency penalty waived\n" in body or "Bram: latency penalty waived[/i]" in body
    assert "storm knocked the power out" not in body


def test_a_reason_marked_public_is_quoted_in_the_reply(engine):
    """Issue 11 item 7: the narrator may make a reason public; only then is it quoted."""
    w = make_world(engine)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        service.waive_penalty(s, rid, "bram", reason="storm knocked the power out", public=True)
    w.resolve(rid, at(25))
    assert "Bram: latency penalty waived: storm knocked the power out" in \
        w.reply(f"{rid}:resolution").body


def test_a_refused_roll_tag_is_reported_and_the_rest_of_the_post_counts(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword "
                   "[roll]1000000d6[/roll] [roll]1d20+Charm[/roll] [roll]1d20+5[/roll]")],
             now=at(1))
    d = w.declarations(rid)["aria"][0]
    assert [e["code"] for e in d.errors] == ["dice.too_many", "roll.refused"] and d.actions
    with session_scope(engine) as s:
        assert [r.tag_index for r in s.scalars(select(m.RollRecord).where(
            m.RollRecord.kind == "tag"))] == [1]
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert "not understood: '1000000d6' at 35 rolls more than 1000 dice" in body
    assert "not understood: 'Charm' in '1d20+Charm' is not a stat on this sheet" in body
    assert "Rolls: 1d20 (" in body or "Aria hits Goblin Snag" in body or "Aria misses" in body


def test_edits_and_deletions_after_resolution_leave_the_resolved_round_as_it_was(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]"),
              post("p2", "bob", at(1), "#defend")], now=at(1))
    w.resolve(rid, at(25))
    before = {k: [d.actions for d in v] for k, v in w.declarations(rid).items()}
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Rot [roll]1d20+9[/roll]",
                   change="edited", edited_at=at(26)),
              post("p2", "bob", at(1), "", change="deleted")], now=at(26))
    after = w.declarations(rid)
    assert {k: [d.actions for d in v] for k, v in after.items()} == before
    assert {"code": "edited-after-deadline"} in after["aria"][0].notes
    assert {"code": "deleted-after-resolution"} in after["bram"][0].notes
    assert not after["bram"][0].deleted
    with session_scope(engine) as s:
        assert service.verify_round(s, rid).ok

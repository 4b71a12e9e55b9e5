"""The four play-by-post rules every ruleset shares (RULES.md PBP-1..4), on SQLite and
PostgreSQL, through the service layer the workers and the panel use."""

from __future__ import annotations

from sqlalchemy import select

from pbp.rounds import service
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post


def test_pbp1_round_is_a_posting_window_resolved_in_initiative_order_with_one_reply(engine):
    w = make_world(engine)
    w.ingest([post("p1", "alice", at(0, 10), ".ri+4")], now=at(0, 11))
    rid = w.open(at(1))
    opening = w.reply(f"{rid}:opening")
    assert opening is not None and "Dice commitment" in opening.body
    w.ingest([post("p2", "alice", at(2), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]"),
              post("p3", "bob", at(3), "I attack Goblin Snag with my sword"),
              post("p4", "carol", at(4), "#defend"),
              post("p5", "GM", at(5), "Goblin Snag: attacks Aria with the dagger\n"
                                       "Goblin Rot: attacks Bram with the dagger")], now=at(5))
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(24)) == []          # the window is still open
        assert service.due_rounds(s, at(25)) == [rid]       # deadline = opening + 24 h
    reply_id = w.resolve(rid, at(25, 1))
    with session_scope(engine) as s:
        rnd = s.get(m.Round, rid)
        assert rnd.state == "resolved" and rnd.seed_revealed
        turns = [e.actor for e in s.scalars(select(m.EventRecord).where(
            m.EventRecord.round_id == rid, m.EventRecord.code == "turn.start")
            .order_by(m.EventRecord.seq))]
        assert turns == [k for k in rnd.order if k in turns]   # initiative order
        assert {"aria", "bram", "cyd", "gob2"} <= set(turns)   # Snag fell before its turn
        replies = list(s.scalars(select(m.Reply).where(m.Reply.round_id == rid,
                                                       m.Reply.kind == "resolution")))
        assert [r.id for r in replies] == [reply_id]        # one reply
        nxt = service.current_round(s, rnd.encounter_id)
        assert nxt.number == 2 and nxt.state == "open" and nxt.commitment in replies[0].body
        # .ri bound to its post: Aria's initiative roll is the tag of post p1
        ri = s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "initiative",
                                                 m.RollRecord.actor == "aria"))
        assert ri.post_id is not None and ri.expression == "1d20+4"


def test_pbp2_late_or_missing_post_gets_the_penalty_is_kept_and_can_be_waived(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(2), "I attack Goblin Snag with my sword"),
              post("p2", "bob", at(24, 30), "I attack Goblin Rot with my sword")],  # late
             now=at(24, 31))
    decls = w.declarations(rid)
    assert decls["bram"][0].late and {"code": "late"} in decls["bram"][0].notes
    with session_scope(engine) as s:   # the narrator excuses Cyd, who posted nothing
        service.waive_penalty(s, rid, "cyd", reason="away, told us", narrator_id=None)
    reply = w.reply(f"{w.resolve(rid, at(25)) and rid}:resolution")
    body = reply.body
    assert "late post (PBP-2)" in body                                  # shown, not dropped
    assert "Bram posted late or not at all" in body                     # the penalty (FD-2)
    assert "Cyd's late post is excused by the narrator." in body       # the waiver
    with session_scope(engine) as s:
        codes = {(e.code, e.actor) for e in s.scalars(select(m.EventRecord)
                                                      .where(m.EventRecord.round_id == rid))}
        assert ("latency.penalty", "bram") in codes and ("latency.waived", "cyd") in codes
        assert ("latency.penalty", "aria") not in codes
        assert s.scalar(select(m.Override).where(m.Override.kind == "penalty.waive")).target == "cyd"


def test_pbp3_speech_over_the_limit_is_flagged_with_count_and_limit_and_dropped(engine):
    w = make_world(engine)      # forum-d20: three speeches a post (FD-17)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), 'I attack Goblin Snag with my sword "One!" "Two!" '
                   '"Three!" "Four!" "Five!"')], now=at(1))
    d = w.declarations(rid)["aria"][0]
    assert d.speech_count == 5 and d.speech_limit == 3 and d.speech == ["One!", "Two!", "Three!"]
    assert {"code": "speech-over-limit", "count": 5, "limit": 3, "over": 2,
            "policy": "drop"} in d.notes
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert "5 speeches, over the limit of 3: the extra speech is not part of the round (PBP-3)" in body
    assert "Four!" not in body


def test_pbp3_warn_houserule_keeps_the_speech(engine):
    w = make_world(engine, houserules={"rounds": {"speech_overflow": "warn"}})
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), '"A" "B" "C" "D" I attack Goblin Snag')], now=at(1))
    d = w.declarations(rid)["aria"][0]
    assert d.speech == ["A", "B", "C", "D"]
    w.resolve(rid, at(25))
    assert "4 speeches, over the limit of 3 (kept: narrator's call)" in w.reply(f"{rid}:resolution").body


def test_pbp4_a_tag_is_rolled_once_and_an_edit_never_rerolls(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    n0 = w.count(m.RollRecord)
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]")],
             now=at(1))
    assert w.count(m.RollRecord) == n0 + 1
    with session_scope(engine) as s:
        first = s.scalar(select(m.RollRecord).where(m.RollRecord.tag_index == 0))
        first_total, first_index = first.total, first.roll_index
    # the same post again: nothing; an edit of the tag: recorded, not rerolled
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]")],
             now=at(2))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+15[/roll]",
                   change="edited", edited_at=at(3))], now=at(3))
    assert w.count(m.RollRecord) == n0 + 1
    with session_scope(engine) as s:
        again = s.scalar(select(m.RollRecord).where(m.RollRecord.tag_index == 0))
        assert (again.total, again.roll_index) == (first_total, first_index)
        revs = list(s.scalars(select(m.PostRevision).order_by(m.PostRevision.number)))
        assert [(r.number, r.change, r.after_roll) for r in revs] == [(1, "new", False),
                                                                       (2, "edited", True)]
    d = w.declarations(rid)["aria"][0]
    assert d.edited_after_roll and {"code": "edited-after-roll"} in d.notes
    assert d.actions[0]["rolled"]["total"] == first_total
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert "edited after roll (PBP-4)" in body


def test_pbp4_a_deleted_post_after_its_roll_still_stands(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]"),
              post("p2", "bob", at(1), "I attack Goblin Rot with my sword")], now=at(1))
    w.ingest([post("p1", "alice", at(1), "", change="deleted"),
              post("p2", "bob", at(1), "", change="deleted")], now=at(2))
    decls = w.declarations(rid)
    assert {"code": "deleted-after-roll"} in decls["aria"][0].notes
    assert {"code": "deleted"} in decls["bram"][0].notes
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert "post deleted after roll; the rolls stand (PBP-4)" in body
    assert "Aria hits Goblin Snag" in body or "Aria misses Goblin Snag" in body
    assert "post deleted; declaration withdrawn" in body


def test_pbp2_a_late_second_post_is_shown_and_the_post_made_in_time_stands(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "#defend"),
              post("p2", "alice", at(24, 20), "I attack Goblin Snag [roll]1d20+5[/roll]")],
             now=at(24, 21))
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert "Also posted: late post, not counted: the post made in time stands (PBP-2) — 1d20 (" in body
    assert "Aria takes total defense" in body
    with session_scope(engine) as s:
        codes = {(e.code, e.actor) for e in s.scalars(select(m.EventRecord))}
    assert ("latency.penalty", "aria") not in codes

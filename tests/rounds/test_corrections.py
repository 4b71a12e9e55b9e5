"""Corrections after sending (issue 11 item 6): an override on a round whose result is out
is applied by a correction that keeps every roll and says what changed; nothing is
recorded and silently not applied."""

from __future__ import annotations

import itertools

import pytest
from sqlalchemy import select

from pbp.panel import overrides as panel_overrides
from pbp.rounds import lifecycle, overrides, service
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post

# +40: the attack hits whatever the defense roll (FD-4's d20 + skill stays far below 41)
ATTACK = "I attack Goblin Snag with my sword [roll]1d20+40[/roll]"


def _sent_round(engine):  # type: ignore[no-untyped-def]
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK)], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        for r in s.scalars(select(m.Reply).where(m.Reply.round_id == rid)):
            r.state = "sent"        # what delivery does once it is posted
    return w, rid


def _goblin(s):  # type: ignore[no-untyped-def]
    return s.scalar(select(m.Combatant).where(m.Combatant.key == "gob1"))


def test_a_correction_keeps_every_roll_and_says_what_changed(engine):
    w, rid = _sent_round(engine)
    with session_scope(engine) as s:
        hurt = _goblin(s).hp
        assert hurt < 9                                  # the first result: a hit
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == rid, m.RollRecord.kind == "tag"))
        rolls = {r.roll_index: r.total for r in s.scalars(select(m.RollRecord).where(m.RollRecord.round_id == rid))}
        panel_overrides.set_roll(s, tag.id, -20, "the tag was a typo", None)   # now a miss
        assert [o.kind for o in overrides.pending_overrides(s, s.get(m.Round, rid))] == ["roll"]
        reply_id = service.correct_round(s, rid, "typo fix", None, at(30))
    with session_scope(engine) as s:
        assert _goblin(s).hp == 9                        # the miss undid the damage
        after = {r.roll_index: r.total for r in s.scalars(select(m.RollRecord).where(m.RollRecord.round_id == rid))}
        assert {i: after[i] for i in rolls} == rolls     # every roll kept, as rolled
        assert len(after) == len(rolls)                  # and none re-rolled
        assert service.verify_round(s, rid).ok
        correction = s.get(m.Reply, reply_id)
        assert (correction.kind, correction.state) == ("correction", "pending")
        body = correction.body
        entry = s.scalar(select(m.AuditEntry).where(m.AuditEntry.action == "override.round.correct"))
        assert entry.note == "typo fix" and entry.after["value"][0]["code"] == "hp"
        assert not overrides.pending_overrides(s, s.get(m.Round, rid))
    assert "[b]Ambush on the Goblin Road — Round 1: correction[/b]" in body
    assert f"Goblin Snag: HP {hurt} -> 9" in body
    assert f"roll #{tag.roll_index} (Aria) set to -20" in body
    assert "typo" not in body                            # the reason stays private (item 7)
    original = w.reply(f"{rid}:resolution")
    assert original.state == "sent" and "correction" not in original.body   # the record stands


def test_a_public_reason_is_quoted_in_the_correction(engine):
    _w, rid = _sent_round(engine)
    with session_scope(engine) as s:
        panel_overrides.set_hp(s, _goblin(s).id, 2, "the trap went off", None)
    with session_scope(engine) as s:
        # round 2 is open: the HP override belongs to it and is applied there, not a correction
        assert overrides.pending_overrides(s, s.get(m.Round, rid)) == []
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == rid, m.RollRecord.kind == "tag"))
        panel_overrides.set_roll(s, tag.id, 45, "recounted", None)
        reply_id = service.correct_round(s, rid, "the tag was misread", None, at(30), public=True)
        body = s.get(m.Reply, reply_id).body
    assert "Narrator's note: the tag was misread" in body


def test_nothing_is_recorded_and_silently_not_applied(engine):
    w, rid = _sent_round(engine)
    with session_scope(engine) as s:
        with pytest.raises(overrides.OverrideError, match="nothing to correct"):
            service.correct_round(s, rid, "just because", None, at(30))
        with pytest.raises(overrides.OverrideError, match="reason"):
            service.correct_round(s, rid, "  ", None, at(30))
        r2 = service.current_round(s, w.encounter_id).id
    w.resolve(r2, at(50))
    with session_scope(engine) as s:
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == rid, m.RollRecord.kind == "tag"))
        # round 2 built on round 1's result: changing round 1 now is refused, not recorded
        with pytest.raises(overrides.OverrideError, match="past changing"):
            panel_overrides.set_roll(s, tag.id, 1, "too late", None)
        assert s.scalar(select(m.Override).where(m.Override.kind == "roll")) is None


def test_a_result_not_posted_yet_is_re_resolved_not_corrected(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK)], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == rid, m.RollRecord.kind == "tag"))
        panel_overrides.set_roll(s, tag.id, -20, "typo", None)
        with pytest.raises(overrides.OverrideError, match="re-resolve"):
            service.correct_round(s, rid, "typo", None, at(30))
        before = {r.roll_index: r.total for r in s.scalars(select(m.RollRecord).where(m.RollRecord.round_id == rid))}
        service.reresolve_round(s, rid, at(30))
        after = {r.roll_index: r.total for r in s.scalars(select(m.RollRecord).where(m.RollRecord.round_id == rid))}
        assert after == before                          # re-resolving re-rolls nothing
        assert _goblin(s).hp == 9


def test_a_change_made_after_the_result_survives_re_resolving(engine):
    """Issue 11 item 6: HP set on a held result, then a re-resolution from the round's
    snapshot: the narrator's value is kept (and shown), not silently undone."""
    w = make_world(engine, approval=True)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        opening = s.scalar(select(m.Reply).where(m.Reply.idempotency_key == f"{rid}:opening"))
        service.approve_reply(s, opening.id, None, at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK)], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        panel_overrides.set_hp(s, _goblin(s).id, 7, "the cleric healed him", None)
        assert [o.kind for o in overrides.pending_overrides(s, s.get(m.Round, rid))] == ["hp"]
        service.reresolve_round(s, rid, at(26))
    with session_scope(engine) as s:
        assert _goblin(s).hp == 7
        assert not overrides.pending_overrides(s, s.get(m.Round, rid))
        held = s.scalar(select(m.Reply.id).where(m.Reply.idempotency_key == f"{rid}:resolution"))
        service.approve_reply(s, held, None, at(27))                  # nothing pending now
        body = s.get(m.Reply, held).body
    assert "[b]Goblin Snag[/b] — initiative" in body and "HP 7/9" in body


def test_re_resolving_keeps_what_the_next_round_changed_since(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK)], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        hurt = _goblin(s).hp
        panel_overrides.set_hp(s, _goblin(s).id, hurt - 1, "bled", None)   # round 2 is open: its override
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == rid, m.RollRecord.kind == "tag"))
        panel_overrides.set_roll(s, tag.id, -20, "typo", None)             # round 1 now misses
        service.reresolve_round(s, rid, at(26))
    with session_scope(engine) as s:
        assert _goblin(s).hp == 9 - 1      # undamaged by round 1, still bleeding from round 2


def test_a_roll_the_correction_no_longer_uses_is_not_handed_to_the_next_actor(engine, monkeypatch):
    """issue 11 item 6, walked in tests/journey: Aria's and Bram's hits on one goblin each
    rolled damage ("1d8", "damage gob1"); the narrator turns the first one's hit into a
    miss. The second one's damage is their own roll, as rolled, not the first one's unused
    one (rolls kept are matched by whose turn asked for them)."""
    import dataclasses

    from .world import heroes_and_goblins

    team = [dataclasses.replace(c, hp=60, max_hp=60) if c.key == "gob1" else c for c in heroes_and_goblins()]
    # +40 beats any defense but a natural 1 (FD-8) misses whatever: these fixed secrets
    # give a dice chain (DICE-1) whose round 1 rolls no natural 1 for either (asserted below)
    counter = itertools.count(1)
    monkeypatch.setattr(lifecycle, "seed_source", lambda: f"both-hit-{next(counter)}")
    w = make_world(engine, combatants=team)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK), post("p2", "bob", at(2), ATTACK)], now=at(2))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        for r in s.scalars(select(m.Reply).where(m.Reply.round_id == rid)):
            r.state = "sent"
        damage = {r.actor: r for r in s.scalars(select(m.RollRecord).where(
            m.RollRecord.round_id == rid, m.RollRecord.kind == "engine", m.RollRecord.label == "damage gob1"))}
        assert set(damage) == {"aria", "bram"}           # both hit: +40 beats any defense
        first, second = sorted(damage, key=lambda k: damage[k].roll_index)   # in initiative order
        dealt = {e.actor: e.params["amount"] for e in s.scalars(select(m.EventRecord).where(
            m.EventRecord.round_id == rid, m.EventRecord.code == "damage"))}
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == rid, m.RollRecord.kind == "tag",
                                                  m.RollRecord.actor == first))
        panel_overrides.set_roll(s, tag.id, -20, "the tag was a typo", None)
        service.correct_round(s, rid, "typo fix", None, at(30))
    with session_scope(engine) as s:
        hits = [e for e in s.scalars(select(m.EventRecord).where(m.EventRecord.round_id == rid,
                                                                 m.EventRecord.code == "damage"))]
        assert [(e.actor, e.roll_indexes) for e in hits] == [(second, [damage[second].roll_index])]
        assert hits[0].params["amount"] == dealt[second]    # as first resolved, to the point
        assert _goblin(s).hp == 60 - hits[0].params["amount"]
        assert service.verify_round(s, rid).ok

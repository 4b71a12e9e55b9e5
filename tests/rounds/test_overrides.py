"""Narrator overrides have one home (pbp.rounds.overrides): one waiver writing one audit
shape, one total per roll override, one description table; and a fixed initiative is
kept when the round service opens round 1."""

from __future__ import annotations

import dataclasses

from sqlalchemy import select

from pbp.dice import Roll
from pbp.panel import overrides as panel_overrides
from pbp.rounds import overrides, service
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, heroes_and_goblins, make_world, post


def test_the_late_post_waiver_writes_one_audit_shape_from_the_service_and_the_panel(engine):
    """PBP-2: the service's waive_penalty and the panel's set_penalty are one function;
    each writes one Override and one AuditEntry shaped alike."""
    w = make_world(engine)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        alice = m.Narrator(username="alice-gm", password_hash="x")
        s.add(alice)
        s.flush()
        service.waive_penalty(s, rid, "cyd", reason="away, told us", narrator_id=alice.id)
        panel_overrides.set_penalty(s, rid, "bram", True, "storm", None)
        service.waive_penalty(s, rid, "cyd", reason="back after all", waive=False)
        rows = list(s.scalars(select(m.AuditEntry).where(m.AuditEntry.action.like("override.%"))
                              .order_by(m.AuditEntry.id)))
        shapes = [(a.action, a.entity, a.entity_id, a.actor, a.narrator_id, a.before, a.after,
                   a.note) for a in rows]
        assert shapes == [
            ("override.penalty.waive", "round", str(rid), "alice-gm", alice.id,
             {"value": []}, {"value": ["cyd"]}, "away, told us"),
            ("override.penalty.waive", "round", str(rid), "system", None,
             {"value": ["cyd"]}, {"value": ["bram", "cyd"]}, "storm"),
            ("override.penalty.apply", "round", str(rid), "system", None,
             {"value": ["bram", "cyd"]}, {"value": ["bram"]}, "back after all"),
        ]
        ovs = list(s.scalars(select(m.Override).order_by(m.Override.id)))
        assert [(o.kind, o.target, o.payload) for o in ovs] == [
            ("penalty.waive", "cyd", {"before": [], "after": ["cyd"]}),
            ("penalty.waive", "bram", {"before": ["cyd"], "after": ["bram", "cyd"]}),
            ("penalty.apply", "cyd", {"before": ["bram", "cyd"], "after": ["bram"]}),
        ]
        assert s.get(m.Round, rid).waived == ["bram"]


def test_a_roll_override_totals_once_the_latest_wins_and_the_roll_stays_as_rolled(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]")], now=at(1))
    with session_scope(engine) as s:
        roll = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == rid,
                                                   m.RollRecord.kind == "tag"))
        rolled = roll.total
        first = overrides.set_roll(s, roll.id, rolled + 3, "misread", None)
        second = overrides.set_roll(s, roll.id, 2, "the real one", None)
        assert first.payload["before"] == rolled and second.payload["before"] == rolled + 3
        assert overrides.roll_totals(s, rid) == {roll.roll_index: 2}
        assert s.get(m.RollRecord, roll.id).total == rolled      # PBP-4: rolls are immutable
    r = Roll(expression="1d20+5", faces=(9,), total=14, index=3, breakdown="1d20 (9) + 5 = 14")
    seen = overrides.override_roll(r, 20)
    assert (seen.total, seen.breakdown) == (20, "1d20 (9) + 5 = 14 -> 20 (narrator)")
    assert dataclasses.replace(seen, total=14, breakdown=r.breakdown) == r


def test_the_reply_and_the_panel_mark_an_override_with_the_same_line(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        goblin = s.scalar(select(m.Combatant).where(m.Combatant.key == "gob1"))
        panel_overrides.set_hp(s, goblin.id, 1, "a shaman's curse", None)
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        marks = overrides.reply_marks(s, rid)
    # issue 11 item 7: the reason stays private (not marked public)
    assert marks[0] == "Goblin Snag: HP 9 -> 1"
    assert marks[0] in w.reply(f"{rid}:resolution").body
    assert "shaman" not in w.reply(f"{rid}:resolution").body


def test_a_public_reason_is_part_of_the_mark(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        goblin = s.scalar(select(m.Combatant).where(m.Combatant.key == "gob1"))
        overrides.make_public(panel_overrides.set_hp(s, goblin.id, 1, "a shaman's curse", None))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        assert overrides.reply_marks(s, rid)[0] == "Goblin Snag: HP 9 -> 1: a shaman's curse"


def test_a_fixed_initiative_is_kept_when_round_one_opens(engine):
    """Issue 10, item 9: a combatant given ``initiative: 17`` is placed at 17 without a roll
    (what the engine's own initiative step does with a combatant already holding a value:
    FD-1 / DND-3 roll only for those without one); the others roll as before."""
    roster = [dataclasses.replace(c, initiative=17.0) if c.key == "bram" else c
              for c in heroes_and_goblins()]
    w = make_world(engine, combatants=roster)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        bram = s.scalar(select(m.Combatant).where(m.Combatant.key == "bram"))
        assert bram.initiative == 17.0
        rolled = {r.actor for r in s.scalars(select(m.RollRecord).where(
            m.RollRecord.round_id == rid, m.RollRecord.kind == "initiative"))}
        events = [e.actor for e in s.scalars(select(m.EventRecord).where(
            m.EventRecord.round_id == rid, m.EventRecord.code == "initiative.rolled"))]
        others = {c.key for c in s.scalars(select(m.Combatant)) if c.key != "bram"}
    assert "bram" not in rolled and "bram" not in events
    assert set(events) == others
    assert "Bram (17)" in w.reply(f"{rid}:opening").body

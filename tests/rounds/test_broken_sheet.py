"""Issue 12 item 2 through the rounds layer: a sheet value saved before the checks (a weapon
of ``1000000d1000000``) no longer stalls the round. It resolves, the broken actor's action is
refused with a sentence in the reply, everyone else's counts, and the dashboard's query names
the problem."""

from __future__ import annotations

import dataclasses

from sqlalchemy import select

from pbp.rules.model import Weapon
from pbp.store import models as m
from pbp.store.db import session_scope
from pbp.store.queries import unresolvable_actions

from .world import at, heroes_and_goblins, make_world, post


def test_a_round_with_one_broken_actor_resolves_the_others(engine):
    """issue 12 item 2: the round is resolved (not left open past its deadline)."""
    fighters = heroes_and_goblins()
    fighters[0] = dataclasses.replace(fighters[0], weapons=(Weapon("sword", "1000000d1000000"),),
                                      stats={**fighters[0].stats, "luta": 60})
    w = make_world(engine, combatants=fighters)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword"),
              post("p2", "bob", at(1), "I attack Goblin Rot with my sword"),
              post("p3", "carol", at(1), "#defend")], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).state == "resolved"
        codes = {(e.code, e.actor, (e.params or {}).get("problem")) for e in s.scalars(
            select(m.EventRecord).where(m.EventRecord.round_id == rid))}
        problems = unresolvable_actions(s, w.encounter_id)
    assert ("action.rejected", "aria", "action.unresolvable") in codes
    # a natural 20 or 1 (FD-8) is resolved too: whatever the dice, Bram's attack happened
    assert any(code in ("attack.hit", "attack.miss", "attack.auto-hit", "attack.auto-miss")
               and actor == "bram" for code, actor, _ in codes)
    assert [(n, actor) for n, actor, _ in problems] == [(1, "aria")]
    assert "1000000d1000000" in problems[0][2]
    body = w.reply(f"{rid}:resolution").body
    assert "Aria: this action cannot be carried out:" in body and "the narrator must fix the sheet" in body

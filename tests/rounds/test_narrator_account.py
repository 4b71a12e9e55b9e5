"""The campaign's narrator account (the narrator's user name on the thread's platform, set
on the campaign's page, STALL-3's private messages go to it) names the narrator in the
thread too: a post under it declares for the combatants no player runs. A campaign set up
in the panel had no other way to name its narrator, so the narrator's post declaring for
the NPCs was read as nobody's (found walking a live forum, SCALE-6's ninth pass)."""

from __future__ import annotations

from sqlalchemy import update

from pbp.rounds.declare import narrator_names
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post

NPC_POST = "Goblin Snag: ataco Aria com adaga [roll]1d20+2[/roll]\nGoblin Rot: ataco o Bram"


def _account(engine, world, name: str) -> None:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        s.execute(update(m.Campaign).where(m.Campaign.id == world.campaign_id)
                  .values(narrator_account=name))


def test_pbp1_stall3_a_post_under_the_narrator_account_declares_for_the_npcs(engine):
    w = make_world(engine, language="en")   # the thread names "GM" only
    _account(engine, w, "Mestre Ana")
    rid = w.open(at(0))
    w.ingest([post("n1", "mestre ana", at(1), NPC_POST)], now=at(1))   # case as the forum shows it
    decls = w.declarations(rid)
    snag, rot = decls["gob1"][-1], decls["gob2"][-1]
    assert (snag.source, rot.source) == ("narrator", "narrator")
    assert [(a["kind"], a["target"]) for a in snag.actions] == [("attack", "aria")]
    assert [(a["kind"], a["target"]) for a in rot.actions] == [("attack", "bram")]
    assert snag.actions[0]["rolled"]
    with session_scope(engine) as s:   # and the round's other reads agree (lifecycle, early close)
        thread = s.get(m.Thread, w.thread_id)
        assert "mestre ana" in narrator_names(s, thread.campaign, thread)


def test_without_the_account_the_same_post_is_nobodys(engine):
    w = make_world(engine, language="en")
    rid = w.open(at(0))
    w.ingest([post("n1", "Mestre Ana", at(1), NPC_POST)], now=at(1))
    decls = w.declarations(rid)
    assert "gob1" not in decls and "gob2" not in decls

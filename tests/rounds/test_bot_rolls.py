"""STALL-6 (issue 15): the reactive rolls the rules ask of a player who has not posted them
are rolled by pbp from the sheet, through the round's dice box, and marked "rolled by pbp"
in the reply, in en, pt and ru.

The oracle is the rules' text. FD-1: "everyone rolls initiative" (the FD-4 defense roll
pbp makes for a player is in tests/rounds/test_rolled_by_pbp.py). The
expected faces are worked out from the round's seed through the dice chain
(``chain_link(commitment(seed), CHAIN_LENGTH, n)`` for round *n*, DICE-1), never copied
from the program's output, and the proof block still verifies.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbp.dice import CHAIN_LENGTH, DiceBox, chain_link, commitment
from pbp.rounds import lifecycle
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world

SEED = "stall6-seed"
MARK = {"en": ", rolled by pbp (STALL-6)", "pt": ", rolado pelo pbp (STALL-6)",
        "ru": ", бросок сделал pbp (STALL-6)"}
INITIATIVE = {"en": "Aria rolls initiative: {v}. (FD-1)",
              "pt": "Aria rola iniciativa: {v}. (FD-1)",
              "ru": "Aria бросает инициативу: {v}. (FD-1)"}


def _link(n: int) -> str:
    return chain_link(commitment(SEED), CHAIN_LENGTH, n)


def _roll(rid: int, label: str, combatant: str):  # type: ignore[no-untyped-def]
    return select(m.RollRecord).where(m.RollRecord.round_id == rid,
                                      m.RollRecord.label == label, m.RollRecord.actor == combatant)


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_stall6_initiative_a_player_did_not_post_is_rolled_by_pbp_and_marked(
        engine, monkeypatch, lang: str) -> None:
    """STALL-6 / FD-1: nobody posted initiative; at the opening pbp rolls Aria's from her
    sheet (1d20 + initiative 4) with round 1's link of the chain; the opening reply marks
    it "rolled by pbp" in the campaign's language, and the goblins' (no player) are not
    marked."""
    monkeypatch.setattr(lifecycle, "seed_source", lambda: SEED)
    w = make_world(engine, language=lang)
    rid = w.open(at(0, 10))
    with session_scope(engine) as s:
        rec = s.scalar(_roll(rid, "initiative", "aria"))
        expected = DiceBox(seed=_link(1)).replay("1d20+4", rec.roll_index).total
        assert rec.total == expected
        body = s.scalar(select(m.Reply.body).where(m.Reply.idempotency_key == f"{rid}:opening"))
    line = next(x for x in body.splitlines() if INITIATIVE[lang].format(v=expected) in x)
    assert MARK[lang] in line
    gob = next(x for x in body.splitlines() if "Goblin Snag" in x and "(FD-1)" in x
               and "Goblin Snag (" not in x)
    assert MARK[lang] not in gob

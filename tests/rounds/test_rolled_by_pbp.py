"""STALL-6 (FD-4, ``defense_roller = "player"``): a player who does not post the defense
roll the rules ask of them gets it rolled by pbp from the sheet, through the round's dice
box, and the reply says "rolled by pbp" in the campaign's language.

Expected value from RULES.md FD-4: a melee attack (the dagger) is defended with d20 +
Fortitude + armor; Bram's sheet has Fortitude 3 and armor 2, and FD-2 gives a player
with no post total defense (+4) until his next turn, so the defense is the d20's face + 9. The face is worked out from the seed through the dice chain (round 2 rolls with
link 2, DICE-1), not read from the reply.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbp.dice import CHAIN_LENGTH, DiceBox, chain_link, commitment
from pbp.rounds import lifecycle, service
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post

SEED = "stall-6-seed"
SAID = {"en": "Bram posted no defense roll: rolled by pbp from the sheet (fortitude): {total}.",
        "pt": "Bram não postou a rolagem de defesa: rolada pelo pbp a partir da ficha (Fortitude): {total}.",
        "ru": "Bram не выложил бросок защиты: брошено pbp по листу персонажа (Стойкость): {total}."}


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_STALL6_a_defense_roll_the_player_did_not_post_is_rolled_by_pbp(engine, monkeypatch, lang):
    monkeypatch.setattr(lifecycle, "seed_source", lambda: SEED)
    w = make_world(engine, language=lang, slug=f"stall6-{lang}",
                   houserules={"defense_roller": "player"})
    r1 = w.open(at(0))
    w.ingest([post("p1", "GM", at(1), "Goblin Rot: attacks Bram with the dagger")], now=at(1))
    r2 = w.resolve(r1, at(24))
    assert r2 is not None
    w.resolve(r2, at(48))          # Bram never posts his defense roll
    with session_scope(engine) as s:
        rec = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == r2,
                                                  m.RollRecord.label == "defense fortitude"))
        assert rec is not None and rec.expression == "1d20"
        rnd = s.get(m.Round, r2)
        face = DiceBox(seed=chain_link(commitment(SEED), CHAIN_LENGTH, rnd.number)).replay(
            "1d20", rec.roll_index).natural
        assert rec.natural == face
        assert service.verify_round(s, r2).ok             # the proof block still verifies
        body = s.scalar(select(m.Reply.body).where(m.Reply.idempotency_key == f"{r2}:resolution"))
    assert SAID[lang].format(total=face + 3 + 2 + 4) in body


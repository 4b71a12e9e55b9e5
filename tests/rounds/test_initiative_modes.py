"""STALL-7 initiative modes through the round service: posts in, reply text out, in
English, Portuguese and Russian (the hand-off words are read from the posts).

The world is tests/rounds/world.py (forum-d20): Aria (alice), Bram (bob), Cyd (carol)
against Goblin Snag and Goblin Rot. Initiative is rolled, so each expectation is one the
mode fixes whatever the dice: block = the players' post order; popcorn with the
narrator's first actor (``initiative.first``) = the named chain.
"""

from __future__ import annotations

from .world import at, make_world, post


def _resolution(w, rid: int) -> str:  # type: ignore[no-untyped-def]
    w.resolve(rid, at(25))
    reply = w.reply(f"{rid}:resolution")
    assert reply is not None
    return reply.body


def test_STALL7_block_mode_players_in_post_order_en(engine):  # type: ignore[no-untyped-def]
    """STALL-7 block (en): Cyd posts first, then Aria, then Bram: the players' block is
    Cyd, Aria, Bram although Aria has the best initiative bonus."""
    w = make_world(engine, houserules={"initiative": {"turns": "block"}})
    rid = w.open(at(0))
    w.ingest([post("p1", "carol", at(1), "#defend"),
              post("p2", "alice", at(2), "I attack Goblin Rot with my sword"),
              post("p3", "bob", at(3), "#defend")], now=at(3))
    body = _resolution(w, rid)
    assert "Block initiative: the players act in the order they posted. Order used: " in body
    assert "Cyd, Aria, Bram" in body


def test_STALL7_popcorn_hand_off_read_in_portuguese(engine):  # type: ignore[no-untyped-def]
    """STALL-7 popcorn (pt): the narrator has Aria start; her post says "próximo: Cyd", so
    Cyd acts second; the reply says so in Portuguese."""
    w = make_world(engine, language="pt",
                   houserules={"initiative": {"turns": "popcorn", "first": "aria"}})
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "Ataco o Goblin Snag com a espada. próximo: Cyd"),
              post("p2", "bob", at(2), "#defend"), post("p3", "carol", at(3), "#defend")],
             now=at(3))
    body = _resolution(w, rid)
    assert "Aria passa a vez para Cyd." in body
    assert "Iniciativa pipoca: quem age escolhe quem age a seguir. Ordem usada: Aria, Cyd" in body


def test_STALL7_popcorn_unknown_name_in_russian_falls_back(engine):  # type: ignore[no-untyped-def]
    """STALL-7 popcorn (ru): Aria names «Зорро», nobody in the fight: the reply says so in
    Russian and the turn goes to the next in initiative order who has not acted."""
    w = make_world(engine, language="ru",
                   houserules={"initiative": {"turns": "popcorn", "first": "aria"}})
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "Атакую Goblin Rot мечом.\nследующий: Зорро"),
              post("p2", "bob", at(2), "#defend"), post("p3", "carol", at(3), "#defend")],
             now=at(3))
    body = _resolution(w, rid)
    assert "Aria назвал следующим «Зорро», но такого участника нет в этом бою" in body
    assert "Инициатива «попкорн»" in body


def test_STALL7_late_post_moves_to_the_end_under_fd16(engine):  # type: ignore[no-untyped-def]
    """STALL-7 + FD-16 (en, side mode): Aria posts after the deadline; Forum d20 allows
    delaying, so she is moved to the end of the order and the reply says so."""
    w = make_world(engine, houserules={"initiative": {"turns": "side"}})
    rid = w.open(at(0))
    w.ingest([post("p2", "bob", at(2), "#defend"), post("p3", "carol", at(3), "#defend"),
              post("p1", "alice", at(24, 30), "I attack Goblin Rot with my sword")],
             now=at(24, 30))
    body = _resolution(w, rid)
    assert "Aria posted late and is moved to the end of the order" in body
    line = next(x for x in body.splitlines() if x.startswith("Initiative by sides: each side "
                                                           "acts as a block. Order used: "))
    assert line.split("Order used: ")[1].split(".")[0].split(", ")[-1] == "Aria"

"""Issue 12 item 2 in the engine: one actor whose action cannot be resolved (a weapon whose
damage the dice refuse, saved before the checks existed) is refused and undone; everyone
else's turn resolves, and the round ends."""

from __future__ import annotations

from pbp.dice import DiceBox
from pbp.rules import engine
from pbp.rules.model import Encounter, Weapon

from .helpers import A, act, decl, fighter


def _fight() -> Encounter:
    bomb = fighter("a", init=20, stats={"luta": 100}, weapons=(Weapon("bomb", "1000000d1000000"),))
    sword = fighter("c", init=10, stats={"luta": 100}, weapons=(Weapon("sword", "1d8"),))
    return Encounter("forum-d20", (bomb, fighter("b", init=1, hp=30, side="enemies"), sword), round=1)


def test_a_round_with_one_broken_actor_resolves_the_others() -> None:
    """issue 12 item 2: the DiceError of a's damage refuses a's attack (undone, HP kept);
    c, later in the order, still attacks and the round ends."""
    res = engine.resolve(_fight(), [decl("a", act(A.ATTACK, "b", weapon="bomb")),
                                    decl("c", act(A.ATTACK, "b", weapon="sword"))], DiceBox("t"))
    codes = [(e.code, e.actor) for e in res.events]
    refused = [e for e in res.events if e.params.get("problem") == "action.unresolvable"]
    assert [(e.code, e.actor, e.params["action_index"]) for e in refused] == [("action.rejected", "a", 0)]
    assert "1000000d1000000" in refused[0].params["error"] and "narrator" in refused[0].message
    assert ("attack.hit", "a") not in codes                     # a's half-done attack is undone
    damage = [e for e in res.events if e.code == "damage"]
    assert [e.actor for e in damage] == ["c"]
    assert 1 <= damage[0].params["amount"] <= 8 + 100           # the sword, not the bomb
    hp = {c.key: c.hp for c in res.encounter.combatants}
    assert hp["b"] == 30 - damage[0].params["amount"]
    assert codes[-1] == ("round.end", None) and res.encounter.round == 2


def test_the_same_seed_gives_the_same_refused_round() -> None:
    """issue 12 item 2: the refusal is part of a pure resolution (pbp verify recomputes it)."""
    decls = [decl("a", act(A.ATTACK, "b", weapon="bomb")), decl("c", act(A.ATTACK, "b", weapon="sword"))]
    one = engine.resolve(_fight(), decls, DiceBox("seed"))
    two = engine.resolve(_fight(), decls, DiceBox("seed"))
    assert one.events == two.events

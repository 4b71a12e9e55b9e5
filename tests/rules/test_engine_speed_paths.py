"""SCALE-6: the engine's shortcuts build exactly what the slow paths built.

``quick_init`` and ``evolve`` (pbp/rules/frozen.py) against the dataclass machinery, the
per-instance settings lookup against the dotted walk, and the round's results against
the same round resolved twice (the events, rolls and state are a function of the seed)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from pbp.dice import DiceBox, Roll
from pbp.frozen import evolve, quick_init
from pbp.rules import registry
from pbp.rules.context import Defense, Modifier
from pbp.rules.declared import Event
from pbp.rules.engine import resolve
from pbp.rules.model import Action, ActionKind, Combatant, Condition, Declaration, Encounter, Weapon


def test_scale6_quick_init_builds_what_the_dataclass_init_builds() -> None:
    roll = Roll("1d20", 7, "1d20 (7) = 7", (7,), 3, 7)
    by_keywords = Event(code="attack.hit", message="m", actor="a", target="b", rule="FD-3",
                        params={"total": 9}, rolls=(roll,))
    by_position = Event("attack.hit", "m", "a", "b", "FD-3", {"total": 9}, (roll,))
    assert by_keywords == by_position
    assert Event("x", "y").params == {} and Event("x", "y").params is not Event("x", "y").params
    assert repr(Modifier(2, "armor")) == "Modifier(value=2, reason='armor', rule=None)"
    assert Defense(12, "physical").mods == () and Defense(12, "physical").pending is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        Event("x", "y").code = "z"  # type: ignore[misc]
    with pytest.raises(TypeError):
        Event("x")  # type: ignore[call-arg]  # the message has no default
    assert dataclasses.replace(by_position, rule=None).rule is None
    assert hash(Modifier(1, "a")) == hash(Modifier(1, "a"))


def test_scale6_quick_init_refuses_what_it_cannot_reproduce() -> None:
    @dataclass(frozen=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("negative")

    @dataclass(frozen=True)
    class Later:
        a: int
        b: list[int] = field(default_factory=list, init=False)

    for cls in (Checked, Later):
        with pytest.raises(TypeError, match="quick_init cannot build"):
            quick_init(cls)


def test_scale6_evolve_equals_dataclasses_replace() -> None:
    c = Combatant("k", "Kara", stats={"dex": 2}, hp=9, conditions=(Condition("prone"),))
    for changes in ({"hp": 3}, {"hp": 0, "down": True}, {"initiative": 14.0},
                    {"conditions": ()}):
        assert evolve(c, **changes) == dataclasses.replace(c, **changes)
    assert evolve(c, hp=1).hp == 1 and c.hp == 9  # the original is left alone
    with pytest.raises(TypeError):
        evolve(c, nonsense=1)  # an unknown field fails as replace fails
    action = Action(ActionKind.ATTACK, target="x")  # validated in __post_init__: replace's path
    assert evolve(action, target="y") == dataclasses.replace(action, target="y")


def test_scale6_a_setting_is_remembered_but_never_its_default() -> None:
    rs = registry.get("forum-d20", {"latency": {"penalty": 3}})
    assert rs.setting("latency.penalty") == 3
    assert rs.setting("latency.penalty", 99) == 3
    assert rs.setting("no.such.path", 1) == 1
    assert rs.setting("no.such.path", 2) == 2  # the missing path is remembered, not the default
    assert rs.setting("latency.penalty.deeper", "d") == "d"
    assert registry.get("forum-d20").setting("latency.penalty") == 2  # per instance


def _round(ruleset: str) -> tuple[Encounter, list[Declaration]]:
    people = [Combatant(key=f"c{i}", name=f"C{i}", side="ab"[i % 2], player=f"p{i}",
                        stats={"luta": 3, "str": 2, "dex": 1, "armor": 1, "fortitude": 2,
                               "reflexos": 1, "level": 2},
                        hp=12, max_hp=12, weapons=(Weapon("sword", "1d8", threat=19),))
              for i in range(8)]
    decls = [Declaration(actor=f"c{i}", actions=(Action(ActionKind.ATTACK,
                                                        target=f"c{(i + 1) % 8}"),))
             for i in range(8)]
    return Encounter(ruleset=ruleset, combatants=tuple(people)), decls


@pytest.mark.parametrize("ruleset", ["forum-d20", "beyonders"])
def test_scale6_a_round_is_a_function_of_its_seed(ruleset: str) -> None:
    """The caches (compiled dice, settings, rider index, sorted queue) carry nothing from one
    round to the next: resolving the same round twice, with other rounds in between, gives
    the same events and state, and the dice box replays every roll."""
    enc, decls = _round(ruleset)
    first = resolve(enc, decls, DiceBox("same"))
    resolve(enc, decls, DiceBox("other"))
    box = DiceBox("same")
    again = resolve(enc, decls, box)
    assert [e.to_dict() for e in again.events] == [e.to_dict() for e in first.events]
    assert again.encounter == first.encounter
    assert any(e.code == "damage" for e in first.events)  # the round did something
    for roll in box.rolls:
        assert box.replay(roll.expression, roll.index).total == roll.total


def test_scale6_fd6_expiry_still_runs_once_a_condition_appears_mid_round() -> None:
    """FD-6 / SCALE-6: expiry skips the walk only while nobody has a condition; one added
    during the round (through put) is expired when its count comes."""
    from pbp.rules.context import RoundContext

    enc = Encounter(ruleset="forum-d20", combatants=(Combatant("a", "A"), Combatant("b", "B")))
    ctx = RoundContext(enc, registry.get("forum-d20"), DiceBox("s"), 2, False)
    assert ctx.conditioned is False
    ctx.expire_conditions(10.0, "FD-6")  # nothing to do, nothing said
    assert ctx.events == []
    # began at count 12 one round ago: ends just before count 12 of this round (FD-6)
    ctx.add_condition("b", Condition("prone", rounds=1, started_round=1, started_count=12.0),
                      rule="FD-18")
    assert ctx.conditioned is True
    ctx.expire_conditions(15.0, "FD-6")
    assert ctx.get("b").has("prone")
    ctx.expire_conditions(12.0, "FD-6")
    assert not ctx.get("b").has("prone")
    assert [e.code for e in ctx.events] == ["condition.added", "condition.ended"]
    assert ctx.events[-1].params["reason"] == "expired"

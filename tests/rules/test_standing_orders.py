"""STALL-2, the pure part: when a conditional order's condition happened among a round's
events, whom "it" is, and which defaults would spend a limited resource."""

from __future__ import annotations

import pytest

from pbp.rules.model import Action, ActionKind, Event
from pbp.rules.standing import (
    StandingCondition,
    aimed,
    condition_event,
    condition_met,
    default_problem,
    limited_resource,
)

SIDES = {"lyra": "players", "bram": "players", "orc": "orcs", "gob": "orcs"}


def ev(code: str, actor: str | None = None, target: str | None = None, **params) -> Event:
    return Event(code, "", actor=actor, target=target, params=params)


@pytest.mark.parametrize(("cond", "events", "met"), [
    (StandingCondition("attacks", "orc"), [ev("attack.miss", "orc", "bram")], True),
    (StandingCondition("attacks", "orc", me=True), [ev("attack.miss", "orc", "bram")], False),
    (StandingCondition("attacks", "orc", me=True), [ev("attack.hit", "orc", "lyra")], True),
    (StandingCondition("attacks", None, me=True), [ev("attack.hit", "gob", "lyra")], True),
    (StandingCondition("attacks", None), [ev("attack.hit", "bram", "orc")], False),   # an ally
    (StandingCondition("attacks", "orc"), [ev("move", "orc")], False),
    (StandingCondition("falls", "bram"), [ev("combatant.down", target="bram")], True),
    (StandingCondition("falls", None), [ev("combatant.down", target="orc")], False),  # an enemy
    (StandingCondition("falls", None), [ev("combatant.down", target="bram")], True),
    (StandingCondition("hit", me=True), [ev("attack.miss", "orc", "lyra")], False),
    (StandingCondition("hit", me=True), [ev("damage", "orc", "lyra", amount=0)], False),
    (StandingCondition("hit", me=True), [ev("damage", "orc", "lyra", amount=3)], True),
])
def test_stall2_condition_is_judged_on_the_rounds_events(cond, events, met) -> None:
    assert condition_met(cond, events, "lyra", SIDES) is met


def test_stall2_it_is_whom_the_condition_names() -> None:
    shot = Action(ActionKind.ATTACK, text="I shoot it")
    hit = ev("attack.hit", "gob", "lyra")
    assert aimed([shot], StandingCondition("attacks", "orc"), hit)[0].target == "orc"
    assert aimed([shot], StandingCondition("hit", me=True), hit)[0].target == "gob"
    assert aimed([shot], StandingCondition("falls", "bram"), ev("combatant.down", target="bram")
                 )[0].target is None
    named = Action(ActionKind.ATTACK, target="gob")
    assert aimed([named], StandingCondition("attacks", "orc"), hit)[0].target == "gob"
    assert condition_event(StandingCondition("hit", me=True), [hit], "lyra", SIDES) is hit


@pytest.mark.parametrize(("action", "spent"), [
    (Action(ActionKind.DEFEND), None),
    (Action(ActionKind.ATTACK, target="orc"), None),
    (Action(ActionKind.MOVE, options={"distance": 6}), None),
    (Action(ActionKind.CAST, options={"spell": "fireball"}), "spell"),                 # spells
    (Action(ActionKind.OTHER, options={"prepare": "sleep"}), "spell"),                 # TA-1
    (Action(ActionKind.ATTACK, options={"power": "flame lance"}), "power"),            # FD-5
    (Action(ActionKind.MANEUVER, options={"power": 2}), "power"),                      # RES-8
    (Action(ActionKind.QUICK, options={"item": "potion"}), "item"),                    # TA-2
    (Action(ActionKind.MOVE, options={"move": "item"}), "item"),                       # FD-15
    (Action(ActionKind.BONUS, options={"granted_by": "cunning action"}), "extra action"),  # DND-5
    (Action(ActionKind.REACTION), "extra action"),                                     # DND-7
])
def test_stall2_what_a_default_may_not_spend(action: Action, spent: str | None) -> None:
    assert limited_resource(action) == spent


def test_stall2_two_attacks_ask_for_an_extra_action() -> None:
    strike = Action(ActionKind.ATTACK, target="orc")
    assert default_problem([strike]) is None
    assert default_problem([strike, strike]) == "extra action"
    assert default_problem([Action(ActionKind.FREE), Action(ActionKind.FREE)]) is None

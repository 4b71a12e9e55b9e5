"""Typed actions, issue 10 item 5: per-kind frozen option types, an unknown option is an
error naming it and the kind, and an action round-trips without loss through its stored
form (``Action.to_dict`` / ``from_dict``, ``pbp.rounds.codec``) and through the explicit
notation (``pbp.parse.explicit.render`` / ``read``)."""

from __future__ import annotations

import dataclasses
import doctest
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp.errors import UnreadableInput
from pbp.parse import explicit as explicit_notation
from pbp.parse import parse_post
from pbp.parse.explicit import read, render
from pbp.rounds import codec
from pbp.rules import options as options_module
from pbp.rules.model import Action, ActionKind, Combatant, Weapon
from pbp.rules.options import (
    OPTION_TYPES,
    PROVENANCE,
    MoveOptions,
    Options,
    accepted,
    options_for,
)
from pbp.scenario_files import loads

ROSTER = (Combatant(key="gob", name="Goblin", weapons=(Weapon("Axe"),)),
          Combatant(key="ana", name="Ana", weapons=(Weapon("Rapier"), Weapon("Long Bow"))),
          Combatant(key="orc-2", name="Orc Two"))
WEAPONS = ("Axe", "Rapier", "Long Bow")
PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_ints = st.integers(-1000, 1000)
_json_scalar = st.one_of(_ints, _words, st.booleans())
_BY_TYPE: dict[str, st.SearchStrategy[Any]] = {
    "str | None": _words,
    "str": _words,
    "int | None": st.integers(0, 40),
    "int": st.integers(-1, 1),
    "bool": st.booleans(),
    "bool | None": st.booleans(),
    "tuple[str, ...]": st.lists(_words, max_size=3).map(tuple),
    "tuple[int, ...]": st.lists(st.integers(0, 9), max_size=3).map(tuple),
    "Json": st.one_of(_json_scalar, st.lists(_json_scalar, max_size=2).map(tuple)),
    "Mapping[str, Json] | None": st.dictionaries(st.text(max_size=6), _json_scalar, max_size=3),
}
_FIELDS = {f.name: str(f.type) for f in dataclasses.fields(Options)}


def _value(name: str) -> st.SearchStrategy[Any]:
    strategy = _BY_TYPE[_FIELDS[name]]
    if _FIELDS[name] == "Json":   # a Json list is stored as a list: draw what comes back
        strategy = st.one_of(_json_scalar, st.lists(_json_scalar, max_size=2))
    return strategy


@st.composite
def actions(draw: st.DrawFn, *, notation: bool = False) -> Action:
    kind = draw(st.sampled_from(list(ActionKind)))
    names = sorted(n for n in accepted(kind) if not (notation and n in PROVENANCE))
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=6))
    options = {n: draw(_value(n)) for n in chosen}
    return Action(kind=kind, target=draw(st.none() | st.sampled_from([c.key for c in ROSTER])),
                  weapon=draw(st.none() | st.sampled_from(WEAPONS)),
                  text=draw(st.text(max_size=20)), explicit=draw(st.booleans()),
                  position=draw(st.none() | st.integers(0, 5000)), options=options)


@PROPS
@given(actions())
def test_an_action_round_trips_through_its_stored_form(action: Action) -> None:
    wire = json.loads(json.dumps(action.to_dict()))
    assert Action.from_dict(wire) == action
    stored = json.loads(json.dumps(codec.action_to_dict(action)))
    assert codec.action_from_dict(stored) == action
    assert type(action.options) is OPTION_TYPES[action.kind]


@PROPS
@given(actions(notation=True))
def test_an_action_round_trips_through_the_explicit_notation(action: Action) -> None:
    line = render(action)
    back = read(line, roster=ROSTER)
    assert (back.kind, back.target, back.weapon) == (action.kind, action.target, action.weapon)
    game = {k: v for k, v in back.options.to_dict().items() if k not in PROVENANCE}
    assert game == action.options.to_dict()
    assert render(back) == line


def test_each_kind_has_its_own_frozen_options_type() -> None:
    assert set(OPTION_TYPES) == set(ActionKind)
    assert len({t for t in OPTION_TYPES.values()}) == len(ActionKind)
    move = Action(ActionKind.MOVE, options={"distance": 6, "items": ["body"]})
    assert isinstance(move.options, MoveOptions)
    assert (move.options.distance, move.options.items, move.options.until) == (6, ("body",), None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        move.options.distance = 9  # type: ignore[misc]


@pytest.mark.parametrize("kind, given, named", [
    (ActionKind.MOVE, {"distnace": 6}, "unknown option 'distnace' for a move action"),
    (ActionKind.MOVE, {"until": 3}, "'until' is not an option of a move action"),
    (ActionKind.ATTACK, {"trigger": {"actor": "gob"}}, "'trigger' is not an option of an attack action"),
    (ActionKind.DELAY, {"items": ["body"]}, "'items' is not an option of a delay action"),
])
def test_an_unknown_option_is_an_error_naming_it_and_the_kind(kind: ActionKind,
                                                                given: dict[str, Any],
                                                                named: str) -> None:
    with pytest.raises(UnreadableInput) as err:
        Action(kind, options=given)
    assert named in err.value.message
    with pytest.raises(UnreadableInput):
        Action.from_dict({"kind": kind.value, "options": given})
    with pytest.raises(UnreadableInput):
        options_for(kind, given)


def test_an_option_of_another_kind_is_refused_when_built_directly() -> None:
    with pytest.raises(UnreadableInput, match="'until' is not an option of a move action"):
        MoveOptions(until=3)


def test_a_post_with_a_wrong_option_is_reported_never_raised() -> None:
    post = parse_post('#move {"distance": 6}\n#move {"until": 3}', roster=ROSTER)
    assert [a.kind for a in post.actions] == [ActionKind.MOVE, ActionKind.MOVE]
    first, second = post.actions
    assert (first.options.distance, second.options.distance) == (6, None)
    assert [(e.code, e.params["option"]) for e in post.errors] == [("action.option", "until")]


def test_the_stored_form_lists_only_the_options_given() -> None:
    a = Action(ActionKind.ATTACK, "gob", options={"bonus": 2, "touch": False})
    assert a.to_dict()["options"] == {"bonus": 2}
    assert repr(a.options) == "AttackOptions(bonus=2)"


def test_a_scenario_with_an_option_of_another_kind_says_where() -> None:
    text = ("ruleset: forum-d20\ncombatants:\n  - key: a\n  - key: b\n    side: foes\n"
            "rounds:\n  - declarations:\n      - actor: a\n        actions:\n"
            "          - {kind: move, until: 3}\n")
    with pytest.raises(UnreadableInput) as err:
        loads(text)
    assert "'until' is not an option of a move action" in str(err.value)
    assert "actions[0]" in str(err.value)


@pytest.mark.parametrize("module", [options_module, explicit_notation])
def test_the_examples_in_the_docstrings_hold(module: Any) -> None:
    assert doctest.testmod(module).failed == 0


def test_a_row_stored_before_typed_options_keeps_its_avrae_flags() -> None:
    old = {"kind": "cast", "target": "gob", "weapon": None, "text": "!cast Fireball -l 3",
           "explicit": True, "confidence": 1.0, "rolled": None, "position": 0,
           "options": {"command": "!cast Fireball -l 3", "spell": "Fireball", "l": "3",
                       "source": "command", "verb": "cast"}}
    action = codec.action_from_dict(old)
    assert (action.options.spell, action.options.flags) == ("Fireball", {"l": "3"})
    with pytest.raises(UnreadableInput, match="unknown option 'l' for a cast action"):
        Action.from_dict(old)

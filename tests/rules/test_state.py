"""The state an encounter carries between posts, typed (issue 10, item 5): readied actions
(FD-14), reactions' triggers (DND-7), pending work (FD-4 defense rolls, BEY-8 full-round
actions). Each round-trips through its stored form; an unknown key is an error naming it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbp.errors import UnreadableInput
from pbp.rules.model import (
    TRIGGER_DOES,
    Action,
    ActionKind,
    AttackTotal,
    Encounter,
    PendingDefense,
    PendingFullRound,
    ReadiedAction,
    Trigger,
    away_from,
    pending_from_dict,
)

from .helpers import act, fighter

READY = act(ActionKind.READY, trigger={"actor": "orc", "does": "attack"},
            action={"kind": "attack", "target": "orc", "weapon": "sword"})


def _json(data: object) -> object:
    return json.loads(json.dumps(data))


def test_readied_action_and_pending_work_round_trip_through_json() -> None:
    readied = ReadiedAction(READY, round=2, trigger=Trigger("orc", "attack", "the orc swings"),
                            index=1, count=12.0)
    defense = PendingDefense(attacker="orc", target="hero", action=act(ActionKind.ATTACK, "hero"),
                             round=3, attack=AttackTotal(17, 12), attack_number=2)
    full = PendingFullRound(actor="hero", round=1, action=act(ActionKind.FULL_ROUND,
                                                              text="ritual"))
    assert ReadiedAction.from_dict(_json(readied.to_dict())) == readied  # type: ignore[arg-type]
    for work in (defense, full):
        assert pending_from_dict(_json(work.to_dict())) == work
    enc = Encounter("forum-d20", (fighter("hero"), fighter("orc")), readied={"hero": readied},
                    pending=(defense, full))
    back = Encounter.from_dict(_json(enc.to_dict()))  # type: ignore[arg-type]
    assert back == enc
    assert isinstance(back.readied["hero"], ReadiedAction)
    assert [type(p) for p in back.pending] == [PendingDefense, PendingFullRound]


def test_the_stored_shape_is_the_one_kept_before_typing() -> None:
    """States already stored (plain mappings, FD-4's ``type/attacker/attack``) still read."""
    stored = {"type": "defense", "attacker": "orc", "target": "hero",
              "action": act(ActionKind.ATTACK, "hero").to_dict(), "round": 1,
              "attack": {"total": 15, "natural": 9}, "attack_number": 1}
    enc = Encounter("forum-d20", (), pending=(stored,),  # type: ignore[arg-type]
                    readied={"hero": {"action": READY.to_dict(), "round": 1,  # type: ignore[dict-item]
                                      "trigger": {"actor": "orc", "text": "the orc moves"},
                                      "index": 0}})
    assert enc.pending[0] == PendingDefense(attacker="orc", target="hero",
                                            action=act(ActionKind.ATTACK, "hero"), round=1,
                                            attack=AttackTotal(15, 9))
    assert enc.readied["hero"].trigger == Trigger("orc", "act", "the orc moves")
    assert enc.pending[0].to_dict() == stored


@pytest.mark.parametrize("data, named", [
    ({"type": "defense", "attacker": "a", "target": "b", "action": {"kind": "attack"},
      "round": 1, "attack": {"total": 1}, "attak_number": 2}, "attak_number"),
    ({"type": "full-round", "actor": "a", "round": 1, "action": {"kind": "attack"},
      "target": "b"}, "target"),
    ({"type": "spell", "actor": "a"}, "spell"),
    ({"type": "defense", "attacker": "a", "target": "b", "action": {"kind": "attack"},
      "round": 1, "attack": {"total": 1, "nat": 20}}, "nat"),
])
def test_unknown_pending_keys_and_types_are_errors_naming_them(data: dict[str, object],
                                                               named: str) -> None:
    with pytest.raises(UnreadableInput, match=named):
        pending_from_dict(data)
    with pytest.raises(UnreadableInput, match=named):
        Encounter("forum-d20", (), pending=(data,))  # type: ignore[arg-type]


def test_unknown_readied_and_trigger_keys_are_errors_naming_them() -> None:
    with pytest.raises(UnreadableInput, match="when"):
        ReadiedAction.from_dict({"action": READY.to_dict(), "round": 1, "when": "soon"})
    with pytest.raises(UnreadableInput, match="who"):
        Encounter("forum-d20", (), readied={"hero": {  # type: ignore[dict-item]
            "action": READY.to_dict(), "round": 1, "trigger": {"who": "orc"}}})
    with pytest.raises(UnreadableInput, match="sneezes"):
        Trigger("orc", "sneezes")


def test_a_trigger_matches_only_what_it_says() -> None:
    """FD-14 / DND-7: the trigger's actor doing the trigger's kind of action; ``move-away``
    only a move that names the watcher in ``away_from``."""
    attack, move = act(ActionKind.ATTACK, "hero"), act(ActionKind.MOVE, distance=5)
    leaves = act(ActionKind.MOVE, distance=5, away_from=["hero", "bia"])
    assert Trigger("orc", "attack").matches("orc", attack, "hero")
    assert not Trigger("orc", "attack").matches("orc", move, "hero")
    assert not Trigger("orc", "attack").matches("imp", attack, "hero")
    assert Trigger("orc").matches("orc", move, "hero")                # "act": any action
    assert not Trigger("orc", "move-away").matches("orc", move, "hero")
    assert Trigger("orc", "move-away").matches("orc", leaves, "hero")
    assert not Trigger("orc", "move-away").matches("orc", leaves, "rafa")
    assert away_from(act(ActionKind.MOVE, away_from="hero")) == {"hero"}


_keys = st.sampled_from(["hero", "orc", "bia", "goblin-1"])
_triggers = st.builds(Trigger, actor=st.none() | _keys, does=st.sampled_from(TRIGGER_DOES),
                      text=st.text(max_size=12))
@st.composite
def _any_action(draw: st.DrawFn) -> Action:
    """Any kind, with options that kind takes (a trigger only where one belongs)."""
    kind = draw(st.sampled_from(list(ActionKind)))
    names = ["distance", "bonus"] + (["trigger"] if kind in (ActionKind.READY,
                                                             ActionKind.REACTION) else [])
    return Action(kind=kind, target=draw(st.none() | _keys), text=draw(st.text(max_size=8)),
                  options=draw(st.dictionaries(st.sampled_from(names), st.integers(-5, 30),
                                               max_size=2)))


_actions = _any_action()
_readied = st.builds(ReadiedAction, action=_actions, round=st.integers(0, 20), trigger=_triggers,
                     index=st.integers(0, 5), count=st.none() | st.integers(-20, 30).map(float))
_pending = st.one_of(
    st.builds(PendingDefense, attacker=_keys, target=_keys, action=_actions,
              round=st.integers(0, 20),
              attack=st.builds(AttackTotal, total=st.integers(-5, 60),
                               natural=st.none() | st.integers(1, 20)),
              attack_number=st.integers(1, 4)),
    st.builds(PendingFullRound, actor=_keys, round=st.integers(0, 20), action=_actions))


@given(readied=st.dictionaries(_keys, _readied, max_size=3),
       pending=st.lists(_pending, max_size=3))
def test_property_carried_state_round_trips(readied: dict[str, ReadiedAction],
                                            pending: list[PendingDefense | PendingFullRound]
                                            ) -> None:
    enc = Encounter("forum-d20", (), readied=readied, pending=tuple(pending))
    assert Encounter.from_dict(_json(enc.to_dict())) == enc  # type: ignore[arg-type]

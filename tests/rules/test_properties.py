"""Properties of the engine over random legal encounters and declarations (Hypothesis):
it never raises, HP moves only through damage/healing events, no budget is overspent,
the same seed gives the same events, and state survives a JSON round-trip."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp.dice import DiceBox
from pbp.rules.engine import resolve
from pbp.rules.model import Encounter, Event

from .strategies import declarations, encounters, junk_declarations

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _rounds(data: st.DataObject, seed: str, n: int = 2):
    enc = data.draw(encounters())
    start = enc
    events: list[Event] = []
    for r in range(n):
        decls = data.draw(declarations(enc), label=f"round {r}")
        res = resolve(enc, decls, DiceBox(f"{seed}-{r}"))
        events.extend(res.events)
        enc = res.encounter
    return start, enc, events


@SETTINGS
@given(st.data())
def test_engine_never_raises_and_hp_moves_only_through_events(data: st.DataObject) -> None:
    start, end, events = _rounds(data, "p")
    for c in start.combatants:
        delta = 0
        last = c.hp
        for e in events:
            if e.target == c.key and e.code in ("damage", "healing"):
                assert e.params["hp_before"] == last
                last = e.params["hp_after"]
                delta += e.params["amount"] * (1 if e.code == "healing" else -1)
                assert e.params["amount"] >= 0
        assert end.combatant(c.key).hp == c.hp + delta == last


@SETTINGS
@given(st.data())
def test_no_action_budget_is_ever_overspent(data: st.DataObject) -> None:
    _, _, events = _rounds(data, "b")
    for e in events:
        if e.code == "turn.end":
            budget = e.params["budget"]
            for slot, cap in budget["slots"].items():
                if cap is not None:
                    assert budget["spent"].get(slot, 0) <= cap, (slot, budget)


@SETTINGS
@given(st.data())
def test_same_seed_same_events_and_json_round_trip(data: st.DataObject) -> None:
    enc = data.draw(encounters())
    decls = data.draw(declarations(enc))
    before = json.dumps(enc.to_dict(), sort_keys=True)
    a = resolve(enc, decls, DiceBox("same"))
    b = resolve(enc, decls, DiceBox("same"))
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]
    assert json.dumps(enc.to_dict(), sort_keys=True) == before  # input untouched
    wire = json.loads(json.dumps(a.encounter.to_dict()))
    assert Encounter.from_dict(wire) == a.encounter
    for e in a.events:
        assert Event.from_dict(json.loads(json.dumps(e.to_dict()))).to_dict() == e.to_dict()


@SETTINGS
@given(st.data())
def test_junk_options_are_refused_not_raised(data: st.DataObject) -> None:
    enc = data.draw(encounters())
    for r in range(2):
        res = resolve(enc, data.draw(junk_declarations(enc)), DiceBox(f"junk-{r}"))
        enc = res.encounter

"""SCALE-6: ``Action.to_dict`` (what ``declarations.actions`` stores) made cheaper without
changing a byte of it.

The expected form is worked out here by the definition the stored rows were written with
before the change (every field, in field order, through ``dataclasses.asdict`` for the
roll and every option that differs from its default), independently of the code under
test; the actions come from the parser corpus (every kind the parser makes, options,
rolls attached) and from the engine's property-test strategies (every kind, hand-set
options). Equality is checked on the JSON text, so key order counts too.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pbp.dice import Roll
from pbp.parse import parse_post
from pbp.rounds import codec
from pbp.rules.model import Action, ActionKind, Combatant
from pbp.rules.options import Options
from tests.parse import corpus_eval
from tests.rules import strategies


def _reference_jsonable(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Roll):
        return _reference_roll(value)
    if isinstance(value, Mapping):
        return {str(k): _reference_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_reference_jsonable(v) for v in value]
    if isinstance(value, Options):
        return _reference_options(value)
    return value


def _reference_roll(roll: Roll) -> dict[str, Any]:
    d = dataclasses.asdict(roll)
    d["faces"] = list(roll.faces)
    return d


def _reference_options(options: Options) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(Options):
        value = getattr(options, f.name)
        if value != f.default:
            out[f.name] = _reference_jsonable(value)
    return out


def reference_form(action: Action) -> dict[str, Any]:
    """The stored form by its definition (see the module docstring)."""
    d = {f.name: _reference_jsonable(getattr(action, f.name)) for f in dataclasses.fields(action)}
    d["kind"] = action.kind.value
    d["rolled"] = _reference_roll(action.rolled) if action.rolled else None
    d["options"] = _reference_options(action.options)
    return d


def _same(action: Action) -> None:
    want = json.dumps(reference_form(action))
    assert json.dumps(action.to_dict()) == want
    assert json.dumps(codec.action_to_dict(action)) == want
    assert Action.from_dict(json.loads(want)) == action   # the form still reads back


ROLL = Roll(expression="1d20+5", total=19, breakdown="1d20 (14) + 5 = 19", faces=(14,),
            index=3, natural=14, label="attack")


def test_scale6_corpus_actions_store_the_same_form() -> None:
    """SCALE-6: every action the parser makes from the corpus, bare and with a roll
    attached as ingest attaches one, stores exactly the reference form."""
    seen: set[str] = set()
    count = 0
    for p in corpus_eval.load():
        post = parse_post(p.text, fmt=p.fmt, lang=p.lang, roster=p.roster, actor=p.actor)
        for action in post.to_actions():
            _same(action)
            _same(dataclasses.replace(action, rolled=ROLL, position=7))
            seen.add(action.kind.value)
            count += 1
    assert count >= 100 and len(seen) >= 6, (count, seen)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_scale6_generated_actions_store_the_same_form(data: st.DataObject) -> None:
    """SCALE-6: actions of every kind with the options the engine's tests give them."""
    actor = Combatant(key="a", name="A", side="players", hp=10, max_hp=10)
    action = data.draw(strategies.actions(actor, ["a", "b", "c"]))
    _same(action)
    _same(dataclasses.replace(action, rolled=dataclasses.replace(ROLL, natural=None,
                                                                 faces=(2, 9, 17))))


def test_scale6_flags_and_enum_options_are_converted() -> None:
    """SCALE-6: the options that are not scalars (a mapping of flags, tuples) still become
    plain JSON, as the reference does."""
    action = Action(ActionKind.ATTACK, target="b", options={
        "command": "!a", "flags": {"d": ["1d6", "2"], "rr": 2}, "args": ("crit",),
        "roll_indices": (0, 1), "roll_index": 0})
    _same(action)
    assert action.to_dict()["options"]["flags"] == {"d": ["1d6", "2"], "rr": 2}
    assert action.to_dict()["options"]["args"] == ["crit"]


#: values an option may be given, its default among them (an edit may set one back)
_VALUES = st.one_of(st.none(), st.integers(-3, 30), st.sampled_from(["x", "goblin", "", "far"]),
                    st.booleans(), st.tuples(st.integers(0, 4)))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_scale6_options_built_step_by_step_store_every_option_given(data: st.DataObject) -> None:
    """SCALE-6: options track which names they were given (the stored form then compares
    only those with their defaults); built from the stored form, changed by ``evolve``
    (some set back to their defaults), by ``without`` and by the type's own constructor,
    each still stores exactly the reference form, every field compared."""
    from pbp.rules.options import accepted, options_for

    kind = data.draw(st.sampled_from(list(ActionKind)))
    names = sorted(accepted(kind))
    first = data.draw(st.dictionaries(st.sampled_from(names), _VALUES, max_size=4))
    options = options_for(kind, first)
    assert options.to_dict() == _reference_options(options)
    for _ in range(data.draw(st.integers(1, 4))):
        step = data.draw(st.sampled_from(["evolve", "back", "without", "init"]))
        if step == "evolve":
            options = options.evolve(**data.draw(st.dictionaries(st.sampled_from(names), _VALUES,
                                                                 max_size=3)))
        elif step == "back":   # a given option set back to its default: no longer stored
            name = data.draw(st.sampled_from(names))
            options = options.evolve(**{name: dataclasses.fields(Options)[
                [f.name for f in dataclasses.fields(Options)].index(name)].default})
        elif step == "without":
            options = options.without(data.draw(st.sampled_from(names)))
        else:
            options = type(options)(**{n: getattr(options, n) for n in names})
        assert options.to_dict() == _reference_options(options)
        action = Action(kind, target="b", options=options)
        assert json.dumps(action.to_dict()) == json.dumps(reference_form(action))

"""Hypothesis strategies for the rules engine, reusable by every ruleset's tests.

``encounters(ruleset, stat_names=...)`` builds a legal encounter (unique keys, two or more
sides, weapons with sane dice, a few conditions); ``declarations(encounter)`` builds a
round of declarations whose targets exist. Both take the ruleset's own vocabulary as
parameters, so dnd5e/resistance/two-action tests can pass theirs:

>>> from tests.rules.strategies import encounters, declarations  # doctest: +SKIP
>>> @given(st.data())
... def test_x(data):
...     enc = data.draw(encounters("dnd5e", stat_names=("dex", "str")))
...     decls = data.draw(declarations(enc))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from pbp.rules import conditions as C
from pbp.rules.model import Action, ActionKind, Combatant, Condition, Declaration, Encounter, Weapon
from pbp.rules.options import accepted

FD_STATS = ("luta", "pontaria", "fortitude", "reflexos", "will", "level", "str_mod", "dex_mod",
            "int_mod", "cha_mod", "con_mod", "armor", "initiative", "controle", "enganacao",
            "acrobacia", "attacks")
BEY_STATS = ("str", "dex", "con", "will", "luta", "pontaria", "armor", "dodge", "spirituality")
STATS_BY_RULESET: dict[str, Sequence[str]] = {"forum-d20": FD_STATS, "beyonders": BEY_STATS}

CATEGORIES = ("melee", "ranged", "firearm", "bow", "thrown", "power")
DAMAGE = ("1d4", "1d6", "1d8", "2d6", "1d10", "1d6+2", "1d4-1")
CONDITION_NAMES = (C.PRONE, C.COVER, C.CONCEALED, C.INVISIBLE, C.BLINDED, C.HIGHER_GROUND,
                   C.FATIGUED, C.FLANKED, C.FLAT_FOOTED, C.ENGAGED, C.FRIGHTENED, C.GRAPPLED)
KINDS = tuple(ActionKind) + (ActionKind.ATTACK,) * 5 + (ActionKind.MANEUVER, ActionKind.MOVE)
MANEUVERS = ("grapple", "trip", "disarm", "push", "sunder", "feint", "escape", "release", "bogus")


@st.composite
def weapons(draw: st.DrawFn) -> Weapon:
    return Weapon(
        name=draw(st.sampled_from(("sword", "bow", "gun", "fists", "staff"))) + str(draw(st.integers(0, 9))),
        damage=draw(st.sampled_from(DAMAGE)),
        category=draw(st.sampled_from(CATEGORIES)),
        threat=draw(st.sampled_from((18, 19, 20))),
        multiplier=draw(st.sampled_from((2, 3, 4))),
    )


@st.composite
def conditions(draw: st.DrawFn, keys: Sequence[str]) -> Condition:
    name = draw(st.sampled_from(CONDITION_NAMES))
    return Condition(name=name, rounds=draw(st.none() | st.integers(1, 3)),
                     started_round=draw(st.integers(0, 1)),
                     started_count=draw(st.none() | st.integers(-5, 25).map(float)),
                     source=draw(st.none() | st.sampled_from(list(keys))),
                     value=draw(st.integers(0, 4)))


@st.composite
def combatants(draw: st.DrawFn, key: str, side: str, stat_names: Sequence[str],
               keys: Sequence[str]) -> Combatant:
    stats = {name: draw(st.integers(-2, 8)) for name in
             draw(st.lists(st.sampled_from(list(stat_names)), unique=True, max_size=len(stat_names)))}
    if "attacks" in stats:
        stats["attacks"] = max(1, min(3, stats["attacks"]))
    hp = draw(st.integers(1, 40))
    ws = tuple({w.name: w for w in draw(st.lists(weapons(), max_size=3))}.values())
    return Combatant(
        key=key, name=key.title(), side=side,
        player=draw(st.none() | st.just(f"player-{key}")),
        stats=stats, hp=hp, max_hp=hp, weapons=ws,
        conditions=tuple({c.name: c for c in draw(st.lists(conditions(keys), max_size=3))}.values()),
        initiative=draw(st.none() | st.integers(-3, 30).map(float)),
        abilities=tuple(draw(st.lists(st.sampled_from(("quick-dodge", "quick-draw",
                                                       "mental-helmet")), unique=True))),
        extra_actions=draw(st.dictionaries(st.sampled_from(("quick", "move", "attack")),
                                           st.integers(0, 6), max_size=2)),
    )


@st.composite
def encounters(draw: st.DrawFn, ruleset: str | None = None,
               stat_names: Sequence[str] | None = None, max_size: int = 5) -> Encounter:
    rid = ruleset or draw(st.sampled_from(sorted(STATS_BY_RULESET)))
    names = stat_names or STATS_BY_RULESET.get(rid, ("dex", "str"))
    n = draw(st.integers(2, max_size))
    keys = [f"c{i}" for i in range(n)]
    sides = ["players", "enemies"] + [draw(st.sampled_from(("players", "enemies", "third")))
                                      for _ in range(n - 2)]
    cs = tuple(draw(combatants(k, s, names, keys)) for k, s in zip(keys, sides, strict=True))
    surprised = tuple(k for k in keys if draw(st.booleans()) and draw(st.booleans()))
    return Encounter(ruleset=rid, combatants=cs, round=draw(st.sampled_from((0, 0, 1, 3))),
                     surprise=bool(surprised) and draw(st.booleans()), surprised=surprised,
                     unseen=draw(st.booleans()))


@st.composite
def actions(draw: st.DrawFn, actor: Combatant, keys: Sequence[str]) -> Action:
    kind = draw(st.sampled_from(KINDS))
    options: dict[str, Any] = {}
    target = draw(st.none() | st.sampled_from(list(keys)))
    if kind in (ActionKind.ATTACK, ActionKind.MANEUVER):
        target = draw(st.sampled_from(list(keys)))
    weapon = None
    if kind is ActionKind.ATTACK and actor.weapons and draw(st.booleans()):
        weapon = draw(st.sampled_from([w.name for w in actor.weapons]))
    if kind is ActionKind.MOVE:
        options["distance"] = draw(st.integers(0, 20))
        options["move"] = draw(st.sampled_from(("walk", "walk", "stand", "draw", "item")))
        if draw(st.booleans()):
            options["items"] = draw(st.lists(st.sampled_from(("body", "beside")), max_size=2))
    if kind is ActionKind.MANEUVER:
        options["maneuver"] = draw(st.sampled_from(MANEUVERS))
    if kind is ActionKind.CAST and draw(st.booleans()):
        options["power"] = "flame"
    if kind is ActionKind.DELAY:
        options["until"] = draw(st.integers(-15, 25))
    if kind is ActionKind.READY:
        options["trigger"] = draw(st.one_of(
            st.builds(lambda k: {"actor": k}, st.sampled_from(list(keys))),
            st.just("when the door opens")))
        if draw(st.booleans()):
            options["action"] = {"kind": "attack", "target": draw(st.sampled_from(list(keys)))}
    if kind is ActionKind.ATTACK:
        for flag in ("touch", "into_melee", "mental", "ambush"):
            if draw(st.integers(0, 5)) == 0:
                options[flag] = True
        if draw(st.integers(0, 4)) == 0:
            options["defense"] = draw(st.sampled_from(("con", "will")))
        if draw(st.integers(0, 4)) == 0:
            options["bonus"] = draw(st.integers(-3, 3))
    if kind in (ActionKind.QUICK, ActionKind.MOVE, ActionKind.FREE) and draw(st.integers(0, 4)) == 0:
        options["on_turn_of"] = draw(st.sampled_from(list(keys)))
    if kind is ActionKind.FREE and draw(st.integers(0, 4)) == 0:
        options[draw(st.sampled_from(("cancel_cast", "spell", "command")))] = \
            draw(st.sampled_from((True, "init", "init-clear")))
    if kind is ActionKind.FULL_ROUND and draw(st.booleans()):
        options["action"] = {"kind": "attack", "target": draw(st.sampled_from(list(keys))),
                             "text": "", "explicit": True, "confidence": 1.0, "rolled": None,
                             "position": None, "options": {}, "weapon": None}
    return Action(kind=kind, target=target, weapon=weapon, text=kind.value, options=options)


@st.composite
def declarations(draw: st.DrawFn, encounter: Encounter, max_actions: int = 6
                 ) -> list[Declaration]:
    keys = [c.key for c in encounter.combatants]
    out = []
    for c in encounter.combatants:
        if not draw(st.booleans()):
            continue
        acts = tuple(draw(st.lists(actions(c, keys), max_size=max_actions)))
        out.append(Declaration(actor=c.key, actions=acts, late=draw(st.integers(0, 4)) == 0,
                               missing=False, penalty_waived=draw(st.booleans())))
    return out


#: option keys the rulesets read; ``junk_declarations`` fills them with anything JSON can hold
OPTION_KEYS = ("distance", "move", "items", "maneuver", "power", "until", "after", "trigger",
               "action", "touch", "into_melee", "mental", "area", "ambush", "defense", "bonus",
               "on_turn_of", "interrupts", "cancel_cast", "spell", "command", "initiative",
               "inflict", "save", "rounds", "item")
JUNK = st.recursive(st.none() | st.booleans() | st.integers(-50, 50) | st.floats(-1e3, 1e3)
                    | st.text(max_size=8)
                    | st.sampled_from(("c0", "c1", "body", "beside", "trip", "disarm", "sunder",
                                       "grapple", "feint", "escape", "will", "con", "stand",
                                       "draw", "frightened", "prone", "init", "init-clear")),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(("kind", "actor", "target", "text")),
                                      inner, max_size=3),
                    max_leaves=6)


def _taken(kind: ActionKind, names: Sequence[str]) -> tuple[str, ...]:
    """The option names of *names* that *kind* takes (typed actions, issue 10 item 5: any
    other is refused when the action is built, before the engine sees it)."""
    return tuple(n for n in names if n in accepted(kind)) or ("source",)


@st.composite
def junk_declarations(draw: st.DrawFn, encounter: Encounter) -> list[Declaration]:
    """Declarations whose action options hold arbitrary values (what a sloppy parser or a
    hand-written scenario might pass): the engine must refuse them, never raise."""
    keys = [c.key for c in encounter.combatants]
    out = []
    for c in encounter.combatants:
        acts = []
        for _ in range(draw(st.integers(0, 4))):
            kind = draw(st.sampled_from(KINDS))
            options = draw(st.dictionaries(st.sampled_from(_taken(kind, OPTION_KEYS)), JUNK,
                                           max_size=4))
            acts.append(Action(kind=kind,
                               target=draw(st.none() | st.sampled_from(keys + ["ghost"])),
                               weapon=draw(st.none() | st.text(max_size=5)),
                               options=options))
        out.append(Declaration(actor=c.key, actions=tuple(acts)))
    return out


def junk_options(words: Sequence[str]) -> st.SearchStrategy[Any]:
    """Option values of any JSON shape, with a ruleset's own *words* among the strings."""
    return st.recursive(st.none() | st.booleans() | st.integers(-50, 50)
                        | st.floats(-1e3, 1e3, allow_nan=False) | st.text(max_size=6)
                        | st.sampled_from(tuple(words)),
                        lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.sampled_from(("kind", "target", "cover", "size")),
                                          inner, max_size=3), max_leaves=6)


@st.composite
def junk_round(draw: st.DrawFn, enc: Encounter, option_keys: Sequence[str],
               junk: st.SearchStrategy[Any]) -> list[Declaration]:
    """Declarations whose options (*option_keys*, the ruleset's own) hold what *junk* draws,
    with real targets and weapons and any action kind: refused with reasons, never a crash."""
    keys = [c.key for c in enc.combatants]
    out = []
    for c in enc.combatants:
        kinds = [draw(st.sampled_from(list(ActionKind))) for _ in range(draw(st.integers(0, 4)))]
        acts = tuple(Action(kind=kind,
                            target=draw(st.none() | st.sampled_from(keys)),
                            weapon=draw(st.none() | st.sampled_from([w.name for w in c.weapons]
                                                                    or ["none"])),
                            options=draw(st.dictionaries(
                                st.sampled_from(_taken(kind, option_keys)), junk, max_size=4)))
                     for kind in kinds)
        out.append(Declaration(actor=c.key, actions=acts, late=draw(st.booleans())))
    return out


@st.composite
def declarations_with(draw: st.DrawFn, encounter: Encounter,
                      options: st.SearchStrategy[dict[str, Any]]) -> list[Declaration]:
    """``declarations(encounter)`` with a ruleset's own *options* drawn into every action."""
    out = []
    for d in draw(declarations(encounter)):
        acts = tuple(dataclasses.replace(a, options={
                         **a.options.to_dict(),
                         **{k: v for k, v in draw(options).items() if k in accepted(a.kind)}})
                     for a in d.actions)
        out.append(dataclasses.replace(d, actions=acts))
    return out

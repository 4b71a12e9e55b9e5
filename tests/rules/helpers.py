"""Small builders for rules tests: combatants with fixed initiative (no initiative rolls),
one-call resolution with forced dice, event lookups."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pbp.dice import DiceBox
from pbp.rules.engine import resolve
from pbp.rules.model import (
    Action,
    ActionKind,
    Combatant,
    Condition,
    Declaration,
    Encounter,
    Event,
    Resolution,
    Weapon,
)

A = ActionKind


def fighter(key: str, *, init: float | None = 10, side: str = "players",
            player: str | None = None, hp: int = 30, stats: dict[str, int] | None = None,
            weapons: Sequence[Weapon] = (), conditions: Sequence[Condition] = (),
            **kw: Any) -> Combatant:
    return Combatant(key=key, name=key.capitalize(), side=side, player=player, hp=hp, max_hp=hp,
                     stats=dict(stats or {}), weapons=tuple(weapons),
                     conditions=tuple(conditions), initiative=init, **kw)


def act(kind: ActionKind, target: str | None = None, **options: Any) -> Action:
    weapon = options.pop("weapon", None)
    rolled = options.pop("rolled", None)
    text = options.pop("text", "")
    return Action(kind=kind, target=target, weapon=weapon, rolled=rolled, text=text,
                  options=options)


def decl(actor: str, *actions: Action, **kw: Any) -> Declaration:
    return Declaration(actor=actor, actions=tuple(actions), **kw)


def run(ruleset: str, combatants: Iterable[Combatant], declarations: Iterable[Declaration],
        forced: Sequence[int] = (), seed: str = "test", houserules: dict[str, Any] | None = None,
        **enc: Any) -> Resolution:
    encounter = Encounter(ruleset=ruleset, combatants=tuple(combatants), **enc)
    return resolve(encounter, list(declarations), DiceBox(seed, forced=list(forced)),
                   houserules=houserules)


def codes(res: Resolution) -> list[str]:
    return [e.code for e in res.events]


def find(res: Resolution, code: str, **match: Any) -> list[Event]:
    out = []
    for e in res.events:
        if e.code != code:
            continue
        if all(getattr(e, k, None) == v or e.params.get(k) == v for k, v in match.items()):
            out.append(e)
    return out


def one(res: Resolution, code: str, **match: Any) -> Event:
    found = find(res, code, **match)
    assert len(found) == 1, (code, match, [(e.code, e.message) for e in res.events])
    return found[0]


def rejected(res: Resolution, rule: str | None = None) -> list[Event]:
    return [e for e in res.events if e.code == "action.rejected"
            and (rule is None or e.rule == rule)]


def hp(res: Resolution, key: str) -> int:
    return res.encounter.combatant(key).hp


def mods(event: Event, key: str = "mods") -> dict[str, int]:
    return {m["reason"]: m["value"] for m in event.params.get(key, [])}

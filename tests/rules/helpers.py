"""Small builders for rules tests: combatants with fixed initiative (no initiative rolls),
one-call resolution with forced dice, event lookups."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
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
from pbp.rules.registry import get
from tests.conftest import shared_path

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


# -- shared checks of the per-ruleset property tests --------------------------------------------

def assert_same_seed_same_events(enc: Encounter, declarations: Sequence[Declaration]) -> None:
    """The same seed gives the same events; the encounter and the events are plain JSON."""
    a = resolve(enc, declarations, DiceBox("same"))
    b = resolve(enc, declarations, DiceBox("same"))
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]
    assert Encounter.from_dict(json.loads(json.dumps(a.encounter.to_dict()))) == a.encounter
    json.dumps([e.to_dict() for e in a.events])          # events are plain JSON


def assert_hp_only_through_damage(start: Encounter, end: Encounter,
                                  events: Sequence[Event]) -> None:
    """Every HP change from *start* to *end* is a damage/healing event, chained before->after."""
    for c in start.combatants:
        last = c.hp
        for e in events:
            if e.target == c.key and e.code in ("damage", "healing"):
                assert e.params["hp_before"] == last and e.params["amount"] >= 0
                last = e.params["hp_after"]
        assert end.combatant(c.key).hp == last


def assert_junk_is_refused(data: Any, enc: Encounter,
                           rounds: Callable[[Encounter], Any]) -> None:
    """Two rounds of junk declarations (``rounds(enc)``, a strategy drawn from *data*):
    every rejection has its reason, nothing raises."""
    for r in range(2):
        res = resolve(enc, data.draw(rounds(enc)), DiceBox(f"junk-{r}"))
        assert all(e.params.get("reason") for e in res.events if e.code == "action.rejected")
        enc = res.encounter


def assert_rule_ids_named_here(prefix: str, count: int, ruleset: str, test_file: str) -> None:
    """RULES.md has *count* ``PREFIX-n`` ids, each named by a test in *test_file* (as
    ``_prefixn_``), and the ruleset declares them all."""
    text = shared_path("rules", "RULES.md").read_text(encoding="utf-8")
    ids = sorted(set(re.findall(rf"^- ({prefix}-\d+)\b", text, re.MULTILINE)))
    assert len(ids) == count
    names = re.findall(r"def (test_\w+)", Path(test_file).read_text(encoding="utf-8"))
    missing = [i for i in ids
               if not any(f"_{i.lower().replace('-', '')}_" in name + "_" for name in names)]
    assert not missing, missing
    assert set(ids) <= set(get(ruleset).rule_ids)

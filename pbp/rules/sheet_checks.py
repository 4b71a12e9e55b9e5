"""The checks a combatant's values pass before anything is saved: panel, import, scenario.

Why here and pure: a value the engine cannot use (``1000000d1000000`` as a weapon's damage,
a condition no rule reads, HP 99999 of 12) must be refused when the narrator saves it,
with a sentence naming the field, not found at the deadline when a round will not
resolve. These are the limits a scenario meets at load (``pbp bench``): dice expressions
through :func:`pbp.dice.check_expression` (length, nesting, at most 1,000 dice, no d0) and
every stat they name on the sheet, conditions by the ruleset's own names. Every problem is
reported at once (a :class:`SheetProblem` each); the caller says them in its language.

>>> [p.code for p in check_sheet("forum-d20", hp=99999, max_hp=12,
...                              weapons=[{"name": "bomb", "damage": "1000000d1000000"}])]
['hp.over-max', 'weapon.damage']
>>> weapon_lines(["sword: 1d8", "axe"])[1][0].code
'weapon.syntax'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..dice import check_expression, has_stats, substitute_stats
from ..errors import PbpError
from .condition_names import normalise_condition
from .stats import resolve_name

#: HP and max HP a sheet may hold (the panel's form bounds)
MAX_HP = 100_000


@dataclass(frozen=True)
class SheetProblem:
    """One refused value: ``field`` (``hp``, ``weapons``, ``conditions``...), a stable
    ``code``, the English ``message`` and the values a translation needs."""

    field: str
    code: str
    message: str
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def check_hp(hp: int | None, max_hp: int | None, *, over_max: bool = False,
             was: int | None = None) -> list[SheetProblem]:
    """Max HP 1..MAX_HP; HP 0..max HP, above it only when the narrator confirms
    (*over_max*). An HP the sheet already had (*was*: the engine may take it below 0) stands."""
    out: list[SheetProblem] = []
    if max_hp is None or not 1 <= max_hp <= MAX_HP:
        out.append(SheetProblem("max_hp", "max_hp.range", f"max_hp must be 1..{MAX_HP}, not {max_hp}",
                                {"value": max_hp, "most": MAX_HP}))
        return out
    if hp is None or hp == was:
        return out
    if hp < 0:
        out.append(SheetProblem("hp", "hp.negative", f"hp must be 0 or more, not {hp}", {"value": hp}))
    elif hp > max_hp and not over_max:
        out.append(SheetProblem("hp", "hp.over-max",
                                f"hp {hp} is more than max_hp {max_hp}; confirm it to allow it",
                                {"value": hp, "max_hp": max_hp}))
    return out


def check_damage(name: str, damage: str, stats: Mapping[str, int] | None = None) -> SheetProblem | None:
    """A weapon's damage as the engine will roll it: a readable, bounded expression whose
    stats are on the sheet."""
    try:
        check_expression(damage)
        if has_stats(damage):
            substitute_stats(damage, dict(stats or {}), resolve_name)
    except PbpError as exc:
        return SheetProblem("weapons", "weapon.damage", f"weapon {name!r}: {exc.message}",
                            {"weapon": name, "reason": exc.message})
    return None


def weapon_lines(lines: Iterable[Any]) -> tuple[list[dict[str, Any]], list[SheetProblem]]:
    """``name: dice`` strings (or ``{name, damage, ...}`` mappings) -> weapons, and the
    problem of each line that does not read (no colon, no name, no dice)."""
    weapons: list[dict[str, Any]] = []
    problems: list[SheetProblem] = []
    for n, item in enumerate(lines, 1):
        if isinstance(item, Mapping):
            if not str(item.get("name") or "").strip():
                problems.append(SheetProblem("weapons", "weapon.name", f"weapon {n} needs a name",
                                             {"line": n}))
            else:
                weapons.append(dict(item))
            continue
        name, colon, damage = str(item).partition(":")
        if not colon or not name.strip() or not damage.strip():
            problems.append(SheetProblem(
                "weapons", "weapon.syntax",
                f"weapon line {n} ({str(item).strip()!r}) must read name: dice, like sword: 1d8",
                {"line": n, "text": str(item).strip()}))
            continue
        weapons.append({"name": name.strip(), "damage": damage.strip()})
    return weapons, problems


def check_conditions(ruleset: str, names: Sequence[str]) -> tuple[list[str], list[SheetProblem]]:
    """Condition names -> the ruleset's canonical keys, and a problem per unknown name."""
    keys: list[str] = []
    problems: list[SheetProblem] = []
    for name in names:
        try:
            keys.append(normalise_condition(ruleset, str(name).strip()))
        except PbpError as exc:
            problems.append(SheetProblem("conditions", "condition.unknown", exc.message,
                                         {"name": str(name)}))
    return keys, problems


def check_sheet(ruleset: str, *, hp: int | None, max_hp: int | None,
                weapons: Sequence[Mapping[str, Any]] = (), stats: Mapping[str, int] | None = None,
                conditions: Sequence[str] = (), over_max: bool = False,
                was_hp: int | None = None) -> list[SheetProblem]:
    """Every problem of one combatant's values at once (HP, weapons' damage, conditions)."""
    out = check_hp(hp, max_hp, over_max=over_max, was=was_hp)
    for w in weapons:
        problem = check_damage(str(w.get("name")), str(w.get("damage") or "1d4"), stats)
        if problem is not None:
            out.append(problem)
    out += check_conditions(ruleset, conditions)[1]
    return out

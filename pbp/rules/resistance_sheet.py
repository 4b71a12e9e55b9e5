"""Sheet and validation of the ``resistance`` ruleset (RES-1, RES-2, RES-3, RES-5, RES-7).

Split from :mod:`pbp.rules.resistance` to keep modules small: :class:`ResistanceSheet`
reads a sheet (dice, Characteristics in three languages, conflict type) and finds every
problem of a declared action; :class:`~pbp.rules.resistance.Resistance` carries actions out.
"""

from __future__ import annotations

import re
from typing import Any

from .base import Ruleset
from .context import Problem, RoundContext
from .model import Action, ActionKind, Combatant, Declaration
from .narrators_call import number_problems
from .resistance_dice import DIE_SIZES
from .stats import resolve_name

BRUTAL = "brutal-attack"

#: the source's own Characteristics as Portuguese and Russian sheets write them (folded keys)
SYNONYMS: dict[str, tuple[str, ...]] = {
    "vigor": ("vigor", "вынос", "бодрость"),
    "martial_arts": ("martial_arts", "artes_marciais", "боевые_искусства"),
    "diplomacy": ("diplomacy", "diplomacia", "дипломатия"),
    "big": ("big", "grande", "большой"),
    "strong": ("strong", "forte", "сильный"),
    "liar": ("liar", "mentiroso", "лжец"),
    "wits": ("wits", "astucia", "смекалка"),
    "athletics": ("athletics", "atletismo", "атлетика"),
    "intimidation": ("intimidation", "intimidacao", "запугивание"),
    "persuasion": ("persuasion", "persuasao", "убеждение"),
    "stealth": ("stealth", "furtividade", "скрытность"),
}
ALIASES = {alias: key for key, names in SYNONYMS.items() for alias in names}
INTEGER = re.compile(r"^[+-]?\d+$")


def far(other: str) -> str:
    """The condition that marks *other* as Far (RES-5)."""
    return f"far:{other}"


class ResistanceSheet(Ruleset):
    """The sheet vocabulary and the validation of the resistance ruleset."""

    # -- sheet -------------------------------------------------------------------------
    @staticmethod
    def char(c: Combatant, name: str | None) -> int:
        """A Characteristic by any of its names (``Luta``, ``fight``...)."""
        if not name:
            return 0
        key = resolve_name(str(name)) or str(name)
        own = ALIASES.get(key, key)
        for candidate in (key, own, *SYNONYMS.get(own, ()), str(name)):
            if candidate in c.stats:
                return c.stat(candidate)
        return 0

    def conflict(self, action: Action | None = None) -> str:
        kind = (action.options.get("conflict") if action else None) \
            or self.setting("conflict.default", "physical")
        return "social" if str(kind).casefold() == "social" else "physical"

    @staticmethod
    def resistance_of(conflict: str) -> str:
        return "will" if conflict == "social" else "vigor"

    def die(self, c: Combatant, res: str) -> int:
        return c.stat(res, int(self.setting("dice.default", 6)))


    # -- validation --------------------------------------------------------------------
    def check_action(self, ctx: RoundContext, c: Combatant, action: Action, index: int,
                     declaration: Declaration) -> list[Problem]:
        out: list[Problem] = []
        kind = action.kind
        conflict = self.conflict(action)
        res = self.resistance_of(conflict)
        if kind in (ActionKind.BONUS, ActionKind.REACTION, ActionKind.FULL_ROUND,
                    ActionKind.DELAY, ActionKind.READY):
            out.append(Problem("kind.unknown", "RES-6",
                               f"an exchange has no {kind.value} actions: the actor attacks or "
                               f"moves (or makes a check)", index))
            return out
        if self.die(c, res) not in DIE_SIZES:
            out.append(Problem("die.invalid", "RES-1",
                               f"{c.name}'s {res.title()} is d{self.die(c, res)}; a Resistance is "
                               f"d4, d6, d8, d10 or d12", index))
        out += self._check_help(ctx, c, action, index)
        out += number_problems(action, ("power", "bonus", "damage", "reduction"), "RES-8", index)
        chosen = action.options.get("resistance")
        if chosen is not None and str(chosen).casefold() not in ("vigor", "will"):
            out.append(Problem("resistance.unknown", "RES-1",
                               f"the Resistances are Vigor and Will, not {chosen!r}", index))
        if kind is ActionKind.MANEUVER and action.target is None:
            out.append(Problem("target.missing", "RES-7", "a maneuver needs a target", index))
        if kind in (ActionKind.ATTACK, ActionKind.MANEUVER):
            out += self._check_attack(ctx, c, action, index, conflict)
        elif kind is ActionKind.DEFEND:
            out += self._check_maneuver(c, action, index, conflict, defensive=True)
        elif kind is ActionKind.OTHER and "difficulty" in action.options:
            if self._difficulty(action.options["difficulty"]) is None:
                out.append(Problem("check.difficulty", "RES-3",
                                   f"'{action.options['difficulty']}' is not a Difficulty: use "
                                   f"a number from 1 or a word from the table "
                                   f"({', '.join(self.setting('difficulty'))})", index))
        elif kind is ActionKind.OTHER and action.options.get("opposed"):
            if action.target is None:
                out.append(Problem("target.missing", "RES-4",
                                   "an opposed check needs an opponent", index))
            elif self.die(ctx.get(action.target), res) not in DIE_SIZES:
                out.append(Problem("die.invalid", "RES-1",
                                   f"{ctx.name(action.target)}'s {res.title()} is not a "
                                   f"Resistance die", index))
        elif kind is ActionKind.MOVE:
            to = action.options.get("to")
            if to is not None and str(to).casefold() not in ("near", "far", "close", "flee"):
                out.append(Problem("move.distance", "RES-5",
                                   f"Distance is Near or Far, not '{to}'", index))
            if to is not None and action.target is None:
                out.append(Problem("target.missing", "RES-5",
                                   "say whom you close in on or get away from", index))
        return out

    def _check_help(self, ctx: RoundContext, c: Combatant, action: Action,
                    index: int) -> list[Problem]:
        out: list[Problem] = []
        synergy = action.options.get("synergy")
        if synergy and self.char(c, str(synergy)) <= 0:
            out.append(Problem("synergy.missing", "RES-2",
                               f"{c.name} has no '{synergy}' to lend a synergy point", index))
        helpers = action.options.get("helpers") or []
        if not isinstance(helpers, list) or not all(isinstance(h, str) for h in helpers):
            return out + [Problem("helper.invalid", "RES-2",
                                  f"helpers must be a list of combatants, not {helpers!r}", index)]
        for helper in helpers:
            if helper == c.key or helper not in ctx.combatants or ctx.get(helper).down:
                out.append(Problem("helper.invalid", "RES-2",
                                   f"'{helper}' cannot help: helpers are other combatants "
                                   f"still in the fight", index))
        return out

    def _check_attack(self, ctx: RoundContext, c: Combatant, action: Action, index: int,
                      conflict: str) -> list[Problem]:
        out = self._check_maneuver(c, action, index, conflict, defensive=False)
        if action.target is None or action.target not in ctx.combatants:
            return out
        target = ctx.get(action.target)
        if self.die(target, self.resistance_of(conflict)) not in DIE_SIZES:
            out.append(Problem("die.invalid", "RES-1",
                               f"{target.name}'s Resistance is not a die from d4 to d12", index))
        weapon = self.weapon_for(c, action)
        if conflict == "physical" and c.has(far(target.key)) and not weapon.ranged \
                and weapon.reach <= 0:
            out.append(Problem("distance.far", "RES-5",
                               f"{target.name} is Far from {c.name}: close in first (a move) "
                               f"or use a weapon with Reach", index))
        return out

    def _maneuver_skill(self, conflict: str) -> str:
        return str(self.setting("maneuvers.social_skill" if conflict == "social"
                                else "maneuvers.physical_skill"))

    def _check_maneuver(self, c: Combatant, action: Action, index: int, conflict: str,
                        *, defensive: bool) -> list[Problem]:
        name = str(action.options.get("maneuver") or ("block" if defensive else "attack"))
        name = name.casefold()
        skill = self._maneuver_skill(conflict)
        trained = self.char(c, skill) > 0
        allowed = [str(x) for x in self.setting("maneuvers.defensive" if defensive
                                                else "maneuvers.offensive")]
        out: list[Problem] = []
        if name not in allowed and not trained:
            what = "defense" if defensive else "offensive maneuver"
            out.append(Problem("maneuver.untrained", "RES-7",
                               f"without {skill.replace('_', ' ').title()}, {c.name} can only "
                               f"use {' or '.join(allowed)} as {what}, not '{name}'", index))
        if name == "brutal" and not defensive and self.brutal_value(c, conflict)[1] <= 0:
            needs = " or ".join(self._brutal_chars(conflict))
            out.append(Problem("maneuver.brutal", "RES-7",
                               f"a Brutal Attack needs {needs}, which {c.name} does not have",
                               index))
        return out

    def _brutal_chars(self, conflict: str) -> list[str]:
        return [str(x) for x in self.setting("maneuvers.brutal_social" if conflict == "social"
                                             else "maneuvers.brutal_physical")]

    def brutal_value(self, c: Combatant, conflict: str) -> tuple[str, int]:
        best = max(self._brutal_chars(conflict), key=lambda n: self.char(c, n))
        return best, self.char(c, best)

    def _difficulty(self, value: Any) -> int | None:
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return value if value >= 1 else None
        text = str(value).strip().casefold()
        if INTEGER.match(text):
            return int(text) if int(text) >= 1 else None
        table = {k.casefold(): int(v) for k, v in self.setting("difficulty").items()}
        return table.get(text)

"""Who fights: weapons, conditions and combatants, as frozen values (see model.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .values import _build, _plain


@dataclass(frozen=True)
class Weapon:
    """A weapon on a sheet. ``category`` drives BEY-14 (firearm) and TA-5 (weapon bonus)."""

    name: str
    damage: str = "1d4"                 # dice expression, may name stats
    category: str = "melee"             # melee | ranged | firearm | thrown | bow | blowpipe | crossbow | rocket | beam | power
    threat: int = 20                    # FD-9: lowest natural roll that threatens (20, 19, 18)
    multiplier: int = 2                 # FD-9: x2, x3, x4
    skill: str | None = None            # stat/skill added to the attack roll
    reach: int = 0                      # RES-5 weapon value
    aliases: tuple[str, ...] = ()
    attribute: str | None = None        # BEY-13: attribute added to the attack roll (default by category)

    @property
    def ranged(self) -> bool:
        return self.category != "melee"

    def to_dict(self) -> dict[str, Any]:
        d = _plain(self)
        d["aliases"] = list(self.aliases)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Weapon:
        return _build(cls, data, aliases=tuple)


@dataclass(frozen=True)
class Condition:
    """A condition on a combatant (FD-18 names), with a duration.

    FD-6: an effect of N rounds ends just before the initiative count at which it
    began, N rounds later. ``rounds`` None means until removed.
    """

    name: str
    rounds: int | None = None
    started_round: int = 0
    started_count: float | None = None   # initiative count where it began
    source: str | None = None            # combatant key (Frightened is against its source)
    value: int = 0                       # e.g. Fatigued's CON-mod penalty, flanking enemies
    note: str | None = None              # e.g. the power's name (FD-5), the dropped weapon

    def expired(self, round_number: int, count: float | None) -> bool:
        """True once we reach (round started+rounds, just before started_count)."""
        if self.rounds is None:
            return False
        end_round = self.started_round + self.rounds
        if round_number > end_round:
            return True
        if round_number < end_round:
            return False
        if self.started_count is None or count is None:
            return True
        return count <= self.started_count  # we are at or past its count (counts go down)

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Condition:
        return _build(cls, data)


@dataclass(frozen=True)
class Combatant:
    """One participant. ``key`` is unique in the encounter (``goblin-2``); ``name`` is shown.

    ``stats`` holds attributes and skills under the ruleset's canonical names
    (``dex``, ``luta``, ``vigor_die``...); :mod:`pbp.rules.stats` maps the names
    players write in three languages onto them.
    """

    key: str
    name: str
    side: str = "players"
    player: str | None = None             # the poster who controls it (None: the narrator)
    stats: Mapping[str, int] = field(default_factory=dict)
    hp: int = 10
    max_hp: int = 10
    weapons: tuple[Weapon, ...] = ()
    conditions: tuple[Condition, ...] = ()
    initiative: float | None = None
    aliases: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()       # e.g. "quick-dodge" (BEY-14), "quick-draw" (FD-15)
    extra_actions: Mapping[str, int] = field(default_factory=dict)  # BEY-12, from external sources
    is_object: bool = False               # FD-19
    down: bool = False
    default_action: str | None = None     # STALL-2: the sheet's standing default ("defend")

    def stat(self, name: str, default: int = 0) -> int:
        return int(self.stats.get(name, default))

    def has(self, condition: str) -> bool:
        if not self.conditions:  # most sheets, most of the time (SCALE-6: asked ~20 times an attack)
            return False
        return any(c.name == condition for c in self.conditions)

    def weapon(self, name: str | None) -> Weapon | None:
        if name is None:
            return self.weapons[0] if self.weapons else None
        folded = name.casefold()
        for w in self.weapons:
            if w.name.casefold() == folded or folded in (a.casefold() for a in w.aliases):
                return w
        return None

    def condition(self, name: str) -> Condition | None:
        if not self.conditions:
            return None
        for c in self.conditions:
            if c.name == name:
                return c
        return None

    def to_dict(self) -> dict[str, Any]:
        d = _plain(self)
        d["stats"] = dict(self.stats)
        d["weapons"] = [w.to_dict() for w in self.weapons]
        d["conditions"] = [c.to_dict() for c in self.conditions]
        d["aliases"] = list(self.aliases)
        d["abilities"] = list(self.abilities)
        d["extra_actions"] = dict(self.extra_actions)
        if self.default_action is None:   # STALL-2: said only when the sheet has one
            del d["default_action"]
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Combatant:
        return _build(
            cls, data,
            stats=dict,
            weapons=lambda ws: tuple(Weapon.from_dict(w) for w in ws),
            conditions=lambda cs: tuple(Condition.from_dict(c) for c in cs),
            aliases=tuple, abilities=tuple, extra_actions=dict,
        )

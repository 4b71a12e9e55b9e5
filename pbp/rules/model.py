"""Value objects of the rules engine: what an encounter is, what players declare, what happened.

Everything here is frozen: the engine takes an :class:`Encounter` and returns a new
one (``dataclasses.replace``), never mutating its input. Encounters are persisted
between posts, so they round-trip through :meth:`to_dict` / :meth:`from_dict`
(plain JSON types only).

These names are the contract between the engine, the parser, the store, the
renderers and the panel. Add fields with defaults; do not rename.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..dice import Roll


class ActionKind(str, enum.Enum):
    """What a declared action spends, in the game's own words (RULES.md)."""

    ATTACK = "attack"
    CAST = "cast"
    MOVE = "move"
    QUICK = "quick"
    FREE = "free"
    FULL_ROUND = "full-round"
    DELAY = "delay"
    READY = "ready"
    DEFEND = "defend"
    MANEUVER = "maneuver"
    BONUS = "bonus"        # DND-5
    REACTION = "reaction"  # DND-7
    OTHER = "other"


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

    @property
    def ranged(self) -> bool:
        return self.category != "melee"


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

    def stat(self, name: str, default: int = 0) -> int:
        return int(self.stats.get(name, default))

    def has(self, condition: str) -> bool:
        return any(c.name == condition for c in self.conditions)

    def weapon(self, name: str | None) -> Weapon | None:
        if name is None:
            return self.weapons[0] if self.weapons else None
        folded = name.casefold()
        for w in self.weapons:
            if w.name.casefold() == folded or folded in (a.casefold() for a in w.aliases):
                return w
        return None


@dataclass(frozen=True)
class Action:
    """One declared action. ``rolled`` is a roll already made for the post's tag (PBP-4):
    the engine uses it instead of rolling again. ``position`` is the character offset
    in the post, so replies and the panel can point at it."""

    kind: ActionKind
    target: str | None = None             # combatant key
    weapon: str | None = None
    text: str = ""
    explicit: bool = True
    confidence: float = 1.0
    rolled: Roll | None = None
    position: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)  # maneuver name, skill, trigger, situational modifiers...


@dataclass(frozen=True)
class Declaration:
    """What one combatant declares for one round (from a post, a scenario, or the narrator)."""

    actor: str                            # combatant key
    actions: tuple[Action, ...] = ()
    late: bool = False                    # PBP-2: posted after the deadline (or missing: see ``missing``)
    missing: bool = False                 # no post at all this round
    speech_count: int = 0                 # PBP-3
    penalty_waived: bool = False          # narrator's waiver of PBP-2
    post_id: str | None = None


@dataclass(frozen=True)
class Event:
    """Something that happened or was refused, explaining itself.

    ``code`` is a stable machine name (``attack.hit``, ``action.rejected``); ``rule``
    the RULES.md id that decided it; ``message`` an English sentence a player
    understands; ``params`` what renderers need to say it in other languages.
    """

    code: str
    message: str
    actor: str | None = None
    target: str | None = None
    rule: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    rolls: tuple[Roll, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = {
            "code": self.code,
            "message": self.message,
            "actor": self.actor,
            "target": self.target,
            "rule": self.rule,
            "params": dict(self.params),
            "rolls": [dataclasses.asdict(r) for r in self.rolls],
        }
        return d


@dataclass(frozen=True)
class Encounter:
    """The state of one fight between posts."""

    ruleset: str
    combatants: tuple[Combatant, ...]
    round: int = 0                        # 0 = not started; surprise round is round 0 when flagged
    surprise: bool = False                # the narrator flagged a surprise round
    surprised: tuple[str, ...] = ()       # combatant keys surprised (BEY-1, FD-1, DND-2)
    order: tuple[str, ...] = ()           # initiative order, first to act first
    houserules: Mapping[str, Any] = field(default_factory=dict)
    delayed: Mapping[str, float] = field(default_factory=dict)   # FD-16: key -> count it waits for
    readied: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # FD-14 ready

    def combatant(self, key: str) -> Combatant:
        for c in self.combatants:
            if c.key == key:
                return c
        raise KeyError(key)

    def replace_combatant(self, new: Combatant) -> "Encounter":
        return dataclasses.replace(
            self, combatants=tuple(new if c.key == new.key else c for c in self.combatants)
        )


@dataclass(frozen=True)
class Resolution:
    """What :func:`pbp.rules.engine.resolve` returns: the new state and what happened."""

    encounter: Encounter
    events: tuple[Event, ...]

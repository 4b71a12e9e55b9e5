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
from typing import Any, TypeVar

from ..dice import Roll
from ..errors import UnreadableInput
from .kinds import ActionKind as ActionKind  # re-exported: the contract names it here
from .options import Options, options_for


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

    def condition(self, name: str) -> Condition | None:
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


@dataclass(frozen=True)
class Action:
    """One declared action. ``rolled`` is a roll already made for the post's tag (PBP-4):
    the engine uses it instead of rolling again. ``position`` is the character offset
    in the post, so replies and the panel can point at it.

    ``options`` is the kind's own frozen type (:mod:`pbp.rules.options`); a mapping of
    option names is accepted and converted, so an unknown option is an error naming it
    and the kind. The stored form is :meth:`to_dict` / :meth:`from_dict`; the notation
    is :func:`pbp.parse.explicit.render` / :func:`pbp.parse.explicit.read`.

    >>> Action(ActionKind.MOVE, options={"distance": 6}).options.distance
    6
    """

    kind: ActionKind
    target: str | None = None             # combatant key
    weapon: str | None = None
    text: str = ""
    explicit: bool = True
    confidence: float = 1.0
    rolled: Roll | None = None
    position: int | None = None
    options: Options = None  # type: ignore[assignment]  # None or a mapping: converted below

    def __post_init__(self) -> None:
        opts = self.options
        if not isinstance(opts, Options) or opts.KIND is not self.kind:
            object.__setattr__(self, "options", options_for(self.kind, opts))

    def to_dict(self) -> dict[str, Any]:
        d = _plain(self)
        d["kind"] = self.kind.value
        d["rolled"] = roll_to_dict(self.rolled) if self.rolled else None
        d["options"] = self.options.to_dict()
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Action:
        if not isinstance(data, Mapping):
            raise UnreadableInput(f"expected a mapping for Action, got {type(data).__name__}")
        return _build(
            cls, data, kind=ActionKind,
            rolled=lambda r: roll_from_dict(r) if r else None,
        )


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

    def to_dict(self) -> dict[str, Any]:
        d = _plain(self)
        d["actions"] = [a.to_dict() for a in self.actions]
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Declaration:
        return _build(cls, data, actions=lambda xs: tuple(Action.from_dict(a) for a in xs))


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
            "params": _jsonable(self.params),
            "rolls": [roll_to_dict(r) for r in self.rolls],
        }
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        return _build(cls, data, params=dict,
                      rolls=lambda rs: tuple(roll_from_dict(r) for r in rs))


#: what a trigger waits for: any action of its actor, one kind, or a move away (DND-7)
TRIGGER_ANY, TRIGGER_MOVE_AWAY = "act", "move-away"
TRIGGER_DOES = (TRIGGER_ANY, TRIGGER_MOVE_AWAY) + tuple(k.value for k in ActionKind)


@dataclass(frozen=True)
class Trigger:
    """What a readied action (FD-14) or a reaction (DND-7) waits for: *actor* doing *does*
    (``attack``, ``move``..., ``act`` = any action, ``move-away`` = a move whose
    ``options.away_from`` names the watcher). The engine fires it when that action
    actually happens. ``actor`` None (free text only): the narrator fires it."""

    actor: str | None = None
    does: str = TRIGGER_ANY
    text: str = ""

    def __post_init__(self) -> None:
        if self.does not in TRIGGER_DOES:
            raise UnreadableInput(f"unknown trigger '{self.does}' (known: {', '.join(TRIGGER_DOES)})")

    def matches(self, actor: str, action: Action, watcher: str) -> bool:
        if self.actor != actor:
            return False
        if self.does == TRIGGER_MOVE_AWAY:
            return action.kind is ActionKind.MOVE and watcher in away_from(action)
        return self.does in (TRIGGER_ANY, action.kind.value)

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trigger:
        return _build(cls, data)

    @classmethod
    def from_option(cls, value: Any) -> Trigger:
        """An action's ``options.trigger``: a mapping, or free text."""
        if isinstance(value, (Trigger, Mapping)):
            return value if isinstance(value, Trigger) else cls.from_dict(value)
        return cls(text=str(value or ""))


def away_from(action: Action) -> frozenset[str]:
    """Whom a move leaves (``options.away_from``: a key or a list of keys)."""
    value = action.options.away_from
    values = [value] if isinstance(value, str) else value
    return frozenset(str(v) for v in values) if isinstance(values, (list, tuple)) else frozenset()


@dataclass(frozen=True)
class ReadiedAction:
    """A readied action (FD-14) waiting for its trigger between posts: the ``ready`` action
    as declared (``options.action`` is what goes off), where it was readied, its trigger."""

    action: Action
    round: int
    trigger: Trigger = field(default_factory=Trigger)
    index: int = 0                        # its place in the post
    count: float | None = None            # the count at which it was readied

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReadiedAction:
        return _build(cls, data, action=Action.from_dict, trigger=Trigger.from_dict)


@dataclass(frozen=True)
class AttackTotal:
    """An attack roll kept for later: its total and natural d20 (FD-4)."""

    total: int
    natural: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AttackTotal:
        return _build(cls, data)


@dataclass(frozen=True, kw_only=True)
class PendingDefense:
    """FD-4 (``defense_roller = "player"``): an attack waiting for the target's defense roll
    in its next post. Field names are the stored shape; ``type`` names the kind."""

    type: str = "defense"
    attacker: str
    target: str
    action: Action
    round: int
    attack: AttackTotal
    attack_number: int = 1

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PendingDefense:
        return _build(cls, data, action=Action.from_dict, attack=AttackTotal.from_dict)


@dataclass(frozen=True, kw_only=True)
class PendingFullRound:
    """BEY-8: a full-round action whose effect lands at the start of *actor*'s next turn."""

    type: str = "full-round"
    actor: str
    round: int
    action: Action

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PendingFullRound:
        return _build(cls, data, action=Action.from_dict)


#: work carried to a later round (``Encounter.pending``), told apart by ``type``
PendingWork = PendingDefense | PendingFullRound
_PENDING: dict[str, Any] = {"defense": PendingDefense, "full-round": PendingFullRound}


def pending_from_dict(data: Any) -> PendingWork:
    """One stored pending entry by its ``type``; an unknown type or key is an error."""
    if isinstance(data, (PendingDefense, PendingFullRound)):
        return data
    cls = _PENDING.get(str(data.get("type"))) if isinstance(data, Mapping) else None
    if cls is None:
        raise UnreadableInput(f"unknown pending work {data!r} (types: {', '.join(_PENDING)})")
    work: PendingWork = cls.from_dict(data)
    return work


def readied_from_dict(data: Any) -> ReadiedAction:
    return data if isinstance(data, ReadiedAction) else ReadiedAction.from_dict(data)


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
    readied: Mapping[str, ReadiedAction] = field(default_factory=dict)  # FD-14 ready
    unseen: bool = False                  # BEY-2: the surprising side stays unperceived
    pending: tuple[PendingWork, ...] = ()  # carried work: full-round actions (BEY-8), player defense rolls (FD-4)

    def __post_init__(self) -> None:
        # stored states (and the rounds codec) hand these over as plain mappings: type them
        # here, so an unknown key is an error naming it wherever the state came from
        object.__setattr__(self, "readied", {str(k): readied_from_dict(v)
                                             for k, v in dict(self.readied).items()})
        object.__setattr__(self, "pending", tuple(pending_from_dict(p) for p in self.pending))

    def combatant(self, key: str) -> Combatant:
        for c in self.combatants:
            if c.key == key:
                return c
        raise KeyError(key)

    def replace_combatant(self, new: Combatant) -> Encounter:
        return dataclasses.replace(
            self, combatants=tuple(new if c.key == new.key else c for c in self.combatants)
        )

    def to_dict(self) -> dict[str, Any]:
        d = _plain(self)
        d["combatants"] = [c.to_dict() for c in self.combatants]
        d["surprised"] = list(self.surprised)
        d["order"] = list(self.order)
        d["houserules"] = _jsonable(self.houserules)
        d["delayed"] = dict(self.delayed)
        d["readied"] = _jsonable(self.readied)
        d["pending"] = _jsonable(list(self.pending))
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Encounter:
        return _build(
            cls, data,
            combatants=lambda cs: tuple(Combatant.from_dict(c) for c in cs),
            surprised=tuple, order=tuple, houserules=dict, delayed=dict, readied=dict,
            pending=tuple,
        )


@dataclass(frozen=True)
class Resolution:
    """What :func:`pbp.rules.engine.resolve` returns: the new state and what happened."""

    encounter: Encounter
    events: tuple[Event, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"encounter": self.encounter.to_dict(),
                "events": [e.to_dict() for e in self.events]}


# --- JSON round-trip helpers -------------------------------------------------------------

def roll_to_dict(roll: Roll) -> dict[str, Any]:
    """A :class:`pbp.dice.Roll` as plain JSON types."""
    d = dataclasses.asdict(roll)
    d["faces"] = list(roll.faces)
    return d


def roll_from_dict(data: Mapping[str, Any]) -> Roll:
    return _build(Roll, data, faces=tuple)


def _jsonable(value: Any) -> Any:
    """Mappings -> dicts, tuples -> lists, enums -> values, rolls -> dicts (recursively)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Roll):
        return roll_to_dict(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return value


def _plain(obj: Any) -> dict[str, Any]:
    """Shallow field dict; callers convert nested values."""
    return {f.name: _jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}


_T = TypeVar("_T")


def _build(cls: type[_T], data: Mapping[str, Any], **convert: Any) -> _T:
    """Build *cls* from a mapping, converting named fields; unknown keys are an error
    that names them (a typo in a stored state must not pass silently)."""
    if not isinstance(data, Mapping):
        raise UnreadableInput(f"expected a mapping for {cls.__name__}, got {type(data).__name__}")
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - names)
    if unknown:
        raise UnreadableInput(f"unknown {cls.__name__} field(s): {', '.join(unknown)}")
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        conv = convert.get(key)
        try:
            kwargs[key] = conv(value) if conv is not None and value is not None else value
        except (TypeError, ValueError) as exc:
            raise UnreadableInput(f"{cls.__name__}.{key}: {exc}") from None
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise UnreadableInput(f"{cls.__name__}: {exc}") from None

"""What a fight carries between posts: readied actions, pending work, the encounter itself.

The carried pieces are typed (FD-14 readied actions with their triggers, FD-4 defenses a
player still rolls, BEY-8 full-round actions) so a stored state that lost a key or gained
an unknown one fails naming it, instead of failing later inside a turn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import UnreadableInput
from .declared import Action, Event
from .kinds import ActionKind
from .sheet import Combatant
from .values import _build, _jsonable, _plain

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

"""The mutable scratchpad of one :func:`pbp.rules.engine.resolve` call.

Why a mutable object inside a pure function: the rules read and change many
combatants in a fixed order; threading a new frozen Encounter through every hook
would be noise. The context is created per call, never escapes it, and
:meth:`RoundContext.finish` freezes it back into an :class:`Encounter`. Nothing here
reads a clock, a file or a global; the only randomness is the :class:`DiceBox`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..dice import DiceBox, Roll
from ..frozen import evolve, quick_init
from .model import (
    Action,
    Combatant,
    Condition,
    Declaration,
    Encounter,
    Event,
    PendingWork,
    ReadiedAction,
    Trigger,
)
from .sayers import say_for
from .stats import resolve_name


class RuleBook(Protocol):
    """What the context and the round loop ask of the ruleset they were given.

    Why a protocol: :class:`~pbp.rules.base.Ruleset` builds on this module (its hooks take
    a context), so the context names only the few things it needs and stays below it.
    """

    def rule_ref(self, step: str) -> str | None: ...

    def setting(self, path: str, default: Any = None) -> Any: ...


@quick_init
@dataclass(frozen=True)
class Modifier:
    """One signed bonus or penalty with the reason and the rule that gives it."""

    value: int
    reason: str
    rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "reason": self.reason, "rule": self.rule}


def total(mods: Iterable[Modifier]) -> int:
    """The modifiers' sum (a loop: no comprehension frame for the usual one to four)."""
    n = 0
    for m in mods:
        n += m.value
    return n


def mods_said(mods: Iterable[Modifier]) -> list[dict[str, Any]]:
    """``[m.to_dict() for m in mods]`` in one comprehension (an attack event names two lists)."""
    return [{"value": m.value, "reason": m.reason, "rule": m.rule} for m in mods]


#: what a ruleset's ``damage`` returns: (amount, rolls, rule, :func:`damage_parts` params)
Damage = tuple[int, list[Any], str | None, dict[str, Any]]


def damage_parts(parts: Iterable[Modifier], multiplier: int,
                 reduction: Iterable[Modifier] = (), floor: int | None = None, *,
                 multiply_bonuses: bool = True) -> dict[str, Any]:
    """A damage event's params naming how its amount was summed (issue 11 item 7), so a
    reply can show ``(1d8 (5) + 2 str_mod) x 2 - 3 reduction = 11``: the bonuses added to
    the dice, the critical multiplier (applied to the bonuses too unless
    *multiply_bonuses* is off), what was subtracted, and the minimum the amount is raised
    to. Zero terms are left out; they change nothing."""
    out: dict[str, Any] = {}
    named = [m.to_dict() for m in parts if m.value]
    if named:
        out["parts"] = named
    if multiplier > 1:
        out["multiplier"] = multiplier
        if named:
            out["multiply_bonuses"] = multiply_bonuses
    taken = [m.to_dict() for m in reduction if m.value]
    if taken:
        out["reduction"] = taken
    if floor is not None:
        out["floor"] = floor
    return out


@dataclass(frozen=True)
class Problem:
    """Why (part of) a declaration cannot stand. ``action_index`` None: the whole declaration."""

    code: str
    rule: str | None
    message: str
    action_index: int | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Budget:
    """What a combatant may still spend this round: slot name -> count (None = unlimited).

    ``conversions`` records each conversion made to pay for an action (BEY-9, FD-10),
    so the reply can say "your attack action became two quick actions".
    """

    slots: dict[str, int | None]
    spent: dict[str, int] = field(default_factory=dict)
    conversions: list[tuple[str, str, str | None]] = field(default_factory=list)
    marks: dict[str, Any] = field(default_factory=dict)   # ruleset bookkeeping (FD-12, BEY-1)

    def left(self, slot: str) -> int | None:
        if slot not in self.slots:
            return 0
        cap = self.slots[slot]
        if cap is None:
            return None
        return cap - self.spent.get(slot, 0)

    def has(self, slot: str, n: int = 1) -> bool:
        left = self.left(slot)
        return left is None or left >= n

    def spend(self, slot: str, n: int = 1) -> None:
        if not self.has(slot, n):
            raise ValueError(f"budget slot {slot!r} overspent")
        self.spent[slot] = self.spent.get(slot, 0) + n

    def convert(self, source: str, target: str, ratio: int, rule: str | None) -> None:
        """Turn one unspent *source* into *ratio* more *target* (e.g. attack -> 2 quick)."""
        self.spend(source)
        cap = self.slots.get(target, 0)
        if cap is not None:
            self.slots[target] = cap + ratio
        self.conversions.append((source, target, rule))
        self.marks.setdefault("ratios", []).append(ratio)

    def overspent(self) -> bool:
        return any(self.left(s) is not None and (self.left(s) or 0) < 0 for s in self.slots)

    def copy(self) -> Budget:
        new = _new(Budget)  # every declared action is paid on a copy: no __init__ call (SCALE-6)
        new.__dict__.update(slots=dict(self.slots), spent=dict(self.spent),
                            conversions=list(self.conversions), marks=dict(self.marks))
        return new

    def to_dict(self) -> dict[str, Any]:
        return {"slots": dict(self.slots), "spent": dict(self.spent),
                "conversions": [list(c) for c in self.conversions]}

    def within(self) -> bool:
        """No slot spent beyond its cap (the Hypothesis property)."""
        return all(cap is None or self.spent.get(s, 0) <= cap for s, cap in self.slots.items())


@quick_init
@dataclass(frozen=True)
class AttackRoll:
    """An attack roll: its total after modifiers, the natural d20, where it came from."""

    total: int
    natural: int | None
    roll: Roll | None
    mods: tuple[Modifier, ...] = ()
    player_rolled: bool = False


@quick_init
@dataclass(frozen=True)
class Defense:
    """What an attack is tested against: a static value (BEY-13) or a roll (FD-4)."""

    total: int
    kind: str                      # "physical", "firearm", "con", "will", "fortitude", "reflexos", "object"...
    roll: Roll | None = None
    natural: int | None = None
    mods: tuple[Modifier, ...] = ()
    rule: str | None = None
    pending: bool = False          # FD-4: the player rolls it in the next post


@dataclass(frozen=True)
class Watch:
    """A declared reaction armed for this round (DND-7): *owner*'s action number *index*
    goes off when *trigger* happens; unused by the end of the round, it lapses."""

    owner: str
    index: int
    action: Action
    trigger: Trigger


_new = object.__new__
_set = object.__setattr__
#: the fields :meth:`RoundContext.event` fills, in order: Event's own (checked on import)
_EVENT_FIELDS = ("code", "message", "actor", "target", "rule", "params", "rolls")
if tuple(f.name for f in dataclasses.fields(Event)) != _EVENT_FIELDS:
    raise TypeError("Event's fields changed: update RoundContext.event")


class RoundContext:
    """State of the round being resolved, plus the event log. See the module docstring."""

    def __init__(self, encounter: Encounter, ruleset: RuleBook, dice: DiceBox,
                 round_number: int, surprise_round: bool) -> None:
        self.encounter = encounter
        self.ruleset = ruleset
        self.dice = dice
        self.round = round_number
        self.surprise_round = surprise_round
        self.combatants: dict[str, Combatant] = {c.key: c for c in encounter.combatants}
        #: whether any combatant may have a condition (SCALE-6: expiry, checked before every
        #: turn, skips the walk over everyone while nobody has any). Only ever turns True:
        #: every change of a combatant goes through :meth:`put`.
        self.conditioned = any(c.conditions for c in encounter.combatants)
        self.order: list[str] = list(encounter.order)
        self.delayed: dict[str, float] = dict(encounter.delayed)
        self.readied: dict[str, ReadiedAction] = dict(encounter.readied)
        self.pending: list[PendingWork] = list(encounter.pending)
        #: this round's declared reactions waiting for their trigger (DND-7), in order
        self.watching: list[Watch] = []
        self.surprised: tuple[str, ...] = encounter.surprised
        self.events: list[Event] = []
        self.count: float | None = None
        self.turn_of: str | None = None
        self.budgets: dict[str, Budget] = {}
        self.acted: set[str] = set()
        self.scratch: dict[str, dict[str, Any]] = {}   # per-combatant, this round only
        self.declarations: dict[str, Declaration] = {}  # actor key -> its declaration, this round
        self.ahead: list[str] = []                      # act before everyone this round (BEY-17)
        #: the declared riders by whose turn they ride, for these declarations (riders.py)
        self.riding: tuple[dict[str, Declaration], dict[str, list[tuple[str, int, Action, Declaration]]]] | None = None

    # -- combatants ------------------------------------------------------------------
    def get(self, key: str) -> Combatant:
        return self.combatants[key]

    def put(self, combatant: Combatant) -> None:
        self.combatants[combatant.key] = combatant
        if combatant.conditions:
            self.conditioned = True

    def name(self, key: str | None) -> str:
        if key is None:
            return "someone"
        c = self.combatants.get(key)
        return c.name if c else key

    def note(self, key: str) -> dict[str, Any]:
        """Per-combatant scratch space for this round (attacks made, penalties...)."""
        return self.scratch.setdefault(key, {})

    def living(self) -> list[Combatant]:
        return [c for c in self.combatants.values() if not c.down and not c.is_object]

    # -- events ----------------------------------------------------------------------
    def emit(self, code: str, *, actor: str | None = None, target: str | None = None,
             rule: str | None = None, rolls: Iterable[Roll] = (), message: str | None = None,
             **params: Any) -> Event:
        """Record an event; its English sentence comes from :mod:`pbp.rules.messages`."""
        if message is None:  # the names as name() says them, only those said (SCALE-6)
            message = say_for(code, params, actor, target, self.combatants)
        event = Event(code, message, actor, target, rule, params, tuple(rolls))
        self.events.append(event)
        return event

    def event(self, code: str, actor: str | None, target: str | None, rule: str | None,
              rolls: tuple[Roll, ...], params: dict[str, Any]) -> None:
        """:meth:`emit` with every argument given in place and the params as one dict the
        event keeps, for the events of every turn and every attack (SCALE-6: keyword
        arguments gathered into ``**params`` cost more than the event itself). The event is
        built as its ``__init__`` would build it, its fields in a dict (``_EVENT_FIELDS``),
        without the call of a Python ``__init__``."""
        event = _new(Event)
        _set(event, "__dict__", {
            "code": code, "message": say_for(code, params, actor, target, self.combatants),
            "actor": actor, "target": target, "rule": rule, "params": params, "rolls": rolls})
        self.events.append(event)

    # -- dice ------------------------------------------------------------------------
    def roll(self, expression: str, *, who: Combatant | None = None, label: str | None = None) -> Roll:
        """Roll through the DiceBox (the only randomness), with *who*'s stats by name,
        saying whose turn it is (a correction's replay keeps each actor's own rolls)."""
        return self.dice.roll(expression, label=label, stats=who.stats if who else None,
                              resolve_name=resolve_name, turn=self.turn_of)

    def roll_for(self, action: Action, expression: str, *, who: Combatant | None = None,
                 label: str | None = None) -> tuple[Roll, bool]:
        """PBP-4: use the roll already made for the post's tag; roll only when there is none.

        Returns the roll and whether it was the player's own.
        """
        if action.rolled is not None:
            return action.rolled, True
        return self.dice.roll(expression, label=label, stats=who.stats if who else None,
                              resolve_name=resolve_name, turn=self.turn_of), False  # as roll()

    # -- state changes that always leave an event ------------------------------------
    def damage(self, key: str, amount: int, *, source: str | None, rule: str | None,
               rolls: Iterable[Roll] = (), **params: Any) -> int:
        """Lower *key*'s HP by *amount* (>= 0) and say so; HP never changes silently."""
        return self.hurt(key, amount, source, rule, tuple(rolls), params)

    def hurt(self, key: str, amount: int, source: str | None, rule: str | None,
             rolls: tuple[Roll, ...], params: Mapping[str, Any]) -> int:
        """:meth:`damage` with its arguments in place (the attacks' path, SCALE-6)."""
        c = self.combatants[key]
        amount = max(0, int(amount))
        before = c.hp
        after = before - amount
        down = c.down or after <= 0
        self.put(evolve(c, hp=after, down=down))
        self.event("damage", source, key, rule, rolls,
                   {"amount": amount, "hp_before": before, "hp_after": after, **params})
        if down and not c.down:
            code = "object.destroyed" if c.is_object else "combatant.down"
            self.emit(code, target=key, rule="FD-19" if c.is_object else None)
        return amount

    def heal(self, key: str, amount: int, *, source: str | None, rule: str | None,
             **params: Any) -> int:
        c = self.get(key)
        before = c.hp
        after = min(c.max_hp, before + max(0, int(amount)))
        self.put(evolve(c, hp=after, down=c.down and after <= 0))
        self.emit("healing", actor=source, target=key, rule=rule, amount=after - before,
                  hp_before=before, hp_after=after, **params)
        return after - before

    def add_condition(self, key: str, condition: Condition, *, rule: str | None,
                      source: str | None = None, message: str | None = None,
                      **params: Any) -> None:
        c = self.get(key)
        kept = tuple(x for x in c.conditions if x.name != condition.name)
        self.put(evolve(c, conditions=kept + (condition,)))
        self.emit("condition.added", actor=source, target=key, rule=rule, message=message,
                  condition=condition.name, rounds=condition.rounds, **params)

    def remove_condition(self, key: str, name: str, *, rule: str | None,
                         reason: str = "ended", **params: Any) -> bool:
        c = self.get(key)
        if not c.has(name):
            return False
        self.put(evolve(c, conditions=tuple(x for x in c.conditions if x.name != name)))
        self.emit("condition.ended", target=key, rule=rule, condition=name, reason=reason, **params)
        return True

    def expire_conditions(self, count: float | None, rule: str | None) -> None:
        """Remove every condition whose duration ran out at this point of the round (FD-6)."""
        if not self.conditioned:
            return
        for key in [k for k, c in self.combatants.items() if c.conditions]:
            for cond in self.get(key).conditions:
                if cond.expired(self.round, count):
                    self.remove_condition(key, cond.name, rule=rule, reason="expired")

    # -- the result ------------------------------------------------------------------
    def finish(self, next_round: int) -> Encounter:
        by_key = self.combatants
        return dataclasses.replace(
            self.encounter,
            combatants=tuple(by_key[c.key] for c in self.encounter.combatants),
            round=next_round,
            surprise=False if self.surprise_round else self.encounter.surprise,
            surprised=self.surprised,
            order=tuple(self.order),
            delayed=dict(self.delayed),
            readied=dict(self.readied),
            pending=tuple(self.pending),
        )

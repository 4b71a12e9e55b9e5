"""What an action says beyond its kind, target and weapon: typed, frozen, one type per kind.

Why typed: the options used to travel as a loose dict, so a typo (``"distnace"``) or an
option of another kind (``until`` on a move) passed silently and the ruleset read its
default. Now each :class:`~pbp.rules.model.ActionKind` has its own frozen type
(:data:`OPTION_TYPES`), chosen by the kind; building one with an option that kind does not
take raises :class:`~pbp.errors.UnreadableInput` naming the option and the kind.

Every type shares one typed vocabulary (the fields of :class:`Options`), so a ruleset
reads ``action.options.distance`` on any action and gets the field's default where the
kind does not take it; what differs per kind is what may be *given* (``ACCEPTS``).
Values are what a post or a scenario wrote: the rulesets still judge them (a distance of
``"far"`` is refused with a reason, never a crash), so the field types document the
intended shape and lists are kept as tuples.

The stored form (:meth:`Options.to_dict`) lists only the options given (fields equal to
their default are left out), so it is the same JSON the loose dict was.

>>> o = options_for(ActionKind.MOVE, {"distance": 6, "items": ["body"]})
>>> type(o).__name__, o.distance, o.items, o.to_dict()
('MoveOptions', 6, ('body',), {'distance': 6, 'items': ['body']})
>>> options_for(ActionKind.MOVE, {"until": 3})
Traceback (most recent call last):
pbp.errors.UnreadableInput: 'until' is not an option of a move action (it belongs to: delay)
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ..errors import UnreadableInput
from .kinds import ActionKind

__all__ = [
    "OPTION_TYPES",
    "PROVENANCE",
    "AttackOptions",
    "BonusOptions",
    "CastOptions",
    "DefendOptions",
    "DelayOptions",
    "FreeOptions",
    "FullRoundOptions",
    "ManeuverOptions",
    "MoveOptions",
    "Options",
    "OtherOptions",
    "QuickOptions",
    "ReactionOptions",
    "ReadyOptions",
    "accepted",
    "options_for",
]

Json = Any  # a value as a post or a scenario wrote it (str, number, bool, list, mapping)


@dataclass(frozen=True, repr=False)
class Options:
    """The typed vocabulary every kind's options share (build a kind's own type, or use
    :func:`options_for`; this base accepts only :data:`COMMON`)."""

    # -- where the action came from (set by the parser) ----------------------------------
    source: str | None = None             # prose | explicit | command | label
    verb: str | None = None               # the word that declared it
    roll_index: int | None = None         # the post's roll tag it owns (PBP-4)
    roll_indices: tuple[int, ...] = ()    # every tag it owns, the first included
    candidates: tuple[str, ...] = ()      # several combatants matched the target: reported
    target_text: str | None = None        # the words that named the target
    # -- bot command lines (Avrae, dice bots) and narrator commands ----------------------
    command: str | None = None            # the command line; "init" / "init-clear" (BEY-4)
    advantage: int = 0                    # +1 adv, -1 dis
    args: tuple[str, ...] = ()            # keyword arguments (crit, magical...)
    flags: Mapping[str, Json] | None = None  # other -flags, by name without the dash
    actor: str | None = None              # !ma/!mc: the monster's roster key
    actor_text: str | None = None         # ... as written
    targets: tuple[str, ...] = ()         # every -t that matched, when more than one
    targets_text: tuple[str, ...] = ()    # -t names that matched nobody (or several)
    via: str | None = None                # "init": given as !i a / !i cast
    check: str | None = None              # !c: the skill checked
    initiative: bool = False              # the action is an initiative roll
    post: str | None = None               # ... from this post (platform id)
    # -- when it happens ------------------------------------------------------------------
    on_turn_of: str | None = None         # BEY-6: ridden on another combatant's turn
    interrupts: bool = False              # BEY-6: the ride interrupts that turn
    cancel_cast: bool = False             # BEY-16: cancel one's own casting
    ambush: bool = False                  # BEY-2
    # -- rolls: skills, checks, contests (forum-d20, two-action, resistance, dnd5e) -------
    skill: str | None = None              # TA-3: the skill rolled
    characteristic: str | None = None     # RES-2
    synergy: str | None = None            # RES-2: a second Characteristic
    target_synergy: str | None = None     # RES-4: the defender's
    helpers: tuple[str, ...] = ()         # RES-2: combatants helping
    conflict: str | None = None           # RES-1: physical | social
    resistance: str | None = None         # RES-1: which Resistance rolls
    difficulty: Json = None               # RES-3: a number or the table's word
    opposed: bool = False                 # RES-4
    against: str | None = None            # RES-4: the defender's Characteristic
    to: str | None = None                 # RES-5 near/far; TA-1 where a move goes
    intent: str | None = None             # RES-5: what a move instead of an attack means
    situational: Mapping[str, Json] | None = None  # TA-6 modifiers
    inspiration: Json = None              # TA-3 bonus
    mastery: Json = None                  # TA-3 bonus
    dc: Json = None                       # TA-4 Difficulty
    place: str | None = None              # TA-4: a shot at a place, not a combatant
    ranged: bool | None = None            # TA-3/4: forced ranged or melee
    parry: str | None = None              # TA-3: the parry skill named
    prepare: str | None = None            # TA-1: the spell prepared
    item: str | None = None               # TA-2 item used; FD-14 disarm's item
    stowed: str | None = None             # TA-2: where the item is (belt, pocket...)
    save: str | None = None               # FD-4 defense test (default will); !s: the save
    spell: str | None = None              # the spell's name
    power: Json = None                    # FD-5 power name; RES-8 power points
    maneuver: str | None = None           # FD-14 / RES-7 maneuver name
    bonus: Json = None                    # a flat bonus to the roll
    damage: Json = None                   # RES-8 maneuver damage
    reduction: Json = None                # RES-8 defense
    defense: Json = None                  # FD-4 the defense test rolled; a posted defense roll
    unarmed: bool = False                 # RES-5
    distance: Json = None                 # how far (metres, squares, feet: the ruleset's)
    # -- dnd5e -----------------------------------------------------------------------------
    speech: bool = False                  # DND-6: brief speech is free
    gesture: bool = False                 # DND-6
    utterance: bool = False               # DND-6
    costs_action: bool = False            # DND-6: the narrator asks an action for it
    granted_by: str | None = None         # DND-5: the feature that grants the bonus action
    attack: bool | None = None            # DND-7: a reaction that attacks (default: weapon given)
    # -- kind-specific (see ``ACCEPTS``) ----------------------------------------------------
    move: str = "walk"                    # move: walk | stand | draw | item (FD-15)
    items: tuple[str, ...] = ()           # move: BEY-7 items taken (body, beside)
    until: Json = None                    # delay: FD-16 the count waited for
    after: str | None = None              # delay: FD-16 act right after this combatant
    trigger: Json = None                  # ready: FD-14 {"actor": key, "does": kind} or words;
                                          # reaction: DND-7 what sets it off
    away_from: Json = None                # move: DND-7 whom the move leaves (a key or keys)
    action: Mapping[str, Json] | None = None  # ready / full-round: the inner action, stored form
    touch: bool = False                   # strikes: FD-4 touch attack
    into_melee: bool = False              # strikes: FD-10 shooting into melee
    mental: bool = False                  # strikes: FD-4 mental attack
    area: Json = None                     # strikes: FD-4 area effect
    inflict: str | None = None            # cast: FD-18 the condition imposed
    rounds: Json = None                   # cast: FD-6 how long it lasts

    KIND: ClassVar[ActionKind | None] = None
    ACCEPTS: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        """Refuse an option the kind does not take (a given value that is not the default)."""
        for name in _refused(type(self)):
            if getattr(self, name) != _DEFAULTS[name]:
                raise UnreadableInput(_not_an_option(name, self.KIND))

    def __repr__(self) -> str:
        """Only the options given, so the repr rebuilds the value and stays short."""
        given = ", ".join(f"{n}={getattr(self, n)!r}" for n in _NAMES
                          if getattr(self, n) != _DEFAULTS[n])
        return f"{type(self).__name__}({given})"

    def given(self, name: str) -> bool:
        """Whether option *name* was given (differs from its default)."""
        return bool(self.named(name) != _DEFAULTS[name])

    def named(self, name: str) -> Any:
        """The option called *name* (for rules that check several by name); an unknown
        name is an error, never a silent default."""
        if name not in _DEFAULTS:
            raise UnreadableInput(_not_an_option(name, self.KIND))
        return getattr(self, name)

    def to_dict(self) -> dict[str, Any]:
        """The options given, as plain JSON types (the stored form)."""
        # SCALE-6: one pass over the instance's values, scalars kept as they are; over the
        # names it was given only, when it knows them (see _GIVEN): an ingest batch stores
        # 50 actions, each compared field by field with 73 defaults (4-6 us an action)
        values = self.__dict__
        given = values.get(_GIVEN)
        items = _DEFAULT_ITEMS if given is None else _items_of(given)
        return {n: v if type(v) in _SCALARS else _jsonable(v) for n, default in items
                if (v := values[n]) != default}

    def evolve(self, **changes: Any) -> Options:
        """A copy with *changes*, each checked against the kind's options (lists kept as
        tuples). Cheaper than ``dataclasses.replace``, which rebuilds every field."""
        accepts = type(self).ACCEPTS
        for name, value in changes.items():
            if name not in accepts:
                raise UnreadableInput(_not_an_option(name, self.KIND))
            if name in _TUPLES and isinstance(value, list):
                changes[name] = tuple(value)
        # what copy.copy does for a dataclass without slots (a new instance, the state
        # copied), without its reduce protocol: a tenth of reading a post's actions (SCALE-6)
        new = object.__new__(type(self))
        state = new.__dict__
        state.update(self.__dict__)
        state.update(changes)
        given = state.get(_GIVEN)
        if given is not None:   # still known: the names given before and these
            state[_GIVEN] = given.union(changes)
        return new

    def without(self, *names: str) -> Options:
        """A copy with *names* back at their defaults."""
        return dataclasses.replace(self, **{n: _DEFAULTS[n] for n in names})


#: Options the parser sets itself (where the action came from), never written by a player.
PROVENANCE = frozenset(("source", "verb", "roll_index", "roll_indices", "candidates",
                        "target_text"))

_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Options))
#: The instance-dict key of the option names an instance may differ from its defaults in:
#: set on each kind's empty options (:func:`options_for`) and carried by :meth:`Options.evolve`,
#: the way the parser and the stored form build them. Absent (an instance built by its
#: ``__init__`` or ``dataclasses.replace``): every field is compared. Not a field: equality,
#: hashing and the stored form ignore it.
_GIVEN = "_given_names"
_ITEMS: dict[frozenset[str], tuple[tuple[str, Any], ...]] = {}
_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Options)}
_DEFAULT_ITEMS: tuple[tuple[str, Any], ...] = tuple(_DEFAULTS.items())
_SCALARS = frozenset((str, int, float, bool, type(None)))
_TUPLES = frozenset(f.name for f in fields(Options) if str(f.type).startswith("tuple"))


def _items_of(given: frozenset[str]) -> tuple[tuple[str, Any], ...]:
    """(name, default) of the names *given*, in field order (the stored form's order)."""
    items = _ITEMS.get(given)
    if items is None:
        if len(_ITEMS) >= 4096:   # a handful of sets in practice; never grows unbounded
            _ITEMS.clear()
        items = _ITEMS[given] = tuple((n, d) for n, d in _DEFAULT_ITEMS if n in given)
    return items


#: What every kind takes: provenance, commands, timing, rolls and the rulesets' own checks
#: (a ruleset refuses an option that makes no sense for a kind with its rule id).
COMMON = frozenset(_NAMES) - {"move", "items", "until", "after", "trigger", "action", "touch",
                              "into_melee", "mental", "area", "inflict", "rounds", "away_from"}
_STRIKE = frozenset({"touch", "into_melee", "mental", "area"})


@dataclass(frozen=True, repr=False)
class AttackOptions(Options):
    KIND = ActionKind.ATTACK
    ACCEPTS = COMMON | _STRIKE


@dataclass(frozen=True, repr=False)
class CastOptions(Options):
    KIND = ActionKind.CAST
    ACCEPTS = COMMON | _STRIKE | {"inflict", "rounds"}


@dataclass(frozen=True, repr=False)
class MoveOptions(Options):
    KIND = ActionKind.MOVE
    ACCEPTS = COMMON | {"move", "items", "away_from"}


@dataclass(frozen=True, repr=False)
class QuickOptions(Options):
    KIND = ActionKind.QUICK
    ACCEPTS = COMMON


@dataclass(frozen=True, repr=False)
class FreeOptions(Options):
    KIND = ActionKind.FREE
    ACCEPTS = COMMON


@dataclass(frozen=True, repr=False)
class FullRoundOptions(Options):
    KIND = ActionKind.FULL_ROUND
    ACCEPTS = COMMON | _STRIKE | {"action"}


@dataclass(frozen=True, repr=False)
class DelayOptions(Options):
    KIND = ActionKind.DELAY
    ACCEPTS = COMMON | {"until", "after"}


@dataclass(frozen=True, repr=False)
class ReadyOptions(Options):
    KIND = ActionKind.READY
    ACCEPTS = COMMON | {"trigger", "action"}


@dataclass(frozen=True, repr=False)
class DefendOptions(Options):
    KIND = ActionKind.DEFEND
    ACCEPTS = COMMON


@dataclass(frozen=True, repr=False)
class ManeuverOptions(Options):
    KIND = ActionKind.MANEUVER
    ACCEPTS = COMMON | _STRIKE


@dataclass(frozen=True, repr=False)
class BonusOptions(Options):
    KIND = ActionKind.BONUS
    ACCEPTS = COMMON


@dataclass(frozen=True, repr=False)
class ReactionOptions(Options):
    KIND = ActionKind.REACTION
    ACCEPTS = COMMON | _STRIKE | {"trigger"}


@dataclass(frozen=True, repr=False)
class OtherOptions(Options):
    KIND = ActionKind.OTHER
    ACCEPTS = COMMON


#: The options type of each kind.
OPTION_TYPES: dict[ActionKind, type[Options]] = {
    t.KIND: t for t in (AttackOptions, CastOptions, MoveOptions, QuickOptions, FreeOptions,
                        FullRoundOptions, DelayOptions, ReadyOptions, DefendOptions,
                        ManeuverOptions, BonusOptions, ReactionOptions, OtherOptions)
    if t.KIND is not None
}
Options.ACCEPTS = COMMON

_REFUSED: dict[type[Options], tuple[str, ...]] = {}


def _refused(cls: type[Options]) -> tuple[str, ...]:
    names = _REFUSED.get(cls)
    if names is None:
        names = _REFUSED[cls] = tuple(n for n in _NAMES if n not in cls.ACCEPTS)
    return names


def accepted(kind: ActionKind) -> frozenset[str]:
    """The option names *kind* takes."""
    return OPTION_TYPES[kind].ACCEPTS


def _not_an_option(name: str, kind: ActionKind | None) -> str:
    what = "an action" if kind is None else \
        f"{'an' if kind.value[0] in 'aeiou' else 'a'} {kind.value} action"
    if name not in _DEFAULTS:
        return f"unknown option '{name}' for {what}"
    owners = [k.value for k, t in OPTION_TYPES.items() if name in t.ACCEPTS]
    return f"'{name}' is not an option of {what} (it belongs to: {', '.join(owners)})"


_EMPTY: dict[ActionKind, Options] = {}


def options_for(kind: ActionKind, given: Mapping[str, Any] | Options | None = None) -> Options:
    """*kind*'s options type built from *given* (a mapping of option names, e.g. the stored
    form, or an options value of another kind, re-checked); unknown names are an error."""
    cls = OPTION_TYPES[kind]
    if isinstance(given, Options):
        if type(given) is cls:
            return given
        given = {n: getattr(given, n) for n in _NAMES if getattr(given, n) != _DEFAULTS[n]}
    empty = _EMPTY.get(kind)
    if empty is None:
        empty = cls()
        empty.__dict__[_GIVEN] = frozenset()   # nothing given: evolve records what is
        _EMPTY[kind] = empty
    if not given:
        return empty
    if not isinstance(given, Mapping):
        raise UnreadableInput(f"the options of a {kind.value} action must be a mapping, "
                              f"not {type(given).__name__}")
    return empty.evolve(**{str(k): v for k, v in given.items()})


def _jsonable(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value

"""Standing orders (STALL-2): when a conditional order's condition happened, and whether a
default would spend something limited. Pure: events and values in, answers out.

Why here: "did the orc attack Lyra this round?" and "does this default cast a spell?" are
rules questions. The rounds layer asks them around a resolution (it resolves the round
with the other combatants first, then asks :func:`condition_met` of the events), and the
engine itself never learns that a standing order exists.

A condition is one of three kinds the engine's events can show:

* ``attacks``: *who* (a combatant key, or any enemy when None) attacks; with ``me`` only
  an attack on the order's owner counts;
* ``falls``: *who* (an ally's key, or any ally when None) goes down;
* ``hit``: the owner is hit or takes damage.

>>> from pbp.rules.model import Event
>>> ev = [Event("attack.miss", "", actor="orc", target="lyra")]
>>> condition_met(StandingCondition("attacks", "orc", me=True), ev, "lyra", {})
True
>>> condition_met(StandingCondition("hit"), ev, "lyra", {})
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .kinds import ActionKind
from .model import Action, Event

#: condition kinds a standing order may wait for
CONDITION_KINDS = ("attacks", "falls", "hit")

#: event codes that are an attack by ``actor`` on ``target`` (whatever its outcome)
ATTACK_CODES = frozenset({
    "attack.hit", "attack.miss", "attack.critical", "attack.auto-hit", "attack.pending",
    "attack.parried", "attack.blocked", "attack.evaded", "attack.misdirected",
    "attack.scattered", "attack.miss-chance"})
#: event codes that say ``target`` was hit or hurt
HIT_CODES = frozenset({"attack.hit", "attack.critical", "attack.auto-hit", "damage"})


@dataclass(frozen=True)
class StandingCondition:
    """What a conditional order waits for (see the module docstring)."""

    kind: str
    who: str | None = None
    me: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "who": self.who, "me": self.me}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StandingCondition:
        kind = str(data.get("kind", ""))
        if kind not in CONDITION_KINDS:
            raise ValueError(f"unknown standing-order condition {kind!r}")
        who = data.get("who")
        return cls(kind, None if who is None else str(who), bool(data.get("me", False)))


def condition_met(cond: StandingCondition, events: Sequence[Event], owner: str,
                  sides: Mapping[str, str]) -> bool:
    """Whether *cond* happened among *events* (see :func:`condition_event`)."""
    return condition_event(cond, events, owner, sides) is not None


def condition_event(cond: StandingCondition, events: Sequence[Event], owner: str,
                    sides: Mapping[str, str]) -> Event | None:
    """The first event among *events* (a round resolved without the order) that is *cond*
    happening, or None.

    *sides* maps combatant keys to their side, so "any enemy" and "any ally" mean the
    other side and the owner's own (an unknown side counts as neither)."""
    mine = sides.get(owner)

    def enemy(key: str | None) -> bool:
        return key is not None and key != owner and key in sides and sides[key] != mine

    def ally(key: str | None) -> bool:
        return key is not None and key != owner and key in sides and sides[key] == mine

    for ev in events:
        if cond.kind == "attacks" and ev.code in ATTACK_CODES:
            by = ev.actor == cond.who if cond.who is not None else enemy(ev.actor)
            if by and (not cond.me or ev.target == owner):
                return ev
        elif cond.kind == "falls" and ev.code == "combatant.down":
            if ev.target == cond.who if cond.who is not None else ally(ev.target):
                return ev
        elif cond.kind == "hit" and ev.code in HIT_CODES and ev.target == owner:
            if ev.code != "damage" or int(ev.params.get("amount", 1) or 0) > 0:
                return ev
    return None


#: action kinds aimed at someone: a conditional order's "I shoot it" aims at whom the
#: condition names (the orc that charged, the attacker who hit me)
AIMED = frozenset({ActionKind.ATTACK, ActionKind.CAST, ActionKind.MANEUVER})


def aimed(actions: Sequence[Action], cond: StandingCondition, ev: Event) -> tuple[Action, ...]:
    """*actions* of a fired order, an aimed action with no target given the condition's
    combatant ("if the orc charges, I shoot *it*"): the one named, else the event's
    attacker; an ally's fall names no enemy, so those keep what they said.

    >>> a = aimed([Action(ActionKind.ATTACK)], StandingCondition("hit", me=True),
    ...           Event("attack.hit", "", actor="orc", target="lyra"))
    >>> a[0].target
    'orc'
    """
    who = cond.who if cond.kind == "attacks" and cond.who else (
        ev.actor if cond.kind in ("attacks", "hit") else None)
    out = []
    for a in actions:
        if a.kind in AIMED and a.target is None and who is not None:
            a = replace(a, target=who)
        out.append(a)
    return tuple(out)


#: kinds that are extra actions (DND-5 bonus, DND-7 reaction): granted, not always there
EXTRA_KINDS = frozenset({ActionKind.BONUS, ActionKind.REACTION})


def limited_resource(action: Action) -> str | None:
    """What limited resource *action* would spend, or None: a default must spend none
    (STALL-2). The answer is one of ``spell``, ``power``, ``item``, ``extra action``.

    Spells: a cast (every ruleset), a spell named or prepared (TA-1). Powers: FD-5 powers
    and RES-8 power points (``options.power``). Items: TA-2 item use and FD-15 / BEY-7
    items taken or used. Extra actions: bonus actions and reactions (DND-5, DND-7), and
    an explicit extra attack (FD-12 / BEY-12 extras are per round, but a default that
    asks for them asks more than one action of a kind, checked by the caller).

    >>> limited_resource(Action(ActionKind.DEFEND)) is None
    True
    >>> limited_resource(Action(ActionKind.CAST, options={"spell": "fireball"}))
    'spell'
    """
    o = action.options
    if action.kind is ActionKind.CAST or o.spell or o.prepare:
        return "spell"
    if o.power:
        return "power"
    if o.item or o.items or o.move == "item":
        return "item"
    if action.kind in EXTRA_KINDS or o.granted_by:
        return "extra action"
    inner = o.action
    if inner:
        return limited_resource(Action.from_dict(inner))
    return None


def default_problem(actions: Sequence[Action]) -> str | None:
    """Why *actions* cannot be a default (the first limited resource, or more than one
    action of a kind: an extra action), or None when they can."""
    seen: set[ActionKind] = set()
    for a in actions:
        spent = limited_resource(a)
        if spent is not None:
            return spent
        if a.kind in seen and a.kind is not ActionKind.FREE:
            return "extra action"
        seen.add(a.kind)
    return None

"""Combat maneuvers (FD-14): opposed Luta tests that do something other than damage.

Why a module of its own: seven maneuvers with their own after-effects would swamp the
ruleset class. Each function takes the ruleset (for modifiers and settings), the round
context, the actor and the action, and leaves its effects as events.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..dice import Roll
from . import conditions as C
from .base import Ruleset
from .context import Modifier, RoundContext, total
from .model import Action, Combatant
from .powers import player_reaction_marks

RULE = "FD-14"
#: maneuver name -> the slot it costs (FD-14: feint is a free action, releasing a grapple too)
MANEUVERS: dict[str, str] = {
    "grapple": "combat", "trip": "combat", "disarm": "combat", "push": "combat",
    "sunder": "combat", "escape": "combat", "feint": "free", "release": "free",
}
SYNONYMS: dict[str, str] = {
    "agarrar": "grapple", "derrubar": "trip", "desarmar": "disarm", "empurrar": "push",
    "separar": "sunder", "fintar": "feint", "soltar": "release", "escapar": "escape",
    "захват": "grapple", "подсечка": "trip", "обезоружить": "disarm", "толчок": "push",
    "финт": "feint",
}


def name_of(action: Action) -> str | None:
    raw = str(action.options.maneuver or "").casefold()
    name = SYNONYMS.get(raw, raw)
    return name if name in MANEUVERS else None


def _opposed(rs: Ruleset, ctx: RoundContext, c: Combatant, target: Combatant,
             action: Action, *, skill: str, label: str
             ) -> tuple[bool, int, int, list[Roll], dict[str, Any]]:
    """Attacker d20 + *skill* vs target d20 + luta; ties go to ``maneuvers.ties``. The last
    item names the modifiers each side added, for the reply (issue 11 item 7)."""
    mods = [Modifier(c.stat(skill), skill)] + rs.condition_modifiers(ctx, c, "attack",
                                                                     against=target)
    roll, own = ctx.roll_for(action, "1d20", who=c, label=label)
    added = [m for m in mods if m.rule] if own else mods
    mine = roll.total + total(added)
    tmods = [Modifier(target.stat("luta"), "luta")] + rs.condition_modifiers(
        ctx, target, "roll", against=c)
    troll = ctx.roll("1d20", who=target, label=f"{label} (opposed)")
    theirs = troll.total + total(tmods)
    ties = rs.setting("maneuvers.ties", "defender")
    won = mine > theirs or (mine == theirs and ties == "attacker")
    parts = {"mods": [m.to_dict() for m in added], "opposed_mods": [m.to_dict() for m in tmods],
             **player_reaction_marks(rs, target)}
    return won, mine, theirs, [roll, troll], parts


def perform(rs: Ruleset, ctx: RoundContext, c: Combatant, action: Action) -> None:
    """FD-14: release and feint alone; every other maneuver is an opposed Luta test whose
    winner gets the maneuver's effect."""
    name = name_of(action)
    if name == "release":
        release(ctx, c)
        return
    assert action.target is not None and name is not None
    target = ctx.get(action.target)
    if name == "feint":
        feint(rs, ctx, c, target, action)
        return
    won, mine, theirs, rolls, parts = _opposed(rs, ctx, c, target, action, skill="luta",
                                               label=name)
    ctx.emit("maneuver.won" if won else "maneuver.lost", actor=c.key, target=target.key,
             rule=RULE, rolls=rolls, maneuver=name, total=mine, opposed=theirs, **parts)
    effect = _EFFECTS.get(name)
    if won and effect is not None:
        effect(rs, ctx, c, target, action, mine - theirs)


def _grapple(rs: Ruleset, ctx: RoundContext, c: Combatant, target: Combatant,
             action: Action, margin: int) -> None:
    ctx.add_condition(target.key, C.lasting(C.GRAPPLED, None, round_number=ctx.round,
                                            count=ctx.count, source=c.key), rule=RULE,
                      source=c.key)
    ctx.add_condition(c.key, C.lasting(C.GRAPPLING, None, round_number=ctx.round,
                                       count=ctx.count, source=target.key), rule=RULE,
                      source=c.key)


def _escape(rs: Ruleset, ctx: RoundContext, c: Combatant, target: Combatant,
            action: Action, margin: int) -> None:
    grappler = ctx.get(c.key).condition(C.GRAPPLED)
    ctx.remove_condition(c.key, C.GRAPPLED, rule=RULE, reason="escaped")
    if grappler is not None and grappler.source in ctx.combatants:
        ctx.remove_condition(grappler.source, C.GRAPPLING, rule=RULE, reason="escaped")


def _trip(rs: Ruleset, ctx: RoundContext, c: Combatant, target: Combatant,
          action: Action, margin: int) -> None:
    ctx.add_condition(target.key, C.lasting(C.PRONE, None, round_number=ctx.round,
                                            count=ctx.count, source=c.key), rule=RULE,
                      source=c.key)


def _disarm(rs: Ruleset, ctx: RoundContext, c: Combatant, target: Combatant,
            action: Action, margin: int) -> None:
    current = ctx.get(target.key)
    item = action.options.item
    dropped = current.weapon(item if isinstance(item, str) else None)
    if dropped is not None:
        ctx.put(dataclasses.replace(current, weapons=tuple(
            w for w in current.weapons if w is not dropped)))
    ctx.emit("maneuver.disarm", actor=c.key, target=target.key, rule=RULE,
             item=dropped.name if dropped else None,
             message=f"{target.name} drops {dropped.name if dropped else 'what they held'}.")


def _push(rs: Ruleset, ctx: RoundContext, c: Combatant, target: Combatant,
          action: Action, margin: int) -> None:
    """1.5 m, and 1.5 m more per 5 points of margin (the numbers are houserules)."""
    base = float(rs.setting("maneuvers.push_base", 1.5))
    step = float(rs.setting("maneuvers.push_step", 1.5))
    every = int(rs.setting("maneuvers.push_margin", 5))
    distance = base + step * (max(0, margin) // every)
    ctx.emit("maneuver.push", actor=c.key, target=target.key, rule=RULE,
             distance=distance, margin=margin)


def _sunder(rs: Ruleset, ctx: RoundContext, c: Combatant, target: Combatant,
            action: Action, margin: int) -> None:
    """The weapon's damage to the item; an item that is an object takes it as FD-19 damage."""
    item = action.options.item
    weapon = rs.weapon_for(c, action)
    droll = ctx.roll(weapon.damage, who=c, label="sunder")
    if isinstance(item, str) and item in ctx.combatants and ctx.get(item).is_object:
        obj = ctx.get(item)
        ctx.damage(item, max(0, droll.total - obj.stat("reduction")), source=c.key,
                   rule="FD-19", rolls=[droll], weapon=weapon.name)
    else:
        ctx.emit("maneuver.sunder", actor=c.key, target=target.key, rule=RULE,
                 rolls=[droll], amount=droll.total, item=item,
                 message=f"{c.name} strikes {target.name}'s {item or 'item'} "
                         f"for {droll.total} damage.")


_Effect = Callable[[Ruleset, RoundContext, Combatant, Combatant, Action, int], None]
#: what winning the opposed test does, by maneuver (FD-14)
_EFFECTS: dict[str, _Effect] = {"grapple": _grapple, "escape": _escape, "trip": _trip,
                                "disarm": _disarm, "push": _push, "sunder": _sunder}


def feint(rs: Ruleset, ctx: RoundContext, c: Combatant, target: Combatant,
          action: Action) -> None:
    """FD-14: Deception (a free action) against the target's initiative roll; on a win the
    target is flat-footed against c's next attack, until the end of next round."""
    mods = [Modifier(c.stat("enganacao"), "enganacao")] + rs.condition_modifiers(
        ctx, c, "roll", against=target)
    roll, own = ctx.roll_for(action, "1d20", who=c, label="feint")
    added = [m for m in mods if m.rule] if own else mods
    mine = roll.total + total(added)
    theirs = int(target.initiative or 0)
    won = mine > theirs or (mine == theirs and rs.setting("maneuvers.ties") == "attacker")
    ctx.emit("maneuver.won" if won else "maneuver.lost", actor=c.key, target=target.key,
             rule=RULE, rolls=[roll], maneuver="feint", total=mine, opposed=theirs,
             mods=[m.to_dict() for m in added])
    if won:
        # ends at the start of round+2 (count None): "until the end of the next round"
        ctx.add_condition(target.key, C.lasting(C.FEINTED, 2, round_number=ctx.round,
                                                count=None, source=c.key), rule=RULE,
                          source=c.key)


def release(ctx: RoundContext, c: Combatant) -> None:
    held = c.condition(C.GRAPPLING)
    ctx.remove_condition(c.key, C.GRAPPLING, rule=RULE, reason="released")
    if held is not None and held.source in ctx.combatants:
        ctx.remove_condition(held.source, C.GRAPPLED, rule=RULE, reason="released")

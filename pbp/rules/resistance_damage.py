"""RES-8: how much damage an attack that got through does, and what it is made of.

Why apart from :mod:`pbp.rules.resistance`: the sum has many parts (the margin, the
weapon, the maneuver, a power, armor, the defender's own maneuver or power), each of
which the reply names; kept here it reads as the rule does, one part a line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .context import RoundContext
from .model import Action, Combatant, Weapon
from .narrators_call import whole_number
from .resistance_sheet import INTEGER, ResistanceSheet


def weapon_value(ctx: RoundContext, c: Combatant, weapon: Weapon) -> tuple[int, list[Any]]:
    """A weapon's damage: a plain number, or a dice expression rolled now."""
    text = str(weapon.damage).strip()
    if INTEGER.match(text):
        return int(text), []
    roll = ctx.roll(text, who=c, label="weapon")
    return roll.total, [roll]


def res8_damage(rs: ResistanceSheet, ctx: RoundContext, c: Combatant, target: Combatant,
                action: Action, weapon: Weapon, guard: Mapping[str, Any], *, margin: int,
                conflict: str, maneuver: str, unarmed: bool) -> tuple[int, list[str], list[Any]]:
    """(damage, the parts said in the reply, the weapon's rolls): the margin + weapon +
    maneuver + power - armor - the defender's maneuver or power; unarmed -2 (physical
    conflicts only); never below 0."""
    extra: list[Any] = []
    damage = margin
    notes = [f"difference {margin}"]
    if not unarmed:
        value, extra = weapon_value(ctx, c, weapon)
        damage += value
        notes.append(f"{weapon.name} {value:+d}")
    elif conflict == "physical":
        pen = int(rs.setting("damage.unarmed_penalty", 2))
        damage -= pen
        notes.append(f"unarmed -{pen}")
    if maneuver == "brutal":
        which, value = rs.brutal_value(c, conflict)
        damage += value
        notes.append(f"Brutal Attack ({which}) +{value}")
    elif maneuver != "attack" and whole_number(action.options.get("damage")):
        extra_damage = whole_number(action.options["damage"]) or 0
        damage += extra_damage
        notes.append(f"{maneuver} {extra_damage:+d}")
    power = whole_number(action.options.get("power")) or 0
    if power:
        damage += power
        notes.append(f"power {power:+d}")
    armor = target.stat("armor") if conflict == "physical" else 0
    if armor:
        damage -= armor
        notes.append(f"armor -{armor}")
    for key in ("power", "reduction"):  # the defender's power or trained maneuver
        less = whole_number(guard.get(key)) or 0
        if less:
            damage -= less
            notes.append(f"{target.name}'s {guard.get('maneuver') or key} -{less}")
    damage = max(0, damage)
    return damage, notes, extra

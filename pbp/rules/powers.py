"""forum-d20 powers and spells (FD-5, FD-14 "cast a spell", FD-18 Frightened's duration).

A power is created with a move action and a Control test; it lasts INT-modifier rounds and
adds the INT modifier to attack and damage rolls made with it. A spell that imposes a
condition is Control against the target's defense test (FD-4, naturals per FD-8).
"""

from __future__ import annotations

from typing import Any

from . import conditions as C
from .base import Ruleset
from .context import Modifier, RoundContext, total
from .model import Action, Combatant, Weapon


def uses_power(c: Combatant, action: Action, weapon: Weapon | None) -> bool:
    """FD-5: an attack made with a power (``options.power`` or a power-category weapon)."""
    return bool(action.options.power) or (weapon is not None and weapon.category == "power")


def create_power(rs: Ruleset, ctx: RoundContext, c: Combatant, action: Action) -> None:
    """FD-5: a move action and a Control test; lasts INT-mod rounds; + INT mod later."""
    dc = int(rs.setting("powers.control_dc", 10))
    mods = [Modifier(c.stat("controle"), "controle")] + rs.condition_modifiers(ctx, c, "roll")
    roll, own = ctx.roll_for(action, "1d20", who=c, label="control")
    added = [m for m in mods if m.rule] if own else mods
    value = roll.total + total(added)
    name = str(action.options.power)
    shown = [m.to_dict() for m in added]   # the reply names them (issue 11 item 7)
    if value >= dc:
        rounds = max(1, c.stat("int_mod"))
        ctx.emit("power.created", actor=c.key, rule="FD-5", rolls=[roll], power=name,
                 total=value, dc=dc, rounds=rounds, mods=shown)
        ctx.add_condition(c.key, C.lasting(C.POWER, rounds, round_number=ctx.round,
                                           count=ctx.count, value=c.stat("int_mod"),
                                           note=name), rule="FD-5",
                          message=f"{c.name}'s power {name} is active for {rounds} round(s).")
    else:
        ctx.emit("power.failed", actor=c.key, rule="FD-5", rolls=[roll], power=name,
                 total=value, dc=dc, mods=shown)

def player_reaction_marks(rs: Ruleset, target: Combatant) -> dict[str, Any]:
    """STALL-6: where the narrator leaves a player's defense rolls to the player
    (``defense_roller = "player"``, FD-4), a test of that player's that pbp rolls at once
    (a resist test, an opposed maneuver roll) is said as rolled by pbp."""
    mine = rs.setting("defense_roller") == "player" and target.player is not None
    return {"by_pbp": True} if mine else {}


def inflict(rs: Ruleset, ctx: RoundContext, c: Combatant, target: Combatant,
            action: Action, name: str) -> None:
    """A spell that imposes a condition: Control vs the target's defense test (FD-4);
    Frightened lasts the caster's CHA-mod rounds (FD-18)."""
    cond = C.canonical(name)
    mods = [Modifier(c.stat("controle"), "controle")] + rs.condition_modifiers(ctx, c, "roll")
    roll = ctx.roll("1d20", who=c, label="spell")
    power = roll.total + total(mods)
    skill = str(action.options.save if action.options.save is not None else "will")
    dmods = [Modifier(target.stat(skill), skill)] + rs.condition_modifiers(
        ctx, target, "defense", against=c)
    droll = ctx.roll("1d20", who=target, label=f"resist {skill}")
    resisted = droll.natural == 20 or (droll.natural != 1 and droll.total + total(dmods) > power)
    ctx.emit("check", actor=target.key, rule="FD-4", rolls=[roll, droll],
             what=f"{skill} test against {c.name}'s {name}", total=droll.total + total(dmods),
             dc=power, result="resisted" if resisted else "failed",
             dc_mods=[m.to_dict() for m in mods], resist_mods=[m.to_dict() for m in dmods],
             **player_reaction_marks(rs, target))
    if resisted:
        return
    rounds = action.options.rounds
    if cond == C.FRIGHTENED:
        rounds = max(1, c.stat("cha_mod"))
    ctx.add_condition(target.key, C.lasting(cond, rounds if rounds is None else int(rounds),
                                            round_number=ctx.round, count=ctx.count,
                                            source=c.key), rule="FD-18", source=c.key)


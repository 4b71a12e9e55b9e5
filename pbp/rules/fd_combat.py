"""forum-d20 attack pieces that outgrew the ruleset class: defense rolls made by the
player in the next post (FD-4, ``defense_roller = "player"``) and stray shots into melee
(FD-11)."""

from __future__ import annotations

from ..dice import Roll
from . import conditions as C
from .context import AttackRoll, Defense, Modifier, RoundContext, total
from .forum_hooks import ForumD20Hooks
from .model import Action, Combatant, PendingDefense, Weapon

#: weapon categories whose attacks use Pontaria and dodge with Reflexes (FD-3, FD-4)
RANGED = frozenset({"ranged", "firearm", "thrown", "bow", "blowpipe", "crossbow", "rocket", "beam"})


def stray_shot(rs: ForumD20Hooks, ctx: RoundContext, c: Combatant, target: Combatant,
               action: Action, weapon: Weapon) -> None:
    """FD-11: a natural 1 into melee hits an ally in that melee, or a bystander."""
    engaged = [x for x in ctx.living() if x.key not in (c.key, target.key)
               and x.has(C.ENGAGED)]
    allies = [x for x in engaged if x.side == c.side]
    victim = allies[0] if allies else (engaged[0] if engaged else None)
    if victim is None:
        ctx.emit("attack.misdirected", actor=c.key, target=None, rule="FD-11",
                 message=f"The natural 1 sends {c.name}'s shot into a bystander.")
        return
    ctx.emit("attack.misdirected", actor=c.key, target=victim.key, rule="FD-11")
    amount, rolls, _, parts = rs.damage(ctx, c, victim, action, weapon, 1)
    ctx.damage(victim.key, amount, source=c.key, rule="FD-11", rolls=rolls, weapon=weapon.name,
               **parts)

def resolve_pending(rs: ForumD20Hooks, ctx: RoundContext) -> None:
    """FD-4 (defense rolled by the player): last round's attacks on players, resolved
    with the defense roll from this round's post (or by the service if there is none)."""
    waiting = [p for p in ctx.pending if isinstance(p, PendingDefense)]
    ctx.pending = [p for p in ctx.pending if not isinstance(p, PendingDefense)]
    for entry in waiting:
        if entry.attacker not in ctx.combatants or entry.target not in ctx.combatants:
            continue
        c, target = ctx.get(entry.attacker), ctx.get(entry.target)
        if target.down:
            continue
        action = entry.action
        weapon = rs.weapon_for(c, action)
        attack = AttackRoll(entry.attack.total, entry.attack.natural, None)
        skill, armored, rule = rs.defense_skill(action, weapon)
        mods = [Modifier(target.stat(skill), skill)]
        if armored:
            mods.append(Modifier(target.stat("armor"), "armor"))
        mods += rs.condition_modifiers(ctx, target, "defense", against=c,
                                         ranged=weapon.category in RANGED)
        own = posted_defense(ctx, target.key)
        if own is not None:  # the player's tag already holds the skill
            roll = own
            situ = [m for m in mods if m.rule]
            value = roll.total + total(situ)
        else:
            roll = ctx.roll("1d20", who=target, label=f"defense {skill}")
            value = roll.total + total(mods)
        shown = situ if own is not None else mods   # the modifiers really added
        defense = Defense(value, skill, roll, roll.natural, tuple(shown), rule)
        if own is None:   # STALL-6: said as rolled by pbp, from the sheet, through the dice box
            ctx.emit("defense.by-pbp", target=target.key, rule="STALL-6", rolls=(roll,),
                     kind=skill, total=value)
        ctx.note(c.key)["attack_number"] = entry.attack_number
        rs.finish_attack(ctx, c, target, action, weapon, attack, defense)
        ctx.note(c.key)["attack_number"] = 0

def posted_defense(ctx: RoundContext, key: str) -> Roll | None:
    decl = ctx.declarations.get(key)
    if decl is None:
        return None
    for a in decl.actions:
        if a.options.defense and a.rolled is not None:
            return a.rolled
    return None


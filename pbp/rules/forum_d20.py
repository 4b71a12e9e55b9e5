"""forum-d20 (RULES.md FD-1..FD-19, source 001_*.txt): the Brazilian forum d20 system.

What sets it apart, and why the hooks below exist:

* attacks are tested against a defense *roll* (FD-3, FD-4), not a static number, and
  meeting it is enough; naturals 1 and 20 decide attack and defense rolls (FD-8);
* a turn is one free + one combat + one move action; the free one may become a second
  move, or combat + move become one full action (FD-10); extra attacks come out of the
  same combat action at a cumulative -4 (FD-12);
* play by post: a late or missing post forfeits the combat action and takes total
  defense (FD-2, narrator's call); three speeches a post (FD-17).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from . import conditions as C
from . import fd_combat, latency, maneuvers, powers
from .context import (
    AttackRoll,
    Damage,
    Defense,
    Modifier,
    RoundContext,
    damage_parts,
    mods_said,
    total,
)
from .fd_economy import ForumD20Economy
from .model import Action, AttackTotal, Combatant, Declaration, PendingDefense, Trigger, Weapon
from .registry import register

RANGED = fd_combat.RANGED
uses_power = powers.uses_power


@register
class ForumD20(ForumD20Economy):
    id = "forum-d20"
    title = "forum d20 (tópico)"
    source = "001_90c634a2e356debd.txt"
    rule_ids = tuple(f"FD-{n}" for n in range(1, 20))
    rule_refs: ClassVar[Mapping[str, str]] = {
        "attack": "FD-3",
        "initiative": "FD-1", "conditions": "FD-6", "ready": "FD-14", "delay": "FD-16",
        "latency": "FD-2", "surprise": "FD-1", "budget": "FD-10",
    }
    defaults: ClassVar[Mapping[str, Any]] = {
        "speech_limit": 3, "round_seconds": 120, "defense_roller": "service",
        "minimum_damage": 1, "conversion_ratio": 1,
        "initiative": {"turns": "individual", "sides_first": "initiative", "first": "", "mode": "roll", "ties": "bonus"},
        "latency": {"enabled": True, "mode": "total-defense", "penalty": 2,
                    "total_defense_bonus": 4},
        "crits": {"natural_20_hits": True, "natural_1_misses": True,
                  "naturals_on_defense": True, "multiply_bonuses": True},
        "attacks": {"extra_attack_penalty": 4, "ranged_into_melee": 4, "higher_ground": 1},
        "powers": {"control_dc": 10},
        "movement": {"base": 9},
        "maneuvers": {"ties": "defender", "push_base": 1.5, "push_step": 1.5, "push_margin": 5},
        "delay": {"floor": 10},
        "conditions": {"recovery_dc": 15, "auto_recovery": True},
    }
    extra_stats = frozenset({"attacks", "speed_bonus", "mp", "hardness", "reduction"})
    ready_takes_count = True  # FD-14: "your initiative becomes the count of the readied action"

    # -- initiative (FD-1, FD-16) ------------------------------------------------------
    def initiative_bonus(self, c: Combatant) -> int:
        return c.stat("initiative", c.stat("dex_mod"))

    def tiebreak(self, ctx: RoundContext, c: Combatant) -> tuple[float, ...]:
        if self.setting("initiative.ties") == "bonus":  # FD-16: bonus, then Dex
            return (self.initiative_bonus(c), c.stat("dex_mod", c.stat("dex")))
        return super().tiebreak(ctx, c)

    # -- latency (FD-2) ---------------------------------------------------------------
    def latency(self, ctx: RoundContext, c: Combatant, declaration: Declaration) -> Declaration:
        """FD-2: a late or missing post forfeits the combat action and takes total defense
        (or, in ``roll-penalty`` mode, -N on every roll until the next turn)."""
        return latency.apply(self, ctx, c, declaration, main="combat action", rule="FD-2",
                             forfeits=lambda a: self.slot_of(a) == "combat")

    # -- modifiers (FD-11, FD-12, FD-14, FD-18) ---------------------------------------
    def condition_modifiers(self, ctx: RoundContext, c: Combatant, role: str, *,
                            against: Combatant | None = None, ranged: bool = False
                            ) -> list[Modifier]:
        if not c.conditions:  # every modifier below comes from a condition (SCALE-6)
            return []
        mods: list[Modifier] = []
        vs = against.key if against is not None else None
        if c.has(C.FLAT_FOOTED) or c.has(C.GRAPPLED):
            mods.append(Modifier(-2, "flat-footed", "FD-18"))
        if role == "attack" and c.has(C.GRAPPLED):
            mods.append(Modifier(-2, "grappled", "FD-14"))
        fear = c.condition(C.FRIGHTENED)
        if fear is not None and (fear.source is None or fear.source == vs) and role != "roll":
            mods.append(Modifier(-2, "frightened", "FD-18"))
        if c.has(C.HIGHER_GROUND) and role in ("attack", "defense"):
            mods.append(Modifier(int(self.setting("attacks.higher_ground", 1)),
                                 "higher ground", "FD-18"))
        tired = c.condition(C.FATIGUED)
        if tired is not None:
            mods.append(Modifier(-abs(tired.value or 1), "fatigued", "FD-18"))
        late = c.condition(C.LATENCY)
        if late is not None:
            mods.append(Modifier(-abs(late.value), "late post", "FD-2"))
        if role == "defense":
            if c.has(C.PRONE):
                mods.append(Modifier(4 if ranged else -4, "prone", "FD-18"))
            if c.has(C.COVER) and ranged:
                mods.append(Modifier(4, "cover", "FD-18"))
            if c.has(C.BLINDED):
                mods.append(Modifier(-4, "blinded", "FD-18"))
            flank = c.condition(C.FLANKED)
            if flank is not None:
                mods.append(Modifier(C.flanked_penalty(flank.value), "flanked", "FD-18"))
            guard = c.condition(C.DEFENDING)
            if guard is not None:
                mods.append(Modifier(guard.value or int(self.setting(
                    "latency.total_defense_bonus", 4)), "total defense", "FD-2"))
            feint = c.condition(C.FEINTED)
            if feint is not None and feint.source == vs and not c.has(C.FLAT_FOOTED):
                mods.append(Modifier(-2, "flat-footed (feint)", "FD-14"))
        return mods

    def attack_bonus(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                     action: Action, weapon: Weapon) -> list[Modifier]:
        ranged = weapon.category in RANGED
        skill = weapon.skill or ("pontaria" if ranged else "luta")
        mods = [Modifier(attacker.stat(skill), skill)]  # FD-3 (no rule: the player's tag has it)
        extra = action.options.bonus
        if isinstance(extra, int) and not isinstance(extra, bool) and extra:
            mods.append(Modifier(extra, "bonus from powers or items", "FD-3"))
        power = attacker.condition(C.POWER)
        if power is not None and uses_power(attacker, action, weapon):
            mods.append(Modifier(power.value, f"power {power.note or ''}".strip(), "FD-5"))
        if attacker.conditions:
            mods += self.condition_modifiers(ctx, attacker, "attack", against=target,
                                             ranged=ranged)
        if ranged and (target.has(C.ENGAGED) or action.options.into_melee):
            mods.append(Modifier(-int(self.setting("attacks.ranged_into_melee", 4)),
                                 "shooting into melee", "FD-11"))
        n = int(ctx.note(attacker.key).get("attack_number", 1))
        if n > 1:
            mods.append(Modifier(-int(self.setting("attacks.extra_attack_penalty", 4)) * (n - 1),
                                 f"extra attack #{n}", "FD-12"))
        return mods

    # -- defense (FD-4, FD-13, FD-19) -------------------------------------------------
    def defense_skill(self, action: Action, weapon: Weapon) -> tuple[str, bool, str]:
        """(skill, armor counts, rule): Fortitude vs melee, Reflexes vs ranged/area and touch,
        Will vs mental (armor only with a helmet that says so)."""
        if action.options.touch:
            return "reflexos", False, "FD-13"
        if action.options.mental or weapon.category == "mental":
            return "will", False, "FD-4"
        if weapon.category in RANGED or action.options.area:
            return "reflexos", True, "FD-4"
        return "fortitude", True, "FD-4"

    def defense(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                action: Action, weapon: Weapon, attack: AttackRoll) -> Defense:
        if target.is_object:  # FD-19: a fixed DC, no roll
            return Defense(target.stat("dc", 15), "object", rule="FD-19")
        skill, armored, rule = self.defense_skill(action, weapon)
        if skill == "will" and "mental-helmet" in target.abilities:
            armored = True
        mods = [Modifier(target.stat(skill), skill)]
        if armored:
            mods.append(Modifier(target.stat("armor"), "armor"))
        if target.conditions:
            mods += self.condition_modifiers(ctx, target, "defense", against=attacker,
                                             ranged=weapon.category in RANGED)
        if self.setting("defense_roller") == "player" and target.player is not None:
            return Defense(0, skill, mods=tuple(mods), rule=rule, pending=True)
        roll = ctx.roll("1d20", who=target, label=f"defense {skill}")
        return Defense(roll.total + total(mods), skill, roll, roll.natural, tuple(mods), rule)

    def hits(self, ctx: RoundContext, attack: AttackRoll, defense: Defense
             ) -> tuple[bool, str | None, str]:
        if attack.natural == 1 and self.setting("crits.natural_1_misses", True):
            return False, "FD-8", "a natural 1 always misses"
        if attack.natural == 20 and self.setting("crits.natural_20_hits", True):
            return True, "FD-8", "a natural 20 always hits"
        if defense.natural is not None and self.setting("crits.naturals_on_defense", True):
            if defense.natural == 20:
                return False, "FD-8", "a natural 20 on the defense roll always succeeds"
            if defense.natural == 1:
                return True, "FD-8", "a natural 1 on the defense roll always fails"
        ok = attack.total >= defense.total  # FD-3: meets or exceeds
        return ok, "FD-19" if defense.kind == "object" else "FD-3", \
            f"{attack.total} {'>=' if ok else '<'} {defense.total}"

    def miss_chance(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                    attack: AttackRoll) -> tuple[str, str] | None:
        n = attack.natural
        if n is None:
            return None
        if target.has(C.INVISIBLE) and n % 2 == 0:
            return "FD-18", f"{target.name} is invisible (50% concealment: even rolls miss)"
        conceal = target.condition(C.CONCEALED)
        if conceal is not None and conceal.value != 50 and n in C.CONCEALMENT_20_MISSES:
            return "FD-18", f"{target.name} has 20% concealment (8, 9, 12 and 13 miss)"
        if conceal is not None and conceal.value == 50 and n % 2 == 0:
            return "FD-18", f"{target.name} has 50% concealment (even rolls miss)"
        if attacker.has(C.BLINDED) and n % 2 == 0:
            return "FD-18", f"{attacker.name} is blinded and hits only on an odd roll"
        return None

    # -- critical and damage (FD-7, FD-9) ---------------------------------------------
    def critical(self, ctx: RoundContext, attack: AttackRoll, weapon: Weapon) -> int:
        if attack.natural is not None and attack.natural >= weapon.threat:
            return max(1, weapon.multiplier)
        return 1

    def damage(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
               action: Action, weapon: Weapon, multiplier: int) -> Damage:
        roll = ctx.roll(weapon.damage, who=attacker, label=f"damage {target.key}")
        ranged = weapon.category in RANGED
        mod = "dex_mod" if ranged else "str_mod"
        parts = [Modifier(attacker.stat("level") // 2, "half level", "FD-7"),
                 Modifier(attacker.stat(mod), mod, "FD-7")]
        power = attacker.condition(C.POWER)
        if power is not None and uses_power(attacker, action, weapon):
            parts.append(Modifier(power.value, "power", "FD-5"))  # FD-5 / FD-7: + INT modifier
        bonus = total(parts)
        multiply = bool(self.setting("crits.multiply_bonuses", True))
        if multiply:
            amount = (roll.total + bonus) * multiplier  # FD-9: bonuses multiplied too
        else:
            amount = roll.total * multiplier + bonus
        reduction = [Modifier(target.stat("reduction"), "reduction", "FD-19")] \
            if target.is_object else []
        amount -= total(reduction)
        floor = int(self.setting("minimum_damage", 1))
        rule = "FD-9" if multiplier > 1 else "FD-7"
        return max(floor, amount), [roll], rule, damage_parts(
            parts, multiplier, reduction, floor, multiply_bonuses=multiply)

    # -- the attack, with FD-4 pending defenses, FD-11 stray shots, FD-14 feints -----
    def on_attack(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        note = ctx.note(c.key)
        note["attack_number"] = int(note.get("attack_number", 0)) + 1
        self.resolve_attack(ctx, c, action)

    def resolve_attack(self, ctx: RoundContext, c: Combatant, action: Action) -> bool:
        target, weapon, attack, defense = self.roll_attack(ctx, c, action)
        if defense.pending:
            ctx.pending.append(PendingDefense(
                attacker=c.key, target=target.key, action=action, round=ctx.round,
                attack=AttackTotal(attack.total, attack.natural),
                attack_number=int(ctx.note(c.key).get("attack_number", 1))))
            ctx.emit("attack.pending", actor=c.key, target=target.key, rule="FD-4",
                     rolls=[attack.roll] if attack.roll else [], total=attack.total,
                     natural=attack.natural, weapon=weapon.name,
                     mods=[m.to_dict() for m in attack.mods])
            return False
        return self.finish_attack(ctx, c, target, action, weapon, attack, defense)

    def finish_attack(self, ctx: RoundContext, c: Combatant, target: Combatant, action: Action,
                      weapon: Weapon, attack: AttackRoll, defense: Defense) -> bool:
        rolls = [attack.roll] if attack.roll is not None else []  # the defense has its event
        hit, rule, said = self.hits(ctx, attack, defense)
        params: dict[str, Any] = {"total": attack.total, "natural": attack.natural, "defense": defense.total,
                      "defense_kind": defense.kind, "weapon": weapon.name, "said": said,
                      "mods": mods_said(attack.mods), "defense_mods": mods_said(defense.mods)}
        if target.has(C.FEINTED) and target.condition(C.FEINTED).source == c.key:  # type: ignore[union-attr]
            ctx.remove_condition(target.key, C.FEINTED, rule="FD-14", reason="used")
        if defense.roll is not None:
            ctx.event("defense.rolled", c.key, target.key, defense.rule, (defense.roll,),
                      {"kind": defense.kind, "total": defense.total, "natural": defense.natural,
                       "mods": params["defense_mods"]})
        if hit and self.missed_by_chance(ctx, c, target, attack, rolls, params):
            return False
        if not hit:
            code = "attack.auto-miss" if rule == "FD-8" and attack.natural == 1 else "attack.miss"
            ctx.event(code, c.key, target.key, rule, tuple(rolls), params)
            if attack.natural == 1 and weapon.category in RANGED and (
                    target.has(C.ENGAGED) or action.options.into_melee):
                self._stray_shot(ctx, c, target, action, weapon)
            return False
        code = "attack.auto-hit" if rule == "FD-8" and attack.natural == 20 else "attack.hit"
        ctx.event(code, c.key, target.key, rule, tuple(rolls), params)
        multiplier = self.critical(ctx, attack, weapon)
        if multiplier > 1:
            ctx.emit("attack.critical", actor=c.key, target=target.key, rule="FD-9",
                     multiplier=multiplier, natural=attack.natural, threat=weapon.threat)
        amount, drolls, drule, dparts = self.damage(ctx, c, target, action, weapon, multiplier)
        ctx.hurt(target.key, amount, c.key, drule, tuple(drolls), {"weapon": weapon.name, **dparts})
        return True

    def _stray_shot(self, ctx: RoundContext, c: Combatant, target: Combatant, action: Action,
                    weapon: Weapon) -> None:
        fd_combat.stray_shot(self, ctx, c, target, action, weapon)  # FD-11

    def resolve_pending_defenses(self, ctx: RoundContext) -> None:
        fd_combat.resolve_pending(self, ctx)  # FD-4

    # -- other actions ----------------------------------------------------------------
    def on_cast(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        if action.options.power:
            powers.create_power(self, ctx, c, action)
            return
        spell = action.options.spell or action.text or "a spell"
        ctx.emit("cast", actor=c.key, target=action.target, rule="FD-14", spell=spell)
        inflict = action.options.inflict
        if inflict and action.target in ctx.combatants:
            powers.inflict(self, ctx, c, ctx.get(action.target), action, str(inflict))

    def on_move(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        what = action.options.move
        if what == "stand":
            ctx.emit("move.stand", actor=c.key, rule="FD-15")
            ctx.remove_condition(c.key, C.PRONE, rule="FD-15", reason="stood up")
        elif what == "draw":
            ctx.emit("move.draw", actor=c.key, rule="FD-15")
        elif what == "item":
            ctx.emit("move.item", actor=c.key, rule="FD-15")
        else:
            ctx.emit("move", actor=c.key, rule="FD-15",
                     distance=(action.options.distance if action.options.distance is not None else self.speed(c)),
                     speed=f"{self.speed(c):g}")

    def on_defend(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        bonus = int(self.setting("latency.total_defense_bonus", 4))
        ctx.emit("defend", actor=c.key, rule="FD-2", bonus=bonus)
        ctx.add_condition(c.key, C.lasting(C.DEFENDING, 1, round_number=ctx.round,
                                           count=ctx.count, value=bonus), rule="FD-2")

    def on_maneuver(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        maneuvers.perform(self, ctx, c, action)

    def on_ready(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        trigger = Trigger.from_option(action.options.trigger)
        ctx.emit("ready", actor=c.key, rule="FD-14",
                 trigger=trigger.text or f"{ctx.name(trigger.actor)} acts")

    def on_reaction(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        if action.options.defense:
            return  # a posted defense roll, used by resolve_pending_defenses (FD-4)
        self.on_other(ctx, c, action)

    def delay_to(self, ctx: RoundContext, c: Combatant, action: Action) -> float | None:
        """FD-16: wait down to count -10 - initiative bonus at most (the source's example: a
        +3 bonus waits until count -13); then act (here: at that floor)."""
        wanted = super().delay_to(ctx, c, action)
        floor = float(-int(self.setting("delay.floor", 10)) - self.initiative_bonus(c))
        if wanted is None:
            return None
        if wanted < floor:
            ctx.emit("action.changed", actor=c.key, rule="FD-16", problem="delay.floor",
                     reason=f"{c.name} can wait only down to count {floor:g} "
                            f"(-10 - initiative bonus) and must act there")
            wanted = floor
        ctx.emit("delay", actor=c.key, rule="FD-16", count=f"{wanted:g}")
        return wanted

    # -- upkeep (FD-1, FD-4, FD-6, FD-18) ---------------------------------------------
    def start_of_round(self, ctx: RoundContext) -> None:
        super().start_of_round(ctx)
        if ctx.round == 1:
            for key in ctx.surprised:
                if key in ctx.combatants:
                    c = ctx.get(key)
                    ctx.add_condition(key, C.lasting(C.FLAT_FOOTED, 1, round_number=1,
                                                     count=c.initiative), rule="FD-1")
        self.resolve_pending_defenses(ctx)

    def start_of_turn(self, ctx: RoundContext, c: Combatant) -> bool:
        """FD-18: Blinded and Fatigued end on a Fortitude success (tested at turn start)."""
        if not self.setting("conditions.auto_recovery", True):
            return True
        dc = int(self.setting("conditions.recovery_dc", 15))
        for name in (C.BLINDED, C.FATIGUED):
            cond = ctx.get(c.key).condition(name)
            if cond is None or (name == C.BLINDED and cond.value == 1):
                continue  # blindness from the disadvantage: no test ends it
            roll = ctx.roll("1d20", who=c, label=f"fortitude vs {name}")
            value = roll.total + c.stat("fortitude")
            ok = roll.natural == 20 or (roll.natural != 1 and value >= dc)
            ctx.emit("check", actor=c.key, rule="FD-18", rolls=[roll],
                     what=f"Fortitude against {name}", total=value, dc=dc,
                     result="success" if ok else "failure")
            if ok:
                ctx.remove_condition(c.key, name, rule="FD-18", reason="Fortitude success")
        return True

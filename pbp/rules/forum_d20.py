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
from .base import Ruleset
from .context import AttackRoll, Budget, Defense, Modifier, Problem, RoundContext, total
from .model import Action, ActionKind, Combatant, Declaration, Weapon
from .registry import register

RANGED = fd_combat.RANGED
COMBAT_KINDS = frozenset({ActionKind.ATTACK, ActionKind.CAST, ActionKind.MANEUVER,
                          ActionKind.READY, ActionKind.DEFEND, ActionKind.FULL_ROUND})


def uses_power(c: Combatant, action: Action, weapon: Weapon | None) -> bool:
    return bool(action.options.get("power")) or (weapon is not None and weapon.category == "power")


@register
class ForumD20(Ruleset):
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
        "initiative": {"mode": "roll", "ties": "bonus"},
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

    # -- initiative (FD-1, FD-16) ------------------------------------------------------
    def initiative_bonus(self, c: Combatant) -> int:
        return c.stat("initiative", c.stat("dex_mod"))

    def tiebreak(self, ctx: RoundContext, c: Combatant) -> tuple[float, ...]:
        if self.setting("initiative.ties") == "bonus":  # FD-16: bonus, then Dex
            return (self.initiative_bonus(c), c.stat("dex_mod", c.stat("dex")))
        return super().tiebreak(ctx, c)

    # -- economy (FD-10, FD-12) --------------------------------------------------------
    def budget(self, ctx: RoundContext, c: Combatant) -> Budget:
        return Budget({"combat": 1, "move": 1, "free": 1, "extra-free": None,
                       "reaction": None, "extra-attack": max(0, c.stat("attacks", 1) - 1)})

    def surprise_budget(self, ctx: RoundContext, c: Combatant) -> Budget | None:
        return self.budget(ctx, c)  # FD-1 has no surprise round: surprise bites in round 1

    def slot_of(self, action: Action) -> str:
        k = action.kind
        if k is ActionKind.CAST:
            return "move" if action.options.get("power") else "combat"  # FD-5 vs FD-14
        if k is ActionKind.MANEUVER:
            return "extra-free" if maneuvers.MANEUVERS.get(
                maneuvers.name_of(action) or "", "combat") == "free" else "combat"
        if k in COMBAT_KINDS:
            return "combat"
        if k is ActionKind.MOVE:
            return "move"
        if k is ActionKind.REACTION:
            return "reaction"
        return "extra-free"  # FREE, DELAY (FD-16 is free), OTHER

    def _free_move(self, c: Combatant, action: Action, budget: Budget) -> bool:
        """FD-15: standing up is free with Acrobatics; drawing is free once with Quick Draw."""
        what = action.options.get("move", "walk")
        if what == "stand" and c.stat("acrobacia") > 0:
            return True
        if what == "draw" and "quick-draw" in c.abilities and not budget.marks.get("quick_draw"):
            budget.marks["quick_draw"] = True
            return True
        return False

    def charge(self, ctx: RoundContext, c: Combatant, action: Action, budget: Budget,
               index: int) -> Problem | None:
        k = action.kind
        if k is ActionKind.FULL_ROUND:  # FD-10: give up combat and move for one full action
            if budget.has("combat") and budget.has("move") and not budget.conversions:
                budget.spend("combat")
                budget.spend("move")
                budget.spend("free")  # the free slot can no longer become a move
                budget.marks["attacking"] = False
                return None
            return Problem("budget.exceeded", "FD-10",
                           "a full action needs both your combat and your move action unused",
                           index)
        if k is ActionKind.ATTACK:
            if budget.marks.get("attacking") and budget.has("extra-attack"):
                budget.spend("extra-attack")  # FD-12: from the same combat action
                return None
            if budget.has("combat"):
                budget.spend("combat")
                budget.marks["attacking"] = True
                return None
            if budget.marks.get("attack_interrupted") and c.stat("attacks", 1) > 1:
                return Problem("extra-attack.split", "FD-12",
                               "extra attacks all come from the same combat action: you "
                               "cannot attack, do something else, then attack again", index)
            if budget.marks.get("attacking") or budget.marks.get("attack_interrupted"):
                return Problem("budget.exceeded", "FD-12",
                               f"no attack left: {c.name} makes {c.stat('attacks', 1)} "
                               f"attack(s) with one combat action", index)
            return Problem("budget.exceeded", "FD-10",
                           "your combat action is already spent this turn", index)
        if k is ActionKind.MOVE and self._free_move(c, action, budget):
            return None
        slot = self.slot_of(action)
        if slot in ("combat", "move") and budget.marks.get("attacking"):
            budget.marks["attacking"] = False
            budget.marks["attack_interrupted"] = True
        if slot == "move" and not budget.has("move") and budget.has("free"):
            budget.convert("free", "move", 1, "FD-10")  # the free slot becomes a second move
            budget.spend("move")
            return None
        if budget.has(slot):
            budget.spend(slot)
            return None
        what = {"combat": "combat action", "move": "move action (the free action "
                "already became one)" if budget.conversions else "move action"}.get(slot, slot)
        return Problem("budget.exceeded", "FD-10",
                       f"no {what} left this turn for '{action.text or action.kind.value}'",
                       index, {"slot": slot})

    # -- validation (every problem at once) -------------------------------------------
    def check_action(self, ctx: RoundContext, c: Combatant, action: Action, index: int,
                     declaration: Declaration) -> list[Problem]:
        out: list[Problem] = []
        k = action.kind
        if k in (ActionKind.QUICK, ActionKind.BONUS):
            out.append(Problem("kind.unknown", "FD-10",
                               f"forum-d20 has no {k.value} actions: a turn is one free, one "
                               "combat and one move action", index))
        hostile = k is ActionKind.ATTACK or (k is ActionKind.MANEUVER
                                             and maneuvers.name_of(action) != "release")
        if hostile and ctx.round == 1 and c.key in ctx.surprised:
            out.append(Problem("surprised", "FD-1",
                               f"{c.name} is surprised and cannot attack in the first round",
                               index))
        if k is ActionKind.MOVE:
            out += self._check_move(c, action, index)
        if k is ActionKind.FREE and (action.options.get("spell") or action.options.get("power")):
            out.append(Problem("speech.spell", "FD-17",
                               "a spell or power spoken aloud is not a free action; "
                               "declare it as a cast", index))
        if k is ActionKind.ATTACK and uses_power(c, action, c.weapon(action.weapon)):
            earlier = any(a.kind is ActionKind.CAST and a.options.get("power")
                          for a in declaration.actions[:index])
            if not c.has(C.POWER) and not earlier:
                out.append(Problem("power.missing", "FD-5",
                                   "create the power first: a move action and a Control test",
                                   index))
        if k is ActionKind.MANEUVER:
            name = maneuvers.name_of(action)
            if name is None:
                out.append(Problem("maneuver.unknown", "FD-14",
                                   f"unknown maneuver '{action.options.get('maneuver')}' (known: "
                                   f"{', '.join(maneuvers.MANEUVERS)})", index))
            elif name == "escape" and not c.has(C.GRAPPLED):
                out.append(Problem("maneuver.escape", "FD-14",
                                   f"{c.name} is not grappled", index))
            elif name == "release" and not c.has(C.GRAPPLING):
                out.append(Problem("maneuver.release", "FD-14",
                                   f"{c.name} is not grappling anyone", index))
            elif name not in ("release",) and action.target is None:
                out.append(Problem("target.missing", "FD-14", "a maneuver needs a target",
                                   index))
        if k is ActionKind.READY:
            trigger = action.options.get("trigger") or {}
            if not isinstance(trigger, Mapping) or trigger.get("actor") not in ctx.combatants:
                out.append(Problem("ready.trigger", "FD-14",
                                   "a readied action needs a trigger: whose action sets it off",
                                   index))
        if k is ActionKind.DELAY:
            until = action.options.get("until")
            if until is not None and not isinstance(until, (int, float)):
                out.append(Problem("delay.count", "FD-16",
                                   f"'{until}' is not an initiative count", index))
        return out

    def speed(self, c: Combatant) -> float:
        """FD-15: 9 m + 1 m per DEX modifier point (+3 m per speed bonus); half while grappling."""
        metres = float(self.setting("movement.base", 9)) + c.stat("dex_mod") \
            + 3 * c.stat("speed_bonus")
        return metres / 2 if c.has(C.GRAPPLING) else metres

    def _check_move(self, c: Combatant, action: Action, index: int) -> list[Problem]:
        out: list[Problem] = []
        what = action.options.get("move", "walk")
        if what == "walk":
            if c.has(C.GRAPPLED):
                out.append(Problem("move.grappled", "FD-14",
                                   f"{c.name} is grappled and cannot move (escape first, "
                                   "with a combat action)", index))
            distance = action.options.get("distance")
            if isinstance(distance, (int, float)) and distance > self.speed(c):
                out.append(Problem("move.too-far", "FD-15",
                                   f"{distance} m is more than {c.name}'s move of "
                                   f"{self.speed(c):g} m", index, {"speed": self.speed(c)}))
        return out

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
        extra = action.options.get("bonus")
        if isinstance(extra, int) and not isinstance(extra, bool) and extra:
            mods.append(Modifier(extra, "bonus from powers or items", "FD-3"))
        power = attacker.condition(C.POWER)
        if uses_power(attacker, action, weapon) and power is not None:
            mods.append(Modifier(power.value, f"power {power.note or ''}".strip(), "FD-5"))
        mods += self.condition_modifiers(ctx, attacker, "attack", against=target, ranged=ranged)
        if ranged and (target.has(C.ENGAGED) or action.options.get("into_melee")):
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
        if action.options.get("touch"):
            return "reflexos", False, "FD-13"
        if action.options.get("mental") or weapon.category == "mental":
            return "will", False, "FD-4"
        if weapon.category in RANGED or action.options.get("area"):
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
               action: Action, weapon: Weapon, multiplier: int) -> tuple[int, list[Any], str | None]:
        roll = ctx.roll(weapon.damage, who=attacker, label=f"damage {target.key}")
        ranged = weapon.category in RANGED
        bonus = attacker.stat("level") // 2 + attacker.stat("dex_mod" if ranged else "str_mod")
        power = attacker.condition(C.POWER)
        if uses_power(attacker, action, weapon) and power is not None:
            bonus += power.value  # FD-5 / FD-7: + INT modifier with a power
        if self.setting("crits.multiply_bonuses", True):
            amount = (roll.total + bonus) * multiplier  # FD-9: bonuses multiplied too
        else:
            amount = roll.total * multiplier + bonus
        if target.is_object:
            amount -= target.stat("reduction")
        floor = int(self.setting("minimum_damage", 1))
        rule = "FD-9" if multiplier > 1 else "FD-7"
        return max(floor, amount), [roll], rule

    # -- the attack, with FD-4 pending defenses, FD-11 stray shots, FD-14 feints -----
    def on_attack(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        note = ctx.note(c.key)
        note["attack_number"] = int(note.get("attack_number", 0)) + 1
        self.resolve_attack(ctx, c, action)

    def resolve_attack(self, ctx: RoundContext, c: Combatant, action: Action) -> bool:
        assert action.target is not None
        target = ctx.get(action.target)
        weapon = self.weapon_for(c, action)
        attack = self.attack_roll(ctx, c, target, action, weapon)
        defense = self.defense(ctx, c, target, action, weapon, attack)
        if defense.pending:
            ctx.pending.append({"type": "defense", "attacker": c.key, "target": target.key,
                                "action": action.to_dict(), "round": ctx.round,
                                "attack": {"total": attack.total, "natural": attack.natural},
                                "attack_number": ctx.note(c.key).get("attack_number", 1)})
            ctx.emit("attack.pending", actor=c.key, target=target.key, rule="FD-4",
                     rolls=[attack.roll] if attack.roll else [], total=attack.total,
                     natural=attack.natural, weapon=weapon.name)
            return False
        return self.finish_attack(ctx, c, target, action, weapon, attack, defense)

    def finish_attack(self, ctx: RoundContext, c: Combatant, target: Combatant, action: Action,
                      weapon: Weapon, attack: AttackRoll, defense: Defense) -> bool:
        rolls = [attack.roll] if attack.roll is not None else []  # the defense has its event
        hit, rule, said = self.hits(ctx, attack, defense)
        params: dict[str, Any] = {"total": attack.total, "natural": attack.natural, "defense": defense.total,
                      "defense_kind": defense.kind, "weapon": weapon.name, "said": said,
                      "mods": [m.to_dict() for m in attack.mods],
                      "defense_mods": [m.to_dict() for m in defense.mods]}
        if target.has(C.FEINTED) and target.condition(C.FEINTED).source == c.key:  # type: ignore[union-attr]
            ctx.remove_condition(target.key, C.FEINTED, rule="FD-14", reason="used")
        if defense.roll is not None:
            ctx.emit("defense.rolled", actor=c.key, target=target.key, rule=defense.rule,
                     rolls=[defense.roll], kind=defense.kind, total=defense.total,
                     natural=defense.natural, mods=[m.to_dict() for m in defense.mods])
        if hit:
            missed = self.miss_chance(ctx, c, target, attack)
            if missed is not None:
                ctx.emit("attack.miss-chance", actor=c.key, target=target.key, rule=missed[0],
                         rolls=rolls, reason=missed[1], **params)
                return False
        if not hit:
            code = "attack.auto-miss" if rule == "FD-8" and attack.natural == 1 else "attack.miss"
            ctx.emit(code, actor=c.key, target=target.key, rule=rule, rolls=rolls, **params)
            if attack.natural == 1 and weapon.category in RANGED and (
                    target.has(C.ENGAGED) or action.options.get("into_melee")):
                self._stray_shot(ctx, c, target, action, weapon)
            return False
        code = "attack.auto-hit" if rule == "FD-8" and attack.natural == 20 else "attack.hit"
        ctx.emit(code, actor=c.key, target=target.key, rule=rule, rolls=rolls, **params)
        multiplier = self.critical(ctx, attack, weapon)
        if multiplier > 1:
            ctx.emit("attack.critical", actor=c.key, target=target.key, rule="FD-9",
                     multiplier=multiplier, natural=attack.natural, threat=weapon.threat)
        amount, drolls, drule = self.damage(ctx, c, target, action, weapon, multiplier)
        ctx.damage(target.key, amount, source=c.key, rule=drule, rolls=drolls, weapon=weapon.name)
        return True

    def _stray_shot(self, ctx: RoundContext, c: Combatant, target: Combatant, action: Action,
                    weapon: Weapon) -> None:
        fd_combat.stray_shot(self, ctx, c, target, action, weapon)  # FD-11

    def resolve_pending_defenses(self, ctx: RoundContext) -> None:
        fd_combat.resolve_pending(self, ctx)  # FD-4

    # -- other actions ----------------------------------------------------------------
    def on_cast(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        if action.options.get("power"):
            powers.create_power(self, ctx, c, action)
            return
        spell = action.options.get("spell") or action.text or "a spell"
        ctx.emit("cast", actor=c.key, target=action.target, rule="FD-14", spell=spell)
        inflict = action.options.get("inflict")
        if inflict and action.target in ctx.combatants:
            powers.inflict(self, ctx, c, ctx.get(action.target), action, str(inflict))

    def on_move(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        what = action.options.get("move", "walk")
        if what == "stand":
            ctx.emit("move.stand", actor=c.key, rule="FD-15")
            ctx.remove_condition(c.key, C.PRONE, rule="FD-15", reason="stood up")
        elif what == "draw":
            ctx.emit("move.draw", actor=c.key, rule="FD-15")
        elif what == "item":
            ctx.emit("move.item", actor=c.key, rule="FD-15")
        else:
            ctx.emit("move", actor=c.key, rule="FD-15",
                     distance=action.options.get("distance", self.speed(c)),
                     speed=f"{self.speed(c):g}")

    def on_defend(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        bonus = int(self.setting("latency.total_defense_bonus", 4))
        ctx.emit("defend", actor=c.key, rule="FD-2", bonus=bonus)
        ctx.add_condition(c.key, C.lasting(C.DEFENDING, 1, round_number=ctx.round,
                                           count=ctx.count, value=bonus), rule="FD-2")

    def on_maneuver(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        maneuvers.perform(self, ctx, c, action)

    def on_ready(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        trigger = action.options.get("trigger") or {}
        ctx.emit("ready", actor=c.key, rule="FD-14",
                 trigger=trigger.get("text") or f"{ctx.name(trigger.get('actor'))} acts")

    def on_reaction(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        if action.options.get("defense"):
            return  # a posted defense roll, used by resolve_pending_defenses (FD-4)
        self.on_other(ctx, c, action)

    def delay_to(self, ctx: RoundContext, c: Combatant, action: Action) -> float | None:
        """FD-16: wait down to initiative bonus - 10 at most; then act (here: at that floor)."""
        wanted = super().delay_to(ctx, c, action)
        floor = float(self.initiative_bonus(c) - int(self.setting("delay.floor", 10)))
        if wanted is None:
            return None
        if wanted < floor:
            ctx.emit("action.changed", actor=c.key, rule="FD-16", problem="delay.floor",
                     reason=f"{c.name} can wait only down to count {floor:g} "
                            f"(initiative bonus - 10) and must act there")
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

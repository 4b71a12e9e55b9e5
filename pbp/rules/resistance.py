"""resistance (RULES.md RES-1..RES-9): the die-step system of source 003 (Portuguese).

Sheet: ``vigor`` and ``will`` hold the Resistance dice as sizes (4..12, RES-1; d6 when
absent), ``vigor_wear`` / ``will_wear`` the wear on them (RES-5), Characteristics under
their own names (``luta``, ``martial_arts``, ``big``...), ``armor``. Physical conflicts use
Vigor, social ones Will (``conflict.default``, or ``options.conflict`` per action).
Numbers come from ``pbp/config/rulesets/resistance.toml``.

* RES-2 a roll = the Resistance die + a Characteristic (``options.characteristic``) + 1
  for a second Characteristic the roller has (``options.synergy``) + 1 per helper in the
  fight (``options.helpers``).
* RES-3 a check (``other`` with ``options.difficulty``, a number or the table's word)
  succeeds when total >= Difficulty; a failure steps the die down one size.
* RES-4 an opposed check (``other`` with a target and ``options.opposed``): the target
  rolls the same Resistance + ``options.against`` (default the same Characteristic); the
  loser steps down one size; a tie is ``opposed.ties`` (``nobody`` steps, or ``reroll``).
* RES-5 the Threshold is the die's size: damage is wear, and the die steps when the wear
  goes over it (see :mod:`pbp.rules.resistance_dice`). Distance is Near or Far per pair
  (a ``move`` with ``options.to = "far"/"near"`` and a target); a melee weapon without
  Reach cannot attack a Far opponent.
* RES-6 initiative = Resistance die + ``initiative.characteristic``, rolled again each
  exchange (``initiative.reroll_each_round``); on its turn the actor attacks OR moves.
* RES-7 without Martial Arts (physical) / Diplomacy (social) the only maneuvers are the
  attack, Brutal Attack (one extra offensive maneuver) and Block. Brutal Attack needs Big
  or Strong (Liar in a social conflict): that value adds to damage and comes off the
  attacker's defense until its next turn.
* RES-8 when the attack total beats the defense total: damage = difference + weapon +
  maneuver (``options.damage``) + power (``options.power``) - armor - the defender's
  maneuver or power (``reduction`` / ``power`` on its ``defend``); an unarmed attacker -2
  (not in social conflicts).
* RES-9 damage that steps a die ends the conflict (``conflict.step_ends = "all"``) or
  takes only that combatant out (``"combatant"``); big damage steps several sizes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from .base import Ruleset
from .context import Budget, RoundContext
from .model import Action, ActionKind, Combatant, Condition, Declaration
from .narrators_call import (
    FreeFormNames,
    announce_ties,
    check_choices,
    forfeit,
    number_problems,
    whole_number,
)
from .registry import register
from .resistance_damage import res8_damage
from .resistance_dice import DIE_SIZES, DIFFICULTIES, apply_wear, difficulty_name, step_down
from .resistance_sheet import ALIASES, BRUTAL, ResistanceSheet, far


@register
class Resistance(ResistanceSheet):
    id = "resistance"
    title = "Resistance dice (die-step conflicts)"
    source = "003_19437191594dc2fa.txt"
    rule_ids = ("RES-1", "RES-2", "RES-3", "RES-4", "RES-5", "RES-6", "RES-7", "RES-8",
                "RES-9", "PBP-2", "PBP-3")
    rule_refs: ClassVar[Mapping[str, str]] = {"initiative": "RES-6", "budget": "RES-6",
                                              "latency": "PBP-2"}
    #: sheet keys of this ruleset besides the common ones in stats.py (scenario files)
    extra_stats = FreeFormNames({"vigor_wear", "will_wear", *ALIASES})
    defaults: ClassVar[Mapping[str, Any]] = {
        "speech_limit": 0,
        "round_seconds": 6,
        "initiative": {"turns": "individual", "sides_first": "initiative", "first": "", "mode": "roll", "ties": "roll-off", "characteristic": "reflexos",
                       "social_characteristic": "wits", "reroll_each_round": True},
        "latency": {"enabled": True},
        "dice": {"default": 6, "below_d4": "out"},
        "checks": {"synergy_bonus": 1, "helper_bonus": 1, "failure_steps": 1},
        "difficulty": dict(DIFFICULTIES),
        "opposed": {"loser_steps": 1, "ties": "nobody"},
        "threshold": {"mode": "exceeds"},
        "conflict": {"default": "physical", "step_ends": "all",
                     "attack_characteristic": "luta",
                     "social_attack_characteristic": "diplomacy"},
        "maneuvers": {"physical_skill": "martial_arts", "social_skill": "diplomacy",
                      "offensive": ["attack", "brutal"], "defensive": ["block"],
                      "brutal_physical": ["big", "strong"], "brutal_social": ["liar"]},
        "damage": {"unarmed_penalty": 2},
    }

    def __init__(self, houserules: Mapping[str, Any] | None = None) -> None:
        super().__init__(houserules)
        check_choices(self.id, self.setting, {"initiative.ties": ("roll-off", "narrator"),
                                    "initiative.mode": ("roll",),
                                    "dice.default": DIE_SIZES, "dice.below_d4": ("out",),
                                    "opposed.ties": ("nobody", "reroll"),
                                    "threshold.mode": ("exceeds", "reaches"),
                                    "conflict.default": ("physical", "social"),
                                    "conflict.step_ends": ("all", "combatant")})

    # -- RES-6 initiative --------------------------------------------------------------
    def _initiative_char(self) -> str:
        social = self.conflict() == "social"
        return str(self.setting("initiative.social_characteristic" if social
                                else "initiative.characteristic"))

    def initiative_bonus(self, c: Combatant) -> int:
        return self.char(c, self._initiative_char())

    def initiative_expression(self, c: Combatant) -> str:
        die = self.die(c, self.resistance_of(self.conflict()))
        die = die if die in DIE_SIZES else int(self.setting("dice.default", 6))
        bonus = self.initiative_bonus(c)
        return f"1d{die}{bonus:+d}" if bonus else f"1d{die}"

    def tiebreak(self, ctx: RoundContext, c: Combatant) -> tuple[float, ...]:
        return ()

    def start_of_round(self, ctx: RoundContext) -> None:
        super().start_of_round(ctx)
        announce_ties(ctx, "RES-6", str(self.setting("initiative.ties")))

    def end_of_round(self, ctx: RoundContext) -> None:
        if self.setting("initiative.reroll_each_round", True) and ctx.order:
            for key in list(ctx.combatants):
                ctx.put(dataclasses.replace(ctx.get(key), initiative=None))
            ctx.order = []
            ctx.emit("initiative.cleared", rule="RES-6",
                     message="Back to initiative: everyone rolls again for the next exchange.")

    # -- budget: attack OR move --------------------------------------------------------
    def budget(self, ctx: RoundContext, c: Combatant) -> Budget:
        return Budget({"action": 1, "free": None})

    def slot_of(self, action: Action) -> str:
        return "free" if action.kind in (ActionKind.DEFEND, ActionKind.FREE) else "action"

    def over_budget(self, action: Action, slot: str, budget: Budget) -> str:
        return (f"on your turn you attack, move or make one check, not more "
                f"('{action.text or action.kind.value}' is one too many)")  # RES-6

    # -- rolls -------------------------------------------------------------------------
    def _roll(self, ctx: RoundContext, c: Combatant, res: str, characteristic: str | None,
              synergy: Any, helpers: Any, label: str, action: Action | None = None
              ) -> tuple[int, Any, list[str]]:
        """RES-2: die + Characteristic + synergy point + helper points."""
        parts: list[str] = []
        bonus = self.char(c, characteristic)
        if characteristic:
            parts.append(f"{characteristic} {bonus:+d}")
        if synergy and self.char(c, str(synergy)) > 0:
            n = int(self.setting("checks.synergy_bonus", 1))
            bonus += n
            parts.append(f"synergy ({synergy}) +{n}")
        for helper in helpers or ():
            n = int(self.setting("checks.helper_bonus", 1))
            bonus += n
            parts.append(f"help ({helper}) +{n}")
        expr = f"1d{self.die(c, res)}{bonus:+d}" if bonus else f"1d{self.die(c, res)}"
        if action is not None:
            roll, _ = ctx.roll_for(action, expr, who=c, label=label)
        else:
            roll = ctx.roll(expr, who=c, label=label)
        return roll.total, roll, parts

    def _step(self, ctx: RoundContext, key: str, res: str, steps: int, rule: str,
              why: str) -> bool:
        """Step *key*'s die down; True when it broke (below d4)."""
        c = ctx.get(key)
        before = self.die(c, res)
        after, broken = step_down(before, steps)
        stats = dict(c.stats)
        stats[res] = after
        stats[f"{res}_wear"] = 0
        ctx.put(dataclasses.replace(c, stats=stats))
        ctx.emit("die.stepped", target=key, rule=rule, resistance=res, die_before=before,
                 die_after=after, steps=steps, broken=broken,
                 message=f"{c.name}'s {res.title()} steps down from d{before} to "
                         f"{'nothing' if broken else f'd{after}'} ({why}).")
        if broken:
            self._take_out(ctx, key, rule, f"{res.title()} fell below d4")
        return broken

    def _take_out(self, ctx: RoundContext, key: str, rule: str, why: str) -> None:
        c = ctx.get(key)
        if not c.down:
            ctx.put(dataclasses.replace(c, down=True))
            ctx.emit("combatant.down", target=key, rule=rule, reason=why,
                     message=f"{c.name} is out of the conflict: {why}.")

    # -- carrying out ------------------------------------------------------------------
    def can_act(self, ctx: RoundContext, c: Combatant) -> str | None:
        if ctx.note("_conflict").get("over"):
            return "the conflict is over (RES-9)"
        return super().can_act(ctx, c)

    def start_of_turn(self, ctx: RoundContext, c: Combatant) -> bool:
        if c.has(BRUTAL):
            ctx.remove_condition(c.key, BRUTAL, rule="RES-7", reason="a new turn began")
        return True

    def latency(self, ctx: RoundContext, c: Combatant, declaration: Declaration) -> Declaration:
        """PBP-2: the attack, move or check is lost; total defense here is Block (RES-7),
        which every defender has anyway; a declared defense stands."""
        return forfeit(ctx, c, declaration, keeps=lambda a: a.kind is ActionKind.DEFEND,
                       defense=f"{c.name} only blocks this exchange")

    def on_other(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        if action.options.difficulty is not None:
            self._check(ctx, c, action)
        elif action.options.opposed and action.target is not None:
            self._opposed(ctx, c, action)
        else:
            super().on_other(ctx, c, action)

    def _check(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        res = str(action.options.resistance or self.resistance_of(self.conflict(action)))
        dc = self._difficulty(action.options.difficulty) or 1
        total, roll, parts = self._roll(ctx, c, res, action.options.characteristic,
                                        action.options.synergy,
                                        action.options.helpers, "check", action)
        ok = total >= dc
        ctx.emit("check", actor=c.key, rule="RES-3", rolls=[roll], total=total, dc=dc,
                 what=f"{res.title()} check", result="success" if ok else "failure",
                 difficulty=difficulty_name(dc), parts=parts,
                 message=f"{c.name}: {res.title()} check {total} against Difficulty {dc} "
                         f"({difficulty_name(dc)}): {'success' if ok else 'failure'}.")
        if not ok:
            self._step(ctx, c.key, res, int(self.setting("checks.failure_steps", 1)), "RES-3",
                       "a failed check")

    def _opposed(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        assert action.target is not None
        target = ctx.get(action.target)
        res = str(action.options.resistance or self.resistance_of(self.conflict(action)))
        mine = action.options.characteristic
        theirs = action.options.against or mine
        for attempt in range(10):
            a, ra, _ = self._roll(ctx, c, res, mine, action.options.synergy,
                                  action.options.helpers, "opposed",
                                  action if attempt == 0 else None)
            d, rd, _ = self._roll(ctx, target, res, theirs, action.options.target_synergy,
                                  (), "opposed")
            if a != d or self.setting("opposed.ties") != "reroll":
                break
            ctx.emit("opposed.tie", actor=c.key, target=target.key, rule="RES-4", rolls=[ra, rd],
                     total=a, message=f"{c.name} and {target.name} tie at {a}: roll again.")
        params = {"total": a, "opposed": d, "resistance": res}
        if a == d:
            ctx.emit("opposed.tie", actor=c.key, target=target.key, rule="RES-4", rolls=[ra, rd],
                     **params, message=f"{c.name} and {target.name} tie at {a}: nobody steps "
                                       f"down (narrator's call).")
            return
        winner, loser = (c, target) if a > d else (target, c)
        ctx.emit("opposed.won", actor=winner.key, target=loser.key, rule="RES-4",
                 rolls=[ra, rd], **params,
                 message=f"{c.name} {a} against {target.name} {d}: {winner.name} wins.")
        self._step(ctx, loser.key, res, int(self.setting("opposed.loser_steps", 1)), "RES-4",
                   "lost an opposed check")

    def on_move(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        to = str(action.options.to or "").casefold()
        target = action.target
        if target is not None and to in ("far", "flee"):
            ctx.add_condition(c.key, Condition(far(target), source=target), rule="RES-5")
            ctx.add_condition(target, Condition(far(c.key), source=c.key), rule="RES-5")
            ctx.emit("move", actor=c.key, target=target, rule="RES-6", to="far",
                     message=f"{c.name} gets away from {ctx.name(target)}: they are now Far.")
            return
        if target is not None and to in ("near", "close"):
            ctx.remove_condition(c.key, far(target), rule="RES-5", reason="closed in")
            ctx.remove_condition(target, far(c.key), rule="RES-5", reason="closed in")
            ctx.emit("move", actor=c.key, target=target, rule="RES-6", to="near",
                     message=f"{c.name} closes in on {ctx.name(target)}: they are now Near.")
            return
        what = action.text or action.options.intent or "moves instead of attacking"
        ctx.emit("move", actor=c.key, target=target, rule="RES-6", to=to or None,
                 message=f"{c.name} {what}.")

    def on_defend(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        name = action.options.maneuver or "block"
        ctx.emit("defend.declared", actor=c.key, rule="RES-7", maneuver=name,
                 message=f"{c.name} will {name} with "
                         f"{action.options.characteristic or 'the same Characteristic'}"
                         f" when attacked.")

    on_maneuver = Ruleset.on_attack

    def _defense(self, ctx: RoundContext, target: Combatant, conflict: str) -> Mapping[str, Any]:
        """The defender's declared defense (RES-7: Block unless trained), checked when used,
        since an attack can come before the defender's own turn."""
        decl: Declaration | None = ctx.declarations.get(target.key)
        for i, a in enumerate(decl.actions if decl is not None else ()):
            if a.kind is not ActionKind.DEFEND:
                continue
            problems = self._check_maneuver(target, a, i, conflict, defensive=True)
            problems += self._check_help(ctx, target, a, i)
            problems += number_problems(a, ("power", "reduction"), "RES-8", i)
            if not problems:
                return a.options.to_dict()
            kept: dict[str, Any] = {k: v for k, v in a.options.to_dict().items() if k == "characteristic"}
            kept["refused"] = "; ".join(p.message for p in problems) + ": it blocks instead"
            kept["refused_rule"] = problems[0].rule
            return kept
        return {}

    def resolve_attack(self, ctx: RoundContext, c: Combatant, action: Action) -> bool:
        assert action.target is not None
        target = ctx.get(action.target)
        conflict = self.conflict(action)
        res = self.resistance_of(conflict)
        unarmed = bool(action.options.unarmed) or not c.weapons
        weapon = self.weapon_for(c, action)
        name = self.setting("conflict.social_attack_characteristic" if conflict == "social"
                            else "conflict.attack_characteristic")
        characteristic = action.options.characteristic or weapon.skill or name
        maneuver = str(action.options.maneuver or "attack").casefold()
        a, ra, parts = self._roll(ctx, c, res, characteristic, action.options.synergy,
                                  action.options.helpers, f"attack {target.key}", action)
        bonus = whole_number(action.options.bonus) or 0
        if maneuver not in ("attack", "brutal") and bonus:
            a += bonus  # trained maneuvers: the narrator's numbers
            parts.append(f"{maneuver} {bonus:+d}")
        guard = self._defense(ctx, target, conflict)
        d, rd, _ = self._roll(ctx, target, res, guard.get("characteristic") or characteristic,
                              guard.get("synergy"), (), f"defense {c.key}")
        lowered = target.condition(BRUTAL)
        if lowered is not None:
            d -= lowered.value
        params: dict[str, Any] = {"total": a, "defense": d, "conflict": conflict,
                                  "maneuver": maneuver, "roll_parts": parts}
        said = ""
        if guard.get("refused"):
            params.update(defense_refused=guard["refused"], defense_rule=guard["refused_rule"])
            said = f" ({guard['refused']}, {guard['refused_rule']})"
        if maneuver == "brutal":
            which, value = self.brutal_value(c, conflict)
            ctx.add_condition(c.key, Condition(BRUTAL, value=value, note=which, source=c.key),
                              rule="RES-7", source=c.key, value=value)
        if a <= d:
            ctx.emit("attack.blocked", actor=c.key, target=target.key, rule="RES-8",
                     rolls=[ra, rd], **params,
                     message=f"{target.name} holds: {d} against {c.name}'s {a}; no damage{said}.")
            return False
        damage, notes, extra = res8_damage(self, ctx, c, target, action, weapon, guard,
                                           margin=a - d, conflict=conflict,
                                           maneuver=maneuver, unarmed=unarmed)
        ctx.emit("attack.hit", actor=c.key, target=target.key, rule="RES-8",
                 rolls=[ra, rd, *extra], damage=damage, notes=notes, **params,
                 message=f"{c.name} beats {target.name}'s defense, {a} against {d}: "
                         f"{damage} damage ({', '.join(notes)}){said}.")
        self.wear(ctx, c, target.key, res, damage)
        return True

    def wear(self, ctx: RoundContext, source: Combatant, key: str, res: str, damage: int) -> None:
        """RES-5/RES-9: damage wears the Threshold; a die that steps ends the conflict."""
        if damage <= 0:
            return
        c = ctx.get(key)
        die, worn = self.die(c, res), c.stat(f"{res}_wear")
        result = apply_wear(die, worn, damage, mode=str(self.setting("threshold.mode")))
        stats = dict(c.stats)
        stats[res] = result.die
        stats[f"{res}_wear"] = result.wear
        ctx.put(dataclasses.replace(c, stats=stats))
        ctx.emit("wear", actor=source.key, target=key, rule="RES-5", resistance=res,
                 amount=damage, die_before=die, wear_before=worn, die_after=result.die,
                 wear_after=result.wear, steps=result.steps, broken=result.broken,
                 message=f"{c.name} takes {damage} wear on {res.title()} d{die} "
                         f"(threshold {die}, {worn} worn before)."
                         + (f" The die steps down {result.steps} size(s) to "
                            f"{'nothing' if result.broken else f'd{result.die}'}"
                            f" with {result.wear} wear." if result.steps else
                            f" {result.wear}/{die} worn."))
        if not result.steps:
            return
        ctx.emit("die.stepped", target=key, rule="RES-9", resistance=res, die_before=die,
                 die_after=result.die, steps=result.steps, broken=result.broken,
                 message=f"{c.name}'s {res.title()} steps down from d{die} to "
                         f"{'nothing' if result.broken else f'd{result.die}'}.")
        self._take_out(ctx, key, "RES-9", f"{source.name}'s damage stepped "
                                          f"{res.title()} down")
        if self.setting("conflict.step_ends") == "all":
            ctx.note("_conflict")["over"] = True
            ctx.emit("conflict.ended", actor=source.key, target=key, rule="RES-9",
                     message=f"The conflict ends: {source.name} stepped {c.name}'s "
                             f"{res.title()} down.")

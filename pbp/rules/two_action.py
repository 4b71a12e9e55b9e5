"""two-action (RULES.md TA-1..TA-6): the Russian homebrew of source 004.

How each rule is carried out (numbers from ``pbp/config/rulesets/two-action.toml``):

* TA-1 initiative = d20 + Reaction (sheet ``reaction``; Russian "Реакция" lands on
  ``reflexos``, also read), high to low, rolled once and kept for the whole fight. Ties:
  ``initiative.ties`` = ``roll-off`` (a d20 each, default) or ``narrator`` (roster order
  plus an ``initiative.tie`` event). Delay and ready would move a combatant in the order,
  which only skills or magic may do: both are refused (TA-1).
* TA-2 two actions a turn, any order, every declared action spends one (nothing is free;
  speech is not an action). ``cast`` needs a spell prepared earlier (an ``other`` action
  with ``options.prepare = "<spell>"``, this turn or before); casting uses it up. An item
  (``options.item``) is used only from the belt or a pocket (``options.stowed``). Bonus
  actions, reactions and full-round actions do not exist here (TA-2).
* TA-3 melee: opposed d20 + skill (``options.skill`` or the weapon's) against d20 + the
  defender's parry skill. The parry skill is the defensive skill the defender used on
  its last turn (a ``defend`` action, kept as the ``defensive`` condition until its next
  turn), else the one it names (``options.parry`` on any of its actions this round), else
  ``checks.default_parry`` from its sheet, else its melee weapon's skill (a skill with a
  counter-attack). The defender must *win* to parry (ties:
  ``checks.opposed_ties``); a parry cancels the damage (``attack.parried``).
* TA-4 ranged at an object or a place (``options.place``): d20 + skill + TA-6 >= the
  Difficulty (``options.dc`` or ``checks.object_dc``); a miss lands in a neighbouring cell
  the narrator picks (``attack.scattered``).
* TA-5 ranged at a character: the hit check as TA-4 (``checks.hit_dc``), with
  ``options.inspiration`` / ``options.mastery`` bonuses; a natural 20 before modifiers is a
  critical and hits; then opposed d20 + skill + weapon bonus
  (thrown 0, bow/blowpipe/crossbow 10, rocket 20, firearm 30, beam 40) against
  d20 + the target's Reaction; the target must win to evade (``attack.evaded``).
* TA-6 situational modifiers ("bonuses and penalties to accuracy") on the accuracy
  check of a ranged attack, once: the TA-4 check, or TA-5's hit check (not again on the
  opposed check, which adds the weapon bonus) (``options.situational``, see
  :mod:`pbp.rules.two_action_tables`); out-of-range values are refused, each with its
  reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .base import Ruleset
from .context import Budget, Problem, RoundContext, damage_parts
from .model import Action, ActionKind, Combatant, Condition, Declaration, Weapon
from .narrators_call import (
    FreeFormNames,
    announce_ties,
    check_choices,
    forfeit,
    number_problems,
    whole_number,
)
from .registry import register
from .two_action_tables import SITUATIONAL, WEAPON_BONUS, situational, weapon_bonus

DEFENSIVE = "defensive"


def _signed(expr: str, bonus: int) -> str:
    return f"{expr}{bonus:+d}" if bonus else expr


@register
class TwoAction(Ruleset):
    id = "two-action"
    title = "two actions a turn (Russian homebrew)"
    source = "004_1734a017dbb375a6.txt"
    rule_ids = ("TA-1", "TA-2", "TA-3", "TA-4", "TA-5", "TA-6", "PBP-2", "PBP-3")
    rule_refs: ClassVar[Mapping[str, str]] = {"initiative": "TA-1", "budget": "TA-2",
                                              "latency": "PBP-2"}
    #: sheet keys of this ruleset besides the common ones in stats.py (scenario files)
    extra_stats = FreeFormNames({"reaction", "parry", "fencing", "archery", "shooting", "throwing",
                              "shield", "axe", "sword", "dagger", "bow", "magic", "alchemy",
                              "stealth", "athletics", "dodge", "firearms", "beam_weapons"})
    defaults: ClassVar[Mapping[str, Any]] = {
        "speech_limit": 0,
        "round_seconds": 6,
        "initiative": {"turns": "individual", "sides_first": "initiative", "first": "", "mode": "roll", "ties": "roll-off", "characteristic": "reaction"},
        "latency": {"enabled": True},
        "turn": {"actions": 2},
        "checks": {"object_dc": 10, "hit_dc": 10, "critical_natural": 20,
                   "critical_multiplier": 1, "opposed_ties": "attacker",
                   "default_parry": "parry"},
        "weapon_bonus": dict(WEAPON_BONUS),
        "situational": dict(SITUATIONAL),
    }

    def __init__(self, houserules: Mapping[str, Any] | None = None) -> None:
        super().__init__(houserules)
        check_choices(self.id, self.setting, {"initiative.ties": ("roll-off", "narrator"),
                                    "initiative.mode": ("roll",),
                                    "checks.opposed_ties": ("attacker", "defender")})

    # -- TA-1 initiative ---------------------------------------------------------------
    def reaction(self, c: Combatant) -> int:
        name = str(self.setting("initiative.characteristic", "reaction"))
        return c.stat(name, c.stat("reaction", c.stat("reflexos")))

    def initiative_bonus(self, c: Combatant) -> int:
        return self.reaction(c)

    def initiative_expression(self, c: Combatant) -> str:
        return _signed("1d20", self.reaction(c))

    def tiebreak(self, ctx: RoundContext, c: Combatant) -> tuple[float, ...]:
        return ()  # TA-1: no bonus-based tiebreak; roll-off or the narrator

    def start_of_round(self, ctx: RoundContext) -> None:
        super().start_of_round(ctx)
        announce_ties(ctx, "TA-1", str(self.setting("initiative.ties")))

    # -- TA-2 two actions ------------------------------------------------------------
    def budget(self, ctx: RoundContext, c: Combatant) -> Budget:
        return Budget({"action": int(self.setting("turn.actions", 2))})

    def slot_of(self, action: Action) -> str:
        return "action"

    def over_budget(self, action: Action, slot: str, budget: Budget) -> str:
        n = budget.slots.get("action")
        return (f"only {n} actions a turn; '{action.text or action.kind.value}' "
                f"would be action number {n + 1 if n is not None else '?'}")  # TA-2

    def check_action(self, ctx: RoundContext, c: Combatant, action: Action, index: int,
                     declaration: Declaration) -> list[Problem]:
        out: list[Problem] = []
        kind = action.kind
        if kind in (ActionKind.BONUS, ActionKind.REACTION, ActionKind.FULL_ROUND):
            out.append(Problem("kind.unknown", "TA-2",
                               f"there are no {kind.value} actions here: a turn is two "
                               f"actions (skill, move, prepare or cast a spell, use a "
                               f"prepared item, an infusion...)", index))
        if kind in (ActionKind.DELAY, ActionKind.READY):
            out.append(Problem("initiative.fixed", "TA-1",
                               f"you cannot {kind.value}: the turn order only changes "
                               f"through skills or magic", index))
        if kind is ActionKind.CAST:
            spell = self._spell(action)
            prepared_now = any(self._prepares(a) == spell
                               for a in declaration.actions[:index])
            if not spell:
                out.append(Problem("cast.unnamed", "TA-2", "name the spell you cast", index))
            elif not c.has(f"prepared:{spell}") and not prepared_now:
                out.append(Problem("cast.unprepared", "TA-2",
                                   f"'{spell}' is not prepared: preparing a spell is an "
                                   f"action of its own, before casting it", index,
                                   {"spell": spell}))
        stowed = action.options.stowed
        if action.options.item and stowed is not None \
                and str(stowed).casefold() not in ("belt", "pocket"):
            out.append(Problem("item.unprepared", "TA-2",
                               f"only an item fixed on the belt or in a pocket can be used as "
                               f"an action; '{action.options.item}' is in the {stowed}",
                               index))
        out += number_problems(action, ("dc",), "TA-4", index)
        out += number_problems(action, ("inspiration", "mastery"), "TA-5", index)
        if kind is ActionKind.ATTACK:
            out += self._check_attack(ctx, c, action, index)
        return out

    def _check_attack(self, ctx: RoundContext, c: Combatant, action: Action,
                      index: int) -> list[Problem]:
        out: list[Problem] = []
        weapon = self.weapon_for(c, action)
        ranged = self._ranged(action, weapon)
        if action.target is None and not ranged:
            out.append(Problem("target.missing", "TA-4",
                               f"only a ranged shot can aim at a place; {weapon.name} needs a "
                               f"target", index))
        if ranged and weapon.category != "melee" and \
                weapon_bonus(weapon.category, self.setting("weapon_bonus")) is None:
            kinds = ", ".join(sorted(self.setting("weapon_bonus")))
            out.append(Problem("weapon.type", "TA-5",
                               f"{weapon.name} is a '{weapon.category}' weapon, which has no "
                               f"row in the weapon table ({kinds}); ask the narrator", index))
        mods = action.options.situational
        if mods is not None:
            if not ranged:
                out.append(Problem("situational.melee", "TA-6",
                                   "situational modifiers apply to ranged attacks only",
                                   index))
            elif not isinstance(mods, Mapping):
                out.append(Problem("situational.bad", "TA-6",
                                   "situational modifiers must be a list of key: value",
                                   index))
            else:
                _, problems = situational(mods, skill=self._skill(c, action, weapon)[1],
                                          table=self.setting("situational"))
                out += [Problem("situational.bad", "TA-6", p, index) for p in problems]
        return out

    def _common_problems(self, ctx: RoundContext, c: Combatant, action: Action,
                         index: int) -> list[Problem]:
        out = super()._common_problems(ctx, c, action, index)
        if action.options.place:  # TA-4: a shot at a place needs no target
            out = [p for p in out if p.code != "target.missing"]
        return out

    # -- helpers -----------------------------------------------------------------------
    @staticmethod
    def _spell(action: Action) -> str:
        return str(action.options.spell or action.text or "").strip().casefold()

    @staticmethod
    def _prepares(action: Action) -> str | None:
        name = action.options.prepare
        return str(name).strip().casefold() if name else None

    @staticmethod
    def _ranged(action: Action, weapon: Weapon) -> bool:
        if action.options.ranged is not None:
            return bool(action.options.ranged)
        return weapon.ranged

    @staticmethod
    def _skill(c: Combatant, action: Action, weapon: Weapon) -> tuple[str | None, int]:
        name = action.options.skill or weapon.skill
        return (str(name), c.stat(str(name))) if name else (None, 0)

    def _parry(self, ctx: RoundContext, target: Combatant) -> tuple[str | None, str]:
        held = target.condition(DEFENSIVE)
        if held is not None:
            return held.note, "the defensive skill it used on its last turn"
        decl = ctx.declarations.get(target.key)
        if decl is not None:
            for a in decl.actions:
                if a.options.parry:
                    return str(a.options.parry), "its declared parry"
        fallback = str(self.setting("checks.default_parry") or "")
        if fallback and fallback in target.stats:
            return fallback, "its parry skill"
        for w in target.weapons:  # any skill with a counter-attack: its melee weapon's
            if not w.ranged and w.skill and w.skill in target.stats:
                return w.skill, f"the skill of its {w.name}"
        return None, "no parry skill named: the d20 alone"

    def _defender_wins(self, attack: int, defense: int) -> bool:
        if defense == attack:
            return bool(self.setting("checks.opposed_ties") == "defender")
        return defense > attack

    # -- carrying out ------------------------------------------------------------------
    def start_of_turn(self, ctx: RoundContext, c: Combatant) -> bool:
        if c.has(DEFENSIVE):  # TA-3: "on its last turn" -- a new turn replaces it
            ctx.remove_condition(c.key, DEFENSIVE, rule="TA-3", reason="a new turn began")
        return True

    def latency(self, ctx: RoundContext, c: Combatant, declaration: Declaration) -> Declaration:
        """PBP-2: every action but moving is lost; total defense is a parry with its best
        melee skill against every attack until its next turn (TA-3)."""
        stands = forfeit(ctx, c, declaration, keeps=lambda a: a.kind is ActionKind.MOVE,
                         defense=f"{c.name} parries with its best skill until its next turn")
        best = max((w.skill for w in c.weapons if not w.ranged and w.skill),
                   key=lambda s: c.stat(s), default=None)
        if best is not None:
            ctx.add_condition(c.key, Condition(DEFENSIVE, note=best, source=c.key),
                              rule="PBP-2", skill=best)
        return stands

    def perform(self, ctx: RoundContext, c: Combatant, action: Action,
                declaration: Declaration, index: int) -> None:
        spell = self._prepares(action)
        if spell:
            ctx.add_condition(c.key, Condition(f"prepared:{spell}", note=spell), rule="TA-2",
                              source=c.key)
            return
        super().perform(ctx, c, action, declaration, index)

    def on_cast(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        spell = self._spell(action)
        ctx.remove_condition(c.key, f"prepared:{spell}", rule="TA-2", reason="cast")
        ctx.emit("cast", actor=c.key, target=action.target, rule="TA-2", spell=spell)

    def on_defend(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        skill = action.options.skill or action.text or "defence"
        ctx.add_condition(c.key, Condition(DEFENSIVE, note=str(skill), source=c.key),
                          rule="TA-3", source=c.key, skill=str(skill))

    def on_attack(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        weapon = self.weapon_for(c, action)
        if not self._ranged(action, weapon):
            self._melee(ctx, c, action, weapon)
        elif action.target is None or ctx.get(action.target).is_object:
            self._at_object(ctx, c, action, weapon)
        else:
            self._at_character(ctx, c, action, weapon)

    def _melee(self, ctx: RoundContext, c: Combatant, action: Action, weapon: Weapon) -> None:
        assert action.target is not None
        target = ctx.get(action.target)
        skill, bonus = self._skill(c, action, weapon)
        attack, _ = ctx.roll_for(action, _signed("1d20", bonus), who=c,
                                 label=f"melee {target.key}")
        parry, why = self._parry(ctx, target)
        defense = ctx.roll(_signed("1d20", target.stat(parry) if parry else 0),
                           label=f"parry {c.key}")
        params = {"skill": skill or "-", "parry": parry or "-", "parry_from": why,
                  "total": attack.total, "defense": defense.total, "weapon": weapon.name}
        if self._defender_wins(attack.total, defense.total):
            ctx.emit("attack.parried", actor=c.key, target=target.key, rule="TA-3",
                     rolls=[attack, defense], **params,
                     message=f"{target.name} parries {c.name}'s attack with "
                             f"{parry or 'a bare d20'} ({why}): {defense.total} against "
                             f"{attack.total}; the damage is cancelled.")
            return
        ctx.emit("attack.hit", actor=c.key, target=target.key, rule="TA-3",
                 rolls=[attack, defense], **params,
                 message=f"{c.name} hits {target.name}: {attack.total} against the parry's "
                         f"{defense.total} ({parry or 'a bare d20'}, {why}).")
        self._damage(ctx, c, target, weapon, 1, "TA-3")

    def _accuracy(self, c: Combatant, action: Action, weapon: Weapon) -> tuple[str | None, int, int]:
        """(skill, skill value + inspiration + mastery, TA-6 total); TA-5's natural 20 is read
        before any of these."""
        skill, value = self._skill(c, action, weapon)
        sit, _ = situational(action.options.situational or {}, skill=value,
                             table=self.setting("situational"))
        value += sum(whole_number(action.options.named(k)) or 0 for k in ("inspiration", "mastery"))
        return skill, value, sit

    def _at_object(self, ctx: RoundContext, c: Combatant, action: Action, weapon: Weapon) -> None:
        _, value, sit = self._accuracy(c, action, weapon)
        dc = whole_number(action.options.dc if action.options.dc is not None else self.setting("checks.object_dc")) or 0
        roll, own = ctx.roll_for(action, _signed("1d20", value + sit), who=c, label="shot")
        total = roll.total + (sit if own else 0)
        where = ctx.name(action.target) if action.target else str(action.options.place)
        if total >= dc:
            ctx.emit("check", actor=c.key, target=action.target, rule="TA-4", rolls=[roll],
                     what=f"shot at {where}", total=total, dc=dc, result="on target",
                     situational=sit)
            if action.target is not None:
                self._damage(ctx, c, ctx.get(action.target), weapon, 1, "TA-4")
            return
        ctx.emit("attack.scattered", actor=c.key, target=action.target, rule="TA-4",
                 rolls=[roll], total=total, dc=dc, place=where, situational=sit,
                 message=f"{c.name}'s shot at {where} misses ({total} against {dc}) and "
                         f"lands in a neighbouring cell; the narrator picks which.")

    def _at_character(self, ctx: RoundContext, c: Combatant, action: Action,
                      weapon: Weapon) -> None:
        assert action.target is not None
        target = ctx.get(action.target)
        skill, value, sit = self._accuracy(c, action, weapon)
        dc = whole_number(action.options.dc if action.options.dc is not None else self.setting("checks.hit_dc")) or 0
        hit, own = ctx.roll_for(action, _signed("1d20", value + sit), who=c,
                                label=f"hit {target.key}")
        total = hit.total + (sit if own else 0)
        critical = hit.natural == int(self.setting("checks.critical_natural"))
        if total < dc and not critical:
            ctx.emit("attack.miss", actor=c.key, target=target.key, rule="TA-5", rolls=[hit],
                     total=total, defense=dc, situational=sit,
                     message=f"{c.name} misses {target.name}: the hit check is {total} "
                             f"against {dc}.")
            return
        if critical:
            ctx.emit("attack.critical", actor=c.key, target=target.key, rule="TA-5",
                     natural=hit.natural, multiplier=int(self.setting("checks.critical_multiplier")),
                     message=f"{c.name} rolls a natural {hit.natural} before modifiers: a "
                             f"critical hit on a weak spot.")
        bonus = weapon_bonus(weapon.category, self.setting("weapon_bonus")) or 0
        # TA-6 counted once, on the hit check above; the opposed check adds the weapon type
        attack = ctx.roll(_signed("1d20", value + bonus), label=f"opposed {target.key}")
        defense = ctx.roll(_signed("1d20", self.reaction(target)), label=f"reaction {c.key}")
        params = {"total": attack.total, "defense": defense.total, "weapon": weapon.name,
                  "weapon_bonus": bonus, "situational": sit, "critical": critical,
                  "skill": skill or "-"}
        if self._defender_wins(attack.total, defense.total):
            ctx.emit("attack.evaded", actor=c.key, target=target.key, rule="TA-5",
                     rolls=[hit, attack, defense], **params,
                     message=f"{target.name} evades {c.name}'s shot: Reaction "
                             f"{defense.total} against {attack.total} "
                             f"({weapon.category} +{bonus}).")
            return
        ctx.emit("attack.hit", actor=c.key, target=target.key, rule="TA-5",
                 rolls=[hit, attack, defense], **params,
                 message=f"{c.name} hits {target.name}: {attack.total} "
                         f"({weapon.category} +{bonus}) against Reaction {defense.total}.")
        mult = int(self.setting("checks.critical_multiplier")) if critical else 1
        self._damage(ctx, c, target, weapon, mult, "TA-5")

    def _damage(self, ctx: RoundContext, c: Combatant, target: Combatant, weapon: Weapon,
                multiplier: int, rule: str) -> None:
        roll = ctx.roll(weapon.damage, who=c, label=f"damage {target.key}")
        ctx.damage(target.key, max(0, roll.total) * max(1, multiplier), source=c.key,
                   rule=rule, rolls=[roll], weapon=weapon.name,
                   **damage_parts((), max(1, multiplier)))

    def on_move(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        where = action.options.to or action.options.distance or action.text
        ctx.emit("move", actor=c.key, rule="TA-2", to=where,
                 message=f"{c.name} moves{f' ({where})' if where else ''}.")

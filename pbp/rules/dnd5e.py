"""dnd5e (RULES.md DND-1..DND-7): the combat chapter of D&D 5e, source 002 (Russian).

How each rule is carried out (numbers from ``pbp/config/rulesets/dnd5e.toml``):

* DND-1 the round: surprise (``Encounter.surprised``, announced in round 1), initiative,
  turns in initiative order, next round in the same order.
* DND-2 surprise is per creature: a creature in ``Encounter.surprised`` cannot move, act
  (bonus actions included) or react on its first turn; every declared action is refused
  with the reason, and the creature leaves the surprised list when that turn ends.
* DND-3 initiative = d20 + Dex modifier (``dex_mod``, else from the ``dex`` score), fixed
  for the whole combat. Identical narrator creatures (same name but for the number, same
  sheet) share one roll and act together (``initiative.group_identical``). Ties:
  ``initiative.ties`` = ``narrator`` (roster order, an ``initiative.tie`` event says who
  may reorder: the narrator, or the player for their own characters) or ``roll-off``.
* DND-4 a turn is a move up to speed (``speed``, feet; several moves may share it, before
  or after the action) and one action. No full-round actions, no delay.
* DND-5 a bonus action only when a feature or spell grants one (an ability ``bonus:<name>``
  on the sheet; ``options.granted_by`` may name it), at most one a turn, and never when
  actions are forbidden (surprise, or an incapacitating condition: incapacitated, stunned,
  paralyzed, petrified, unconscious -- these forbid reactions too).
* DND-6 brief speech and gestures are free (``free`` with ``options.speech`` or
  ``options.gesture``); one free object interaction (any other ``free`` action); a second
  one costs the action (``action.changed``), and with the action spent it is refused.
* DND-7 one reaction, on any turn (``reaction`` actions and readied actions going off);
  then none until the start of your next turn (``reaction-used``). It goes off when its
  trigger happens (:mod:`pbp.rules.triggers`): an attack at a target is an opportunity
  attack, set off when the target moves away (``options.away_from`` names the reactor),
  or ``options.trigger``; untriggered, it lapses at the round's end. A readied action
  goes off the same way, and the order stays (DND-3).

Attacks are outside the excerpt: standard 5e, d20 + bonus (the weapon's skill, else the
Str/Dex modifier plus ``proficiency``) against ``armor`` (AC); a creature taking total
defense (``defending``, the latency default) is attacked with disadvantage (Dodge).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ..errors import UnreadableInput
from .base import Ruleset
from .context import Budget, Defense, Modifier, Problem, RoundContext
from .model import (
    TRIGGER_MOVE_AWAY,
    Action,
    ActionKind,
    Combatant,
    Condition,
    Declaration,
    Trigger,
    Weapon,
)
from .narrators_call import announce_ties, check_choices, forfeit
from .registry import register

REACTION_USED = "reaction-used"
DEFENDING = "defending"
#: 5e conditions that forbid actions (and so bonus actions, DND-5, and reactions)
NO_ACTIONS = ("incapacitated", "stunned", "paralyzed", "petrified", "unconscious")
_NUMBERED = re.compile(r"[\s#\-_]*\d+$")

_ACTION_KINDS = (ActionKind.ATTACK, ActionKind.CAST, ActionKind.DEFEND, ActionKind.READY,
                 ActionKind.MANEUVER, ActionKind.QUICK, ActionKind.OTHER)


def _signed(expr: str, bonus: int) -> str:
    return f"{expr}{bonus:+d}" if bonus else expr


def _fold(text: str) -> str:
    return re.sub(r"[\s_]+", "-", text.strip().casefold())


@register
class Dnd5e(Ruleset):
    id = "dnd5e"
    title = "D&D 5th edition"
    source = "002_06d31c58371f5cce.txt"
    rule_ids = ("DND-1", "DND-2", "DND-3", "DND-4", "DND-5", "DND-6", "DND-7", "PBP-2", "PBP-3")
    rule_refs: ClassVar[Mapping[str, str]] = {"initiative": "DND-3", "budget": "DND-4",
                                              "surprise": "DND-2", "ready": "DND-7",
                                              "reaction": "DND-7",
                                              "latency": "PBP-2"}
    #: sheet keys of this ruleset besides the common ones in stats.py (scenario files)
    extra_stats = frozenset({"speed", "attack", "proficiency", "ac"})
    defaults: ClassVar[Mapping[str, Any]] = {
        "speech_limit": 3,
        "round_seconds": 6,
        "initiative": {"turns": "individual", "sides_first": "initiative", "first": "", "mode": "roll", "ties": "narrator", "group_identical": True},
        "latency": {"enabled": True},
        "turn": {"actions": 1, "default_speed": 30, "bonus_actions": 1,
                 "free_interactions": 1, "reactions": 1},
        "attack": {"default_ac": 10},
    }

    def __init__(self, houserules: Mapping[str, Any] | None = None) -> None:
        super().__init__(houserules)
        check_choices(self.id, self.setting, {"initiative.ties": ("narrator", "roll-off"),
                                              "initiative.mode": ("roll",)})

    # -- DND-3 initiative --------------------------------------------------------------
    @staticmethod
    def dex_mod(c: Combatant) -> int:
        if "dex_mod" in c.stats:
            return c.stat("dex_mod")
        if "dex" in c.stats:
            return (c.stat("dex") - 10) // 2
        return 0

    def initiative_bonus(self, c: Combatant) -> int:
        return self.dex_mod(c)

    def initiative_expression(self, c: Combatant) -> str:
        return _signed("1d20", self.dex_mod(c))

    def tiebreak(self, ctx: RoundContext, c: Combatant) -> tuple[float, ...]:
        return ()  # DND-3: the narrator orders ties (roster order) or a d20 roll-off

    def initiative_group(self, ctx: RoundContext, c: Combatant) -> str | None:
        """DND-3: identical narrator creatures share one initiative roll."""
        if c.player is not None or not self.setting("initiative.group_identical", True):
            return None
        base = _NUMBERED.sub("", c.name).strip().casefold() or c.name.casefold()
        sheet = ",".join(f"{k}={v}" for k, v in sorted(c.stats.items()))
        weapons = ",".join(sorted(w.name for w in c.weapons))
        return f"{c.side}|{base}|{sheet}|{weapons}"

    def start_of_round(self, ctx: RoundContext) -> None:
        super().start_of_round(ctx)
        if ctx.round == 1 and ctx.surprised:
            names = ", ".join(ctx.name(k) for k in ctx.surprised)
            ctx.emit("surprise", rule="DND-2", surprised=list(ctx.surprised),
                     message=f"Surprised: {names}. They cannot move or act on their first "
                             f"turn, nor react until it ends.")
        units = {k: self.initiative_group(ctx, ctx.get(k)) for k in ctx.order}
        announce_ties(ctx, "DND-3", str(self.setting("initiative.ties")),
                      {k: v for k, v in units.items() if v is not None})

    # -- DND-4..7 the turn -------------------------------------------------------------
    def speed(self, c: Combatant) -> int:
        return max(0, c.stat("speed", int(self.setting("turn.default_speed", 30))))

    @staticmethod
    def bonus_sources(c: Combatant) -> list[str]:
        return [_fold(a)[len("bonus:"):] for a in c.abilities if _fold(a).startswith("bonus:")]

    def budget(self, ctx: RoundContext, c: Combatant) -> Budget:
        if c.key in ctx.surprised:
            return Budget({"action": 0, "move": 0, "bonus": 0, "interaction": 0,
                           "reaction": 0, "free": 0})
        reactions = 0 if c.has(REACTION_USED) else int(self.setting("turn.reactions", 1))
        if self.forbidding(c):
            return Budget({"action": 0, "move": self.speed(c), "bonus": 0, "interaction": 0,
                           "reaction": 0, "free": None})
        return Budget({
            "action": int(self.setting("turn.actions", 1)),
            "move": self.speed(c),
            "bonus": int(self.setting("turn.bonus_actions", 1)) if self.bonus_sources(c) else 0,
            "interaction": int(self.setting("turn.free_interactions", 1)),
            "reaction": reactions,
            "free": None,
        })

    @staticmethod
    def forbidding(c: Combatant) -> str | None:
        """The condition that forbids *c* any action this turn, if any."""
        return next((name for name in NO_ACTIONS if c.has(name)), None)

    @staticmethod
    def is_speech(action: Action) -> bool:
        return any(action.options.named(k) for k in ("speech", "gesture", "utterance"))

    def slot_of(self, action: Action) -> str:
        kind = action.kind
        if kind is ActionKind.MOVE:
            return "move"
        if kind is ActionKind.BONUS:
            return "bonus"
        if kind is ActionKind.REACTION:
            return "reaction"
        if kind is ActionKind.FREE:
            if action.options.costs_action:  # DND-6: the narrator asks for an action
                return "action"
            return "free" if self.is_speech(action) else "interaction"
        return "action"

    def check_action(self, ctx: RoundContext, c: Combatant, action: Action, index: int,
                     declaration: Declaration) -> list[Problem]:
        kind = action.kind
        what = action.text or kind.value
        if c.key in ctx.surprised:
            if kind is ActionKind.BONUS:
                return [Problem("surprised", "DND-5",
                                f"{c.name} is surprised (DND-2): whatever forbids actions "
                                f"forbids bonus actions too ('{what}')", index)]
            if kind is ActionKind.REACTION:
                return [Problem("surprised", "DND-2",
                                f"{c.name} is surprised: no reactions until its first turn "
                                f"ends ('{what}')", index)]
            return [Problem("surprised", "DND-2",
                            f"{c.name} is surprised: it cannot move or act on its first "
                            f"turn ('{what}')", index)]
        why = self.forbidding(c)
        if why and self.slot_of(action) in ("action", "bonus", "reaction", "interaction"):
            rule = {"bonus": "DND-5", "reaction": "DND-7"}.get(self.slot_of(action), "DND-4")
            also = " (and so bonus actions)" if rule == "DND-5" else ""
            return [Problem("forbidden", rule,
                            f"{c.name} is {why}: no actions{also} or reactions ('{what}')",
                            index, {"condition": why})]
        if kind is ActionKind.FULL_ROUND:
            return [Problem("kind.unknown", "DND-4",
                            f"there are no full-round actions: a turn is a move and one "
                            f"action ('{what}')", index)]
        if kind is ActionKind.DELAY:
            return [Problem("initiative.fixed", "DND-3",
                            f"the initiative order stays the same all combat: you cannot "
                            f"delay ('{what}'); ready an action instead", index)]
        if kind is ActionKind.BONUS:
            sources = self.bonus_sources(c)
            granted = action.options.granted_by
            if not sources:
                return [Problem("bonus.not-granted", "DND-5",
                                f"{c.name} has no feature or spell that grants a bonus action "
                                f"('{what}')", index)]
            if granted and _fold(str(granted)) not in sources:
                return [Problem("bonus.not-granted", "DND-5",
                                f"'{granted}' is not a feature of {c.name} that grants a bonus "
                                f"action (it has: {', '.join(sources)})", index)]
        if kind in (ActionKind.READY, ActionKind.REACTION) and action.options.given("trigger"):
            try:
                Trigger.from_option(action.options.trigger)
            except UnreadableInput as exc:
                return [Problem("ready.trigger", "DND-7", exc.message, index)]
        if kind is ActionKind.MOVE:
            distance = action.options.distance
            if distance is not None and (isinstance(distance, bool)
                                         or not isinstance(distance, (int, float))
                                         or distance < 0):
                return [Problem("move.distance", "DND-4",
                                f"a move needs a distance in feet, not {distance!r}", index)]
        return []

    def charge(self, ctx: RoundContext, c: Combatant, action: Action, budget: Budget,
               index: int) -> Problem | None:
        slot = self.slot_of(action)
        what = action.text or action.kind.value
        if slot == "move":
            left = budget.left("move") or 0
            distance = action.options.distance
            feet = left if distance is None else int(distance)
            if left <= 0 or feet > left:
                return Problem("budget.exceeded", "DND-4",
                               f"{c.name} can move {self.speed(c)} ft a turn and has {left} ft "
                               f"left; '{what}' needs {feet} ft", index,
                               {"slot": "move", "left": left, "needed": feet})
            budget.spend("move", feet)
            budget.marks.setdefault("moved", {})[index] = feet
            return None
        if budget.has(slot):
            budget.spend(slot)
            return None
        if slot == "interaction":
            if budget.has("action"):  # DND-6: the second interaction costs the action
                budget.spend("action")
                budget.marks.setdefault("paid_with_action", []).append(index)
                return None
            return Problem("budget.exceeded", "DND-6",
                           f"one object interaction is free and a second one costs the action, "
                           f"which is already used ('{what}')", index, {"slot": slot})
        if slot == "action":
            return Problem("budget.exceeded", "DND-4",
                           f"one action a turn; '{what}' would be a second one", index,
                           {"slot": slot})
        if slot == "bonus":
            return Problem("budget.exceeded", "DND-5",
                           f"at most one bonus action a turn; '{what}' would be a second one",
                           index, {"slot": slot})
        if slot == "reaction":
            return Problem("budget.exceeded", "DND-7",
                           f"one reaction until the start of your next turn; '{what}' "
                           f"would be another", index, {"slot": slot})
        return Problem("budget.exceeded", None, f"nothing left to pay for '{what}'", index,
                       {"slot": slot})

    # -- carrying out ------------------------------------------------------------------
    def start_of_turn(self, ctx: RoundContext, c: Combatant) -> bool:
        if c.has(REACTION_USED):  # DND-7: the reaction comes back at the start of the turn
            ctx.remove_condition(c.key, REACTION_USED, rule="DND-7",
                                 reason="a new turn gives the reaction back")
        if c.key in ctx.surprised and ctx.declarations.get(c.key) is None:
            self._surprise_over(ctx, c)
        return True

    def end_of_turn(self, ctx: RoundContext, c: Combatant) -> None:
        if c.key in ctx.surprised:
            self._surprise_over(ctx, c)

    @staticmethod
    def _surprise_over(ctx: RoundContext, c: Combatant) -> None:
        ctx.surprised = tuple(k for k in ctx.surprised if k != c.key)
        ctx.emit("surprise.over", actor=c.key, rule="DND-2",
                 message=f"{c.name}'s first turn is over: no longer surprised.")

    def latency(self, ctx: RoundContext, c: Combatant, declaration: Declaration) -> Declaration:
        """PBP-2: the action and bonus action are lost; total defense is the Dodge action
        (attacks against it have disadvantage until its next turn)."""
        stands = forfeit(ctx, c, declaration,
                         keeps=lambda a: self.slot_of(a) not in ("action", "bonus"),
                         defense=f"{c.name} takes the Dodge action (attacks against it have "
                                 f"disadvantage until its next turn)")
        ctx.add_condition(c.key, Condition(DEFENDING, rounds=1, started_round=ctx.round,
                                           started_count=ctx.count), rule="PBP-2")
        return stands

    def perform(self, ctx: RoundContext, c: Combatant, action: Action,
                declaration: Declaration, index: int) -> None:
        budget = ctx.budgets.get(c.key)
        if ctx.turn_of != c.key:  # going off on another's turn: a reaction (DND-7)
            if c.key in ctx.surprised or c.has(REACTION_USED) or self.forbidding(c):
                why = ("is surprised" if c.key in ctx.surprised
                       else f"is {self.forbidding(c)}" if self.forbidding(c)
                       else "already used its reaction")
                what = "reaction" if action.kind is ActionKind.REACTION else "readied action"
                ctx.emit("action.rejected", actor=c.key, rule="DND-7", action_index=index,
                         problem="reaction.used",
                         reason=f"{c.name} {why}, so the {what} cannot go off")
                return
            self._spend_reaction(ctx, c)
        elif budget is not None and index in budget.marks.get("paid_with_action", []):
            ctx.emit("action.changed", actor=c.key, rule="DND-6", action_index=index,
                     reason=f"a second object interaction costs {c.name}'s action "
                            f"('{action.text or 'interaction'}')")
        super().perform(ctx, c, action, declaration, index)

    def _spend_reaction(self, ctx: RoundContext, c: Combatant) -> None:
        ctx.add_condition(c.key, Condition(REACTION_USED, source=c.key), rule="DND-7",
                          source=c.key)

    @staticmethod
    def _attacks(action: Action) -> bool:
        return action.target is not None and bool(
            action.options.attack if action.options.attack is not None
            else action.weapon is not None)

    def reaction_trigger(self, ctx: RoundContext, c: Combatant, action: Action) -> Trigger | None:
        """DND-7: a named trigger, else an attack at a target is an opportunity attack that
        waits for the target to move away from *c*; else None (noted on c's turn)."""
        if action.options.trigger:
            try:
                trigger = Trigger.from_option(action.options.trigger)
            except UnreadableInput:
                return None  # refused with its reason when the owner's turn is planned
            known = isinstance(trigger.actor, str) and trigger.actor in ctx.combatants
            return trigger if known else None
        if self._attacks(action):
            return Trigger(actor=action.target, does=TRIGGER_MOVE_AWAY, text="moves away")
        return None

    def on_reaction(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        if not ctx.get(c.key).has(REACTION_USED):  # perform() spent it when off-turn
            self._spend_reaction(ctx, c)
        if self._attacks(action):
            self.resolve_attack(ctx, c, action)
        else:
            self.on_other(ctx, c, action)

    def on_move(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        budget = ctx.budgets.get(c.key)
        left = budget.left("move") if budget else None
        feet = action.options.distance
        if feet is None and budget is not None:
            feet = budget.spent.get("move", 0)
        ctx.emit("move", actor=c.key, rule="DND-4", distance=feet, speed=self.speed(c),
                 left=left,
                 message=f"{c.name} moves {feet} ft (speed {self.speed(c)} ft, {left} ft left).")

    # -- attacks (standard 5e, outside the excerpt) ------------------------------------
    def attack_expression(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                          action: Action, weapon: Weapon) -> str:
        return "2d20kl1" if target.has(DEFENDING) else "1d20"

    def attack_bonus(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                     action: Action, weapon: Weapon) -> list[Modifier]:
        if weapon.skill:
            return [Modifier(attacker.stat(weapon.skill), weapon.skill)]
        ability = "dex" if weapon.ranged else "str"
        mod = attacker.stat(f"{ability}_mod", (attacker.stat(ability, 10) - 10) // 2)
        mods = [Modifier(mod, ability)]
        if attacker.stat("proficiency"):
            mods.append(Modifier(attacker.stat("proficiency"), "proficiency"))
        return mods

    def defense(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                action: Action, weapon: Weapon, attack: Any) -> Any:
        ac = target.stat("armor", target.stat("ac", int(self.setting("attack.default_ac", 10))))
        return Defense(ac, "AC")

"""forum-d20's action economy and declaration checks (FD-1, FD-5, FD-10, FD-12, FD-14,
FD-15, FD-16, FD-17), as a base class of :class:`pbp.rules.forum_d20.ForumD20`.

A turn is one free + one combat + one move action; the free one may become a second
move; combat + move may become one full action; any number of other free actions and
reactions (FD-10). Extra attacks come out of the same combat action (FD-12).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import PbpError, UnreadableInput
from . import conditions as C
from . import maneuvers
from .base import Ruleset
from .context import Budget, Problem, RoundContext
from .model import Action, ActionKind, Combatant, Declaration, Trigger
from .powers import uses_power

COMBAT_KINDS = frozenset({ActionKind.ATTACK, ActionKind.CAST, ActionKind.MANEUVER,
                          ActionKind.READY, ActionKind.DEFEND, ActionKind.FULL_ROUND})


class ForumD20Economy(Ruleset):
    """Budget, charging and validation hooks of forum-d20 (not registered on its own)."""

    # -- economy (FD-10, FD-12) --------------------------------------------------------
    def budget(self, ctx: RoundContext, c: Combatant) -> Budget:
        return Budget({"combat": 1, "move": 1, "free": 1, "extra-free": None,
                       "reaction": None, "extra-attack": max(0, c.stat("attacks", 1) - 1)})

    def surprise_budget(self, ctx: RoundContext, c: Combatant) -> Budget | None:
        return self.budget(ctx, c)  # FD-1 has no surprise round: surprise bites in round 1

    def slot_of(self, action: Action) -> str:
        k = action.kind
        if k is ActionKind.CAST:
            return "move" if action.options.power else "combat"  # FD-5 vs FD-14
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
        what = action.options.move
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
        if k is ActionKind.FREE and (action.options.spell or action.options.power):
            out.append(Problem("speech.spell", "FD-17",
                               "a spell or power spoken aloud is not a free action; "
                               "declare it as a cast", index))
        if k is ActionKind.ATTACK and uses_power(c, action, c.weapon(action.weapon)):
            earlier = any(a.kind is ActionKind.CAST and a.options.power
                          for a in declaration.actions[:index])
            if not c.has(C.POWER) and not earlier:
                out.append(Problem("power.missing", "FD-5",
                                   "create the power first: a move action and a Control test",
                                   index))
        if k is ActionKind.MANEUVER:
            name = maneuvers.name_of(action)
            if name is None:
                out.append(Problem("maneuver.unknown", "FD-14",
                                   f"unknown maneuver '{action.options.maneuver}' (known: "
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
            out += self._check_trigger(ctx, action, index)
        if k is ActionKind.DELAY:
            until = action.options.until
            if until is not None and (isinstance(until, bool)
                                      or not isinstance(until, (int, float))):
                out.append(Problem("delay.count", "FD-16",
                                   f"'{until}' is not an initiative count", index))
            after = action.options.after
            if after is not None and (not isinstance(after, str) or after not in ctx.combatants):
                out.append(Problem("delay.after", "FD-16",
                                   f"there is nobody called '{after}' to wait for", index))
        if k is ActionKind.CAST and action.options.inflict is not None:
            out += self._check_inflict(action, index)
        return out

    @staticmethod
    def _check_trigger(ctx: RoundContext, action: Action, index: int) -> list[Problem]:
        """FD-14: "say the action and in which circumstances": whose action (and which
        kind of action, ``on``) sets it off."""
        value = action.options.trigger or {}
        try:
            trigger = Trigger.from_option(value) if isinstance(value, Mapping) else None
        except UnreadableInput as exc:
            return [Problem("ready.trigger", "FD-14", exc.message, index)]
        if trigger is None or not isinstance(trigger.actor, str) \
                or trigger.actor not in ctx.combatants:
            return [Problem("ready.trigger", "FD-14",
                            "a readied action needs a trigger: whose action sets it off",
                            index)]
        return []

    def _check_inflict(self, action: Action, index: int) -> list[Problem]:
        out: list[Problem] = []
        try:
            C.canonical(str(action.options.inflict))
        except PbpError as exc:
            out.append(Problem("inflict.unknown", "FD-18", exc.message, index,
                               {"name": str(action.options.inflict)}))
        rounds = action.options.rounds
        if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int)):
            out.append(Problem("inflict.rounds", "FD-6",
                               f"'{rounds}' is not a number of rounds", index))
        save = (action.options.save if action.options.save is not None else "will")
        if save not in ("fortitude", "reflexos", "will"):
            out.append(Problem("inflict.save", "FD-4",
                               f"'{save}' is not a defense test (fortitude, reflexos, will)",
                               index))
        if action.target is None:
            out.append(Problem("target.missing", "FD-18",
                               "a spell that imposes a condition needs a target", index))
        return out

    def speed(self, c: Combatant) -> float:
        """FD-15: 9 m + 1 m per DEX modifier point (+3 m per speed bonus); half while grappling."""
        metres = float(self.setting("movement.base", 9)) + c.stat("dex_mod") \
            + 3 * c.stat("speed_bonus")
        return metres / 2 if c.has(C.GRAPPLING) else metres

    def _check_move(self, c: Combatant, action: Action, index: int) -> list[Problem]:
        out: list[Problem] = []
        what = action.options.move
        if what == "walk":
            if c.has(C.GRAPPLED):
                out.append(Problem("move.grappled", "FD-14",
                                   f"{c.name} is grappled and cannot move (escape first, "
                                   "with a combat action)", index))
            distance = action.options.distance
            if isinstance(distance, (int, float)) and distance > self.speed(c):
                out.append(Problem("move.too-far", "FD-15",
                                   f"{distance} m is more than {c.name}'s move of "
                                   f"{self.speed(c):g} m", index, {"speed": self.speed(c)}))
        return out


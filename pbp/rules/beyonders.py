"""beyonders (RULES.md BEY-1..BEY-17, source 000_*.txt): the Beyonders d20 system.

What sets it apart, and why the hooks below exist:

* a turn is 1 attack-or-cast + 3 quick + 1 move + unlimited free actions (BEY-5); an
  attack/cast converts down into 2 quick, never up, never into a move (BEY-9); external
  extra actions have diminishing returns (BEY-12);
* attacks never roll against a dodge: 1d20 + attribute + skill must strictly exceed a
  static Physical Defense (BEY-13); firearms ignore Dex and Dodge unless the target has
  Quick Dodge (BEY-14);
* a separate surprise round (BEY-1..3) with advantage for the surprising side;
* quick and move actions may ride on another's turn without interrupting it (BEY-6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from . import conditions as C
from . import latency, riders
from .base import Ruleset
from .context import AttackRoll, Budget, Damage, Defense, Modifier, Problem, RoundContext, total
from .economy import usable_extras
from .model import Action, ActionKind, Combatant, Declaration, PendingFullRound, Weapon
from .registry import register

ATTACK_KINDS = frozenset({ActionKind.ATTACK, ActionKind.CAST, ActionKind.MANEUVER})
RIDE_KINDS = frozenset({ActionKind.QUICK, ActionKind.MOVE, ActionKind.FREE})  # BEY-6


@register
class Beyonders(Ruleset):
    id = "beyonders"
    title = "Beyonders d20"
    source = "000_a1a962720c911b51.txt"
    has_surprise_round = True
    rule_ids = tuple(f"BEY-{n}" for n in range(1, 18))
    rule_refs: ClassVar[Mapping[str, str]] = {
        "attack": "BEY-13",
        "initiative": "BEY-4", "conditions": "BEY-10", "latency": "PBP-2",
        "surprise": "BEY-1", "budget": "BEY-5",
    }
    defaults: ClassVar[Mapping[str, Any]] = {
        "speech_limit": 0, "round_seconds": 6, "conversion_ratio": 2,
        "actions": {"attack": 1, "quick": 3, "move": 1},
        "surprise": {"quick": 2, "advantage": True},
        "initiative": {"turns": "individual", "sides_first": "initiative", "first": "", "mode": "roll", "ties": "dex"},
        "latency": {"enabled": True, "mode": "total-defense", "penalty": 2,
                    "total_defense_bonus": 4},
        "defense": {"base": 10, "flat_footed_loses_dex": True},
        "movement": {"item_on_body": 1, "item_beside": 2},
    }
    extra_stats = frozenset({"con_defense", "will_defense", "luta", "pontaria", "speed"})

    # -- initiative (BEY-4, BEY-17) ----------------------------------------------------
    def initiative_bonus(self, c: Combatant) -> int:
        return c.stat("dex")  # BEY-4: 1d20 + Dex

    # -- economy (BEY-5, BEY-8, BEY-9, BEY-10, BEY-12) ---------------------------------
    def budget(self, ctx: RoundContext, c: Combatant) -> Budget:
        """Fresh every round (BEY-10: nothing carries over), plus usable extras (BEY-12)."""
        extra = {k: usable_extras(int(v)) for k, v in c.extra_actions.items()} \
            if c.extra_actions else {}
        extra["attack"] = extra.get("attack", 0) + extra.pop("cast", 0)
        return Budget({
            "attack": int(self.setting("actions.attack", 1)) + extra.get("attack", 0),
            "quick": int(self.setting("actions.quick", 3)) + extra.get("quick", 0),
            "move": int(self.setting("actions.move", 1)) + extra.get("move", 0),
            "free": None,
        })

    def surprise_budget(self, ctx: RoundContext, c: Combatant) -> Budget | None:
        """BEY-1: ONE of an attack/cast, a move, or two quick actions."""
        if c.key in ctx.surprised:
            return Budget({})
        return Budget({"attack": 1, "quick": int(self.setting("surprise.quick", 2)),
                       "move": 1, "free": None}, marks={"surprise": True})

    def slot_of(self, action: Action) -> str:
        if action.kind in ATTACK_KINDS or action.kind is ActionKind.DEFEND:
            return "attack"
        return {ActionKind.QUICK: "quick", ActionKind.MOVE: "move"}.get(action.kind, "free")

    def charge(self, ctx: RoundContext, c: Combatant, action: Action, budget: Budget,
               index: int) -> Problem | None:
        if action.options.on_turn_of and index in ctx.note(c.key).get("ridden", {}):
            return None  # BEY-6: already paid for when it rode on the other's turn
        k = action.kind
        if budget.marks.get("surprise"):
            return self._charge_surprise(c, action, budget, index)
        if k is ActionKind.FULL_ROUND:  # BEY-8: attack/cast + all 3 quick + the move
            if budget.spent.get("attack") or budget.spent.get("quick") or budget.spent.get("move"):
                return Problem("budget.exceeded", "BEY-8",
                               "a full-round action needs your attack/cast, all three quick "
                               "and your move action unused", index)
            for slot in ("attack", "quick", "move"):
                budget.spend(slot, budget.left(slot) or 0)
            return None
        slot = self.slot_of(action)
        if budget.has(slot):
            budget.spend(slot)
            return None
        if slot == "quick" and budget.has("attack"):  # BEY-9: 1 attack/cast -> 2 quick
            budget.convert("attack", "quick", int(self.setting("conversion_ratio", 2)), "BEY-9")
            budget.spend("quick")
            return None
        label = action.text or action.kind.value
        if slot == "move" and budget.has("attack"):
            return Problem("conversion.refused", "BEY-9",
                           f"no move action left for '{label}': an attack/cast action never "
                           "converts into a move", index)
        if slot == "attack" and budget.has("quick", 2):
            return Problem("conversion.refused", "BEY-9",
                           f"no attack/cast action left for '{label}': quick actions never "
                           "combine into an attack or cast", index)
        names = {"attack": "attack/cast action", "quick": "quick action",
                 "move": "move action"}
        return Problem("budget.exceeded", "BEY-5",
                       f"no {names.get(slot, slot)} left this round for '{label}'", index,
                       {"slot": slot})

    def _charge_surprise(self, c: Combatant, action: Action, budget: Budget,
                         index: int) -> Problem | None:
        slot = self.slot_of(action)
        if slot == "free":
            return None
        chosen = budget.marks.get("pick")
        if action.kind is ActionKind.FULL_ROUND or (chosen is not None and chosen != slot) \
                or not budget.has(slot):
            return Problem("surprise.one", "BEY-1",
                           "in the surprise round each surprising combatant gets ONE of: an "
                           "attack/cast, a move, or two quick actions", index)
        budget.marks["pick"] = slot
        budget.spend(slot)
        return None

    def check_action(self, ctx: RoundContext, c: Combatant, action: Action, index: int,
                     declaration: Declaration) -> list[Problem]:
        out: list[Problem] = []
        k = action.kind
        if action.options.on_turn_of and index in ctx.note(c.key).get("ridden", {}):
            return out  # already judged when it rode on the other's turn (BEY-6)
        if ctx.surprise_round and c.key in ctx.surprised:
            return [Problem("surprised", "BEY-1",
                            f"{c.name} is surprised and takes no action in the surprise round",
                            index)]
        if k in (ActionKind.DELAY, ActionKind.READY):
            out.append(Problem("kind.unknown", "BEY-17",
                               f"beyonders has no {k.value}: everyone declares at once and the "
                               "narrator resolves in initiative order", index))
        if k in (ActionKind.BONUS, ActionKind.REACTION, ActionKind.DEFEND):
            out.append(Problem("kind.unknown", "BEY-5",
                               f"beyonders has no {k.value} action: a round is one attack/cast, "
                               "three quick, one move and any number of free actions", index))
        other = action.options.on_turn_of
        if other is not None:
            if k not in RIDE_KINDS:
                out.append(Problem("ride.kind", "BEY-6",
                                   "only quick, move and free actions may be used on another's "
                                   "turn", index))
            elif not isinstance(other, str) or other not in ctx.combatants:
                out.append(Problem("target.unknown", "BEY-6",
                                   f"there is nobody called '{other}' in this fight", index))
        if k is ActionKind.MOVE:
            distance = action.options.distance or 0
            items = action.options.items or ()
            if isinstance(distance, bool) or not isinstance(distance, (int, float)) \
                    or distance < 0:
                out.append(Problem("move.distance", "BEY-7",
                                   f"'{distance}' is not a distance", index))
            if not isinstance(items, tuple) or any(i not in ("body", "beside") for i in items):
                out.append(Problem("move.items", "BEY-7",
                                   "items are taken from the body or from beside you "
                                   "(body, beside)", index))
            if out:
                return out
            speed = self.speed(c)
            cost = self.move_cost(action)
            if cost > speed:
                out.append(Problem("move.too-far", "BEY-7",
                                   f"moving {cost} exceeds {c.name}'s Speed of {speed} "
                                   "(Str + Dex; items cost 1 on the body, 2 beside you)", index,
                                   {"speed": speed}))
        if action.options.cancel_cast and k is not ActionKind.FREE:
            out.append(Problem("cancel.kind", "BEY-16",
                               "cancelling your own casting costs one free action", index))
        return out

    def speed(self, c: Combatant) -> int:
        """BEY-7: Speed = Str + Dex (a sheet may override it with ``speed``)."""
        return c.stat("speed", c.stat("str") + c.stat("dex"))

    def move_cost(self, action: Action) -> float:
        """BEY-7: distance plus 1 per item taken from the body, 2 per item beside you."""
        distance = action.options.distance or 0
        items = action.options.items or ()
        per = {"body": int(self.setting("movement.item_on_body", 1)),
               "beside": int(self.setting("movement.item_beside", 2))}
        return float(distance) + sum(per.get(str(i), 0) for i in items)

    # -- latency (PBP-2) --------------------------------------------------------------
    def latency(self, ctx: RoundContext, c: Combatant, declaration: Declaration) -> Declaration:
        if ctx.surprise_round and c.key in ctx.surprised:
            return declaration  # the surprised side could not act anyway (BEY-1)
        return latency.apply(self, ctx, c, declaration, main="attack/cast action",
                             rule="PBP-2", forfeits=lambda a: self.slot_of(a) == "attack"
                             or a.kind is ActionKind.FULL_ROUND)

    # -- attack and defense (BEY-3, BEY-13, BEY-14, BEY-15) ---------------------------
    def advantage(self, ctx: RoundContext, attacker: Combatant, target: Combatant) -> int:
        """+1 advantage, -1 disadvantage, 0 neither (they cancel)."""
        if not (ctx.surprise_round or attacker.conditions or target.conditions):
            return 0  # every source below is the surprise round or a condition (SCALE-6)
        adv = dis = False
        if ctx.surprise_round and self.setting("surprise.advantage", True):
            adv = attacker.key not in ctx.surprised  # BEY-3
            dis = attacker.key in ctx.surprised
        adv = adv or attacker.has(C.INVISIBLE) or target.has(C.FLANKED) or attacker.has(C.ADVANTAGE)
        dis = dis or attacker.has(C.DISADVANTAGE) or attacker.has(C.BLINDED)
        return int(adv) - int(dis)

    def attack_expression(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                          action: Action, weapon: Weapon) -> str:
        edge = self.advantage(ctx, attacker, target)
        return {1: "2d20kh1", -1: "2d20kl1"}.get(edge, "1d20")

    def attack_bonus(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                     action: Action, weapon: Weapon) -> list[Modifier]:
        """BEY-13: attribute + skill bonus (``Luta``: 1d20 + Str + skill)."""
        attribute = weapon.attribute or ("dex" if weapon.ranged else "str")
        skill = weapon.skill or ("pontaria" if weapon.ranged else "luta")
        mods = [Modifier(attacker.stat(attribute), attribute), Modifier(attacker.stat(skill), skill)]
        edge = self.advantage(ctx, attacker, target)
        if edge and action.rolled is not None:
            mods.append(Modifier(0, "advantage" if edge > 0 else "disadvantage", "BEY-3"))
        return mods + self.condition_modifiers(ctx, attacker, "attack", against=target)

    def condition_modifiers(self, ctx: RoundContext, c: Combatant, role: str, *,
                            against: Combatant | None = None, ranged: bool = False
                            ) -> list[Modifier]:
        if not c.conditions:  # every modifier below comes from a condition (SCALE-6)
            return []
        mods: list[Modifier] = []
        late = c.condition(C.LATENCY)
        if late is not None and role != "defense":
            mods.append(Modifier(-abs(late.value), "late post", "PBP-2"))
        guard = c.condition(C.DEFENDING)
        if guard is not None and role == "defense":
            mods.append(Modifier(guard.value, "total defense", "PBP-2"))
        return mods

    def defense(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                action: Action, weapon: Weapon, attack: AttackRoll) -> Defense:
        base = int(self.setting("defense.base", 10))
        which = action.options.defense
        extra = self.condition_modifiers(ctx, target, "defense", against=attacker)
        if which in ("con", "constitution", "will"):  # BEY-15: the ability names it
            key = "con" if which != "will" else "will"
            value = target.stat(f"{key}_defense", base + target.stat(key))
            return Defense(value + total(extra),
                           "constitution" if key == "con" else "will", mods=tuple(extra),
                           rule="BEY-15")
        mods = [Modifier(base, "base"), Modifier(target.stat("armor"), "armor")]
        flat = target.has(C.FLAT_FOOTED) and self.setting("defense.flat_footed_loses_dex", True)
        firearm = weapon.category == "firearm"
        dodges = "quick-dodge" in target.abilities
        rule = "BEY-13"
        if firearm and not dodges:
            rule = "BEY-14"  # bullets are too fast to dodge: 10 + Armor only
        elif flat:
            rule = "BEY-2"
            mods.append(Modifier(0, "flat-footed: no Dex or Dodge", "BEY-2"))
        else:
            mods += [Modifier(target.stat("dex"), "dex"), Modifier(target.stat("dodge"), "dodge")]
            if firearm:
                rule = "BEY-14"
        mods += extra
        kind = "firearm" if rule == "BEY-14" and not dodges else "physical"
        return Defense(total(mods), kind, None, None, tuple(mods), rule)  # in place: SCALE-6

    def hits(self, ctx: RoundContext, attack: AttackRoll, defense: Defense
             ) -> tuple[bool, str | None, str]:
        ok = attack.total > defense.total  # BEY-13: strictly exceeds; no dodge roll
        rule = defense.rule if defense.rule in ("BEY-14", "BEY-15", "BEY-2") else "BEY-13"
        return ok, rule, f"{attack.total} {'>' if ok else '<='} {defense.total}"

    def damage(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
               action: Action, weapon: Weapon, multiplier: int) -> Damage:
        roll = ctx.roll(weapon.damage, who=attacker, label=f"damage {target.key}")
        return max(0, roll.total), [roll], "BEY-13", {}   # no bonus: the dice alone

    # -- actions -----------------------------------------------------------------------
    def perform(self, ctx: RoundContext, c: Combatant, action: Action,
                declaration: Declaration, index: int) -> None:
        other = action.options.on_turn_of
        if other is not None and index not in ctx.note(c.key).get("ridden", {}):
            # BEY-6: waits for the other's turn and takes effect together with it
            ctx.note(other).setdefault("riders", []).append((c.key, index, action))
            ctx.note(c.key).setdefault("ridden", {})[index] = True
            return
        if other is not None:
            return  # it already rode on the other's turn
        Ruleset.perform(self, ctx, c, action, declaration, index)

    def on_move(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        speed = self.speed(c)
        cost = self.move_cost(action)
        ctx.emit("move", actor=c.key, rule="BEY-7", distance=action.options.distance if action.options.distance is not None else 0,
                 speed=speed, lost=max(0, speed - cost),
                 message=f"{c.name} moves {action.options.distance if action.options.distance is not None else 0} (Speed {speed}; "
                         f"{max(0.0, speed - cost):g} left over is lost).")

    def on_cast(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        """A cast at a target is an attack roll against the defense the ability names
        (BEY-13, BEY-15); without a target it is narration."""
        if action.target is not None:
            self.resolve_attack(ctx, c, action)
        else:
            self.on_other(ctx, c, action)

    def on_full_round(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        """BEY-8: the effect lands at the start of c's next turn."""
        ctx.pending.append(PendingFullRound(actor=c.key, round=ctx.round, action=action))
        ctx.emit("full-round.started", actor=c.key, rule="BEY-8",
                 text=action.text or "full-round action")
        ctx.add_condition(c.key, C.lasting(C.FULL_ROUND, None, round_number=ctx.round,
                                           count=ctx.count), rule="BEY-8",
                          message=f"{c.name} is busy with a full-round action.")

    def on_free(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        if action.options.cancel_cast:
            return  # handled at the start of the turn, before the casting completes
        self.on_other(ctx, c, action)

    def on_other(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        if action.options.command == "init":  # BEY-4: `.init` shows the order
            ctx.emit("initiative.order", actor=c.key, rule="BEY-4", order=list(ctx.order),
                     names=", ".join(f"{ctx.name(k)} ({ctx.get(k).initiative:g})"
                                     for k in ctx.order if ctx.get(k).initiative is not None))
            return
        super().on_other(ctx, c, action)

    # -- upkeep ------------------------------------------------------------------------
    def start_of_round(self, ctx: RoundContext) -> None:
        super().start_of_round(ctx)
        if ctx.surprise_round:
            sides = sorted({x.side for x in ctx.combatants.values()
                            if x.key not in ctx.surprised and not x.is_object})
            ctx.emit("round.surprise", rule="BEY-1", sides=" and ".join(sides),
                     surprised=list(ctx.surprised))
            if ctx.encounter.unseen:  # BEY-2
                for key in ctx.surprised:
                    if key in ctx.combatants:
                        ctx.add_condition(key, C.lasting(C.FLAT_FOOTED, 1, round_number=0,
                                                         count=None), rule="BEY-2")
        elif ctx.round >= 1:
            for key, d in ctx.declarations.items():  # BEY-17: a later ambush only acts first
                if any(a.options.ambush for a in d.actions):
                    ctx.ahead.append(key)
                    ctx.emit("ambush", actor=key, rule="BEY-17")

    def start_of_turn(self, ctx: RoundContext, c: Combatant) -> bool:
        """BEY-8: a full-round action completes at the start of the next turn (or is
        cancelled for one free action, BEY-16). BEY-6: riders whose ability says it
        interrupts go before c's action."""
        self._complete_full_round(ctx, c)
        for key, i, a in riders.collect(self, ctx, c, interrupting=True):
            riders.ride(self, ctx, c, key, i, a, "interrupt")
        return True

    def _complete_full_round(self, ctx: RoundContext, c: Combatant) -> None:
        mine = ctx.pending and [p for p in ctx.pending if isinstance(p, PendingFullRound)
                and p.actor == c.key and p.round < ctx.round]
        if not mine:
            return
        ctx.pending = [p for p in ctx.pending if p not in mine]
        decl = ctx.declarations.get(c.key)
        cancel = decl is not None and any(a.options.cancel_cast for a in decl.actions)
        ctx.remove_condition(c.key, C.FULL_ROUND, rule="BEY-8",
                             reason="cancelled" if cancel else "completed")
        for entry in mine:
            action = entry.action
            if cancel:
                ctx.emit("cast.cancelled", actor=c.key, rule="BEY-16")
                continue
            ctx.emit("full-round.completed", actor=c.key, rule="BEY-8",
                     text=action.text or "full-round action")
            inner = action.options.action
            if isinstance(inner, Mapping):
                effect = Action.from_dict(inner)
                if effect.kind is ActionKind.ATTACK and effect.target in ctx.combatants \
                        and not ctx.get(effect.target).down:
                    self.resolve_attack(ctx, ctx.get(c.key), effect)

    def end_of_turn(self, ctx: RoundContext, c: Combatant) -> None:
        """BEY-6: quick/move/free actions declared "on X's turn" take effect together with
        X's action: X's action is tested first."""
        for key, i, a in riders.collect(self, ctx, c, interrupting=False):
            riders.ride(self, ctx, c, key, i, a, "simultaneous")

"""The Ruleset base class: a ruleset is a subclass that overrides narrow hooks.

How to add a ruleset (after python-chess's variants)
----------------------------------------------------
1. Create ``pbp/rules/<name>.py`` with a subclass of :class:`Ruleset`, decorated with
   :func:`pbp.rules.registry.register`; set ``id`` (e.g. ``"dnd5e"``), ``title``,
   ``rule_ids`` (every RULES.md id the module enforces) and ``defaults`` (every number a
   narrator may change, with the RULES.md default). Add the module name to
   ``registry.BUILTIN`` if it is not there yet.
2. Put the same defaults in ``pbp/config/rulesets/<id>.toml``; a test checks they agree.
3. Override only the hooks whose rules differ from the d20-ish defaults here:

   ============================  ===========================================================
   hook                          decides
   ============================  ===========================================================
   ``initiative_expression``     what is rolled for initiative (``1d20+dex``)
   ``initiative_bonus``          the bonus used for ties and delay limits
   ``tiebreak``                  the sort key after the initiative value
   ``initiative_group``          one shared roll for a group of identical creatures (DND-3)
   ``has_surprise_round``        a separate surprise round (BEY-1) or surprise in round 1 (FD-1)
   ``budget``                    the action slots of a turn (BEY-5, FD-10, DND-4)
   ``surprise_budget``           the slots in a surprise round (None: cannot act)
   ``charge``                    which slot an action spends, with conversions (BEY-9, FD-10)
   ``over_budget``               what a player reads when no slot is left (RES-6, TA-2)
   ``check_action``              ruleset-specific problems of one action (all of them)
   ``attack_bonus``              modifiers on an attack roll (skill, conditions, ranges)
   ``attack_expression``         the dice of an attack roll (advantage, 1d20...)
   ``defense``                   what an attack is tested against (static or rolled)
   ``hits``                      whether an attack total beats a defense (> or >=, naturals)
   ``miss_chance``               concealment-style misses decided by the natural roll
   ``critical``                  the damage multiplier of a hit (1 = none)
   ``damage``                    the damage of a hit, before it is applied
   ``condition_modifiers``       what a combatant's conditions add to a roll or defense
   ``latency``                   what a late or missing declaration costs (PBP-2)
   ``delay_to``                  the count a delaying combatant waits for (FD-16)
   ``reaction_trigger``          what a declared reaction waits for (DND-7)
   ``ready_takes_count``         whether a readied action moves the readier (FD-14)
   ``can_act``                   why a combatant cannot act now (None: it can)
   ``plan`` / ``validate``       accepted actions, every problem, the budget after paying
   ``resolve_attack``            the whole attack pipeline (override for deferred defenses...)
   ``start_of_round`` / ``start_of_turn`` / ``end_of_round``   upkeep, expiry
   ``on_<kind>``                 how one accepted action is carried out (``on_attack``...)
   ============================  ===========================================================

Hooks get a :class:`~pbp.rules.context.RoundContext` (state, dice, event log) and must
not do I/O, read the clock or use ``random``: all dice go through ``ctx.roll`` /
``ctx.roll_for``. State changes go through ``ctx.damage``, ``ctx.heal``,
``ctx.add_condition``..., which always leave an event. Signatures are stable: new
hooks get added, existing ones keep their parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .context import (
    AttackRoll,
    Budget,
    Damage,
    Defense,
    Modifier,
    Problem,
    RoundContext,
    mods_said,
    total,
)
from .effects import effect_problems
from .houserule_tables import check_keys, deep_merge
from .kinds import HANDLERS
from .model import Action, ActionKind, Combatant, Declaration, Trigger, Weapon
from .settings_lookup import Settings


class Ruleset(Settings):
    """Base of every ruleset: generic d20-style combat, every step an overridable hook."""

    id: ClassVar[str] = "base"
    title: ClassVar[str] = "generic d20"
    source: ClassVar[str | None] = None
    rule_ids: ClassVar[tuple[str, ...]] = ()
    #: houserule defaults; nested tables allowed. Mirrors pbp/config/rulesets/<id>.toml.
    defaults: ClassVar[Mapping[str, Any]] = {
        "speech_limit": 0,          # 0 = no limit (PBP-3)
        "round_seconds": 6,
        "initiative": {"turns": "individual", "sides_first": "initiative", "first": "", "ties": "bonus"},
        "latency": {"mode": "total-defense", "penalty": 2, "total_defense_bonus": 4, "enabled": True},
    }
    #: the rule id cited by generic engine steps: initiative, conditions (expiry), ready,
    #: delay, latency, surprise, budget
    rule_refs: ClassVar[Mapping[str, str]] = {"latency": "PBP-2"}
    #: stat keys a sheet of this ruleset may carry besides the common ones in stats.py
    extra_stats: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, houserules: Mapping[str, Any] | None = None) -> None:
        given = dict(houserules or {})
        check_keys(self.defaults, given, ruleset=self.id)
        self.settings: dict[str, Any] = deep_merge(self.defaults, given)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def rule_ref(self, step: str) -> str | None:
        """The RULES.md id a generic engine step cites for this ruleset (None if none)."""
        return self.rule_refs.get(step)

    @property
    def speech_limit(self) -> int | None:
        """Speeches allowed per post (FD-17, BEY-16, PBP-3); None = unlimited.
        The engine only exposes it: counting speeches belongs to the rounds layer."""
        limit = int(self.setting("speech_limit", 0) or 0)
        return limit if limit > 0 else None

    @property
    def round_seconds(self) -> int:
        """Game time a round stands for (BEY-11, FD-6); narration only."""
        return int(self.setting("round_seconds", 6))

    # -- initiative ------------------------------------------------------------------
    has_surprise_round: ClassVar[bool] = False
    ready_takes_count: ClassVar[bool] = False  # FD-14 moves the readier; DND-3 does not

    def initiative_expression(self, c: Combatant) -> str:
        bonus = self.initiative_bonus(c)
        return f"1d20+{bonus}" if bonus >= 0 else f"1d20-{-bonus}"

    def initiative_bonus(self, c: Combatant) -> int:
        return c.stat("initiative", c.stat("dex"))

    def initiative_group(self, ctx: RoundContext, c: Combatant) -> str | None:
        """Combatants with the same group key share one initiative roll and roll off as one
        (DND-3: one roll for a group of identical creatures). None: rolls alone."""
        return None

    def tiebreak(self, ctx: RoundContext, c: Combatant) -> tuple[float, ...]:
        """Sort key after the initiative value, higher first. ``initiative.ties`` policy:
        ``bonus`` (initiative bonus, then Dex), ``dex``, ``listed`` (scenario order);
        ``roll-off`` is resolved by the engine with extra d20s."""
        policy = self.setting("initiative.ties", "bonus")
        if policy == "dex":
            return (c.stat("dex"),)
        if policy in ("listed", "roll-off"):  # roll-off: the engine's d20s decide alone
            return ()
        return (self.initiative_bonus(c), c.stat("dex"))

    # -- action economy --------------------------------------------------------------
    def budget(self, ctx: RoundContext, c: Combatant) -> Budget:
        return Budget({"action": 1, "move": 1, "free": None, "reaction": None})

    def surprise_budget(self, ctx: RoundContext, c: Combatant) -> Budget | None:
        """Slots in a surprise round; None when *c* cannot act at all."""
        return None if c.key in ctx.surprised else self.budget(ctx, c)

    def slot_of(self, action: Action) -> str:
        return {ActionKind.MOVE: "move", ActionKind.FREE: "free", ActionKind.DELAY: "free",
                ActionKind.REACTION: "reaction"}.get(action.kind, "action")

    def charge(self, ctx: RoundContext, c: Combatant, action: Action, budget: Budget,
               index: int) -> Problem | None:
        """Spend the slot *action* needs from *budget*, or say why it cannot be paid."""
        slot = self.slot_of(action)
        if budget.has(slot):
            budget.spend(slot)
            return None
        return Problem("budget.exceeded", self.rule_ref("budget"),
                       self.over_budget(action, slot, budget), index, {"slot": slot})

    def over_budget(self, action: Action, slot: str, budget: Budget) -> str:
        """What the player reads when :meth:`charge` finds no *slot* left for *action*."""
        return f"no {slot} action left this turn for '{action.text or action.kind.value}'"

    def check_action(self, ctx: RoundContext, c: Combatant, action: Action, index: int,
                     declaration: Declaration) -> list[Problem]:
        """Ruleset-specific problems of one action (report all; the engine adds budget ones)."""
        return []

    def validate(self, ctx: RoundContext, declaration: Declaration) -> list[Problem]:
        """Every problem of *declaration*, at once (the engine drops the refused actions)."""
        return self.plan(ctx, declaration)[1]

    def plan(self, ctx: RoundContext, declaration: Declaration
             ) -> tuple[list[tuple[int, Action]], list[Problem], Budget]:
        """Accepted actions (in order), problems, and the budget after paying for them."""
        problems: list[Problem] = []
        accepted: list[tuple[int, Action]] = []
        c = ctx.get(declaration.actor)
        budget = ctx.budgets.get(c.key)
        if budget is None:
            budget = (self.surprise_budget(ctx, c) if ctx.surprise_round
                      else self.budget(ctx, c))
            if budget is None:
                budget = Budget({})
        for index, action in enumerate(declaration.actions):
            mine = self._common_problems(ctx, c, action, index)
            mine += self.check_action(ctx, c, action, index, declaration)
            if not mine:
                trial = budget.copy()
                paid = self.charge(ctx, c, action, trial, index)
                if paid is None:
                    budget = trial
                else:
                    mine.append(paid)
            if mine:
                problems.extend(mine)
            else:
                accepted.append((index, action))
        return accepted, problems, budget

    def _common_problems(self, ctx: RoundContext, c: Combatant, action: Action,
                         index: int) -> list[Problem]:
        out: list[Problem] = []
        rule = self.rule_ref("attack")  # the ruleset's basic attack rule, if it names one
        if action.target is not None and action.target not in ctx.combatants:
            out.append(Problem("target.unknown", rule,
                               f"there is nobody called '{action.target}' in this fight", index,
                               {"target_key": action.target}))
        elif action.target is not None and ctx.get(action.target).down \
                and action.kind in (ActionKind.ATTACK, ActionKind.MANEUVER):
            out.append(Problem("target.down", rule,
                               f"{ctx.name(action.target)} is already down", index))
        if action.kind is ActionKind.ATTACK and action.target is None:
            out.append(Problem("target.missing", rule, "an attack needs a target", index))
        out += effect_problems(action, index, self.rule_ref("ready"))
        if action.kind is ActionKind.ATTACK and action.weapon is not None \
                and c.weapon(action.weapon) is None:
            out.append(Problem("weapon.unknown", rule,
                               f"{c.name} has no weapon called '{action.weapon}'", index))
        return out

    # -- attack pipeline -------------------------------------------------------------
    def weapon_for(self, c: Combatant, action: Action) -> Weapon:
        return c.weapon(action.weapon) or Weapon(name="unarmed", damage="1d3")

    def attack_expression(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                          action: Action, weapon: Weapon) -> str:
        return "1d20"

    def attack_bonus(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                     action: Action, weapon: Weapon) -> list[Modifier]:
        skill = weapon.skill or ("dex" if weapon.ranged else "str")
        mods = [Modifier(attacker.stat(skill), skill)]
        mods += self.condition_modifiers(ctx, attacker, "attack", against=target,
                                         ranged=weapon.ranged)
        return mods

    def attack_roll(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                    action: Action, weapon: Weapon) -> AttackRoll:
        """Roll (or take the player's roll, PBP-4) and add every modifier."""
        mods = self.attack_bonus(ctx, attacker, target, action, weapon)
        roll, own = ctx.roll_for(action, self.attack_expression(ctx, attacker, target, action,
                                                                 weapon),
                                 who=attacker, label=f"attack {target.key}")
        if own:  # the player's tag already holds the skill: add situational modifiers only
            situational = [m for m in mods if m.rule is not None]
            return AttackRoll(roll.total + total(situational), roll.natural, roll,
                              tuple(situational), True)
        return AttackRoll(roll.total + total(mods), roll.natural, roll, tuple(mods))

    def defense(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                action: Action, weapon: Weapon, attack: AttackRoll) -> Defense:
        mods = self.condition_modifiers(ctx, target, "defense", against=attacker,
                                        ranged=weapon.ranged)
        base = 10 + target.stat("armor") + target.stat("dex")
        return Defense(base + total(mods), "physical", mods=tuple(mods))

    def hits(self, ctx: RoundContext, attack: AttackRoll, defense: Defense
             ) -> tuple[bool, str | None, str]:
        """Whether the attack hits, the rule that decided it, and the comparison said aloud."""
        ok = attack.total >= defense.total
        return ok, None, f"{attack.total} {'>=' if ok else '<'} {defense.total}"

    def miss_chance(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
                    attack: AttackRoll) -> tuple[str, str] | None:
        """(rule, reason) when the natural roll makes an otherwise hitting attack miss."""
        return None

    def critical(self, ctx: RoundContext, attack: AttackRoll, weapon: Weapon) -> int:
        return 1

    def damage(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
               action: Action, weapon: Weapon, multiplier: int) -> Damage:
        """(amount, rolls, rule, the params naming its sum: ``damage_parts``) of a hit."""
        roll = ctx.roll(weapon.damage, who=attacker, label=f"damage {target.key}")
        return max(0, roll.total) * multiplier, [roll], None, {"multiplier": multiplier}

    def condition_modifiers(self, ctx: RoundContext, c: Combatant, role: str, *,
                            against: Combatant | None = None, ranged: bool = False
                            ) -> list[Modifier]:
        """What *c*'s conditions add when it makes (``attack``/``roll``) or resists
        (``defense``) a roll. Modifiers with a ``rule`` are situational."""
        return []

    def reaction_trigger(self, ctx: RoundContext, c: Combatant, action: Action) -> Trigger | None:
        """What a declared ``reaction`` waits for (DND-7); None: done on its owner's turn."""
        return None

    def delay_to(self, ctx: RoundContext, c: Combatant, action: Action) -> float | None:
        """The count a delaying combatant waits for (``options.until`` or right after
        ``options.after``); None when it loses the turn instead."""
        after = action.options.after
        if isinstance(after, str) and after in ctx.combatants:
            other = ctx.get(after).initiative
            return (other if other is not None else 0.0) - 0.001
        until = action.options.until
        if isinstance(until, (int, float)) and not isinstance(until, bool):
            return float(until)
        return (ctx.count or 0.0) - 1

    # -- latency (PBP-2) -------------------------------------------------------------
    def latency(self, ctx: RoundContext, c: Combatant, declaration: Declaration) -> Declaration:
        """Apply the latency penalty to a late or missing declaration; returns what stands."""
        return declaration

    # -- upkeep ----------------------------------------------------------------------
    def start_of_round(self, ctx: RoundContext) -> None:
        ctx.expire_conditions(float("inf"), None)

    def start_of_turn(self, ctx: RoundContext, c: Combatant) -> bool:
        """Upkeep before *c* acts; return False when *c* loses the turn."""
        return True

    def end_of_turn(self, ctx: RoundContext, c: Combatant) -> None:
        return None

    def end_of_round(self, ctx: RoundContext) -> None:
        return None

    def can_act(self, ctx: RoundContext, c: Combatant) -> str | None:
        """None when *c* may act; otherwise the reason it cannot."""
        if c.down:
            return "down"
        return None

    # -- carrying out accepted actions -----------------------------------------------
    def perform(self, ctx: RoundContext, c: Combatant, action: Action,
                declaration: Declaration, index: int) -> None:
        handler = getattr(self, HANDLERS[action.kind], None)
        if handler is None:
            self.on_other(ctx, c, action)
        else:
            handler(ctx, c, action)

    def on_attack(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        self.resolve_attack(ctx, c, action)

    def roll_attack(self, ctx: RoundContext, c: Combatant, action: Action
                    ) -> tuple[Combatant, Weapon, AttackRoll, Defense]:
        """The first half of an attack: its target, weapon, attack roll and the defense."""
        assert action.target is not None
        target = ctx.get(action.target)
        weapon = self.weapon_for(c, action)
        attack = self.attack_roll(ctx, c, target, action, weapon)
        defense = self.defense(ctx, c, target, action, weapon, attack)
        return target, weapon, attack, defense

    def missed_by_chance(self, ctx: RoundContext, c: Combatant, target: Combatant,
                         attack: AttackRoll, rolls: list[Any], params: dict[str, Any]) -> bool:
        """After a hit: True (with its event) when :meth:`miss_chance` turns it into a miss."""
        missed = self.miss_chance(ctx, c, target, attack)
        if missed is None:
            return False
        ctx.emit("attack.miss-chance", actor=c.key, target=target.key, rule=missed[0],
                 rolls=rolls, reason=missed[1], **params)
        return True

    def resolve_attack(self, ctx: RoundContext, c: Combatant, action: Action) -> bool:
        """The whole attack: roll, miss chance, defense, hit, critical, damage. True on a hit."""
        target, weapon, attack, defense = self.roll_attack(ctx, c, action)
        rolls = [r for r in (attack.roll, defense.roll) if r is not None]
        hit, rule, _said = self.hits(ctx, attack, defense)
        params: dict[str, Any] = {"total": attack.total, "natural": attack.natural, "defense": defense.total,
                      "defense_kind": defense.kind, "weapon": weapon.name,
                      "mods": mods_said(attack.mods), "defense_mods": mods_said(defense.mods)}
        if hit and self.missed_by_chance(ctx, c, target, attack, rolls, params):
            return False
        ctx.event("attack.hit" if hit else "attack.miss", c.key, target.key, rule, tuple(rolls),
                  params)
        if not hit:
            return False
        multiplier = self.critical(ctx, attack, weapon)
        if multiplier > 1:
            ctx.emit("attack.critical", actor=c.key, target=target.key, rule=None,
                     multiplier=multiplier)
        amount, drolls, drule, parts = self.damage(ctx, c, target, action, weapon, multiplier)
        ctx.hurt(target.key, amount, c.key, drule, tuple(drolls), {"weapon": weapon.name, **parts})
        return True

    def on_other(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        ctx.emit("action.noted", actor=c.key, target=action.target, kind=action.kind.value,
                 text=action.text or action.kind.value)

    on_quick = on_free = on_cast = on_full_round = on_bonus = on_reaction = on_other

    def on_move(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        ctx.emit("move", actor=c.key, distance=(action.options.distance if action.options.distance is not None else "?"), speed="?")

    def on_defend(self, ctx: RoundContext, c: Combatant, action: Action) -> None:
        self.on_other(ctx, c, action)

    on_delay = on_ready = on_maneuver = on_defend

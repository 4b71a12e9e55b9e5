"""``resolve(encounter, declarations, dice) -> Resolution``: one round, pure.

Why pure: the same inputs and the same seed must give the same events, so a narrator
can preview, a player can verify (``pbp verify``), and a golden file can pin the rules.
No I/O, no clock, no global random: every die goes through the :class:`DiceBox`
passed in, and a roll already made for a post's tag (``Action.rolled``) is used
instead of rolling again (PBP-4).

The round (PBP-1, BEY-17: everyone declared in one window; resolve in initiative order):

1. ruleset upkeep (``start_of_round``), initiative rolled for whoever has none;
2. each combatant in initiative order: upkeep, latency (PBP-2), validation (every
   problem reported at once; refused actions dropped, the rest carried out);
   ``delay`` re-queues the rest of the turn at a later count (FD-16); readied actions
   (FD-14) and declared reactions (DND-7) go off when their trigger happens: just
   before the triggering action (the turn goes on after), never at the mere start of
   the trigger's turn;
3. reactions whose trigger never came lapse; ``end_of_round``; the encounter comes back
   with ``round`` advanced.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from ..dice import DiceBox
from ..errors import PbpError
from ..frozen import evolve
from . import triggers, turn_order
from .base import Ruleset
from .condition_names import known_conditions, normalise_condition
from .context import Problem, RoundContext
from .model import (
    Action,
    ActionKind,
    Combatant,
    Declaration,
    Encounter,
    ReadiedAction,
    Resolution,
    Trigger,
)
from .queries import actions_left, fight_over
from .setup import round_number, ruleset_for
from .speech import SpeechVerdict, speech_verdict


def validate(encounter: Encounter, declaration: Declaration, *,
             houserules: Mapping[str, Any] | None = None) -> list[Problem]:
    """Every problem of one declaration against the current state, without resolving.

    For the rounds layer (answer a post before the deadline) and the panel; uses no dice.
    """
    ruleset = ruleset_for(encounter, houserules)
    number, surprise = round_number(encounter, ruleset)
    ctx = RoundContext(encounter, ruleset, DiceBox("validate"), number, surprise)
    if declaration.actor not in ctx.combatants:
        return [Problem("declaration.unknown", None,
                        f"'{declaration.actor}' is not in this fight")]
    return ruleset.validate(ctx, declaration)


def resolve(encounter: Encounter, declarations: Iterable[Declaration], dice: DiceBox, *,
            houserules: Mapping[str, Any] | None = None) -> Resolution:
    """Resolve one round of *encounter* with *declarations*; see the module docstring."""
    ruleset = ruleset_for(encounter, houserules)
    number, surprise = round_number(encounter, ruleset)
    ctx = RoundContext(encounter, ruleset, dice, number, surprise)
    decls = _collect(ctx, declarations)
    ctx.declarations = dict(decls)
    ctx.emit("round.start", round=number, surprise=surprise, seconds=ruleset.round_seconds,
             speech_limit=ruleset.speech_limit)
    _initiative(ctx, ruleset, decls)
    ruleset.start_of_round(ctx)
    triggers.arm_reactions(ctx, ruleset, decls)
    _run_turns(ctx, ruleset, decls)
    triggers.lapse_reactions(ctx, ruleset)
    ruleset.end_of_round(ctx)
    ctx.emit("round.end", round=number)
    return Resolution(ctx.finish(number + 1), tuple(ctx.events))


def roll_initiative(encounter: Encounter, declarations: Iterable[Declaration], dice: DiceBox, *,
                    houserules: Mapping[str, Any] | None = None) -> Resolution:
    """Only the initiative step of a round (BEY-4, FD-1, DND-3, TA-1, RES-6).

    Everyone with no place in the order rolls (or uses the roll of their ``.ri`` tag,
    given as an action with ``options.initiative``), ties are broken by the
    ruleset's policy, and the order is sorted. The rounds layer runs this when a
    round opens, so the opening reply can announce the order; :func:`resolve` then
    finds everyone placed. The round number and surprise flag are left as they are.
    """
    ruleset = ruleset_for(encounter, houserules)
    number, surprise = round_number(encounter, ruleset)
    ctx = RoundContext(encounter, ruleset, dice, number, surprise)
    decls = {d.actor: d for d in declarations if d.actor in ctx.combatants}
    _initiative(ctx, ruleset, decls)
    by_key = ctx.combatants
    placed = dataclasses.replace(
        encounter, combatants=tuple(by_key[c.key] for c in encounter.combatants),
        order=tuple(ctx.order))
    return Resolution(placed, tuple(ctx.events))


# -- declarations ------------------------------------------------------------------------

def _collect(ctx: RoundContext, declarations: Iterable[Declaration]) -> dict[str, Declaration]:
    out: dict[str, Declaration] = {}
    for d in declarations:
        if d.actor not in ctx.combatants:
            ctx.emit("declaration.unknown", actor=d.actor)
            continue
        if d.actor in out:
            ctx.emit("declaration.duplicate", actor=d.actor)
        out[d.actor] = d
    for c in ctx.combatants.values():  # PBP-2: a player who posted nothing is "missing"
        if c.player is not None and c.key not in out and not c.down and not c.is_object:
            out[c.key] = Declaration(actor=c.key, missing=True)
    return out


# -- initiative --------------------------------------------------------------------------

def _initiative(ctx: RoundContext, rs: Ruleset, decls: Mapping[str, Declaration]) -> None:
    """Roll for every active combatant with no place in the order, then sort (BEY-4, FD-16)."""
    for d in decls.values():
        if any(a.options.command == "init-clear" for a in d.actions):
            for key in list(ctx.combatants):
                ctx.put(evolve(ctx.combatants[key], initiative=None))
            ctx.order = []
            ctx.emit("initiative.cleared", actor=d.actor, rule=rs.rule_ref("initiative"))
            break
    placed = set(ctx.order)
    new = [c for c in ctx.combatants.values()
           if c.key not in placed and not c.is_object and not c.down]
    if not new:
        return
    mode = rs.setting("initiative.mode", "roll")
    rule = rs.rule_ref("initiative")
    grouping = type(rs).initiative_group is not Ruleset.initiative_group  # DND-3 only
    shared: dict[str, tuple[float, str]] = {}   # DND-3: one roll per group of identical creatures
    for c in new:
        if c.initiative is not None:
            continue
        given = _initiative_action(decls.get(c.key))
        group = rs.initiative_group(ctx, c) if grouping else None
        if group is not None and given is None and group in shared:
            value, leader = shared[group]
            ctx.put(evolve(c, initiative=float(value)))
            ctx.emit("initiative.rolled", actor=c.key, rule=rs.rule_ref("initiative"),
                     value=int(value) if float(value).is_integer() else value,
                     mode="group", group=group, shared_with=leader,
                     message=f"{c.name} shares {ctx.name(leader)}'s initiative roll: "
                             f"{_fmt(value)}.")
            continue
        if mode == "dex" and given is None:
            value = float(rs.initiative_bonus(c))
            rolls: list[Any] = []
        else:
            roll, _ = ctx.roll_for(given or _NO_ACTION,
                                   rs.initiative_expression(c), who=c, label="initiative")
            value, rolls = roll.total, [roll]
        ctx.put(evolve(c, initiative=float(value)))
        if group is not None and group not in shared:
            shared[group] = (float(value), c.key)
        # STALL-6: a player's initiative they did not post is rolled from the sheet by pbp
        marks: dict[str, Any] = ({"by_pbp": True} if given is None and rolls
                                 and c.player is not None else {})
        ctx.event("initiative.rolled", c.key, None, rule, tuple(rolls),
                  {"value": value, "mode": mode, **marks})
    keys = [k for k in ctx.order if k in ctx.combatants] + [c.key for c in new]
    ctx.order = _sort(ctx, rs, keys)
    ctx.emit("initiative.order", rule=rs.rule_ref("initiative"), order=list(ctx.order),
             names=", ".join([f"{ctx.name(k)} ({_fmt(ctx.combatants[k].initiative)})"
                              for k in ctx.order]))


#: the action an initiative roll pbp makes stands for (roll_for reads only that it holds no roll)
_NO_ACTION = Action(ActionKind.OTHER)


def _initiative_action(d: Declaration | None) -> Action | None:
    if d is None:
        return None
    for a in d.actions:
        if a.options.initiative and a.rolled is not None:
            return a
    return None


def _sort(ctx: RoundContext, rs: Ruleset, keys: list[str]) -> list[str]:
    """High to low; ties by the ruleset's tiebreak, then a d20 roll-off or listing order."""
    listed = {k: i for i, k in enumerate(keys)}
    rolloff: dict[str, int] = {}
    if rs.setting("initiative.ties", "bonus") == "roll-off":
        by_value: dict[float, list[str]] = {}
        for k in keys:
            by_value.setdefault(ctx.combatants[k].initiative or 0.0, []).append(k)
        for group in by_value.values():
            # a group sharing one initiative roll (DND-3) rolls off once, as one unit
            units: dict[str, list[str]] = {}
            for k in group:
                units.setdefault(rs.initiative_group(ctx, ctx.combatants[k]) or k, []).append(k)
            if len(units) > 1:
                for members in units.values():
                    r = ctx.roll("1d20", label="initiative roll-off")
                    for k in members:
                        rolloff[k] = r.total
                    ctx.emit("initiative.rolloff", actor=members[0],
                             rule=rs.rule_ref("initiative"), rolls=[r],
                             message=f"{', '.join(ctx.name(k) for k in members)} "
                                     f"roll{'s' if len(members) == 1 else ''} {r.total} "
                                     f"to break a tie.")

    def key(k: str) -> tuple[Any, ...]:
        c = ctx.combatants[k]
        tb = tuple([-x for x in rs.tiebreak(ctx, c)])
        return (-(c.initiative or 0.0), tb, -rolloff.get(k, 0), listed[k])

    return sorted(keys, key=key)


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


# -- turns -------------------------------------------------------------------------------

def _run_turns(ctx: RoundContext, rs: Ruleset, decls: Mapping[str, Declaration]) -> None:
    # queue entries: [count, tiebreak-index, key, actions-to-do or None (the whole turn)]
    queue: list[tuple[float, float, str, list[tuple[int, Action]] | None]] = []
    for i, key in enumerate(ctx.order):
        c = ctx.combatants[key]
        count = ctx.delayed.get(key, c.initiative if c.initiative is not None else 0.0)
        if key in ctx.ahead:
            count, i = float("inf"), ctx.ahead.index(key) - len(ctx.ahead)
        queue.append((count, float(i), key, None))
    seq = float(len(queue))
    resumed: set[str] = set()
    # STALL-7: a mode other than individual fixes the order of the turns; counts stay
    # the combatants' own (conditions still end at their count, FD-6)
    sequence = turn_order.turn_sequence(ctx, rs, decls)
    rank = {k: i for i, k in enumerate(sequence)} if sequence is not None else None
    decls = turn_order.without_hand_offs(decls)

    def order_key(e: tuple[float, float, str, Any]) -> tuple[Any, ...]:
        if rank is not None:
            if e[2] in resumed:
                return (len(rank) + e[1], ())
            return (rank.get(e[2], len(rank)), ())
        # several delayers at one count: the ruleset's tiebreak (FD-16: higher bonus first)
        if e[2] in resumed:
            tb = tuple([-x for x in rs.tiebreak(ctx, ctx.combatants[e[2]])])
            return (-e[0], 1, tb, e[1])
        return (-e[0], 0, (), e[1])

    # SCALE-6: keys change only for resumed entries (their tiebreak reads the live sheets),
    # so the queue is sorted again only when one was added or one waits in it
    ordered = False
    while queue:
        if not ordered or resumed:
            queue.sort(key=order_key)
            ordered = not resumed
        count, _, key, rest = queue.pop(0)
        if count == float("inf"):
            count = ctx.combatants[key].initiative or 0.0
        ctx.count = count
        ctx.turn_of = key
        if ctx.conditioned:
            ctx.expire_conditions(count, rs.rule_ref("conditions"))  # FD-6: just before the count
        c = ctx.combatants[key]
        if rest is None:
            if c.is_object:
                continue
            why = rs.can_act(ctx, c)
            if why is not None:
                if key in decls and not decls[key].missing:
                    ctx.emit("turn.skipped", actor=key, reason=why)
                continue
            if ctx.readied:
                triggers.lapse_readied(ctx, key)
            decl = decls.get(key)
            if decl is not None:
                ctx.event("turn.start", key, None, None, (), {"count": _fmt(count)})
            if not rs.start_of_turn(ctx, ctx.combatants[key]):
                continue
            if decl is None:  # an NPC the narrator did not move: its turn still passes
                rs.end_of_turn(ctx, ctx.combatants[key])
                ctx.acted.add(key)
                continue
            if decl.late or decl.missing:
                decl = _latency(ctx, rs, ctx.combatants[key], decl)
            accepted, problems, budget = rs.plan(ctx, decl)
            ctx.budgets[key] = budget
            if ctx.watching:
                triggers.disarm_refused(ctx, key, [a for _, a in accepted])
            for p in problems:
                ctx.emit(p.code if p.code.startswith("action.") else "action.rejected",
                         actor=key, rule=p.rule, reason=p.message, problem=p.code,
                         action_index=p.action_index, **dict(p.params))
            if budget.conversions:
                ratios = budget.marks.get("ratios", [])
                for n, (source, into, rule) in enumerate(budget.conversions):
                    ratio = ratios[n] if n < len(ratios) else 1
                    ctx.emit("action.converted", actor=key, rule=rule, source=source,
                             into=into, ratio=ratio)
            rest = accepted
        else:
            decl = decls.get(key) or Declaration(actor=key)
            ctx.emit("turn.start", actor=key, count=_fmt(count), resumed=True)
        rest = _perform(ctx, rs, key, decl, rest)
        if rest is not None:  # delayed: the rest of the turn waits for a later count
            new_count = ctx.delayed[key]
            seq += 1
            resumed.add(key)
            queue.append((new_count, seq, key, rest))
            continue
        rs.end_of_turn(ctx, ctx.combatants[key])
        ctx.event("turn.end", key, None, None, (), {"budget": ctx.budgets[key].to_dict()})
        ctx.acted.add(key)
    ctx.count = None
    ctx.turn_of = None
    if ctx.delayed:  # FD-16: a delayed count is the combatant's initiative for the rest of combat
        for key, count in ctx.delayed.items():
            ctx.put(evolve(ctx.combatants[key], initiative=count))
        ctx.delayed = {}
        ctx.order = _sort(ctx, rs, list(ctx.order))


def _perform(ctx: RoundContext, rs: Ruleset, key: str, decl: Declaration,
             todo: list[tuple[int, Action]]) -> list[tuple[int, Action]] | None:
    """Carry out *todo*; returns what is left when a delay interrupts the turn.

    Before each action, whatever waits for it goes off (FD-14, DND-7); a reaction
    armed for this round is not carried out on its owner's own turn."""
    watched = ctx.note(key).get("watched", [])
    for pos, (index, action) in enumerate(todo):
        if ctx.combatants[key].down:
            break
        if action.kind is ActionKind.DELAY and not ctx.note(key).get("delayed"):
            count = rs.delay_to(ctx, ctx.combatants[key], action)
            ctx.note(key)["delayed"] = True
            if count is not None:
                ctx.delayed[key] = count
                return todo[pos + 1:]
            return []
        if action.kind is ActionKind.REACTION and action in watched:
            continue  # DND-7: it waits for its trigger, not for its owner's turn
        if ctx.readied or ctx.watching:
            triggers.fire(ctx, rs, key, action)
        c = ctx.combatants[key]
        if c.down:  # the reaction felled it: the triggering action never happens
            break
        if action.kind is ActionKind.READY:
            ctx.readied[key] = ReadiedAction(
                action=action, round=ctx.round, index=index, count=ctx.count,
                trigger=Trigger.from_option(action.options.trigger))
        _guarded(ctx, rs, c, action, decl, index)
    return None


def _guarded(ctx: RoundContext, rs: Ruleset, c: Combatant, action: Action, decl: Declaration,
             index: int) -> None:
    """Carry out one action; one that cannot be (a value on a sheet the dice refuse, such
    as ``1000000d1000000``) is undone and refused, so the round resolves everyone else.

    What the action changed is put back (combatants, events, readied and pending work);
    the dice it rolled stay rolled, so the same seed still gives the same round."""
    saved = (dict(ctx.combatants), len(ctx.events), dict(ctx.readied), list(ctx.pending))
    try:
        rs.perform(ctx, c, action, decl, index)
    except PbpError as exc:
        ctx.combatants, ctx.readied, ctx.pending = saved[0], saved[2], saved[3]
        del ctx.events[saved[1]:]
        ctx.emit("action.rejected", actor=c.key, reason=f"this action cannot be carried out: "
                 f"{exc.message}; the narrator must fix the sheet", problem="action.unresolvable",
                 action_index=index, error=exc.message)


def _latency(ctx: RoundContext, rs: Ruleset, c: Combatant, decl: Declaration) -> Declaration:
    """PBP-2 / FD-2: a late or missing declaration pays the ruleset's penalty unless waived."""
    if not (decl.late or decl.missing):
        return decl
    if decl.penalty_waived or not rs.setting("latency.enabled", True):
        ctx.emit("latency.waived", actor=c.key, rule=rs.rule_ref("latency"))
        return decl
    return rs.latency(ctx, c, decl)


__all__ = ["Combatant", "SpeechVerdict", "actions_left", "fight_over", "known_conditions",
           "normalise_condition", "resolve", "roll_initiative", "round_number", "ruleset_for",
           "speech_verdict", "validate"]

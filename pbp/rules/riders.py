"""Riding another's turn (BEY-6): quick, move and free actions used during someone
else's turn never interrupt it: the other's action is tested first, then both take
effect together, unless the ability says it interrupts (``options.interrupts``).

A rider whose own turn already passed left its action with the other combatant
(``ctx.note(other)["riders"]``); a rider whose turn is still to come is judged and paid
for from its own budget when the other's turn arrives, and its own turn skips it.
"""

from __future__ import annotations

import dataclasses

from .base import Ruleset
from .context import Budget, RoundContext
from .model import Action, Combatant, Declaration


def collect(rs: Ruleset, ctx: RoundContext, c: Combatant, *, interrupting: bool
            ) -> list[tuple[str, int, Action]]:
    """Actions riding on c's turn: those deferred by riders who already acted, and those
    of riders whose own turn is still to come (judged and paid for now)."""
    riding = _riding(ctx).get(c.key, ())
    if not riding and not ctx.scratch.get(c.key, _NOTHING).get("riders"):
        return []  # nobody rides this turn (most turns); an absent list reads as empty

    def wanted(a: Action) -> bool:
        return bool(a.options.interrupts) is interrupting
    note = ctx.note(c.key)
    stored = note.get("riders", [])
    riders = [r for r in stored if wanted(r[2])]
    note["riders"] = [r for r in stored if not wanted(r[2])]
    for key, i, a, d in riding:
        if key == c.key or key in ctx.acted:
            continue
        if not wanted(a) or i in ctx.note(key).get("ridden", {}):
            continue
        rider = ctx.get(key)
        if rider.down:
            continue
        problems = rs.check_action(ctx, rider, a, i, d)
        budget = ctx.budgets.get(key) or (
            rs.surprise_budget(ctx, rider) if ctx.surprise_round
            else rs.budget(ctx, rider)) or Budget({})
        trial = budget.copy()
        if not problems:
            paid = rs.charge(ctx, rider, a, trial, i)
            if paid is not None:
                problems.append(paid)
        ctx.note(key).setdefault("ridden", {})[i] = True
        if problems:
            for p in problems:
                ctx.emit("action.rejected", actor=key, rule=p.rule, reason=p.message,
                         problem=p.code, action_index=i)
            continue
        ctx.budgets[key] = trial
        riders.append((key, i, a))
    return riders

_NOTHING: dict[str, object] = {}


def _riding(ctx: RoundContext) -> dict[str, list[tuple[str, int, Action, Declaration]]]:
    """The round's declared riders by whose turn they ride, in declaration order (SCALE-6:
    built once a round, not searched for on every turn). Rebuilt should the round's
    declarations be replaced."""
    cached = ctx.riding
    if cached is not None and cached[0] is ctx.declarations:
        return cached[1]
    index: dict[str, list[tuple[str, int, Action, Declaration]]] = {}
    for key, d in ctx.declarations.items():
        for i, a in enumerate(d.actions):
            whose = a.options.on_turn_of
            if isinstance(whose, str):  # junk (a list...) rides no one's turn: never equal to a key
                index.setdefault(whose, []).append((key, i, a, d))
    ctx.riding = (ctx.declarations, index)
    return index


def ride(rs: Ruleset, ctx: RoundContext, c: Combatant, key: str, i: int, a: Action,
         code: str) -> None:
    rider = ctx.get(key)
    if rider.down:
        return
    ctx.emit(code, actor=key, target=c.key, rule="BEY-6", kind=a.kind.value)
    plain = dataclasses.replace(a, options=a.options.without("on_turn_of"))
    Ruleset.perform(rs, ctx, rider, plain, ctx.declarations.get(key)
                    or Declaration(actor=key), i)

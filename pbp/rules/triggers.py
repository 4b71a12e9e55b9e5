"""What waits for someone else's action: readied actions (FD-14) and declared reactions
(DND-7), for :mod:`pbp.rules.engine`'s turn loop.

Why at the action and not at the turn: a readied action or a reaction answers a
circumstance ("if the thug moves", "when it leaves my reach"). It goes off just before
the action that is that circumstance, and the acting combatant's turn goes on after it
(002: "the creature may continue its turn after the reaction"). If the circumstance
never happens, nothing goes off: a readied action lapses at the readier's next turn
(FD-14), a reaction at the end of the round (DND-7).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from .base import Ruleset
from .context import RoundContext, Watch
from .model import Action, ActionKind, Declaration, ReadiedAction


def fire(ctx: RoundContext, rs: Ruleset, key: str, action: Action) -> None:
    """FD-14 / DND-7: readied actions and armed reactions whose trigger is *key* doing
    *action* go off now, just before it. Waiting (a delay) sets nothing off."""
    if action.kind is ActionKind.DELAY:
        return
    for readier, entry in list(ctx.readied.items()):
        if readier == key or not entry.trigger.matches(key, action, readier):
            continue
        if entry.round == ctx.round and readier not in ctx.acted:
            continue  # its turn is still going on (it delayed after readying)
        del ctx.readied[readier]
        if not ctx.get(readier).down:
            _fire_ready(ctx, rs, readier, key, entry)
    for watch in list(ctx.watching):
        if watch.owner == key or not watch.trigger.matches(key, action, watch.owner):
            continue
        ctx.watching.remove(watch)
        owner = ctx.get(watch.owner)
        if owner.down:
            continue
        ctx.emit("reaction.triggered", actor=owner.key, target=key, rule=rs.rule_ref("reaction"),
                 does=watch.trigger.does, kind=action.kind.value)
        rs.perform(ctx, owner, watch.action,
                   ctx.declarations.get(owner.key) or Declaration(actor=owner.key), watch.index)


def _fire_ready(ctx: RoundContext, rs: Ruleset, readier: str, key: str,
                entry: ReadiedAction) -> None:
    """The readied action goes off as a reaction; FD-14: the readier's initiative becomes
    this count for the rest of combat (just before *key*); DND-3: the order stays."""
    c = ctx.get(readier)
    inner = entry.action.options.action
    act = Action.from_dict(inner) if isinstance(inner, Mapping) else \
        dataclasses.replace(entry.action, kind=ActionKind.ATTACK,
                            options=entry.action.options.without("trigger", "action"))
    if rs.ready_takes_count:
        count = ctx.count if ctx.count is not None else ctx.get(key).initiative
        c = dataclasses.replace(c, initiative=count)
        ctx.put(c)
        ctx.delayed.pop(readier, None)
        ctx.order = [k for k in ctx.order if k != readier]
        ctx.order.insert(ctx.order.index(key), readier)
        ctx.emit("ready.triggered", actor=readier, target=key, rule=rs.rule_ref("ready"),
                 count=f"{count or 0:g}")
    else:
        ctx.emit("ready.triggered", actor=readier, target=key, rule=rs.rule_ref("ready"),
                 fixed=True)
    if act.kind in (ActionKind.ATTACK, ActionKind.MANEUVER) and act.target is None:
        act = dataclasses.replace(act, target=key)
    rs.perform(ctx, c, act, ctx.declarations.get(readier) or Declaration(actor=readier),
               entry.index)


def lapse_readied(ctx: RoundContext, key: str) -> None:
    """FD-14: a readied action not used by the readier's next turn is lost."""
    entry = ctx.readied.get(key)
    if entry is not None and entry.round < ctx.round:
        del ctx.readied[key]
        ctx.emit("ready.lapsed", actor=key, rule=ctx.ruleset.rule_ref("ready"))


# -- reactions (DND-7) -------------------------------------------------------------------

def arm_reactions(ctx: RoundContext, rs: Ruleset, decls: Mapping[str, Declaration]) -> None:
    """Every declared reaction with a trigger (``Ruleset.reaction_trigger``) watches for it
    from the start of the round, before and after its owner's turn."""
    placed = set(ctx.order)
    for key in [k for k in ctx.order if k in decls] + [k for k in decls if k not in placed]:
        actions = decls[key].actions
        if not any(a.kind is ActionKind.REACTION for a in actions):
            continue  # most declarations (SCALE-6)
        c = ctx.get(key)
        for index, action in enumerate(actions):
            if action.kind is not ActionKind.REACTION:
                continue
            trigger = rs.reaction_trigger(ctx, c, action)
            if trigger is not None:
                ctx.watching.append(Watch(key, index, action, trigger))
                ctx.note(key).setdefault("watched", []).append(action)


def disarm_refused(ctx: RoundContext, key: str, accepted: list[Action]) -> None:
    """A reaction refused on its owner's turn (budget, surprise) no longer watches."""
    if ctx.watching:
        ctx.watching = [w for w in ctx.watching if w.owner != key or w.action in accepted]


def lapse_reactions(ctx: RoundContext, rs: Ruleset) -> None:
    """DND-7: a reaction whose trigger did not happen this round is not used."""
    for watch in ctx.watching:
        if not ctx.get(watch.owner).down:
            ctx.emit("reaction.lapsed", actor=watch.owner, target=watch.trigger.actor,
                     rule=rs.rule_ref("reaction"), does=watch.trigger.does)
    ctx.watching = []

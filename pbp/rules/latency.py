"""Latency penalties (PBP-2, FD-2): what a late or missing post costs, shared by rulesets.

FD-2 leaves the amount to the narrator; the default every ruleset shares is "the late
character forfeits that round's main action and is treated as taking total defense",
with a roll-penalty mode as the alternative (``latency.mode`` / ``latency.penalty``).
The engine applies it only when the declaration is late or missing and not waived.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from . import conditions as C
from .context import RoundContext
from .model import Action, Combatant, Declaration

if TYPE_CHECKING:  # pragma: no cover
    from .base import Ruleset


def apply(rs: Ruleset, ctx: RoundContext, c: Combatant, declaration: Declaration, *,
          forfeits: Callable[[Action], bool], main: str, rule: str) -> Declaration:
    """Apply the configured penalty; returns the declaration that still stands."""
    mode = rs.setting("latency.mode", "total-defense")
    why = "no post this round" if declaration.missing else "the post came after the deadline"
    if mode == "roll-penalty":
        n = int(rs.setting("latency.penalty", 2))
        ctx.add_condition(c.key, C.lasting(C.LATENCY, 1, round_number=ctx.round,
                                           count=ctx.count, value=n), rule=rule)
        ctx.emit("latency.penalty", actor=c.key, rule=rule, mode=mode, penalty=n,
                 reason=f"{why}; -{n} on every roll until the next turn.")
        return declaration
    kept: list[Action] = []
    for i, a in enumerate(declaration.actions):
        if forfeits(a):
            ctx.emit("action.changed", actor=c.key, rule=rule, action_index=i,
                     problem="latency.forfeit",
                     reason=f"'{a.text or a.kind.value}' is forfeited: {why}.")
        else:
            kept.append(a)
    bonus = int(rs.setting("latency.total_defense_bonus", 4))
    ctx.emit("latency.penalty", actor=c.key, rule=rule, mode=mode, bonus=bonus,
             reason=f"{why}; the {main} is lost and {c.name} takes total defense "
                    f"(+{bonus} defense until the next turn).")
    ctx.add_condition(c.key, C.lasting(C.DEFENDING, 1, round_number=ctx.round,
                                       count=ctx.count, value=bonus), rule=rule)
    return Declaration(actor=declaration.actor, actions=tuple(kept), late=declaration.late,
                       missing=declaration.missing, speech_count=declaration.speech_count,
                       penalty_waived=declaration.penalty_waived, post_id=declaration.post_id)

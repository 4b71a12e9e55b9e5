"""Read-only questions about an encounter that callers outside the engine ask.

Why here and not in the panel or the rounds layer: how many actions a combatant has
left and whether a fight is over are rules; a caller that rebuilt a round context to
answer them would be a second copy of the engine. Nothing here rolls a die or changes
the encounter.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..dice import DiceBox
from .context import Budget, RoundContext
from .model import Declaration, Encounter
from .setup import round_number, ruleset_for


def actions_left(encounter: Encounter,
                 declarations: Mapping[str, Declaration]) -> dict[str, dict[str, int]]:
    """Combatant key -> {slot: actions left} for the slots that have a limit.

    A combatant with a declaration in *declarations* (keyed by combatant key) pays for it
    with the ruleset's own ``plan`` (the code resolution uses); one without gets the
    ruleset's full budget (the surprise budget in a surprise round). A combatant who
    cannot act at all (``surprise_budget`` is None) gets ``{}``; a slot with a cap of 0
    says nothing and is left out. The dice are never rolled: planning uses none.
    """
    ruleset = ruleset_for(encounter)
    number, surprise = round_number(encounter, ruleset)
    ctx = RoundContext(encounter, ruleset, DiceBox("actions-left"), number, surprise)
    out: dict[str, dict[str, int]] = {}
    for c in encounter.combatants:
        if not c.key:
            continue
        budget: Budget | None
        if c.key in declarations:
            _accepted, _problems, budget = ruleset.plan(ctx, declarations[c.key])
        else:
            budget = ruleset.surprise_budget(ctx, c) if surprise else ruleset.budget(ctx, c)
        out[c.key] = {} if budget is None else _limited(budget)
    return out


def _limited(budget: Budget) -> dict[str, int]:
    """The slots with a limit the combatant has at all (an unused 0-cap slot says nothing)."""
    return {slot: left for slot, cap in budget.slots.items()
            if cap and (left := budget.left(slot)) is not None}


def fight_over(encounter: Encounter) -> bool:
    """True when at most one side still has someone standing (objects do not fight).

    The rounds layer stops opening rounds then; a fight where everyone is down is over too.
    """
    sides = {c.side for c in encounter.combatants if not c.down and not c.is_object}
    return len(sides) <= 1

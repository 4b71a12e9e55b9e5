"""Remaining actions per combatant this round, as the engine counts them.

Not a rule written here: the ruleset's own ``plan`` pays each declared action from its
own ``budget`` (the same code resolution uses), and the panel shows what is left of the
limited slots. Anything the engine cannot plan yet gives an empty answer, never an error.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.orm import Session

from ..store.models import Declaration as DeclarationRow
from ..store.models import Encounter as EncounterRow
from ..store.models import Round

log = logging.getLogger(__name__)


def remaining(session: Session, encounter: EncounterRow, rnd: Round | None,
              declarations: list[DeclarationRow]) -> dict[str, dict[str, int]]:
    """Combatant key -> {slot: actions left} for the slots that have a limit."""
    if rnd is None or rnd.state != "open":
        return {}
    try:
        from ..dice import DiceBox
        from ..rounds import codec
        from ..rounds.policy import policy_for
        from ..rules import engine
        from ..rules.context import RoundContext
        from ..rules.model import Declaration

        policy = policy_for(encounter.campaign, encounter)
        model = codec.encounter_to_model(encounter, list(encounter.combatants), houserules=policy.houserules,
                                         round_number=encounter.round_number, surprise_round=encounter.surprise)
        ruleset = engine.ruleset_for(model)
        number, surprise = engine.round_number(model, ruleset)
        ctx = RoundContext(model, ruleset, DiceBox("panel"), number, surprise)
        out: dict[str, dict[str, int]] = {}
        by_id = {c.id: c.key for c in encounter.combatants}
        declared: dict[str, Any] = {}
        for d in declarations:
            if d.deleted or d.superseded:
                continue
            key = by_id.get(d.combatant_id)
            if key is not None:
                declared[key] = Declaration(actor=key, actions=tuple(codec.action_from_dict(a) for a in d.actions))
        for c in model.combatants:
            if key := c.key:
                budget: Any
                if key in declared:
                    _accepted, _problems, budget = ruleset.plan(ctx, declared[key])
                else:
                    budget = ruleset.surprise_budget(ctx, c) if surprise else ruleset.budget(ctx, c)
                if budget is None:
                    out[key] = {}
                    continue
                # slots with a limit the combatant has at all (an unused 0-cap slot says nothing)
                out[key] = {slot: left for slot, cap in budget.slots.items()
                            if cap and (left := budget.left(slot)) is not None}
        return out
    except Exception:  # the engine is not ours to fail: the column just stays plain
        log.exception("remaining actions of round %s", rnd.id)
        return {}

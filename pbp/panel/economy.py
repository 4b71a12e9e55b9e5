"""Remaining actions per combatant this round, as the engine counts them.

Not a rule written here: :func:`pbp.rules.engine.actions_left` pays each declared action
from the ruleset's own budget (the same code resolution uses); the panel only turns the
stored rows into engine values and shows what is left of the limited slots. Anything
the engine cannot plan yet gives an empty answer, never an error.
"""

from __future__ import annotations

import logging

from sqlalchemy.orm import Session

from ..rounds import codec
from ..rounds.policy import policy_for
from ..rules import engine
from ..rules.model import Declaration
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
        policy = policy_for(encounter.campaign, encounter)
        model = codec.encounter_to_model(encounter, list(encounter.combatants),
                                         houserules=policy.houserules,
                                         round_number=encounter.round_number,
                                         surprise_round=encounter.surprise)
        by_id = {c.id: c.key for c in encounter.combatants}
        declared: dict[str, Declaration] = {}
        for d in declarations:
            key = by_id.get(d.combatant_id)
            if key is not None and not (d.deleted or d.superseded):
                declared[key] = Declaration(actor=key, actions=tuple(
                    codec.action_from_dict(a) for a in d.actions))
        return engine.actions_left(model, declared)
    except Exception:  # the engine is not ours to fail: the column just stays plain
        log.exception("remaining actions of round %s", rnd.id)
        return {}

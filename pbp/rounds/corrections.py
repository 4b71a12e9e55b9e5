"""Corrections: a narrator's change to a round whose result is already in the thread.

Why: before, an override on such a round was recorded ("Change recorded.") and never
applied, because a posted reply cannot be re-resolved (issue 11 item 6). A correction
resolves the round again with every roll it made (:func:`pbp.rounds.resolve.rerun`),
keeps the posted reply as it was (it is the record of what players read), and posts a
correction reply saying what changed (HP, down, conditions) and what the narrator
adjusted; the narrator's reason only when marked public. Audited as ``round.correct``.
None commits: the caller owns the transaction.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ..store import models as m
from ..store import queries
from .notices import queue_correction
from .overrides import (
    OverrideError,
    check_changeable,
    get_row,
    make_public,
    marks,
    pending_overrides,
    reason_or_fail,
    record,
)
from .resolve import rerun


def _state(rnd: m.Round) -> dict[str, dict[str, Any]]:
    return {c["key"]: copy.deepcopy(c) for c in (rnd.state_after or {}).get("combatants", [])}


def _condition_names(c: Mapping[str, Any]) -> list[str]:
    return [str(x.get("name")) for x in c.get("conditions") or [] if isinstance(x, Mapping)]


def changes(before: Mapping[str, Mapping[str, Any]], after: Mapping[str, Mapping[str, Any]]
            ) -> list[dict[str, Any]]:
    """What differs between two snapshots' combatants, in the snapshot's order: HP, down,
    conditions added and removed (plain values; :func:`pbp.render.change_text` says them).

    >>> changes({"g": {"hp": 3, "down": False}}, {"g": {"hp": 0, "down": True}})
    [{'code': 'hp', 'who': 'g', 'before': 3, 'after': 0}, {'code': 'down', 'who': 'g'}]
    """
    out: list[dict[str, Any]] = []
    for key, new in after.items():
        old = before.get(key)
        if old is None:
            continue
        if old.get("hp") != new.get("hp"):
            out.append({"code": "hp", "who": key, "before": old.get("hp"), "after": new.get("hp")})
        if bool(old.get("down")) != bool(new.get("down")):
            out.append({"code": "down" if new.get("down") else "up", "who": key})
        was, now = _condition_names(old), _condition_names(new)
        out += [{"code": "condition.add", "who": key, "condition": n} for n in now if n not in was]
        out += [{"code": "condition.remove", "who": key, "condition": n} for n in was if n not in now]
    return out


def correct_round(session: Session, round_id: int, reason: str,
                  narrator: m.Narrator | int | None, now: datetime, *,
                  public: bool = False) -> int:
    """Apply the overrides made on resolved round *round_id* since its reply was posted,
    and queue the correction reply; returns its id."""
    reason = reason_or_fail(reason)
    rnd = get_row(session, m.Round, round_id, "round")
    if rnd.state != "resolved":
        raise OverrideError(f"round {rnd.number} has no result to correct")
    if not queries.posted(queries.reply_parts(session, rnd.id, "resolution")):
        raise OverrideError(f"round {rnd.number}'s result is not posted yet: "
                            "re-resolve it instead")
    check_changeable(session, rnd)
    pending = pending_overrides(session, rnd)
    if not pending:
        raise OverrideError(f"nothing to correct: no change to round {rnd.number} since its result")
    enc = rnd.encounter
    before = _state(rnd)
    rerun(session, rnd, now)
    after = _state(rnd)
    found = changes(before, after)
    ov = record(session, encounter=enc, round_id=rnd.id, kind="round.correct",
                target=str(rnd.number), before=len(pending), after=found, reason=reason,
                narrator=narrator, entity="round", entity_id=rnd.id, applied=True, now=now,
                extra={"overrides": [o.id for o in pending]})
    if public:
        make_public(ov)
    names = {c.key: c.name for c in enc.combatants}
    said = marks(pending, enc.campaign.language, names,
                 private=bool(enc.campaign.private_roll_values))   # DICE-5
    return queue_correction(session, rnd, ov.id, found, said,
                            reason if public else "", now)

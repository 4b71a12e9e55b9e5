"""Ending an encounter on the narrator's word (``pbp encounter end``; the panel's button).

Why a service function: the fight's end must be the same whoever asks. The open round is
cancelled (its declarations are never resolved, nothing is rolled for it), its seed is
revealed so the initiative and any roll already made under it can still be checked
(``pbp verify``), the encounter is marked finished so no round opens again and no post
is read for it, and the thread is told in a closing reply queued like every other reply
(:func:`pbp.rounds.replies.queue_round_reply`). The caller owns the transaction.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..store import models as m
from .replies import queue_round_reply


def end_encounter(session: Session, encounter_id: int, now: datetime, *,
                  actor: str = "system") -> int | None:
    """End encounter *encounter_id*: cancel its open rounds, mark it finished, queue the
    closing reply on its last round. Returns the reply's id (None when no round was ever
    opened: nothing was said in the thread, so nothing is said at its end)."""
    enc = session.get(m.Encounter, encounter_id)
    if enc is None:
        raise LookupError(f"no encounter {encounter_id}")
    if enc.status == "finished":
        raise PbpError(f"encounter {encounter_id} is already over")
    rounds = list(session.scalars(select(m.Round).where(m.Round.encounter_id == enc.id)
                                  .order_by(m.Round.number)))
    cancelled = [r for r in rounds if r.state == "open"]
    for rnd in cancelled:
        rnd.state = "cancelled"
        rnd.seed_revealed = True
    enc.status = "finished"
    session.add(m.AuditEntry(at=now, actor=actor, campaign_id=enc.campaign_id,
                             action="encounter.end", entity="encounter", entity_id=str(enc.id),
                             before={"status": "active"},
                             after={"status": "finished",
                                    "cancelled_rounds": [r.number for r in cancelled]}))
    session.flush()
    if not rounds:
        return None
    return queue_round_reply(session, rounds[-1], "closing", now)

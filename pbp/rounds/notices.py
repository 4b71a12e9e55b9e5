"""Short replies that are not a round's opening, reminder or result: a deadline moved, an
encounter ended, a correction (their sentences live in ``pbp/templates/replies/*/``).

Why each is its own reply with its own key: the thread must be told what the narrator
changed (issue 11 items 2, 5 and 6), exactly once, and in approval mode each waits for
approval like every other reply (:func:`pbp.rounds.replies.store_reply`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ..render import render_reply
from ..store import models as m
from ..store import queries
from . import hidden, proof
from .replies import new_view, store_reply
from .status import status_block


def _names(rnd: m.Round) -> dict[str, str]:
    return {c.key: c.name for c in rnd.encounter.combatants}


def _final(session: Session, last: m.Round) -> m.Round | None:
    """The round whose resolved state is the encounter's final one: *last* itself, or the
    one before it when *last* was closed without a result (its state was never made)."""
    rnd: m.Round | None = last
    while rnd is not None and not (rnd.state == "resolved" and rnd.state_after):
        rnd = queries.previous_round(session, rnd)
    return rnd


def queue_deadline_notice(session: Session, rnd: m.Round, before: datetime, override_id: int,
                          now: datetime) -> int:
    """Tell the thread that open round *rnd*'s deadline moved from *before*."""
    def body(marker: str) -> str:
        view = new_view(rnd, "notice", marker, _names(rnd))
        view.previous_deadline = before
        view.status = status_block(session, rnd.encounter, rnd, now)
        return render_reply(view)

    return store_reply(session, rnd.encounter, rnd.id, "notice",
                       f"{rnd.id}:deadline:{override_id}", now, body)


def queue_closing(session: Session, last: m.Round, closed: int | None, now: datetime) -> int:
    """Tell the thread the narrator ended the encounter (*closed*: the round number closed
    without a result, if one was open)."""
    def body(marker: str) -> str:
        view = new_view(last, "closing", marker, _names(last))
        view.closed_round = closed
        view.proof = proof.closing_lines(session, last, closed)
        hidden.ending(session, view, last.encounter, _names(last))
        view.status = status_block(session, last.encounter, None, now,
                                   after=_final(session, last))   # STALL-8: the final state
        return render_reply(view)

    return store_reply(session, last.encounter, last.id, "closing", f"{last.id}:closing", now, body)


def queue_correction(session: Session, rnd: m.Round, override_id: int,
                     changes: Sequence[Mapping[str, Any]], adjusted: Sequence[str], note: str,
                     now: datetime) -> int:
    """Tell the thread what a correction of round *rnd* changed and what the narrator
    adjusted (*note*: the reason, only when the narrator made it public)."""
    def body(marker: str) -> str:
        view = new_view(rnd, "correction", marker, _names(rnd))
        view.changes = [dict(c) for c in changes]
        view.overrides = list(adjusted)
        view.note = note
        view.proof = proof.correction_lines(session, rnd)
        # STALL-8: the corrected state, and the round open now (if any) with who owes a post
        view.status = status_block(session, rnd.encounter, queries.next_round(session, rnd),
                                   now, after=rnd)
        return render_reply(view)

    return store_reply(session, rnd.encounter, rnd.id, "correction",
                       f"{rnd.id}:correction:{override_id}", now, body)

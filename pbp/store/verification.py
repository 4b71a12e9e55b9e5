"""What the public verification page reads (DICE-4): an encounter by its page's token,
and the replies of that encounter as they went out.

Why only sent replies: the page checks what players could read on the platform, the
outbox's copy of each posted reply; a reply held for approval or never delivered is
not public yet, and checking it would vouch for dice nobody was shown.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import Encounter, Reply, Round

#: the longest token a page's address may carry (tokens are 32 characters)
MAX_TOKEN = 64


def encounter_by_token(session: Session, token: str) -> Encounter | None:
    """The encounter whose public page is ``/verify/<token>`` (None: no such token)."""
    if not token or len(token) > MAX_TOKEN:
        return None
    return session.scalars(select(Encounter).where(Encounter.verify_token == token)).first()


def sent_reply_bodies(session: Session, encounter_id: int) -> list[str]:
    """The body of every reply of the encounter's rounds that was posted, in the order
    the outbox queued them (parts of a long reply in order)."""
    rounds = select(Round.id).where(Round.encounter_id == encounter_id)
    return list(session.scalars(select(Reply.body).where(Reply.round_id.in_(rounds),
                                                         Reply.state == "sent")
                                .order_by(Reply.id)))

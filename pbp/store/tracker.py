"""STALL-8: the tracker post's rows in the outbox (read queries).

The tracker is one reply per encounter (key ``tracker:<encounter id>``, kind ``tracker``),
posted once; every later state is a reply of kind ``edit`` whose ``in_reply_to`` holds
the tracker's key. Why edits are rows and not an update of the tracker's body: the
outbox retries a row until the platform took it, and an edit replayed is the same text
again (no double), while a newer edit makes an older unsent one pointless.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .ledger import Reply


def tracker_key(encounter_id: int) -> str:
    return f"tracker:{encounter_id}"


def newer_edit(session: Session, edit: Reply) -> int | None:
    """The id of an edit of the same tracker queued after *edit* (None: it is the latest)."""
    return session.scalar(select(Reply.id).where(Reply.kind == "edit", Reply.in_reply_to == edit.in_reply_to,
                                                 Reply.id > edit.id).limit(1))


__all__ = ["newer_edit", "tracker_key"]

"""Read queries of secret rolls (DICE-2): which rolls are hidden, and which are revealed.

Why apart from :mod:`pbp.store.queries`: the reply builder, the reveal service and the
panel ask the same three questions, and a secret roll joins its round (for the round
number its seed needs) and its reveal (a row of its own: rolls never change).
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import Declaration, Post, RollRecord, RollReveal, Round


class SecretRoll(NamedTuple):
    """A hidden roll with its round number, its reveal (None while sealed), and the post
    it came from (None for the narrator's own roll from the panel)."""

    roll: RollRecord
    round_number: int
    reveal: RollReveal | None
    post: Post | None


def _statement():  # type: ignore[no-untyped-def]
    return (select(RollRecord, Round.number, RollReveal, Post)
            .join(Round, Round.id == RollRecord.round_id)
            .outerjoin(RollReveal, RollReveal.roll_id == RollRecord.id)
            .outerjoin(Post, Post.id == RollRecord.post_id)
            .where(RollRecord.hidden.is_(True)))


def encounter_secrets(session: Session, encounter_id: int) -> list[SecretRoll]:
    """Every secret roll of the encounter, by round and index."""
    rows = session.execute(_statement().where(Round.encounter_id == encounter_id)
                           .order_by(Round.number, RollRecord.roll_index))
    return [SecretRoll(*row) for row in rows]


def round_secrets(session: Session, round_id: int) -> list[SecretRoll]:
    """The secret rolls of one round, by index."""
    rows = session.execute(_statement().where(RollRecord.round_id == round_id)
                           .order_by(RollRecord.roll_index))
    return [SecretRoll(*row) for row in rows]


def unrevealed(session: Session, encounter_id: int) -> list[SecretRoll]:
    return [s for s in encounter_secrets(session, encounter_id) if s.reveal is None]


def declaration_of(session: Session, roll: RollRecord) -> Declaration | None:
    """The declaration whose post made *roll* (for the panel: which post, whose)."""
    if roll.post_id is None:
        return None
    return session.scalar(select(Declaration).where(Declaration.post_id == roll.post_id,
                                                    Declaration.round_id == roll.round_id)
                          .limit(1))

"""The escalation ladder's reads (STALL-3), for the encounter page: a store module of its
own so :mod:`pbp.store.queries` stays small."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .ladder import LadderPlayer, Notification
from .ledger import AuditEntry
from .models import Round


def ladder_players(session: Session, campaign_id: int) -> list[LadderPlayer]:
    """STALL-3: each player's place on the campaign's ladder (missed in a row, narrator-run)."""
    return list(session.scalars(select(LadderPlayer).where(LadderPlayer.campaign_id == campaign_id)))


def ladder_notifications(session: Session, encounter_id: int) -> list[Notification]:
    """STALL-3: the direct notifications of an encounter's rounds, oldest first."""
    return list(session.scalars(select(Notification).join(Round, Round.id == Notification.round_id)
                                .where(Round.encounter_id == encounter_id).order_by(Notification.id)))


def ladder_reminders(session: Session, encounter_id: int) -> list[AuditEntry]:
    """STALL-3: the encounter's ``ladder.remind`` audit rows, oldest first."""
    return list(session.scalars(select(AuditEntry).where(
        AuditEntry.encounter_id == encounter_id, AuditEntry.action == "ladder.remind")
        .order_by(AuditEntry.id)))

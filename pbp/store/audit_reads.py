"""Reads of the audit trail that are not an encounter's: the campaign's own changes.

Why apart from :func:`pbp.store.queries.encounter_audit`: settings, sources, co-narrators
and random tables are changed outside any encounter (their entries have no encounter),
so no page showed them: the trail was written and never read."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import AuditEntry


def campaign_audit(session: Session, campaign_id: int, limit: int = 30) -> list[AuditEntry]:
    """The campaign's entries made outside any encounter, newest first."""
    return list(session.scalars(select(AuditEntry).where(AuditEntry.campaign_id == campaign_id,
                                                         AuditEntry.encounter_id.is_(None))
                                .order_by(AuditEntry.id.desc()).limit(limit)))

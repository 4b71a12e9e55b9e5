"""Audit entries for the panel's own edits (settings, sheets); overrides write theirs
in :mod:`pbp.panel.overrides`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask_login import current_user
from sqlalchemy.orm import Session

from ..store.models import AuditEntry


def write(session: Session, campaign_id: int | None, action: str, entity: str, entity_id: Any,
          before: Any, after: Any, note: str = "") -> None:
    session.add(AuditEntry(at=datetime.now(UTC), narrator_id=current_user.id,
                           actor=current_user.username, campaign_id=campaign_id, action=action,
                           entity=entity, entity_id=str(entity_id),
                           before=None if before is None else {"value": before},
                           after=None if after is None else {"value": after}, note=note))

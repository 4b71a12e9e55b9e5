"""Audit entries for the panel's own edits (settings, sheets); overrides write theirs
in :mod:`pbp.panel.overrides`. An edit of an encounter's own (its combatants) names the
encounter and the round it was made in, so the encounter's log shows it (issue 11 item 10)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask_login import current_user
from sqlalchemy.orm import Session

from ..store import queries
from ..store.models import AuditEntry


def write(session: Session, campaign_id: int | None, action: str, entity: str, entity_id: Any,
          before: Any, after: Any, note: str = "", *, encounter_id: int | None = None) -> None:
    rnd = queries.current_round(session, encounter_id) if encounter_id is not None else None
    session.add(AuditEntry(at=datetime.now(UTC), narrator_id=current_user.id,
                           actor=current_user.username, campaign_id=campaign_id, action=action,
                           entity=entity, entity_id=str(entity_id),
                           encounter_id=encounter_id, round_id=rnd.id if rnd is not None else None,
                           before=None if before is None else {"value": before},
                           after=None if after is None else {"value": after}, note=note))

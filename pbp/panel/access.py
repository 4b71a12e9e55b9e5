"""Who sees what: a narrator sees and changes only the campaigns they narrate.

Everything a view loads by id goes through these helpers, which answer 404 (not
403) for another narrator's campaign, so ids do not leak which campaigns exist.
"""

from __future__ import annotations

import functools
from typing import Any

from flask import abort
from flask_login import current_user
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from werkzeug.routing import IntegerConverter

from ..store.models import (
    Campaign,
    CampaignNarrator,
    Combatant,
    Declaration,
    Encounter,
    ExtensionRequest,
    Reply,
    RollRecord,
    Round,
)

#: The largest id the database holds (PostgreSQL's INTEGER): a bigger one in a URL or a
#: form is no row at all, answered 404, not a database error (issue 12's property test).
MAX_ID = 2**31 - 1


def db_id(value: Any) -> int | None:
    """*value* as a row id, or None when it cannot be one (not a number, <= 0, too big)."""
    try:
        ident = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return ident if 0 < ident <= MAX_ID else None


class IdConverter(IntegerConverter):
    """``<int:...>`` in the panel's URLs: a positive id the database can hold, else 404."""

    def __init__(self, url_map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min", 1)
        kwargs.setdefault("max", MAX_ID)
        super().__init__(url_map, *args, **kwargs)


def campaign_ids(session: Session, narrator_id: int) -> list[int]:
    return list(session.scalars(select(CampaignNarrator.campaign_id)
                                .where(CampaignNarrator.narrator_id == narrator_id)))


def campaigns(session: Session, narrator_id: int) -> list[Campaign]:
    return list(session.scalars(
        select(Campaign).join(CampaignNarrator, CampaignNarrator.campaign_id == Campaign.id)
        .where(CampaignNarrator.narrator_id == narrator_id, Campaign.archived.is_(False))
        .order_by(Campaign.name)))


def _allowed(session: Session, campaign_id: int) -> bool:
    return session.scalar(select(CampaignNarrator.id).where(
        CampaignNarrator.campaign_id == campaign_id,
        CampaignNarrator.narrator_id == current_user.id)) is not None


def campaign_or_404(session: Session, campaign_id: int) -> Campaign:
    row = session.get(Campaign, campaign_id)
    if row is None or not _allowed(session, row.id):
        abort(404)
    return row


@functools.cache
def _encounter_statement() -> Any:
    """Built once (every encounter request runs it, the live poll too)."""
    return select(Encounter).join(
        CampaignNarrator, (CampaignNarrator.campaign_id == Encounter.campaign_id)
        & (CampaignNarrator.narrator_id == bindparam("nid"))).where(Encounter.id == bindparam("eid")).limit(1)


def encounter_or_404(session: Session, encounter_id: int) -> Encounter:
    """One query: the encounter, only if the current narrator narrates its campaign."""
    row = session.scalars(_encounter_statement(), {"eid": encounter_id, "nid": current_user.id}).first()
    if row is None:
        abort(404)
    return row


def in_encounter_or_404(session: Session, model: Any, ident: Any, encounter: Encounter) -> Any:
    """A row of *model* by id that belongs to *encounter* (else 404)."""
    ident = db_id(ident)
    if ident is None:
        abort(404)
    row = session.get(model, ident)
    if row is None:
        abort(404)
    if model is Combatant or model is Round:
        ok = row.encounter_id == encounter.id
    elif model in (Declaration, RollRecord, Reply, ExtensionRequest):
        rnd = session.get(Round, row.round_id) if row.round_id is not None else None
        ok = rnd is not None and rnd.encounter_id == encounter.id
    else:
        ok = False
    if not ok:
        abort(404)
    return row

"""Reads about who runs a campaign and who plays in it, for the panel's narrators card.

Why apart: a narrator's platform accounts decide whose posts declare for the NPCs
(:func:`pbp.rounds.declare.narrator_names`), so setting one that is a player's would
silently take that player's posts for the narrator's; the panel asks who plays first."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .campaigns import CampaignNarrator, Narrator
from .models import Combatant, Encounter


def narrators_of(session: Session, campaign_id: int) -> list[tuple[CampaignNarrator, Narrator]]:
    """The campaign's narrators, the owner first (the order they joined)."""
    return [(link, narrator) for link, narrator in session.execute(
        select(CampaignNarrator, Narrator).join(Narrator, Narrator.id == CampaignNarrator.narrator_id)
        .where(CampaignNarrator.campaign_id == campaign_id).order_by(CampaignNarrator.id))]


def players_of(session: Session, campaign_id: int) -> dict[str, str]:
    """Each player account of the campaign's encounters (casefolded, as posts are matched)
    with a character it plays."""
    rows = session.execute(
        select(Combatant.player, Combatant.name).join(Encounter, Encounter.id == Combatant.encounter_id)
        .where(Encounter.campaign_id == campaign_id, Combatant.player.is_not(None))
        .order_by(Combatant.id))
    out: dict[str, str] = {}
    for player, name in rows:
        out.setdefault(str(player).casefold(), name)
    return out

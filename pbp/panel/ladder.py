"""The escalation ladder on the encounter page (STALL-3): for each player, when the thread
reminded them, when and how the direct notification went (sent, failed and why, or no
channel on this platform), how many rounds they missed in a row, and since when the
narrator runs their character. The reads are the store's (:mod:`pbp.store.queries`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Blueprint, render_template
from flask_login import login_required
from sqlalchemy.orm import Session

from ..store import ladder_reads as queries
from ..store.models import Encounter
from .access import encounter_or_404
from .db import session as db_session

#: its own page, linked from the encounter page's toolbar: the encounter page's query budget
#: (tests/panel/test_queries.py) stays as it was
bp = Blueprint("ladder", __name__, url_prefix="/encounters/<int:encounter_id>/ladder")


@dataclass
class LadderRow:
    """One player's line in the ladder table."""

    player: str
    characters: list[str]
    reminded_at: datetime | None = None
    notified: Any = None               # the latest step-2 notification of this encounter
    narrator_note: Any = None          # the latest message to the narrator about them
    missed_in_row: int = 0
    narrator_run_since: datetime | None = None


def page_context(session: Session, encounter: Encounter) -> dict[str, Any]:
    """``ladder_rows`` and the campaign's ladder settings for the template."""
    players: dict[str, LadderRow] = {}
    for c in encounter.combatants:
        if c.player:
            players.setdefault(c.player.casefold(), LadderRow(c.player, [])).characters.append(c.name)
    for entry in queries.ladder_reminders(session, encounter.id):
        row = players.get(str(entry.entity_id).casefold())
        if row is not None:
            row.reminded_at = entry.at
    for note in queries.ladder_notifications(session, encounter.id):
        row = players.get(note.player.casefold())
        if row is not None:
            if note.step == "notify":
                row.notified = note
            else:
                row.narrator_note = note
    for state in queries.ladder_players(session, encounter.campaign_id):
        row = players.get(state.player)
        if row is not None:
            row.missed_in_row, row.narrator_run_since = state.missed_in_row, state.narrator_run_since
    campaign = encounter.campaign
    return {"ladder_rows": list(players.values()),
            "ladder_settings": {"notify_hours": campaign.notify_hours, "missed_limit": campaign.missed_limit,
                                "auto": campaign.auto_narrator_run}}


@bp.route("")
@login_required
def page(encounter_id: int):  # type: ignore[no-untyped-def]
    """The escalation ladder of one encounter's players."""
    s = db_session()
    encounter = encounter_or_404(s, encounter_id)
    return render_template("panel/ladder.html", encounter=encounter, campaign=encounter.campaign,
                           **page_context(s, encounter))

"""What the narrator sets in the panel about absences and standing orders (STALL-1/2).

The same rows and the same checks as a player's post (:mod:`pbp.rounds.standing`): a
default the narrator types is read by the post parser in the campaign's language and
refused when it spends a limited resource; each change is in the audit log under the
narrator's name.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from ..errors import PbpError
from ..parse import standing as read
from ..rules.standing import default_problem
from ..store import models as m
from ..store import queries
from ..store import standing as store
from . import codec
from .standing import end_absences, set_order


def _round_id(session: Session, enc: m.Encounter) -> int | None:
    rnd = queries.current_round(session, enc.id)
    return rnd.id if rnd is not None else None


def add_absence(session: Session, enc: m.Encounter, player: str, starts_at: datetime,
                until: datetime, note: str, *, narrator_id: int, narrator: str,
                now: datetime) -> store.Absence:
    """The narrator marks *player* away from *starts_at* to *until* (aware datetimes)."""
    player = player.strip()
    if not any(c.player and c.player.casefold() == player.casefold() for c in enc.combatants):
        raise PbpError(f"'{player}' plays no combatant in this encounter")
    if until <= starts_at:
        raise PbpError("an absence must end after it begins")
    absence = store.Absence(campaign_id=enc.campaign_id, player=player, starts_at=starts_at,
                            until=until, note=note.strip()[:300], source="panel",
                            narrator_id=narrator_id, created_at=now)
    session.add(absence)
    session.add(m.AuditEntry(at=now, actor=narrator, narrator_id=narrator_id,
                             campaign_id=enc.campaign_id, encounter_id=enc.id,
                             round_id=_round_id(session, enc), action="absence.set",
                             entity="player", entity_id=player, before=None,
                             after={"until": until.isoformat(), "from": starts_at.isoformat(),
                                    "note": absence.note}))
    session.flush()
    return absence


def end_absence(session: Session, enc: m.Encounter, absence_id: int, *, narrator_id: int,
                narrator: str, now: datetime) -> int:
    """The narrator ends one absence now."""
    absence = session.get(store.Absence, absence_id)
    if absence is None or absence.campaign_id != enc.campaign_id:
        raise PbpError("no such absence in this campaign")
    if not absence.active_at(now):
        raise PbpError("that absence is over already")
    return end_absences(session, enc, absence.player, now, now, by="narrator",
                        round_id=_round_id(session, enc), narrator_id=narrator_id,
                        actor=narrator)


def order_from_panel(session: Session, row: m.Combatant, kind: str, text: str, *,
                     narrator_id: int, narrator: str, now: datetime) -> store.StandingOrder | None:
    """A default (``kind`` ``default``) or conditional order (``if``) the narrator typed,
    read as a post would be; a refused one raises with the reason in words."""
    enc = row.encounter
    roster = [codec.combatant_to_model(c) for c in enc.combatants]
    lang = enc.campaign.language
    spec = (read.default_order(text, lang, roster, row.key, 0) if kind == "default"
            else read.if_order(text, lang, roster, row.key, 0))
    if spec.problem:
        raise PbpError(f"'{text}' could not be read as a standing order")
    order = set_order(session, row, spec, now=now, source="panel", narrator_id=narrator_id,
                      actor=narrator)
    if order is not None and order.state == "refused":
        resource = str(order.reason or "").removeprefix("limited:")
        raise PbpError(f"a default may not spend a limited resource ({resource}): '{text}'")
    return order


def cancel_order(session: Session, row: m.Combatant, order_id: int, *, narrator_id: int,
                 narrator: str, now: datetime) -> None:
    order = session.get(store.StandingOrder, order_id)
    if order is None or order.combatant_id != row.id or order.state != "active":
        raise PbpError("no such standing order in force")
    order.state, order.ended_at = "cancelled", now
    enc = row.encounter
    session.add(m.AuditEntry(at=now, actor=narrator, narrator_id=narrator_id,
                             campaign_id=enc.campaign_id, encounter_id=enc.id,
                             round_id=_round_id(session, enc), action="standing.cancel",
                             entity="combatant", entity_id=row.key, before={"text": order.text},
                             after=None))


def sheet_default_problem(enc: m.Encounter, key: str, text: str) -> str | None:
    """Why *text* cannot be a sheet's ``default_action`` (STALL-2), or None: words the post
    parser cannot read as an action, or an action that spends a limited resource."""
    roster = [codec.combatant_to_model(c) for c in enc.combatants]
    spec = read.default_order(text, enc.campaign.language, roster, key, 0)
    if spec.kind == "clear":
        return None
    if spec.problem:
        return "unread"
    return default_problem(spec.actions)

"""STALL-5 extensions: a player asks for more time in a post; pbp grants it up to the
campaign's limit, or queues it for the narrator, and says which in the thread.

The rule: a request of *h* hours in an open round, posted before its deadline by a player
who controls a combatant there, is granted at once when the hours already granted in that
round plus *h* stay within the campaign's ``extension_limit_hours``; otherwise it waits
for a narrator, who grants or refuses it in the panel. A granted extension moves the
deadline by *h* and then out of quiet hours and weekends (:func:`pbp.rounds.clocks.place`).
One request per post (``uq_extension_requests_round_id_post_id``): an edit, a second poll
or a second worker never asks twice. Every decision is in the audit log and in a reply.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..parse.extension import ExtensionAsk, asks
from ..render import render_reply
from ..store import models as m
from ..store import queries
from .clocks import clock_of, place
from .declare import controlled_by
from .early import whole_minute
from .overrides import narrator_of
from .replies import new_view, store_reply
from .status import status_block


def read_extensions(session: Session, post: m.Post, encounter: m.Encounter,
                    rnd: m.Round | None, now: datetime, *, is_narrator: bool) -> int | None:
    """Read *post*'s first extension command for *rnd*; the reply queued, or None."""
    if rnd is None or rnd.state != "open" or is_narrator or post.deleted_at is not None \
            or post.posted_at > rnd.deadline:
        return None
    found = asks(post.text or post.body or "")
    if not found:   # most posts: no roster walked for them (SCALE-6)
        return None
    mine = [c for c in controlled_by(post.author, list(encounter.combatants), False) if c.player]
    if not mine:
        return None
    ask = found[0]
    if ask.problem is not None:
        return _reply(session, rnd, f"{rnd.id}:extension:post{post.id}", now,
                      _words(mine[0].name, ask, ask.problem, rnd))
    if queries.extension_for_post(session, rnd.id, post.id) is not None:
        return None
    req = m.ExtensionRequest(round_id=rnd.id, post_id=post.id, combatant_id=mine[0].id,
                             player=post.author, hours=float(ask.hours or 0), state="queued",
                             created_at=now)
    try:
        with session.begin_nested():
            session.add(req)
    except IntegrityError:   # a concurrent reader stored it first
        return None
    limit = float(encounter.campaign.extension_limit_hours or 0)
    if queries.granted_hours(session, rnd.id) + req.hours <= limit:
        _grant(session, req, rnd, now, narrator=None)
    else:
        _audit(session, req, rnd, "round.extension.queued", None, now,
               {"deadline": rnd.deadline.isoformat()}, {"hours": req.hours, "limit": limit})
    return _reply(session, rnd, f"{rnd.id}:extension:{req.id}", now,
                  _words(mine[0].name, ask, req.state, rnd))


def decide(session: Session, request_id: int, grant: bool, narrator: m.Narrator | int | None,
           now: datetime) -> int:
    """A narrator grants or refuses a queued request; returns the reply telling the thread."""
    req = session.get(m.ExtensionRequest, request_id)
    if req is None:
        raise PbpError(f"no extension request #{request_id}")
    rnd = req.round
    if req.state != "queued":
        raise PbpError(f"extension request #{request_id} is already {req.state}")
    if rnd.state != "open":
        raise PbpError(f"round {rnd.number} is no longer open")
    if grant:
        _grant(session, req, rnd, now, narrator=narrator)
    else:
        req.state, req.decided_at = "refused", now
        req.narrator_id = narrator_of(session, narrator)[0]
        _audit(session, req, rnd, "round.extension.refused", narrator, now,
               {"state": "queued"}, {"state": "refused"})
    name = req.combatant.name if req.combatant is not None else req.player
    ask = ExtensionAsk(written="", hours=req.hours)
    return _reply(session, rnd, f"{rnd.id}:extension:{req.id}:decided", now,
                  _words(name, ask, req.state, rnd, by_narrator=True))


def _grant(session: Session, req: m.ExtensionRequest, rnd: m.Round, now: datetime, *,
           narrator: m.Narrator | int | None) -> None:
    before = rnd.deadline
    length = timedelta(hours=req.hours)
    rnd.deadline = whole_minute(place(clock_of(rnd.encounter.campaign), before + length),
                                rnd.deadline - rnd.opens_at)
    req.state, req.decided_at, req.automatic = "granted", now, narrator is None
    req.narrator_id = narrator_of(session, narrator)[0]
    _audit(session, req, rnd, "round.extension.granted", narrator, now,
           {"deadline": before.isoformat()},
           {"deadline": rnd.deadline.isoformat(), "hours": req.hours, "automatic": req.automatic})


def _audit(session: Session, req: m.ExtensionRequest, rnd: m.Round, action: str,
           narrator: m.Narrator | int | None, now: datetime, before: dict[str, object],
           after: dict[str, object]) -> None:
    narrator_id, actor = narrator_of(session, narrator)
    enc = rnd.encounter
    session.add(m.AuditEntry(at=now, narrator_id=narrator_id, actor=actor,
                             campaign_id=enc.campaign_id, encounter_id=enc.id, round_id=rnd.id,
                             action=action, entity="extension_request", entity_id=str(req.id),
                             before=before, after={"player": req.player, "hours": req.hours, **after}))
    session.flush()


def _words(name: str, ask: ExtensionAsk, state: str, rnd: m.Round, *,
           by_narrator: bool = False) -> dict[str, object]:
    return {"name": name, "hours": f"{ask.hours:g}" if ask.hours else "", "state": state,
            "written": ask.written, "by_narrator": by_narrator,
            "limit": f"{float(rnd.encounter.campaign.extension_limit_hours or 0):g}"}


def _reply(session: Session, rnd: m.Round, key: str, now: datetime,
           extension: dict[str, object]) -> int:
    def body(marker: str) -> str:
        view = new_view(rnd, "extension", marker, {c.key: c.name for c in rnd.encounter.combatants})
        view.extension = extension
        view.status = status_block(session, rnd.encounter, rnd, now)
        return render_reply(view)

    return store_reply(session, rnd.encounter, rnd.id, "extension", key, now, body)

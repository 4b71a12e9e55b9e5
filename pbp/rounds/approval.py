"""Approval mode: a held reply goes out only when a narrator approves it, and the clock of
the round it announces starts then (issue 11 item 4).

Why the clock waits: a round's deadline means something only once the players have read
it. While round N's result is held, round N+1 does not open (:mod:`pbp.rounds.resolve`);
approving the result opens it with a fresh deadline and renders the result again so it
announces that deadline. A held opening (round 1) keeps its round from being reminded or
resolved (:func:`pbp.store.queries.announcement_held`); approving it restarts the round's
window from that moment. A reminder or a deadline notice approved after its round closed
says nothing true any more: it is cancelled instead of posted.

Switching approval off releases every held reply of the campaign, oldest first, through
the same approval (:func:`release_held`). None commits: the caller owns the transaction.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from ..errors import PbpError
from ..store import models as m
from ..store import queries
from .early import round_deadline
from .lifecycle import open_round
from .overrides import pending_overrides, record
from .replies import rewrite_reply

#: the audit log's reason for replies released by switching approval mode off
RELEASED = "approval mode switched off"


def approve(session: Session, reply_id: int, narrator_id: int | None, now: datetime, *,
            check_pending: bool = True) -> int | None:
    """Release held reply *reply_id* (every part of it); returns the id of its first part,
    or None when it was cancelled as moot. *check_pending*: refuse a result with overrides its text does not hold yet."""
    reply = session.get(m.Reply, reply_id)
    if reply is None:
        raise LookupError(f"no reply {reply_id}")
    if reply.state != "held":
        raise PbpError(f"reply {reply_id} is {reply.state}, not held")
    rnd = session.get(m.Round, reply.round_id) if reply.round_id is not None else None
    parts = queries.parts_of(session, reply)
    if rnd is None:
        return _release(parts, narrator_id, now)
    if reply.kind == "resolution":
        return _approve_result(session, rnd, parts, narrator_id, now, check_pending)
    if reply.kind == "opening":
        _restart(rnd, now)
        return _rerender(session, rnd, "opening", parts, narrator_id, now)
    if reply.kind in ("reminder", "notice") and (rnd.state != "open" or now >= rnd.deadline):
        for p in parts:
            p.state = "cancelled"
        return None
    return _release(parts, narrator_id, now)


def _approve_result(session: Session, rnd: m.Round, parts: list[m.Reply], narrator_id: int | None,
                    now: datetime, check_pending: bool) -> int | None:
    """Open (or start again) the round this result announces, then release the result
    rendered with that round's deadline and commitment."""
    if check_pending and pending_overrides(session, rnd):
        raise PbpError(f"round {rnd.number} has changes not yet in its reply: "
                       "re-resolve it first (or hold the reply)")
    enc = rnd.encounter
    nxt = queries.next_round(session, rnd)
    if nxt is None and enc.status != "finished":
        open_round(session, enc.id, now)
    elif nxt is not None:
        _restart(nxt, now)
    return _rerender(session, rnd, "resolution", parts, narrator_id, now)


def _restart(rnd: m.Round, now: datetime) -> None:
    """The round's window starts now, as long as it was (its announcement was held), its
    end out of quiet hours and weekends (STALL-5)."""
    if rnd.state != "open":
        return
    length = rnd.deadline - rnd.opens_at
    rnd.opens_at = now
    rnd.deadline = round_deadline(rnd.encounter, now, length.total_seconds() / 3600)
    rnd.reminders_sent = []


def _rerender(session: Session, rnd: m.Round, kind: str, parts: list[m.Reply],
              narrator_id: int | None, now: datetime) -> int | None:
    return _release(rewrite_reply(session, rnd, kind, now, parts), narrator_id, now)


def _release(parts: list[m.Reply], narrator_id: int | None, now: datetime) -> int | None:
    for p in parts:
        p.state, p.approved_by, p.approved_at = "pending", narrator_id, now
    return parts[0].id if parts else None


def hold(session: Session, reply_id: int) -> None:
    """Hold a reply not posted yet (a narrator's second thought): its round's clock, when
    it announces one, waits again until it is approved."""
    reply = session.get(m.Reply, reply_id)
    if reply is None:
        raise LookupError(f"no reply {reply_id}")
    if reply.state not in ("held", "pending"):
        raise PbpError(f"the reply is {reply.state}: too late to hold it")
    for p in queries.parts_of(session, reply):
        if p.state == "pending":
            p.state, p.approved_by, p.approved_at = "held", None, None


def release_held(session: Session, campaign_id: int, narrator: m.Narrator | int | None,
                 now: datetime) -> list[int]:
    """Approval switched off: release every held reply of the campaign in the order they
    were made, each audited; returns the ids released (cancelled ones not)."""
    out: list[int] = []
    ids = [reply.id for reply, _rnd in queries.held_queue(session, [campaign_id])]
    for reply_id in ids:
        reply = session.get(m.Reply, reply_id)
        if reply is None or reply.state != "held":
            continue    # released with an earlier one (a part), or re-rendered
        enc, round_id = _encounter_of(session, reply), reply.round_id
        released = approve(session, reply_id, narrator if isinstance(narrator, int) else
                           (narrator.id if narrator is not None else None), now,
                           check_pending=False)
        if enc is not None:
            record(session, encounter=enc, round_id=round_id, kind="reply.approve",
                   target=str(reply_id), before="held",
                   after="pending" if released else "cancelled", reason=RELEASED,
                   narrator=narrator, entity="reply", entity_id=reply_id, now=now)
        if released is not None:
            out.append(released)
    return out


def _encounter_of(session: Session, reply: m.Reply) -> m.Encounter | None:
    rnd = session.get(m.Round, reply.round_id) if reply.round_id is not None else None
    return rnd.encounter if rnd is not None else None

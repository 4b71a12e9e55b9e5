"""The read queries the rounds layer and the panel share, written once.

Why here: the round service decides (who is missing, which declaration counts, what a
narrator's roll override makes of a roll) and the panel shows the same answers; when
both wrote their own ``select``, the two drifted (the panel's "missing" counted late
and deleted posts). Nothing here writes: every function reads rows and returns them
or plain values computed from them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session, defer, selectinload

from .models import (
    AuditEntry,
    Combatant,
    Declaration,
    Encounter,
    EventRecord,
    ExtensionRequest,
    Override,
    Reply,
    RollPost,
    RollRecord,
    Round,
    Thread,
)
from .standing import absences as standing_absences

# --- rounds ---------------------------------------------------------------------------


@functools.cache
def _round_statement(numbered: bool) -> Any:
    """Built once per shape (the panel's live poll runs it every few seconds per page)."""
    # the resolution snapshots (the whole encounter, twice) load only when read
    q = select(Round).options(defer(Round.state_before), defer(Round.state_after)) \
        .where(Round.encounter_id == bindparam("eid"))
    if numbered:
        q = q.where(Round.number == bindparam("number"))
    return q.order_by(Round.number.desc()).limit(1)


def current_round(session: Session, encounter_id: int, number: int | None = None) -> Round | None:
    """The encounter's latest round, or its round *number*."""
    return session.scalars(_round_statement(number is not None),
                           {"eid": encounter_id, "number": number}).first()


def round_snapshots(session: Session, round_id: int) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(state before, state after) of a round's resolution, in one query (both are
    deferred where rounds load: the whole encounter, twice)."""
    row = session.execute(select(Round.state_before, Round.state_after).where(Round.id == round_id)).first()
    return (row[0], row[1]) if row is not None else (None, None)


def next_round(session: Session, rnd: Round) -> Round | None:
    """The round opened after *rnd* in its encounter, if any."""
    return session.scalar(select(Round).where(Round.encounter_id == rnd.encounter_id,
                                              Round.number > rnd.number)
                          .order_by(Round.number).limit(1))


def previous_round(session: Session, rnd: Round) -> Round | None:
    """The round opened before *rnd* in its encounter, if any."""
    return session.scalar(select(Round).where(Round.encounter_id == rnd.encounter_id,
                                              Round.number < rnd.number)
                          .order_by(Round.number.desc()).limit(1))


def announcement(session: Session, rnd: Round) -> Reply | None:
    """The reply that tells the players round *rnd* is open and when it closes: the
    opening of an encounter's first round, the previous round's resolution after that."""
    prev = previous_round(session, rnd)
    return reply_by_key(session, f"{rnd.id}:opening" if prev is None else f"{prev.id}:resolution")


def announcement_held(session: Session, rnd: Round) -> bool:
    """Whether round *rnd*'s announcement waits for a narrator's approval: while it does,
    the round's clock does not run (no reminder, no resolution; issue 11 item 4)."""
    reply = announcement(session, rnd)
    return reply is not None and reply.state == "held"


def round_count(session: Session, encounter_id: int) -> int:
    """How many rounds *encounter_id* has opened (cancelled ones too): the chain position
    of the last one (DICE-1)."""
    return int(session.scalar(select(func.count(Round.id)).where(Round.encounter_id == encounter_id)) or 0)


def round_reresolved(session: Session, round_id: int) -> bool:
    """Whether the narrator resolved *round_id* again (its reply says every roll was kept)."""
    return session.scalar(select(AuditEntry.id).where(AuditEntry.round_id == round_id,
                                                      AuditEntry.action == "round.reresolve")
                          .limit(1)) is not None


def encounter_replies(session: Session, encounter_id: int) -> list[str]:
    """The bodies of every reply of *encounter_id*'s rounds not cancelled, in the order they
    were made: what a visitor reads in the thread, for the proof check (DICE-1)."""
    return list(session.scalars(
        select(Reply.body).join(Round, Round.id == Reply.round_id)
        .where(Round.encounter_id == encounter_id, Reply.state != "cancelled")
        .order_by(Reply.id)))


def round_rolls(session: Session, round_id: int) -> list[RollRecord]:
    """Every roll of a round, by index under its seed."""
    return list(session.scalars(select(RollRecord).where(RollRecord.round_id == round_id)
                                .order_by(RollRecord.roll_index)))


def roll_posts(session: Session, round_id: int) -> dict[int, tuple[str, str]]:
    """Roll id -> (platform id, author) of the post each tag roll of a round came from
    (kept beside the roll, DICE-3: still there when the post row is gone)."""
    return {i: (p, a) for i, p, a in session.execute(
        select(RollPost.roll_id, RollPost.platform_id, RollPost.author)
        .join(RollRecord, RollRecord.id == RollPost.roll_id)
        .where(RollRecord.round_id == round_id))}


def round_events(session: Session, round_id: int) -> list[EventRecord]:
    """Every event of a round, in the order it happened."""
    return list(session.scalars(select(EventRecord).where(EventRecord.round_id == round_id)
                                .order_by(EventRecord.seq)))


# --- declarations -------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """Per combatant, the declaration that counts; and the others, kept and shown."""

    counted: tuple[Declaration, ...]
    others: tuple[Declaration, ...]


def _usable(d: Declaration) -> bool:
    codes = {n.get("code") for n in d.notes or []}
    if "after-resolution" in codes:
        return False
    return not (d.deleted and "deleted-after-roll" not in codes)


def _rank(d: Declaration) -> tuple[Any, ...]:
    at = d.post.posted_at if d.post is not None else d.created_at
    return (d.source == "override", not d.late, at, d.id)


def choose_declarations(session: Session, round_id: int) -> Choice:
    """Which declaration counts per combatant (PBP-2).

    An on-time post beats a late one; among equals the latest post counts; a narrator's
    override beats every post. A post deleted before any roll withdraws its declaration;
    one seen only after the round was resolved never counts here (it is shown in the
    next reply).
    """
    rows = list(session.scalars(select(Declaration).where(Declaration.round_id == round_id)
                                .options(selectinload(Declaration.post))
                                .order_by(Declaration.id)))
    counted: dict[int, Declaration] = {}
    others: list[Declaration] = []
    for d in rows:
        if not _usable(d):
            others.append(d)
            continue
        best = counted.get(d.combatant_id)
        if best is None or _rank(d) > _rank(best):
            if best is not None:
                others.append(best)
            counted[d.combatant_id] = d
        else:
            others.append(d)
    return Choice(tuple(counted.values()), tuple(others))


def superseded(choice: Choice) -> list[Declaration]:
    """The usable declarations another one beat (what ``Declaration.superseded`` says)."""
    return [d for d in choice.others if _usable(d)]


def missing_among(combatants: Iterable[Combatant], declarations: Iterable[Declaration]
                  ) -> list[Combatant]:
    """PBP-2: player-controlled combatants still standing with no on-time declaration
    among *declarations* (rows already loaded)."""
    declared = {d.combatant_id for d in declarations if not d.deleted and not d.late}
    return [c for c in combatants
            if c.player and not c.down and c.id not in declared
            and not (c.sheet or {}).get("is_object")]


def missing_players(session: Session, rnd: Round) -> list[Combatant]:
    """Who a reminder names and an early close waits for (see :func:`missing_among`)."""
    # three columns, not whole rows: the dashboard asks this of every open round, and a
    # round's declarations carry their actions, notes and speech as JSON
    rows = session.execute(select(Declaration.combatant_id, Declaration.deleted, Declaration.late)
                           .where(Declaration.round_id == rnd.id, Declaration.deleted.is_(False),
                                  Declaration.late.is_(False)))
    return missing_among(rnd.encounter.combatants, rows)  # type: ignore[arg-type]


def away_players(session: Session, campaign_id: int, at: datetime) -> set[str]:
    """The players (platform names, casefolded) of *campaign_id* away at *at* (STALL-1
    absences): early close (STALL-4) does not wait for them, the status block (STALL-8)
    names them."""
    return {a.player.casefold() for a in standing_absences(session, campaign_id) if a.active_at(at)}


def round_declarations(session: Session, round_id: int) -> list[Declaration]:
    """A round's on-time, standing declarations (what early close counts, STALL-4)."""
    return list(session.scalars(select(Declaration).where(Declaration.round_id == round_id,
                                                          Declaration.deleted.is_(False),
                                                          Declaration.late.is_(False))))


def extension_for_post(session: Session, round_id: int, post_id: int) -> ExtensionRequest | None:
    """The extension request a post made in a round (STALL-5: one per post)."""
    return session.scalar(select(ExtensionRequest).where(ExtensionRequest.round_id == round_id,
                                                         ExtensionRequest.post_id == post_id))


def granted_hours(session: Session, round_id: int) -> float:
    """Hours of extension already granted in a round (the campaign's limit counts them)."""
    return float(sum(session.scalars(select(ExtensionRequest.hours).where(
        ExtensionRequest.round_id == round_id, ExtensionRequest.state == "granted"))))


def round_extensions(session: Session, round_id: int) -> list[ExtensionRequest]:
    """Every extension request of a round, oldest first (the encounter page's list)."""
    return list(session.scalars(select(ExtensionRequest).where(ExtensionRequest.round_id == round_id)
                                .order_by(ExtensionRequest.created_at, ExtensionRequest.id)))


def queued_extensions(session: Session, campaign_ids: Sequence[int]) -> list[ExtensionRequest]:
    """Requests waiting for a narrator in open rounds of *campaign_ids* (the panel's list)."""
    return list(session.scalars(
        select(ExtensionRequest).join(Round, Round.id == ExtensionRequest.round_id)
        .join(Encounter, Encounter.id == Round.encounter_id)
        .where(ExtensionRequest.state == "queued", Round.state == "open",
               Encounter.campaign_id.in_(list(campaign_ids)))
        .order_by(ExtensionRequest.created_at, ExtensionRequest.id)))


# --- overrides ----------------------------------------------------------------------------


def round_overrides(session: Session, round_id: int, kind: str | None = None) -> list[Override]:
    """A round's narrator overrides (of *kind* only, when given), oldest first."""
    q = select(Override).where(Override.round_id == round_id)
    if kind is not None:
        q = q.where(Override.kind == kind)
    return list(session.scalars(q.order_by(Override.id)))


# --- the audit log -----------------------------------------------------------------------


def encounter_audit(session: Session, encounter_id: int, limit: int = 30
                    ) -> list[tuple[AuditEntry, int | None]]:
    """(entry, number of the round it was made in) of the encounter's own audit entries,
    newest first: never another encounter's (issue 11 item 10)."""
    rows = session.execute(select(AuditEntry, Round.number)
                           .outerjoin(Round, Round.id == AuditEntry.round_id)
                           .where(AuditEntry.encounter_id == encounter_id)
                           .order_by(AuditEntry.id.desc()).limit(limit))
    return [(entry, number) for entry, number in rows]


@dataclass(frozen=True)
class AuditSubjects:
    """What audit entries name by id, so a sentence can say it: a roll's index and actor,
    a declaration's combatant id, a reply's kind."""

    rolls: dict[int, tuple[int, str | None]]
    declarations: dict[int, int]
    replies: dict[int, str]


def _ids(entries: Iterable[AuditEntry], entity: str) -> set[int]:
    return {int(e.entity_id) for e in entries if e.entity == entity and (e.entity_id or "").isdigit()}


def audit_subjects(session: Session, entries: Sequence[AuditEntry]) -> AuditSubjects:
    """The rows *entries* name (one query per kind named, none when none is)."""
    rolls, decls, replies = (_ids(entries, k) for k in ("roll", "declaration", "reply"))
    return AuditSubjects(
        rolls={i: (n, a) for i, n, a in session.execute(
            select(RollRecord.id, RollRecord.roll_index, RollRecord.actor)
            .where(RollRecord.id.in_(rolls)))} if rolls else {},
        declarations={i: c for i, c in session.execute(
            select(Declaration.id, Declaration.combatant_id).where(Declaration.id.in_(decls)))}
        if decls else {},
        replies={i: k for i, k in session.execute(
            select(Reply.id, Reply.kind).where(Reply.id.in_(replies)))} if replies else {})


# --- replies ------------------------------------------------------------------------------

_PART = re.compile(r"^(?P<base>.+):p(?P<n>\d+)$")


def reply_by_key(session: Session, key: str) -> Reply | None:
    """The reply stored under idempotency *key* (``<round id>:<kind>``)."""
    return session.scalar(select(Reply).where(Reply.idempotency_key == key))


def previous_part(session: Session, reply: Reply) -> Reply | None:
    """For part n > 1 of a long reply, part n - 1 (posted first, replied to)."""
    hit = _PART.match(reply.idempotency_key)
    if hit is None:
        return None
    n = int(hit.group("n"))
    prev = hit.group("base") if n == 2 else f"{hit.group('base')}:p{n - 1}"
    return reply_by_key(session, prev)


def reply_parts(session: Session, round_id: int, kind: str) -> list[Reply]:
    """Every part of the (round, kind) reply, in order."""
    key = f"{round_id}:{kind}"
    rows = session.scalars(select(Reply).where(Reply.round_id == round_id,
                                               Reply.kind == kind).order_by(Reply.id))
    return [r for r in rows if r.idempotency_key == key
            or (_PART.match(r.idempotency_key) and r.idempotency_key.startswith(key + ":p"))]


def parts_of(session: Session, reply: Reply) -> list[Reply]:
    """Every part of the reply *reply* is a part of (itself included), in order."""
    hit = _PART.match(reply.idempotency_key)
    base = hit.group("base") if hit else reply.idempotency_key
    rows = session.scalars(select(Reply).where(Reply.thread_id == reply.thread_id,
                                               Reply.idempotency_key.startswith(base))
                           .order_by(Reply.id))
    return [r for r in rows if r.idempotency_key == base
            or ((h := _PART.match(r.idempotency_key)) is not None and h.group("base") == base)]


def held_replies(session: Session, encounter_id: int) -> list[tuple[Reply, int]]:
    """(reply, round number) of the encounter's replies held for approval, by round."""
    rows = session.execute(select(Reply, Round.number).join(Round, Round.id == Reply.round_id)
                           .where(Round.encounter_id == encounter_id, Reply.state == "held")
                           .order_by(Round.number))
    return [(reply, number) for reply, number in rows]


def held_queue(session: Session, campaign_ids: Sequence[int]) -> list[tuple[Reply, Round | None]]:
    """Every reply of these campaigns waiting for approval, oldest first, one row per reply
    (the first part of a long one): the dashboard's queue."""
    if not campaign_ids:
        return []
    rows = session.execute(select(Reply, Round).outerjoin(Round, Round.id == Reply.round_id)
                           .join(Thread, Thread.id == Reply.thread_id)
                           .where(Reply.state == "held", Thread.campaign_id.in_(campaign_ids))
                           .order_by(Reply.id))
    return [(reply, rnd) for reply, rnd in rows if not _PART.match(reply.idempotency_key)]


def posted(parts: Sequence[Reply]) -> bool:
    """Whether any part of a reply is out (or going out) already."""
    return any(p.state in ("sending", "sent") for p in parts)


def unresolvable_actions(s: Session, encounter_id: int) -> list[tuple[int, str, str]]:
    """(round number, actor key, the dice's reason) of each action the engine had to refuse
    in the encounter's last resolved round because a sheet value cannot be rolled (issue
    12): the narrator fixes the sheet."""
    rnd = s.scalar(select(Round).where(Round.encounter_id == encounter_id,
                                         Round.state == "resolved")
                   .order_by(Round.number.desc()).limit(1))
    if rnd is None:
        return []
    events = s.scalars(select(EventRecord).where(EventRecord.round_id == rnd.id,
                                                   EventRecord.code == "action.rejected"))
    return [(rnd.number, e.actor or "?", str((e.params or {}).get("error", "")))
            for e in events if (e.params or {}).get("problem") == "action.unresolvable"]


def post_tag_rolls(session: Session, post_id: int, actor: str) -> list[RollRecord]:
    """The roll tags of one post rolled for *actor*, in tag order: a narrator adding an
    action to the post gives it the first one no action owns (issue 13 item 3)."""
    return list(session.scalars(select(RollRecord).where(
        RollRecord.post_id == post_id, RollRecord.actor == actor, RollRecord.kind == "tag")
        .order_by(RollRecord.tag_index)))


"""Resolution at the deadline: declarations in, the engine, rolls/events/state out, one reply.

Exactly once, guarded three times: a compare-and-set on the round's state (only the
caller that moves it from ``open`` to ``resolved`` proceeds), ``uq_rolls_round_index``
(a second resolver cannot store roll #n again) and the reply's unique idempotency key
(``<round id>:resolution``). Resolving a resolved round returns what is stored.

Narrator overrides are applied here, explicitly: waived latency penalties
(``rounds.waived``), roll totals set in the panel (``overrides`` of kind ``roll``,
applied by roll index through :class:`pbp.rounds.overrides.OverridingBox`, the stored
roll untouched, the reply marking it).

Data flows one way: the resolver chooses the declarations, runs the engine, stores what
came out, opens the next round (:mod:`pbp.rounds.lifecycle`) and hands the same choice
to the reply builder (:mod:`pbp.rounds.replies`) as an argument.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import cast

from sqlalchemy import Table, insert, select, update
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..rules import engine
from ..rules.model import Declaration, Encounter, Event
from ..store import models as m
from ..store import queries
from . import codec
from .lifecycle import open_round
from .overrides import OverridingBox, override_roll, roll_totals
from .policy import policy_for
from .replies import queue_round_reply
from .rolls import next_index


def choose(session: Session, rnd: m.Round) -> queries.Choice:
    """The declarations that count (:func:`pbp.store.queries.choose_declarations`), with
    each row's ``superseded`` flag brought in line (the panel reads it)."""
    choice = queries.choose_declarations(session, rnd.id)
    beaten = {id(d) for d in queries.superseded(choice)}
    for d in (*choice.counted, *choice.others):
        want = id(d) in beaten
        if d.superseded != want:
            d.superseded = want
    return choice


def resolve_round(session: Session, round_id: int, now: datetime) -> int | None:
    """Resolve *round_id* once; returns the resolution reply's id (the stored one when the
    round was already resolved), or None when the round cannot be resolved (cancelled)."""
    rnd = session.get(m.Round, round_id)
    if rnd is None:
        raise LookupError(f"no round {round_id}")
    if rnd.state != "open":
        return _existing_reply(session, rnd)
    won = session.execute(update(m.Round).where(m.Round.id == round_id, m.Round.state == "open")
                          .values(state="resolving")).rowcount  # type: ignore[attr-defined]
    session.refresh(rnd)
    if not won:
        return _existing_reply(session, rnd)
    choice = run_resolution(session, rnd, now)
    return queue_round_reply(session, rnd, "resolution", now, choice=choice)


def _existing_reply(session: Session, rnd: m.Round) -> int | None:
    reply = queries.reply_by_key(session, f"{rnd.id}:resolution")
    return reply.id if reply is not None else None


def run_resolution(session: Session, rnd: m.Round, now: datetime, *,
                   reresolve: bool = False) -> queries.Choice:
    """Resolve *rnd* and store the outcome; returns the declarations' choice the reply
    is built from. After a first resolution the next round opens unless the fight is over."""
    enc = rnd.encounter
    policy = policy_for(enc.campaign, enc)
    rows = list(enc.combatants)
    choice = choose(session, rnd)
    totals = roll_totals(session, rnd.id)
    decls = _declarations(rnd, rows, choice, totals)
    model = codec.encounter_to_model(enc, rows, houserules=policy.houserules,
                                     round_number=rnd.number, surprise_round=rnd.surprise)
    if reresolve and rnd.state_before:
        model = dataclasses.replace(Encounter.from_dict(rnd.state_before),
                                    houserules=policy.houserules)
    box = OverridingBox(rnd.seed, next_index(session, rnd.id), totals)
    result = engine.resolve(model, decls, box)
    _store_rolls(session, rnd, box, result.events)
    _store_events(session, rnd, result.events)
    _store_state(rnd, rows, model, result.encounter, reresolve=reresolve, now=now)
    session.add(m.AuditEntry(at=now, actor="system", campaign_id=enc.campaign_id,
                             action="round.reresolve" if reresolve else "round.resolve",
                             entity="round", entity_id=str(rnd.id),
                             before={"state": "open"}, after={"state": "resolved",
                                                              "events": len(result.events)}))
    session.flush()
    if engine.fight_over(result.encounter):
        enc.status = "finished"
    elif not reresolve:
        open_round(session, enc.id, now)
    return choice


def _declarations(rnd: m.Round, rows: Sequence[m.Combatant], choice: queries.Choice,
                  totals: dict[int, int]) -> list[Declaration]:
    """The counted declarations as the engine takes them (narrator totals applied,
    waivers said); a waived player who declared nothing is still named."""
    by_id = {c.id: c for c in rows}
    waived = set(rnd.waived or [])
    decls = []
    for d in choice.counted:
        actions = []
        for data in d.actions or []:
            a = codec.action_from_dict(data)
            if a.rolled is not None and a.rolled.index in totals:
                a = dataclasses.replace(a, rolled=override_roll(a.rolled, totals[a.rolled.index]))
            actions.append(a)
        key = by_id[d.combatant_id].key
        decls.append(Declaration(actor=key, actions=tuple(actions), late=d.late,
                                 speech_count=d.speech_count, penalty_waived=key in waived,
                                 post_id=d.post.platform_id if d.post is not None else None))
    declared = {x.actor for x in decls}
    for row in rows:   # a player who declared nothing, waived: the engine still says so
        if row.player and row.key in waived and row.key not in declared and not row.down:
            decls.append(Declaration(actor=row.key, missing=True, penalty_waived=True))
    return decls


def _table(model: type[m.Base]) -> Table:
    """The Core table of *model*, for executemany inserts."""
    return cast(Table, model.__table__)


def _store_rolls(session: Session, rnd: m.Round, box: OverridingBox,
                 events: Sequence[Event]) -> None:
    """Every roll the engine made, as the seed gave it."""
    if not box.raw:
        return
    actors = {r.index: ev.actor for ev in events for r in ev.rolls}
    # Core executemany: hundreds of rows a round with 50 combatants (the ORM's bulk insert
    # would split the batch wherever a column is NULL in some rows only)
    session.execute(insert(_table(m.RollRecord)), [
        codec.roll_row(roll, round_id=rnd.id, kind="engine", actor=actors.get(roll.index))
        for roll in box.raw])


def _store_events(session: Session, rnd: m.Round, events: Sequence[Event]) -> None:
    """The engine's events, numbered after those already stored (initiative)."""
    if not events:
        return
    seq = session.scalar(select(m.EventRecord.seq).where(m.EventRecord.round_id == rnd.id)
                         .order_by(m.EventRecord.seq.desc()).limit(1))
    seq = -1 if seq is None else seq
    session.execute(insert(_table(m.EventRecord)), [
        {"round_id": rnd.id, "seq": seq + 1 + i, "code": ev.code, "actor": ev.actor,
         "target": ev.target, "rule": ev.rule, "message": ev.message,
         "params": codec._plain(dict(ev.params)),
         "roll_indexes": [r.index for r in ev.rolls]}
        for i, ev in enumerate(events)])


def _store_state(rnd: m.Round, rows: Sequence[m.Combatant], before: Encounter, new: Encounter,
                 *, reresolve: bool, now: datetime) -> None:
    """The encounter after the round: combatant rows, snapshots, order, round state."""
    enc = rnd.encounter
    by_key = {c.key: c for c in rows}
    for c in new.combatants:
        codec.apply_combatant(by_key[c.key], c)
    if not reresolve:
        rnd.state_before = codec.snapshot(before)
    after = codec.snapshot(new)
    rnd.state_after = after
    rnd.order = list(new.order)
    enc.order = list(new.order)
    enc.round_number = new.round
    enc.surprise = new.surprise
    enc.surprised = list(new.surprised)
    enc.state = codec.encounter_state(after)
    rnd.state = "resolved"
    rnd.closed_at = rnd.closed_at or now
    rnd.resolved_at = now
    rnd.seed_revealed = True


def reresolve_round(session: Session, round_id: int, now: datetime) -> int | None:
    """Resolve a resolved round again (after narrator overrides), before its reply is sent.

    The first resolution's rolls stay stored (rolls are immutable, ``pbp verify`` still
    checks them); the new rolls take the next indices under the same seed; events are
    replaced; the state is recomputed from the snapshot taken before the first run.
    """
    rnd = session.get(m.Round, round_id)
    if rnd is None:
        raise LookupError(f"no round {round_id}")
    reply = queries.reply_by_key(session, f"{rnd.id}:resolution")
    if rnd.state != "resolved" or reply is None:
        raise PbpError(f"round {rnd.number} is not resolved yet")
    if reply.state in ("sending", "sent"):
        raise PbpError(f"round {rnd.number}'s reply is already posted")
    start = session.scalar(select(m.EventRecord.seq).where(m.EventRecord.round_id == rnd.id,
                                                          m.EventRecord.code == "round.start")
                           .order_by(m.EventRecord.seq.desc()).limit(1))
    if start is not None:
        for ev in session.scalars(select(m.EventRecord).where(m.EventRecord.round_id == rnd.id,
                                                             m.EventRecord.seq >= start)):
            session.delete(ev)
        session.flush()
    choice = run_resolution(session, rnd, now, reresolve=True)
    parts = queries.reply_parts(session, rnd.id, "resolution")
    if queries.posted(parts):
        raise PbpError(f"round {rnd.number}'s reply is already partly posted")
    for p in parts:
        session.delete(p)
    session.flush()
    return queue_round_reply(session, rnd, "resolution", now, choice=choice)

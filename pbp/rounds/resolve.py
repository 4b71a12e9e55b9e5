"""Resolution at the deadline: declarations in, the engine, rolls/events/state out, one reply.

Exactly once, guarded three times: a compare-and-set on the round's state (only the
caller that moves it from ``open`` to ``resolved`` proceeds), ``uq_rolls_round_index``
(a second resolver cannot store roll #n again) and the reply's unique idempotency key
(``<round id>:resolution``). Resolving a resolved round returns what is stored.

Narrator overrides are applied here, explicitly: waived latency penalties
(``rounds.waived``), roll totals set in the panel (``overrides`` of kind ``roll``,
applied by roll index, the stored roll untouched, the reply marking it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session, selectinload

from ..dice import DiceBox, Roll
from ..errors import PbpError
from ..rules.model import Declaration
from ..store import models as m
from . import codec
from .policy import policy_for
from .rolls import next_index


class OverridingBox(DiceBox):
    """A DiceBox that hands the engine the narrator's total for an overridden roll index.

    The roll itself (faces, seed index) is what the seed gives and is stored as such;
    only what the engine sees changes, and the reply marks it.
    """

    def __init__(self, seed: str, start_index: int, totals: Mapping[int, int]) -> None:
        super().__init__(seed=seed, start_index=start_index)
        self.totals = dict(totals)
        self.raw: list[Roll] = []

    def roll(self, expression: str, **kwargs: Any) -> Roll:  # type: ignore[override]
        r = super().roll(expression, **kwargs)
        self.raw.append(r)
        if r.index in self.totals:
            r = override_roll(r, self.totals[r.index])
            self.rolls[-1] = r
        return r


def override_roll(r: Roll, total: int) -> Roll:
    return dataclasses.replace(r, total=int(total),
                               breakdown=f"{r.breakdown} -> {int(total)} (narrator)")


def roll_overrides(session: Session, round_id: int) -> dict[int, int]:
    rows = session.scalars(select(m.Override).where(m.Override.round_id == round_id,
                                                    m.Override.kind == "roll")
                           .order_by(m.Override.id))
    return {int(o.payload["roll_index"]): int(o.payload["after"]) for o in rows
            if "roll_index" in (o.payload or {})}


def choose_declarations(session: Session, rnd: m.Round) -> tuple[list[m.Declaration], list[m.Declaration]]:
    """(the declaration that counts per combatant, the others kept and shown).

    An on-time post beats a late one; among equals the latest post counts. A post
    deleted before any roll withdraws its declaration; one seen only after the round
    was resolved never counts here (it is shown in the next reply).
    """
    rows = list(session.scalars(select(m.Declaration).where(m.Declaration.round_id == rnd.id)
                                .options(selectinload(m.Declaration.post))
                                .order_by(m.Declaration.id)))
    counted: dict[int, m.Declaration] = {}
    others: list[m.Declaration] = []

    def usable(d: m.Declaration) -> bool:
        codes = {n.get("code") for n in d.notes or []}
        if "after-resolution" in codes:
            return False
        return not (d.deleted and "deleted-after-roll" not in codes)

    def rank(d: m.Declaration) -> tuple[Any, ...]:
        at = d.post.posted_at if d.post is not None else d.created_at
        return (d.source == "override", not d.late, at, d.id)

    for d in rows:
        if not usable(d):
            others.append(d)
            continue
        best = counted.get(d.combatant_id)
        if best is None or rank(d) > rank(best):
            if best is not None:
                others.append(best)
            counted[d.combatant_id] = d
        else:
            others.append(d)
    for d in rows:
        want = d in others and usable(d)
        if d.superseded != want:
            d.superseded = want
    return list(counted.values()), others


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
    _resolve(session, rnd, now)
    from .replies import queue_round_reply

    return queue_round_reply(session, rnd, "resolution", now)


def _existing_reply(session: Session, rnd: m.Round) -> int | None:
    return session.scalar(select(m.Reply.id).where(m.Reply.idempotency_key == f"{rnd.id}:resolution"))


def _resolve(session: Session, rnd: m.Round, now: datetime, *, reresolve: bool = False) -> None:
    from ..rules import engine

    enc = rnd.encounter
    policy = policy_for(enc.campaign, enc)
    rows = list(enc.combatants)
    by_id = {c.id: c for c in rows}
    counted, others = choose_declarations(session, rnd)
    # the reply built right after in this transaction reuses the choice (declarations do
    # not change in between); build_view pops it
    session.info["pbp.choice"] = (rnd.id, counted, others)
    totals = roll_overrides(session, rnd.id)
    waived = set(rnd.waived or [])
    decls = []
    for d in counted:
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
    for row in rows:   # a player who declared nothing, waived: the engine still says so
        if row.player and row.key in waived and row.key not in {x.actor for x in decls} \
                and not row.down:
            decls.append(Declaration(actor=row.key, missing=True, penalty_waived=True))
    model = codec.encounter_to_model(enc, rows, houserules=policy.houserules,
                                     round_number=rnd.number, surprise_round=rnd.surprise)
    if reresolve and rnd.state_before:
        from ..rules.model import Encounter

        model = dataclasses.replace(Encounter.from_dict(rnd.state_before),
                                    houserules=policy.houserules)
    box = OverridingBox(rnd.seed, next_index(session, rnd.id), totals)
    result = engine.resolve(model, decls, box)
    actors = {r.index: ev.actor for ev in result.events for r in ev.rolls}
    if box.raw:   # Core executemany: hundreds of rows a round with 50 combatants (the ORM's
        # bulk insert would split the batch wherever a column is NULL in some rows only)
        session.execute(insert(m.RollRecord.__table__), [
            codec.roll_row(roll, round_id=rnd.id, kind="engine", actor=actors.get(roll.index))
            for roll in box.raw])
    seq = session.scalar(select(m.EventRecord.seq).where(m.EventRecord.round_id == rnd.id)
                         .order_by(m.EventRecord.seq.desc()).limit(1))
    seq = -1 if seq is None else seq
    if result.events:
        session.execute(insert(m.EventRecord.__table__), [
            {"round_id": rnd.id, "seq": seq + 1 + i, "code": ev.code, "actor": ev.actor,
             "target": ev.target, "rule": ev.rule, "message": ev.message,
             "params": codec._plain(dict(ev.params)),
             "roll_indexes": [r.index for r in ev.rolls]}
            for i, ev in enumerate(result.events)])
    new = result.encounter
    by_key = {c.key: c for c in rows}
    for c in new.combatants:
        codec.apply_combatant(by_key[c.key], c)
    if not reresolve:
        rnd.state_before = codec.snapshot(model)
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
    session.add(m.AuditEntry(at=now, actor="system", campaign_id=enc.campaign_id,
                             action="round.reresolve" if reresolve else "round.resolve",
                             entity="round", entity_id=str(rnd.id),
                             before={"state": "open"}, after={"state": "resolved",
                                                              "events": len(result.events)}))
    session.flush()
    if finished(new):
        enc.status = "finished"
    elif not reresolve:
        from .lifecycle import open_round

        open_round(session, enc.id, now)


def finished(encounter: Any) -> bool:
    """True when at most one side still has someone standing."""
    sides = {c.side for c in encounter.combatants if not c.down and not c.is_object}
    return len(sides) <= 1


def reresolve_round(session: Session, round_id: int, now: datetime) -> int | None:
    """Resolve a resolved round again (after narrator overrides), before its reply is sent.

    The first resolution's rolls stay stored (rolls are immutable, ``pbp verify`` still
    checks them); the new rolls take the next indices under the same seed; events are
    replaced; the state is recomputed from the snapshot taken before the first run.
    """
    rnd = session.get(m.Round, round_id)
    if rnd is None:
        raise LookupError(f"no round {round_id}")
    reply = session.scalar(select(m.Reply).where(m.Reply.idempotency_key == f"{rnd.id}:resolution"))
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
    _resolve(session, rnd, now, reresolve=True)
    from .replies import queue_round_reply, reply_parts

    parts = reply_parts(session, rnd.id, "resolution")
    if any(p.state in ("sending", "sent") for p in parts):
        raise PbpError(f"round {rnd.number}'s reply is already partly posted")
    for p in parts:
        session.delete(p)
    session.flush()
    return queue_round_reply(session, rnd, "resolution", now)

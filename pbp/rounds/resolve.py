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
from typing import Any, cast

from sqlalchemy import Table, insert, select, update
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..rules import engine
from ..rules.model import Declaration, Encounter, Event
from ..store import models as m
from ..store import queries
from . import codec, standing
from .crit_tables import SETTING as CRIT_TABLES
from .crit_tables import with_table_draws
from .hidden import reveal_at_end
from .ladder import count_misses, missing_at_deadline
from .lifecycle import open_round
from .overrides import OverridingBox, ReplayingBox, override_roll, roll_totals
from .policy import policy_for
from .replies import queue_round_reply
from .rolls import next_index
from .tables import campaign_tables


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
    missed = missing_at_deadline(session, rnd, now)     # STALL-3, before anyone goes down
    choice = run_resolution(session, rnd, now)
    count_misses(session, rnd, missed, now)
    return queue_round_reply(session, rnd, "resolution", now, choice=choice)


def _existing_reply(session: Session, rnd: m.Round) -> int | None:
    reply = queries.reply_by_key(session, f"{rnd.id}:resolution")
    return reply.id if reply is not None else None


def run_resolution(session: Session, rnd: m.Round, now: datetime, *,
                   reresolve: bool = False,
                   replay: Sequence[m.RollRecord] | None = None) -> queries.Choice:
    """Resolve *rnd* and store the outcome; returns the declarations' choice the reply
    is built from. After a first resolution the next round opens unless the fight is
    over, or the campaign holds replies for approval: then it opens when the narrator
    approves this result (:mod:`pbp.rounds.approval`; issue 11 item 4). *replay*: the
    rolls a re-resolution hands the engine again (:class:`ReplayingBox`)."""
    enc = rnd.encounter
    policy = policy_for(enc.campaign, enc)
    rows = list(enc.combatants)
    choice = choose(session, rnd)
    totals = roll_totals(session, rnd.id)
    decls = _declarations(rnd, rows, choice, totals)
    model = codec.encounter_to_model(enc, rows, houserules=policy.houserules,
                                     round_number=rnd.number, surprise_round=rnd.surprise)
    saved = {c.key: (c.hp, list(c.conditions or []), c.down) for c in rows}
    old_after = {c["key"]: c for c in (rnd.state_after or {}).get("combatants", [])}
    if reresolve and rnd.state_before:
        model = dataclasses.replace(Encounter.from_dict(rnd.state_before),
                                    houserules=policy.houserules)
    start = next_index(session, rnd.id)

    def new_box() -> OverridingBox:
        return (OverridingBox(rnd.seed, start, totals) if replay is None
                else ReplayingBox(rnd.seed, start, totals, replay))

    plans = standing.plan_round(session, rnd, rows, {d.actor for d in decls if not d.missing},
                                model, policy)
    decls = standing.declarations(decls, plans)
    if standing.conditional(plans):   # STALL-2: the others first, then the orders that fired
        trial = engine.resolve(model, decls, new_box())
        if standing.fire(plans, trial.events, {c.key: c.side for c in model.combatants}):
            decls = standing.declarations(decls, plans)
    box = new_box()
    result = engine.resolve(model, decls, box)
    drawn = (with_table_draws(result.events, box, campaign_tables(enc))   # DICE-6
             if policy.rounds.get(CRIT_TABLES) is True else list(result.events))
    said = [*drawn, *standing.events(plans)]
    _store_rolls(session, rnd, box, said)
    _store_events(session, rnd, said)
    standing.audit_plans(session, rnd, plans, now)
    _store_state(rnd, rows, model, result.encounter, reresolve=reresolve, now=now)
    if reresolve and old_after:
        _keep_later_changes(session, rnd, rows, saved, old_after)
    for ov in queries.round_overrides(session, rnd.id):   # all in this result now
        ov.applied = True
    for ev in said:   # PBP-2: the latency rule applied is an automatic decision (issue 15)
        if ev.actor and ev.code.startswith("latency.") and ev.code != "latency.waived":
            session.add(m.AuditEntry(at=now, actor="system", campaign_id=enc.campaign_id,
                                     encounter_id=enc.id, round_id=rnd.id,
                                     action="round.latency", entity="combatant",
                                     entity_id=ev.actor, before=None,
                                     after={"code": ev.code, "rule": ev.rule}))
    session.add(m.AuditEntry(at=now, actor="system", campaign_id=enc.campaign_id,
                             encounter_id=enc.id, round_id=rnd.id,
                             action="round.reresolve" if reresolve else "round.resolve",
                             entity="round", entity_id=str(rnd.id),
                             before={"state": "open"}, after={"state": "resolved",
                                                              "events": len(said),
                                                              "early": now < rnd.deadline}))
    session.flush()
    if engine.fight_over(result.encounter):
        enc.status = "finished"
        reveal_at_end(session, enc, now)   # DICE-2: the result reveals them and the key
    elif not reresolve and not enc.campaign.approval_mode:
        open_round(session, enc.id, now)
    if not reresolve:
        _cancel_reminders(session, rnd)
    return choice


def _cancel_reminders(session: Session, rnd: m.Round) -> None:
    """A reminder still held (approval mode) when its round closes says nothing true any
    more: it is cancelled, never posted late."""
    for reply in session.scalars(select(m.Reply).where(m.Reply.round_id == rnd.id,
                                                       m.Reply.kind == "reminder",
                                                       m.Reply.state == "held")):
        reply.state = "cancelled"


def _keep_later_changes(session: Session, rnd: m.Round, rows: Sequence[m.Combatant],
                        saved: dict[str, tuple[int, list[Any], bool]],
                        old_after: dict[str, dict[str, Any]]) -> None:
    """A re-resolution recomputes the round from its snapshot; what changed the combatants
    since the first result (a narrator's HP or condition set after it, a later round's
    overrides) must survive it, or it would be recorded and silently undone (issue 11
    item 6). HP keeps the later change as a difference; conditions and "down" keep the
    later value when there is one. With no later round, the round's snapshot takes the
    rows as they now stand, so its reply shows them."""
    later = queries.next_round(session, rnd) is not None
    # copies: the snapshot's own dicts changed in place would look unchanged to the ORM
    new_after = {c["key"]: dict(c) for c in (rnd.state_after or {}).get("combatants", [])}
    for row in rows:
        old, new = old_after.get(row.key), new_after.get(row.key)
        if old is None or new is None or row.key not in saved:
            continue
        hp, conditions, down = saved[row.key]
        row.hp = int(new.get("hp", row.hp)) + hp - int(old.get("hp", hp))
        if conditions != list(old.get("conditions") or []):
            row.conditions = conditions
        if down != bool(old.get("down", down)):
            row.down = down
        if not later:
            new.update(hp=row.hp, conditions=list(row.conditions or []), down=row.down)
    if not later and rnd.state_after is not None:
        rnd.state_after = {**rnd.state_after, "combatants": list(new_after.values())}


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

    Every roll is kept: the engine is handed the rolls the round already made
    (:class:`~pbp.rounds.overrides.ReplayingBox`), so only what the narrator changed
    changes; a roll nothing matched any more is shown as unused, a new one takes the
    next index under the same seed. Events are replaced; the state is recomputed from
    the snapshot taken before the first run, later changes kept (:func:`_keep_later_changes`).
    """
    rnd = session.get(m.Round, round_id)
    if rnd is None:
        raise LookupError(f"no round {round_id}")
    reply = queries.reply_by_key(session, f"{rnd.id}:resolution")
    if rnd.state != "resolved" or reply is None:
        raise PbpError(f"round {rnd.number} is not resolved yet")
    if reply.state in ("sending", "sent"):
        raise PbpError(f"round {rnd.number}'s reply is already posted")
    parts = queries.reply_parts(session, rnd.id, "resolution")
    if queries.posted(parts):
        raise PbpError(f"round {rnd.number}'s reply is already partly posted")
    state = reply.state
    choice = rerun(session, rnd, now)
    for p in parts:
        session.delete(p)
    session.flush()
    return queue_round_reply(session, rnd, "resolution", now, choice=choice,
                             state="held" if state == "held" else None)


def rerun(session: Session, rnd: m.Round, now: datetime) -> queries.Choice:
    """Resolve the resolved *rnd* again with every roll it made (see
    :func:`reresolve_round`); its replies are the caller's business."""
    replay = [r for r in queries.round_rolls(session, rnd.id) if r.kind == "engine"]
    start = session.scalar(select(m.EventRecord.seq).where(m.EventRecord.round_id == rnd.id,
                                                          m.EventRecord.code == "round.start")
                           .order_by(m.EventRecord.seq.desc()).limit(1))
    if start is not None:
        for ev in session.scalars(select(m.EventRecord).where(m.EventRecord.round_id == rnd.id,
                                                             m.EventRecord.seq >= start)):
            session.delete(ev)
        session.flush()
    return run_resolution(session, rnd, now, reresolve=True, replay=replay)

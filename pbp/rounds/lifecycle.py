"""The round lifecycle: start an encounter, open a round (initiative, surprise, seed and
commitment), remind who has not posted, find what is due.

Deadlines are data (DESIGN.md point 9): ``due_rounds`` and ``due_reminders`` read the
database, so a sweep after a restart catches everything. Opening is idempotent: a
round is unique per (encounter, number), and asking to open while a round is open
returns that round.
"""

from __future__ import annotations

import contextvars
import dataclasses
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..dice import CHAIN_LENGTH, DiceBox, Roll, chain_link, commitment
from ..errors import DiceError, PbpError
from ..rules import engine, registry
from ..rules.model import Action, ActionKind, Combatant, Declaration, Event
from ..store import models as m
from ..store import queries
from ..store.types import utcnow
from . import codec
from .declare import controlled_by, narrator_names
from .early import closes_early_at, round_deadline
from .early import whole_minute as whole_minute  # where callers and tests have found it
from .ladder import audit_reminded
from .policy import RoundPolicy, policy_for
from .reading import ParseFn, read_post
from .replies import queue_round_reply
from .rolls import ensure_hidden_key, make_roll, next_index
from .standing import not_away
from .tracker import queue_tracker


def start_encounter(session: Session, thread_id: int, combatants: Sequence[Combatant], *,
                    name: str = "", surprise: bool = False, surprised: Sequence[str] = (),
                    houserules: dict | None = None, now: datetime | None = None) -> int:
    """Create an encounter in *thread* with *combatants*; its posts count from *now*."""
    now = now or utcnow()
    thread = session.get(m.Thread, thread_id)
    if thread is None:
        raise LookupError(f"no thread {thread_id}")
    enc = m.Encounter(campaign_id=thread.campaign_id, thread_id=thread_id, name=name,
                      ruleset=thread.campaign.ruleset, status="setup", surprise=surprise,
                      surprised=list(surprised), houserules=dict(houserules or {}),
                      started_at=now, created_at=now)
    for c in combatants:
        enc.combatants.append(m.Combatant(**codec.combatant_row_values(c)))
    session.add(enc)
    session.flush()
    return enc.id


def new_seed() -> str:
    """A round's secret: 256 bits from the OS, never derived from anything public."""
    return secrets.token_hex(32)


#: where secrets come from: an encounter's chain anchor and hidden key (DICE-1), and the
#: per-round seeds of an encounter made before the chain; tests swap in a deterministic
#: source for golden replies
seed_source = new_seed
_seeds: contextvars.ContextVar[Callable[[], str] | None] = contextvars.ContextVar(
    "pbp_round_seeds", default=None)


_HEX64 = re.compile(r"[0-9a-f]{64}")


def _secret() -> str:
    """A 64-hex secret from the current source; a test source's ``seed-1`` is hashed to
    one, so every published link has the same shape whatever the source."""
    raw = (_seeds.get() or seed_source)()
    return raw if _HEX64.fullmatch(raw) else commitment(raw)


def draw_chain(enc: m.Encounter, length: int = CHAIN_LENGTH) -> None:
    """Give *enc* its dice chain (DICE-1) and hidden key (DICE-2), once, before its first
    round: the opening reply publishes link 0, so no round can later be rolled with a
    seed picked after the fact without the chain breaking."""
    if enc.dice_anchor is not None:
        return
    enc.dice_anchor, enc.dice_chain_length = _secret(), int(length)
    enc.dice_chain = chain_link(enc.dice_anchor, enc.dice_chain_length, 0)
    enc.hidden_key = _secret()
    enc.hidden_commitment = commitment(enc.hidden_key)


def round_seed(session: Session, enc: m.Encounter) -> str:
    """The seed of *enc*'s next round: the next link of its chain (the k-th round opened
    rolls with link k; a surprise round 0 is the first), or, for an encounter made
    before the chain, a fresh secret of its own."""
    if enc.dice_anchor is None or enc.dice_chain_length is None:
        return (_seeds.get() or seed_source)()
    position = queries.round_count(session, enc.id) + 1
    if position > enc.dice_chain_length:
        raise PbpError(f"the dice chain of encounter {enc.id} is used up: it had "
                       f"{enc.dice_chain_length} rounds")
    return chain_link(enc.dice_anchor, enc.dice_chain_length, position)


@contextmanager
def seeded(source: Callable[[], str]) -> Iterator[None]:
    """Draw secrets (chain anchors, hidden keys, older encounters' round seeds) from
    *source* in this context (``pbp simulate``, benchmarks): reproducible runs without
    touching the process-wide default."""
    token = _seeds.set(source)
    try:
        yield
    finally:
        _seeds.reset(token)


def open_round(session: Session, encounter_id: int, now: datetime, *,
               deadline: datetime | None = None, seed: str | None = None,
               parse: ParseFn | None = None) -> int:
    """Open the encounter's next round (idempotent: an open round is returned as is).

    The first round rolls initiative (``.ri`` posts first, the rest auto-rolled) and
    queues the opening reply with the order, the deadline, the dice chain and the seed's
    commitment. The seed is the encounter's next chain link (:func:`round_seed`); an
    explicit *seed* bypasses the chain (and a checker then says so).
    """
    enc = session.get(m.Encounter, encounter_id)
    if enc is None:
        raise LookupError(f"no encounter {encounter_id}")
    if enc.status == "finished":
        raise PbpError(f"encounter {encounter_id} is finished")
    last = queries.current_round(session, encounter_id)
    if last is not None and last.state == "open":
        return last.id
    campaign = enc.campaign
    policy = policy_for(campaign, enc)
    number, surprise = _next_number(enc, policy)
    explicit = seed is not None
    if last is None and seed is None:
        draw_chain(enc)
    seed = seed or round_seed(session, enc)
    rnd = m.Round(encounter_id=enc.id, number=number, surprise=surprise, state="open",
                  opens_at=now, deadline=deadline or round_deadline(enc, now, policy.round_hours),
                  seed=seed, commitment=commitment(seed), order=list(enc.order or []))
    try:
        with session.begin_nested():
            session.add(rnd)
    except IntegrityError:  # a concurrent opener won
        session.expire(enc)   # its chain stands, never the one drawn here (DICE-1)
        existing = session.scalar(select(m.Round).where(m.Round.encounter_id == enc.id,
                                                        m.Round.number == number))
        assert existing is not None
        return existing.id
    first = last is None
    enc.status = "active"
    if first:   # DICE-2: the opening reply publishes the hidden key's commitment
        chosen = explicit or _seeds.get() is not None or seed_source is not new_seed
        ensure_hidden_key(enc, derive_from=seed if chosen else None)
    if first or not enc.order:
        _initiative(session, enc, rnd, policy, parse=parse, keep_fixed=first)
        rnd.order = list(enc.order or [])
    if first:
        queue_round_reply(session, rnd, "opening", now)
    queue_tracker(session, rnd, now)   # STALL-8: only where the campaign asks and the bot can edit
    return rnd.id


def _next_number(enc: m.Encounter, policy: RoundPolicy) -> tuple[int, bool]:
    model = codec.encounter_to_model(enc, enc.combatants, houserules=policy.houserules,
                                     round_number=enc.round_number, surprise_round=enc.surprise)
    return engine.round_number(model, engine.ruleset_for(model))


def _initiative(session: Session, enc: m.Encounter, rnd: m.Round, policy: RoundPolicy, *,
                parse: ParseFn | None, keep_fixed: bool) -> None:
    """Roll initiative from the setup posts' ``.ri`` commands, auto-roll the rest, order.

    *keep_fixed* (round 1): a combatant given a fixed ``initiative:`` keeps it; no
    ``.ri`` is rolled for it and the engine places it without a roll.
    """
    values: dict[str, float] = {c.key: float(c.initiative) for c in enc.combatants
                                if keep_fixed and c.initiative is not None}
    given = _setup_commands(session, enc, rnd, policy, values, parse=parse)
    _place(session, enc, rnd, policy, given, values)


def _setup_commands(session: Session, enc: m.Encounter, rnd: m.Round, policy: RoundPolicy,
                    values: dict[str, float], *, parse: ParseFn | None) -> dict[str, Action]:
    """The setup posts' ``.ri`` commands: a value goes into *values*, a roll is made once
    (bound to its post tag) and returned as the actor's initiative action."""
    combatants = list(enc.combatants)
    by_key = {c.key: c for c in combatants}
    given: dict[str, Action] = {}
    narrators = narrator_names(session, enc.campaign, enc.thread)
    roster = [codec.combatant_to_model(c) for c in combatants]
    posts = session.scalars(
        select(m.Post).where(m.Post.thread_id == enc.thread_id, m.Post.round_id.is_(None),
                             m.Post.posted_at >= enc.started_at, m.Post.posted_at <= rnd.opens_at,
                             m.Post.deleted_at.is_(None), m.Post.is_ours.is_(False))
        .order_by(m.Post.posted_at, m.Post.id))
    for post in posts:
        controlled = controlled_by(post.author, combatants, post.author.casefold() in narrators)
        if not controlled:
            continue
        readings = read_post(post.body, post.text, post.fmt, policy.language, roster,
                             [codec.combatant_to_model(c) for c in controlled], parse=parse)
        for reading in readings:
            for spec in reading.initiative:
                actor = spec.actor or reading.actor
                if actor in given or actor in values or actor not in by_key:
                    continue  # the first command (or a fixed value) counts; rolled once
                if spec.value is not None:
                    values[actor] = float(spec.value)
                    continue
                row = by_key[actor]
                expr = spec.expression or _default_expression(enc, policy, row)
                try:
                    rec = make_roll(session, rnd, expr, kind="initiative", actor=actor,
                                    stats=dict((row.sheet or {}).get("stats") or {}),
                                    label="initiative", post_id=post.id, tag_index=spec.tag_index,
                                    position=spec.position, written=spec.written)
                except DiceError:
                    continue
                given[actor] = Action(ActionKind.OTHER, text=spec.written, rolled=codec.roll_from_record(rec),
                                      options={"initiative": True, "post": post.platform_id})
    return given


def _place(session: Session, enc: m.Encounter, rnd: m.Round, policy: RoundPolicy,
           given: dict[str, Action], values: dict[str, float]) -> None:
    """The engine's own initiative step (rolls, ties, roll-offs, groups), run at opening so
    the opening reply can announce the order; resolution then finds everyone placed."""
    combatants = list(enc.combatants)
    by_key = {c.key: c for c in combatants}
    model = codec.encounter_to_model(enc, combatants, houserules=policy.houserules,
                                     round_number=rnd.number, surprise_round=rnd.surprise)
    model = dataclasses.replace(model, order=(), combatants=tuple(
        dataclasses.replace(c, initiative=values.get(c.key)) for c in model.combatants))
    box = DiceBox(seed=rnd.seed, start_index=next_index(session, rnd.id))
    placed = engine.roll_initiative(
        model, [Declaration(actor=k, actions=(a,)) for k, a in given.items()], box)
    for roll in box.rolls:
        session.add(codec.record_from_roll(roll, round_id=rnd.id, kind="initiative",
                                           actor=_actor_of(placed.events, roll)))
    for seq, ev in enumerate(placed.events):
        session.add(m.EventRecord(round_id=rnd.id, seq=seq, code=ev.code, actor=ev.actor,
                                  target=ev.target, rule=ev.rule, message=ev.message,
                                  params=codec._plain(dict(ev.params)),
                                  roll_indexes=[r.index for r in ev.rolls]))
    for c in placed.encounter.combatants:
        row = by_key[c.key]
        if row.initiative != c.initiative:
            row.initiative = c.initiative
    enc.order = list(placed.encounter.order)
    session.flush()


def _actor_of(events: Sequence[Event], roll: Roll) -> str | None:
    for ev in events:
        if any(r.index == roll.index for r in ev.rolls):
            return ev.actor
    return None


def _default_expression(enc: m.Encounter, policy: RoundPolicy, row: m.Combatant) -> str:
    return registry.get(enc.ruleset, policy.houserules).initiative_expression(
        codec.combatant_to_model(row))


# --- who has posted, reminders, what is due ----------------------------------------------

def due_reminders(session: Session, now: datetime) -> list[int]:
    """Open rounds with a reminder threshold passed and not yet sent."""
    out = []
    for rnd in session.scalars(select(m.Round).where(m.Round.state == "open",
                                                     m.Round.deadline > now)):
        if _due_thresholds(rnd, now) and not queries.announcement_held(session, rnd):
            out.append(rnd.id)
    return out


def _due_thresholds(rnd: m.Round, now: datetime) -> list[float]:
    hours = policy_for(rnd.encounter.campaign, rnd.encounter).reminder_hours  # houserules [rounds] win
    sent = {float(h) for h in rnd.reminders_sent or []}
    return [float(h) for h in hours
            if float(h) not in sent and rnd.deadline - timedelta(hours=float(h)) <= now
            and rnd.opens_at < rnd.deadline - timedelta(hours=float(h))]


def send_reminder(session: Session, round_id: int, now: datetime) -> int | None:
    """Queue a reminder naming who has not posted; None when nothing is due or all posted."""
    rnd = session.get(m.Round, round_id)
    if rnd is None or rnd.state != "open" or now >= rnd.deadline:
        return None
    if queries.announcement_held(session, rnd):
        return None     # the round's clock waits for the narrator's approval
    due = _due_thresholds(rnd, now)
    if not due:
        return None
    rnd.reminders_sent = sorted({*(float(h) for h in rnd.reminders_sent or []), *due})
    owing = not_away(session, rnd, queries.missing_players(session, rnd))
    if not owing:
        return None   # nobody owes a post, or only players who said they are away (STALL-1)
    audit_reminded(session, rnd, owing, now, min(due))          # STALL-3 step 1
    reply = queue_round_reply(session, rnd, "reminder", now, suffix=f"{min(due):g}h")
    enc = rnd.encounter   # an automatic decision: audited like the others (issue 15)
    session.add(m.AuditEntry(at=now, actor="system", campaign_id=enc.campaign_id,
                             encounter_id=enc.id, round_id=rnd.id, action="round.reminder",
                             entity="round", entity_id=str(rnd.id), before=None,
                             after={"hours": min(due), "deadline": rnd.deadline.isoformat()}))
    return reply


def due_rounds(session: Session, now: datetime) -> list[int]:
    """Open rounds past their deadline, and early-close rounds where every expected player
    declared and the grace for edits is over (STALL-4, :mod:`pbp.rounds.early`); never a
    round whose announcement waits for approval (its clock has not started)."""
    due = [rnd.id for rnd in session.scalars(select(m.Round).where(m.Round.state == "open",
                                                                   m.Round.deadline <= now)
                                             .order_by(m.Round.deadline))
           if not queries.announcement_held(session, rnd)]
    for rnd in session.scalars(select(m.Round).where(m.Round.state == "open",
                                                     m.Round.deadline > now)):
        closes = closes_early_at(session, rnd, now)
        if closes is not None and closes <= now and not queries.announcement_held(session, rnd):
            due.append(rnd.id)
    return due

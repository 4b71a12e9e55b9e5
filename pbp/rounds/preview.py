"""The reply preview of an open round: a real dry run that writes nothing (SCALE-4).

The panel's encounter page shows the resolution reply as it would go out if the round
resolved now. It used to run the resolver inside a savepoint and roll it back; that wrote
(rolls, events, the state, the next round, audit rows) and so took SQLite's write lock on
a GET, failing with "database is locked" whenever a worker wrote at the same moment, and a
read-only transaction (PostgreSQL ``READ ONLY``, SQLite ``query_only``) refused it outright.

Here the same inputs are read from the store (the declarations that count, the narrator's
roll totals, standing orders, the combatants), the pure engine resolves them in memory
(rolls drawn from the round's seed, exactly as the resolver will draw them) and the reply
view is built from that outcome: the rolls and events made only for the preview are never
stored, no mapped object is changed, nothing is added to the session. The text is the one
:func:`pbp.rounds.resolve.resolve_round` would queue, marked ``(preview)``; the next
round's deadline and commitment are what opening it now would give.

Data flows one way as everywhere: store (read) -> declarations -> engine -> view -> render.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy.orm import Session

from ..dice import commitment
from ..render import render_reply
from ..render.proof import ProofLine
from ..render.view import EventLine, ReplyView, StatusBlock
from ..rules import engine
from ..rules.model import Encounter, Event
from ..store import hidden as hidden_store
from ..store import models as m
from ..store import queries
from . import codec, hidden, overrides, standing
from .crit_tables import SETTING as CRIT_TABLES
from .crit_tables import with_table_draws
from .early import away_in, round_deadline, run_by_narrator
from .lifecycle import round_seed
from .overrides import OverridingBox
from .policy import policy_for
from .proof import reveal_lines, roll_line
from .replies import (
    _index_rolls,
    _order_labels,
    _Round,
    new_view,
    resolution_sections,
    shown_roll,
)
from .resolve import _declarations
from .rolls import next_index
from .status import _entry
from .tables import campaign_tables

#: what the reply of a preview is marked with (the real reply carries its idempotency marker)
MARKER = "(preview)"


@dataclass(frozen=True)
class NextRound:
    """The round a resolution now would open (never stored by the preview)."""

    number: int
    deadline: datetime
    commitment: str


@dataclass(frozen=True)
class Outcome:
    """The engine's result for an open round, in memory only."""

    choice: queries.Choice
    rolls: list[m.RollRecord]          # the round's stored rolls, then the preview's (transient)
    events: list[EventLine]            # the round's stored events, then the preview's
    used: set[int]                     # roll indexes some event shows
    state: dict[str, Mapping[str, Any]]   # combatant key -> its state after the round
    order: list[str]
    ended: bool
    next_round: NextRound | None


class _Counted:
    """A stored declaration as the resolver leaves it, its ``superseded`` flag brought in
    line (:func:`pbp.rounds.resolve.choose` sets it on the row; the preview must not)."""

    def __init__(self, row: m.Declaration, superseded: bool) -> None:
        self._row = row
        self.superseded = superseded

    def __getattr__(self, name: str) -> Any:
        return getattr(self._row, name)


def _choice(session: Session, rnd: m.Round) -> queries.Choice:
    choice = queries.choose_declarations(session, rnd.id)
    beaten = {id(d) for d in queries.superseded(choice)}

    def seen(rows: Sequence[m.Declaration]) -> tuple[m.Declaration, ...]:
        return tuple(cast(m.Declaration, _Counted(d, id(d) in beaten)) for d in rows)

    return queries.Choice(seen(choice.counted), seen(choice.others))


def _transient_roll(row: dict[str, Any]) -> m.RollRecord:
    """A roll of the preview as the reply builder reads a stored one; never added to a
    session (no relationship is set, so nothing cascades it into one)."""
    rec = m.RollRecord(**row)
    rec.hidden = False
    return rec


def dry_run(session: Session, rnd: m.Round, now: datetime) -> Outcome:
    """What resolving the open *rnd* at *now* would give (:func:`pbp.rounds.resolve.
    run_resolution`, step for step, its writes left out)."""
    enc = rnd.encounter
    policy = policy_for(enc.campaign, enc)
    rows = list(enc.combatants)
    choice = _choice(session, rnd)
    totals = overrides.roll_totals(session, rnd.id)
    decls = _declarations(rnd, rows, choice, totals)
    model = codec.encounter_to_model(enc, rows, houserules=policy.houserules,
                                     round_number=rnd.number, surprise_round=rnd.surprise)
    start = next_index(session, rnd.id)
    plans = standing.plan_round(session, rnd, rows, {d.actor for d in decls if not d.missing},
                                model, policy)
    decls = standing.declarations(decls, plans)
    if standing.conditional(plans):   # STALL-2: the others first, then the orders that fired
        trial = engine.resolve(model, decls, OverridingBox(rnd.seed, start, totals))
        if standing.fire(plans, trial.events, {c.key: c.side for c in model.combatants}):
            decls = standing.declarations(decls, plans)
    box = OverridingBox(rnd.seed, start, totals)
    result = engine.resolve(model, decls, box)
    drawn = (with_table_draws(result.events, box, campaign_tables(enc))   # DICE-6
             if policy.rounds.get(CRIT_TABLES) is True else list(result.events))
    said = [*drawn, *standing.events(plans)]
    actors = {r.index: ev.actor for ev in said for r in ev.rolls}
    made = [_transient_roll(codec.roll_row(roll, round_id=rnd.id, kind="engine",
                                           actor=actors.get(roll.index))) for roll in box.raw]
    rolls = [*queries.round_rolls(session, rnd.id), *made]
    events, used = _events(session, rnd, [x for x in rolls if not x.hidden], totals, said)
    after = codec.snapshot(result.encounter)
    ended = engine.fight_over(result.encounter)
    nxt = None
    if not ended and not enc.campaign.approval_mode:
        nxt = _next_round(session, enc, result.encounter, now)
    return Outcome(choice=choice, rolls=rolls, events=events, used=used,
                   state={c["key"]: c for c in after.get("combatants", [])},
                   order=list(result.encounter.order), ended=ended, next_round=nxt)


def _events(session: Session, rnd: m.Round, rolls: Sequence[m.RollRecord],
            totals: Mapping[int, int], said: Sequence[Event]) -> tuple[list[EventLine], set[int]]:
    """The round's stored events and the preview's, as reply lines (as
    :func:`pbp.rounds.replies._events` reads them once stored)."""
    breakdown = {r.roll_index: r.breakdown for r in rolls}
    private = bool(rnd.encounter.campaign.private_roll_values)
    stored = [(e.code, dict(e.params or {}), e.rule, [int(i) for i in e.roll_indexes or []],
               e.message, e.actor, e.target) for e in queries.round_events(session, rnd.id)]
    fresh = [(ev.code, codec._plain(dict(ev.params)), ev.rule, [r.index for r in ev.rolls],
              ev.message, ev.actor, ev.target) for ev in said]
    out, used = [], set()
    for code, params, rule, indexes, message, actor, target in [*stored, *fresh]:
        used.update(indexes)
        texts = tuple(shown_roll(breakdown.get(i, "?"), totals.get(i), private=private)
                      for i in indexes)
        out.append(EventLine(code=code, params=params, rule=rule, rolls=texts,
                             message=message, actor=actor, target=target))
    return out, used


def _next_round(session: Session, enc: m.Encounter, after: Encounter, now: datetime) -> NextRound:
    """The round :func:`pbp.rounds.lifecycle.open_round` would open now: its number, its
    deadline and its seed's commitment (the chain's next link; an encounter made before
    the chain draws its seed only when the round really opens)."""
    number, _surprise = engine.round_number(after, engine.ruleset_for(after))
    if enc.dice_anchor is not None and enc.dice_chain_length is not None:
        seal = commitment(round_seed(session, enc))
    else:
        seal = "0" * 64
    return NextRound(number=number, deadline=round_deadline(enc, now), commitment=seal)


def build_view(session: Session, rnd: m.Round, out: Outcome, now: datetime) -> ReplyView:
    """The resolution reply of the open *rnd* with the outcome *out* (the shape of
    :func:`pbp.rounds.replies.build_view`'s resolution, from memory where the resolver
    would have stored)."""
    enc = rnd.encounter
    rows = list(enc.combatants)
    names = {c.key: c.name for c in rows}
    private = bool(enc.campaign.private_roll_values)
    order = list(out.order or enc.order or [c.key for c in rows])
    order += [c.key for c in rows if c.key not in order and not (c.sheet or {}).get("is_object")]
    r = _Round(rnd=rnd, rows=rows, order=order, state=out.state, events=out.events,
               rolls=[x for x in out.rolls if not x.hidden], choice=out.choice,
               used=set(out.used), totals=overrides.roll_totals(session, rnd.id), private=private)
    view = new_view(rnd, "resolution", MARKER, names)
    view.order = _order_labels(r)
    r.acks = standing.acknowledgments(session, rnd, rows)
    _index_rolls(r)
    resolution_sections(session, view, r, names)
    view.seed = rnd.seed                      # the resolution reveals it
    view.seed_commitment = rnd.commitment
    nxt = out.next_round
    if nxt is not None:
        view.next_round, view.next_deadline, view.next_commitment = (
            nxt.number, nxt.deadline, nxt.commitment)
    view.ended = out.ended
    view.reresolved = queries.round_reresolved(session, rnd.id)
    view.proof = _proof(session, rnd, out)
    _secrets(session, view, rnd, names, ended=out.ended)
    view.status = _status(session, rnd, out, now)
    return view


def _proof(session: Session, rnd: m.Round, out: Outcome) -> list[ProofLine]:
    """:func:`pbp.rounds.proof.resolution_lines` of the outcome: the seed, every roll
    (the preview's included), the next round's commitment; at the fight's end every secret
    roll revealed (the resolver reveals them all then) and the hidden key."""
    enc = rnd.encounter
    shown = {s.roll.id for s in hidden_store.round_secrets(session, rnd.id) if s.reveal is not None}
    lines = [ProofLine.seed(rnd.number, rnd.seed),
             *(roll_line(x, rnd, out.ended or (x.id is not None and x.id in shown))
               for x in sorted(out.rolls, key=lambda x: x.roll_index))]
    if out.next_round is not None:
        lines.append(ProofLine.commit(out.next_round.number, out.next_round.commitment))
    if out.ended:
        lines += reveal_lines(session, enc, besides=rnd.id, unrevealed=True)
        if enc.hidden_key:
            lines.append(ProofLine.hidden_key(enc.hidden_key))
    return lines


def _secrets(session: Session, view: ReplyView, rnd: m.Round, names: Mapping[str, str], *,
             ended: bool) -> None:
    """:func:`pbp.rounds.hidden.resolution`: the round's secret rolls; at the fight's end
    every one revealed (as :func:`pbp.rounds.hidden.reveal_at_end` would record) and K."""
    enc = rnd.encounter
    if not ended:
        view.secret = [hidden.hidden_roll(enc, s, names)
                       for s in hidden_store.round_secrets(session, rnd.id)]
        return
    if enc.hidden_key is None:
        return
    # a stand-in for the reveal row reveal_at_end would add (hidden_roll asks only whether
    # there is one); nothing is stored
    view.secret = [hidden.hidden_roll(enc, s if s.reveal is not None else s._replace(
        reveal=cast(m.RollReveal, True)), names) for s in hidden_store.encounter_secrets(session, enc.id)]
    view.hidden_key = enc.hidden_key


def _status(session: Session, rnd: m.Round, out: Outcome, now: datetime) -> StatusBlock:
    """:func:`pbp.rounds.status.status_block` after the round: HP from the outcome, the
    round it opens (nobody has declared in it yet)."""
    enc = rnd.encounter
    nxt = out.next_round
    number = nxt.number if nxt is not None else rnd.number + 1
    rows = [c for c in enc.combatants if not (c.sheet or {}).get("is_object")]
    block = StatusBlock(now=now, combatants=[_entry(c, out.state.get(c.key, {}), number) for c in rows])
    if nxt is None:
        return block
    block.round_number, block.deadline = nxt.number, nxt.deadline
    away = away_in(session, rnd, now)
    narrator = run_by_narrator(session, rnd)
    standing_ = [c for c in rows if c.player and not out.state.get(c.key, {}).get("down", c.down)]
    block.declared = []
    block.owed = [c.name for c in standing_
                  if c.id not in narrator and (c.player or "").casefold() not in away]
    block.away = [c.name for c in standing_ if (c.player or "").casefold() in away]
    return block


def preview_text(session: Session, rnd: m.Round, now: datetime) -> str:
    """The resolution reply the open *rnd* would get at *now*, marked as a preview; the
    session is left as it was (nothing added, changed or flushed)."""
    with session.no_autoflush:   # a guard only: nothing here changes a mapped object
        return render_reply(build_view(session, rnd, dry_run(session, rnd, now), now))


__all__ = ["MARKER", "NextRound", "Outcome", "build_view", "dry_run", "preview_text"]

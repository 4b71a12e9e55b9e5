"""Replies from the store: build the view of a round, render it, put it in the outbox.

One reply per (round, kind): the idempotency key ``<round id>:<kind>`` is unique in the
database, so a second resolution or a second reminder sweep cannot queue a double.
The marker ``pbp-reply:<key>`` goes into the text so delivery can find a reply whose
answer was lost (``Source.find_reply``) instead of posting it twice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..render import render_reply
from ..render.overrides import set_roll_text
from ..render.split import LIMITS, split_reply
from ..render.view import ActorSection, EventLine, ReplyView, group_events
from ..store import models as m
from ..store import queries
from . import hidden, overrides, proof, standing
from .status import status_block
from .tables import as_set


def reply_platform(thread: m.Thread) -> str:
    """Reddit reads Markdown whatever the row says; forums BBCode unless set otherwise."""
    return "markdown" if thread.kind == "reddit" and thread.platform != "text" else thread.platform


def marker_for(key: str) -> str:
    return f"pbp-reply:{key}"


def _combatant_state(rnd: m.Round) -> dict[str, Mapping[str, Any]]:
    if rnd.state_after:
        return {c["key"]: c for c in rnd.state_after.get("combatants", [])}
    return {}


def _events(session: Session, rnd: m.Round, rolls: list[m.RollRecord], totals: dict[int, int]
            ) -> tuple[list[EventLine], set[int]]:
    """The round's events as reply lines (a narrator's total marked), and the indexes of
    the rolls they show."""
    breakdown = {r.roll_index: r.breakdown for r in rolls}
    private = bool(rnd.encounter.campaign.private_roll_values)
    out = []
    used: set[int] = set()
    for e in queries.round_events(session, rnd.id):
        used.update(int(i) for i in e.roll_indexes or [])
        texts = [shown_roll(breakdown.get(i, "?"), totals.get(i), private=private)
                 for i in e.roll_indexes or []]
        out.append(EventLine(code=e.code, params=dict(e.params or {}), rule=e.rule,
                             rolls=tuple(texts), message=e.message, actor=e.actor,
                             target=e.target))
    return out, used


def shown_roll(breakdown: str, total: int | None, *, private: bool) -> str:
    """A stored roll as a reply view carries it; DICE-5: a roll the narrator set is marked
    next to it, always, its value only when the campaign does not keep it private."""
    return breakdown if total is None else breakdown + set_roll_text(total, private=private)


@dataclass
class _Round:
    """What every step of a resolution reply reads: the round's rows, loaded once."""

    rnd: m.Round
    rows: list[m.Combatant]
    order: list[str]
    state: dict[str, Mapping[str, Any]]
    events: list[EventLine]
    rolls: list[m.RollRecord]
    choice: queries.Choice
    used: set[int] = field(default_factory=set)      # roll indexes some event shows
    shown: set[int] = field(default_factory=set)     # ... and those shown anywhere else
    by_post: dict[tuple[int | None, str | None], list[m.RollRecord]] = field(default_factory=dict)
    totals: dict[int, int] = field(default_factory=dict)   # roll index -> the narrator's total
    private: bool = False                                  # DICE-5: keep those values out

    def said(self, rec: m.RollRecord) -> str:
        """*rec* as the reply shows it (a narrator's total marked, DICE-5)."""
        return shown_roll(rec.breakdown, self.totals.get(rec.roll_index), private=self.private)
    acks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # STALL-1/2 notes

    @property
    def by_key(self) -> dict[str, m.Combatant]:
        return {c.key: c for c in self.rows}


def _order(rnd: m.Round, rows: list[m.Combatant]) -> list[str]:
    """The turn order, then whoever it does not name yet (objects never)."""
    order = list(rnd.order or rnd.encounter.order or [c.key for c in rows])
    return order + [c.key for c in rows
                    if c.key not in order and not (c.sheet or {}).get("is_object")]


def _order_labels(r: _Round) -> list[str]:
    by_key = r.by_key

    def label(key: str) -> str:
        c = by_key[key]
        init = r.state.get(key, {}).get("initiative", c.initiative)
        if init is None:
            return c.name
        return f"{c.name} ({int(init) if float(init).is_integer() else init})"

    return [label(k) for k in r.order if k in by_key]


def new_view(rnd: m.Round, kind: str, marker: str, names: dict[str, str]) -> ReplyView:
    enc = rnd.encounter
    campaign = enc.campaign
    return ReplyView(kind=kind, platform=reply_platform(enc.thread), language=campaign.language,
                     timezone=campaign.timezone, encounter=enc.name or campaign.name,
                     round_number=rnd.number, surprise=rnd.surprise, deadline=rnd.deadline,
                     commitment=rnd.commitment, marker=marker, names=dict(names),
                     markdown_flavor="forum" if enc.thread.kind == "forum" else "reddit")


def build_view(session: Session, rnd: m.Round, kind: str, now: datetime, *,
               marker: str = "", choice: queries.Choice | None = None) -> ReplyView:
    """The reply of *kind* for *rnd*, as plain values. *choice*: the declarations that
    count, when the caller (the resolver, in the same transaction) has chosen them."""
    rows = list(rnd.encounter.combatants)
    names = {c.key: c.name for c in rows}
    # DICE-2: a secret roll is said only by its own sentence (pbp.rounds.hidden)
    rolls = [x for x in queries.round_rolls(session, rnd.id) if not x.hidden]
    totals = overrides.roll_totals(session, rnd.id)
    events, used = _events(session, rnd, rolls, totals)
    r = _Round(rnd=rnd, rows=rows, order=_order(rnd, rows),
               state=_combatant_state(rnd) if kind == "resolution" else {},
               events=events, rolls=rolls, choice=queries.Choice((), ()), used=used,
               totals=totals,
               private=bool(rnd.encounter.campaign.private_roll_values))
    view = new_view(rnd, kind, marker, names)
    view.order = _order_labels(r)
    if kind == "opening":   # the order is said once, by the template
        view.header = [e for e in r.events if e.code != "initiative.order"]
        view.chain = rnd.encounter.dice_chain
        view.proof = proof.opening_lines(rnd)
        hidden.opening(view, rnd.encounter)
        view.status = status_block(session, rnd.encounter, rnd, now)
        return view
    if kind == "reminder":
        view.waiting = [{"name": c.name, "player": c.player} for c in standing.not_away(
            session, rnd, queries.missing_players(session, rnd))]
        view.status = status_block(session, rnd.encounter, rnd, now)
        return view
    r.choice = choice if choice is not None else queries.choose_declarations(session, rnd.id)
    r.acks = standing.acknowledgments(session, rnd, rows)
    _index_rolls(r)
    _resolution_body(session, view, r, names, now)
    return view


def _index_rolls(r: _Round) -> None:
    """Each post's own tag rolls, in tag order; what the events show is shown already."""
    r.shown = set(r.used)
    for rec in sorted(r.rolls, key=lambda x: (x.tag_index is None, x.tag_index or 0)):
        if rec.post_id is not None:
            r.by_post.setdefault((rec.post_id, rec.actor), []).append(rec)


def resolution_sections(session: Session, view: ReplyView, r: _Round,
                        names: Mapping[str, str]) -> None:
    """What a resolution reply says of the round: its header and footer events, each
    combatant's section in order, the unused rolls, earlier rounds' changes and the
    overrides. Shared with the dry-run preview (:mod:`pbp.rounds.preview`), so both
    say the round the same way."""
    rnd = r.rnd
    start = next((i for i, e in enumerate(r.events) if e.code == "round.start"), 0)
    header, per, footer = group_events(r.events[start:], r.order)
    view.header, view.footer = header, footer
    decl_of = {d.combatant_id: d for d in r.choice.counted}
    by_key = r.by_key
    for key in r.order:
        c = by_key.get(key)
        if c is not None:
            view.actors.append(_section(r, c, decl_of.get(c.id), per.get(key, [])))
    view.unused = [f"#{x.roll_index} {r.said(x)}" for x in r.rolls
                   if x.roll_index not in r.shown]
    view.earlier = _earlier(session, rnd, names)
    view.overrides = overrides.marks(queries.round_overrides(session, rnd.id),
                                     rnd.encounter.campaign.language, names, private=r.private)


def _resolution_body(session: Session, view: ReplyView, r: _Round,
                     names: Mapping[str, str], now: datetime) -> None:
    rnd = r.rnd
    resolution_sections(session, view, r, names)
    view.seed = rnd.seed if rnd.seed_revealed else None
    view.seed_commitment = rnd.commitment
    nxt = queries.next_round(session, rnd)
    if nxt is not None:
        view.next_round, view.next_deadline, view.next_commitment = (
            nxt.number, nxt.deadline, nxt.commitment)
    view.ended = rnd.encounter.status == "finished" and nxt is None
    view.reresolved = queries.round_reresolved(session, rnd.id)
    view.proof = proof.resolution_lines(session, rnd, nxt, ended=view.ended)
    hidden.resolution(session, view, rnd, names)
    view.status = status_block(session, rnd.encounter, nxt, now, after=rnd)


def _section(r: _Round, c: m.Combatant, d: m.Declaration | None,
             events: list[EventLine]) -> ActorSection:
    """One combatant's part of the resolution reply."""
    s = r.state.get(c.key, {})
    section = ActorSection(
        key=c.key, name=c.name, player=c.player, side=c.side,
        initiative=s.get("initiative", c.initiative), hp=s.get("hp", c.hp),
        max_hp=s.get("max_hp", c.max_hp), down=s.get("down", c.down),
        conditions=[x.get("name", "?") for x in s.get("conditions", c.conditions) or []],
        events=[e for e in events if not e.code.startswith("standing.")])
    stand_in = [standing.stand_in_note(e.code, e.params, c.name) for e in events
                if e.code.startswith("standing.")]
    if d is None:
        section.status = "missing" if c.player else "npc"
        if stand_in:   # STALL-1/2: what the character did instead, never "no post" alone
            section.status = "standing"
            section.notes.extend(stand_in)
        elif c.player and not section.down:
            section.notes.append({"code": "missing"})
    else:
        _declared(r, section, d)
    section.notes.extend(r.acks.get(c.key, []))
    if c.key in set(r.rnd.waived or []) and (d is None or d.late):
        section.waived = True
        section.notes.append({"code": "waived"})
    _others(r, section, c, d)
    section.events = _latency_params(section.events, d, missing=d is None)
    return section


def _declared(r: _Round, section: ActorSection, d: m.Declaration) -> None:
    """What the counted declaration adds: its status, notes, problems, speech, tag rolls."""
    section.status = {"override": "override", "narrator": "npc"}.get(
        d.source, "late" if d.late else "declared")
    section.notes.extend(n for n in d.notes or [] if n.get("code") != "superseded")
    for e in d.errors or []:
        if e.get("code") == "table.unknown":   # DICE-6: said in the campaign's language
            section.notes.append({"code": "table-unknown", "name": e.get("name", ""),
                                  "known": e.get("known") or "-"})
        elif e.get("code") == "initiative.not-yours":   # said in the campaign's language
            section.notes.append({"code": "initiative-not-yours", "name": e.get("name", "")})
        elif e.get("code") == "roll.refused":   # the dice's refusal, said by its code
            section.notes.append({"code": "roll-refused", "message": e.get("message", ""),
                                  "refusal": e.get("refusal"), "params": e.get("params")})
        elif e.get("severity", "error") == "error":
            section.notes.append({"code": "problem", "message": e.get("message", "")})
    section.speech = list(d.speech or [])
    if d.post_id is not None:
        own = [x for x in r.by_post.get((d.post_id, section.key), [])
               if x.kind == "tag" and x.roll_index not in r.used]
        section.tag_rolls = [r.said(x) for x in own]
        r.shown.update(x.roll_index for x in own)
        section.tables = [as_set(t, r.totals.get(int(t["roll_index"]))) for t in d.tables or []]
        r.shown.update(int(t["roll_index"]) for t in section.tables)


def _others(r: _Round, section: ActorSection, c: m.Combatant, d: m.Declaration | None) -> None:
    """The combatant's declarations kept but not counted, each with why and its rolls."""
    for o in r.choice.others:
        if o.combatant_id != c.id:
            continue
        codes = [n.get("code") for n in o.notes or []]
        code = next((x for x in ("deleted", "after-resolution") if x in codes),
                    "superseded" if o.superseded else (codes[-1] if codes else "superseded"))
        if code == "superseded" and o.late and d is not None and not d.late:
            code = "late-not-counted"   # PBP-2: kept and shown, the on-time post stands
        if code != "after-resolution":
            theirs = r.by_post.get((o.post_id, c.key), []) if o.post_id is not None else []
            r.shown.update(x.roll_index for x in theirs)
            section.others.append({"code": code, "rolls": [r.said(x) for x in theirs]})


def _latency_params(events: list[EventLine], d: m.Declaration | None, *, missing: bool
                    ) -> list[EventLine]:
    """Tell the renderer why a latency penalty applies (late or no post) and which
    action it forfeits, so it can say so in the campaign's language."""
    out = []
    for e in events:
        if e.code == "latency.penalty" or e.params.get("problem") == "latency.forfeit":
            params = dict(e.params, why="missing" if missing else "late")
            i = e.params.get("action_index")
            if d is not None and i is not None and 0 <= int(i) < len(d.actions or []):
                params["text"] = d.actions[int(i)].get("text") or d.actions[int(i)].get("kind")
            e = dataclasses.replace(e, params=params)
        out.append(e)
    return out


def _earlier(session: Session, rnd: m.Round, names: Mapping[str, str]) -> list[dict[str, Any]]:
    """Declarations of earlier rounds seen only after those rounds were resolved."""
    p = queries.current_round(session, rnd.encounter_id, rnd.number - 1)
    out: list[dict[str, Any]] = []
    if p is not None:
        rows = session.execute(select(m.Declaration.notes, m.Combatant.name)
                               .join(m.Combatant, m.Combatant.id == m.Declaration.combatant_id)
                               .where(m.Declaration.round_id == p.id)
                               .order_by(m.Declaration.id))
        for notes, name in rows:
            if any(n.get("code") == "after-resolution" for n in notes or []):
                out.append({"code": "after-resolution", "name": name, "round": p.number})
    return out


def render_round_reply(session: Session, rnd: m.Round, kind: str, now: datetime, *,
                       marker: str, choice: queries.Choice | None = None) -> str:
    return render_reply(build_view(session, rnd, kind, now, marker=marker, choice=choice))


def queue_round_reply(session: Session, rnd: m.Round, kind: str, now: datetime, *,
                      suffix: str | None = None, choice: queries.Choice | None = None,
                      state: str | None = None) -> int:
    """Render and store the (round, kind) reply once; returns its id. *choice*: see
    :func:`build_view`; *state*: see :func:`store_reply`."""
    key = f"{rnd.id}:{kind}" + (f":{suffix}" if suffix else "")
    return store_reply(session, rnd.encounter, rnd.id, kind, key, now, lambda marker:
                       render_round_reply(session, rnd, kind, now, marker=marker, choice=choice),
                       state=state)


def store_reply(session: Session, enc: m.Encounter, round_id: int | None, kind: str, key: str,
                now: datetime, body: Callable[[str], str], *, state: str | None = None) -> int:
    """Store the reply *key* once (its text from *body*, given the marker), cut into parts
    when the platform needs it; returns the first part's id.

    In approval mode every reply is held, as the setting says ("Hold every reply until I
    approve it": openings, reminders, notices, corrections too; issue 11 item 4). *state*
    forces one (``pending`` for a reply the narrator approved while it was made)."""
    existing = session.scalar(select(m.Reply.id).where(m.Reply.idempotency_key == key))
    if existing is not None:
        return existing
    state = state or ("held" if enc.campaign.approval_mode else "pending")
    replies = [m.Reply(thread_id=enc.thread_id, round_id=round_id, kind=kind,
                       idempotency_key=k, marker=marker_for(k), platform=reply_platform(enc.thread),
                       language=enc.campaign.language, body=part, state=state, created_at=now)
               for k, part in _parts(enc, key, body)]
    try:
        with session.begin_nested():
            session.add_all(replies)
    except IntegrityError:
        found = session.scalar(select(m.Reply.id).where(m.Reply.idempotency_key == key))
        assert found is not None
        return found
    return replies[0].id


def _parts(enc: m.Encounter, key: str, body: Callable[[str], str]) -> list[tuple[str, str]]:
    """(idempotency key, text) of each part of the reply *key*, cut to the platform's size."""
    platform = reply_platform(enc.thread)
    limit = int((enc.thread.options or {}).get("max_reply_chars") or LIMITS.get(platform, 60_000))

    def part_key(i: int) -> str:
        return key if i == 1 else f"{key}:p{i}"

    texts = split_reply(body(marker_for(key)), marker_for(key), limit, lambda i: marker_for(part_key(i)))
    return [(part_key(i), text) for i, text in enumerate(texts, 1)]


def rewrite_reply(session: Session, rnd: m.Round, kind: str, now: datetime,
                  parts: list[m.Reply]) -> list[m.Reply]:
    """Render the (round, kind) reply again into its unsent *parts*, in place (its rows
    and ids stay; a part more or fewer is added or removed): a held result approved
    later announces the next round's real deadline. Returns the parts, in order."""
    enc = rnd.encounter
    key = f"{rnd.id}:{kind}"
    by_key = {p.idempotency_key: p for p in parts}
    out = []
    for k, text in _parts(enc, key, lambda marker: render_round_reply(session, rnd, kind, now,
                                                                      marker=marker)):
        row = by_key.pop(k, None)
        if row is None:
            row = m.Reply(thread_id=enc.thread_id, round_id=rnd.id, kind=kind, idempotency_key=k,
                          marker=marker_for(k), platform=reply_platform(enc.thread),
                          language=enc.campaign.language, body=text, state="held", created_at=now)
            session.add(row)
        row.body = text
        out.append(row)
    for extra in by_key.values():
        session.delete(extra)
    session.flush()
    return out

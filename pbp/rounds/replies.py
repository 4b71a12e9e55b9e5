"""Replies from the store: build the view of a round, render it, put it in the outbox.

One reply per (round, kind): the idempotency key ``<round id>:<kind>`` is unique in the
database, so a second resolution or a second reminder sweep cannot queue a double.
The marker ``pbp-reply:<key>`` goes into the text so delivery can find a reply whose
answer was lost (``Source.find_reply``) instead of posting it twice.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..render import render_reply
from ..render.i18n import say
from ..render.split import LIMITS, split_reply
from ..render.view import ActorSection, EventLine, ReplyView, group_events
from ..store import models as m
from .lifecycle import missing_players


def reply_platform(thread: m.Thread) -> str:
    """Reddit reads Markdown whatever the row says; forums BBCode unless set otherwise."""
    return "markdown" if thread.kind == "reddit" and thread.platform != "text" else thread.platform


def marker_for(key: str) -> str:
    return f"pbp-reply:{key}"


def _combatant_state(rnd: m.Round) -> dict[str, Mapping[str, Any]]:
    if rnd.state_after:
        return {c["key"]: c for c in rnd.state_after.get("combatants", [])}
    return {}


def _events(session: Session, rnd: m.Round) -> list[EventLine]:
    breakdown = {r.roll_index: r.breakdown for r in session.scalars(
        select(m.RollRecord).where(m.RollRecord.round_id == rnd.id))}
    from .resolve import roll_overrides

    totals = roll_overrides(session, rnd.id)
    out = []
    for e in session.scalars(select(m.EventRecord).where(m.EventRecord.round_id == rnd.id)
                             .order_by(m.EventRecord.seq)):
        rolls = []
        for i in e.roll_indexes or []:
            text = breakdown.get(i, "?")
            if i in totals:
                text = f"{text} -> {totals[i]} (narrator)"
            rolls.append(text)
        out.append(EventLine(code=e.code, params=dict(e.params or {}), rule=e.rule,
                             rolls=tuple(rolls), message=e.message, actor=e.actor,
                             target=e.target))
    return out


#: override kinds said in the reply (the panel's ``reply.hold``/``approve`` change only when)
OVERRIDE_TEXTS: Mapping[str, str] = {
    "roll": "roll #{index} ({who}) set to {after} (rolled {rolled})",
    "hp": "{who}: HP {before} -> {after}",
    "penalty.waive": "{who}: latency penalty waived",
    "penalty.apply": "{who}: latency penalty applied",
    "condition.add": "{who}: {condition} added",
    "condition.remove": "{who}: {condition} removed",
    "initiative": "initiative order changed",
    "deadline": "deadline moved",
    "round.reresolve": "round resolved again",
    "action": "{who}: declared action changed by the narrator",
}


def _describe_override(o: m.Override, lang: str, names: Mapping[str, str]) -> str:
    p = o.payload or {}
    kind = "action" if o.kind.startswith("action.") else o.kind
    if kind not in OVERRIDE_TEXTS:
        return ""
    params = {"who": names.get(o.target or "", p.get("name") or o.target or ""),
              "index": p.get("roll_index"), "after": p.get("after"), "before": p.get("before"),
              "rolled": p.get("rolled"), "condition": p.get("condition")}
    if kind == "roll":
        params["who"] = names.get(p.get("actor") or "", p.get("actor") or "?")
    text = say(OVERRIDE_TEXTS[kind], lang, params)
    return f"{text}: {o.reason}" if o.reason else text


def build_view(session: Session, rnd: m.Round, kind: str, now: datetime, *,
               marker: str = "") -> ReplyView:
    enc = rnd.encounter
    campaign = enc.campaign
    thread = enc.thread
    rows = list(enc.combatants)
    names = {c.key: c.name for c in rows}
    state = _combatant_state(rnd) if kind == "resolution" else {}
    order = list(rnd.order or enc.order or [c.key for c in rows])
    order += [c.key for c in rows if c.key not in order and not (c.sheet or {}).get("is_object")]
    view = ReplyView(kind=kind, platform=reply_platform(thread), language=campaign.language,
                     timezone=campaign.timezone, encounter=enc.name or campaign.name,
                     round_number=rnd.number, surprise=rnd.surprise, deadline=rnd.deadline,
                     commitment=rnd.commitment, marker=marker, names=dict(names))
    by_key = {c.key: c for c in rows}

    def label(key: str) -> str:
        c = by_key[key]
        init = state.get(key, {}).get("initiative", c.initiative)
        if init is None:
            return c.name
        return f"{c.name} ({int(init) if float(init).is_integer() else init})"

    view.order = [label(k) for k in order if k in by_key]
    events = _events(session, rnd)
    if kind == "opening":   # the order is said once, by the template
        view.header = [e for e in events if e.code != "initiative.order"]
        return view
    if kind == "reminder":
        view.waiting = [{"name": c.name, "player": c.player}
                        for c in missing_players(session, rnd)]
        return view
    start = next((i for i, e in enumerate(events) if e.code == "round.start"), 0)
    header, per, footer = group_events(events[start:], order)
    view.header, view.footer = header, footer
    from .resolve import choose_declarations

    cached = session.info.pop("pbp.choice", None)
    if cached is not None and cached[0] == rnd.id:
        counted, others = cached[1], cached[2]
    else:
        counted, others = choose_declarations(session, rnd)
    decl_of = {d.combatant_id: d for d in counted}
    used = {int(i) for idx in session.scalars(select(m.EventRecord.roll_indexes)
                                             .where(m.EventRecord.round_id == rnd.id))
            for i in idx or []}
    waived = set(rnd.waived or [])
    shown_rolls = set(used)
    all_rolls = list(session.scalars(select(m.RollRecord).where(m.RollRecord.round_id == rnd.id)
                                     .order_by(m.RollRecord.roll_index)))
    by_post: dict[tuple[int | None, str | None], list[m.RollRecord]] = {}
    for r in sorted(all_rolls, key=lambda r: (r.tag_index is None, r.tag_index or 0)):
        if r.post_id is not None:
            by_post.setdefault((r.post_id, r.actor), []).append(r)
    for key in order:
        c = by_key.get(key)
        if c is None:
            continue
        s = state.get(key, {})
        section = ActorSection(
            key=key, name=c.name, player=c.player, side=c.side,
            initiative=s.get("initiative", c.initiative), hp=s.get("hp", c.hp),
            max_hp=s.get("max_hp", c.max_hp), down=s.get("down", c.down),
            conditions=[x.get("name", "?") for x in s.get("conditions", c.conditions) or []],
            events=per.get(key, []))
        d = decl_of.get(c.id)
        if d is None:
            section.status = "missing" if c.player else "npc"
            if c.player and not section.down:
                section.notes.append({"code": "missing"})
        else:
            section.status = {"override": "override", "narrator": "npc"}.get(
                d.source, "late" if d.late else "declared")
            section.notes.extend(n for n in d.notes or [] if n.get("code") != "superseded")
            section.notes.extend({"code": "problem", "message": e.get("message", "")}
                                 for e in d.errors or [] if e.get("severity", "error") == "error")
            section.speech = list(d.speech or [])
            if d.post_id is not None:
                own = [r for r in by_post.get((d.post_id, key), [])
                       if r.kind == "tag" and r.roll_index not in used]
                section.tag_rolls = [r.breakdown for r in own]
                shown_rolls.update(r.roll_index for r in own)
        if key in waived and (d is None or d.late):
            section.waived = True
            section.notes.append({"code": "waived"})
        for o in others:
            if o.combatant_id == c.id:
                codes = [n.get("code") for n in o.notes or []]
                code = next((x for x in ("deleted", "after-resolution") if x in codes),
                            "superseded" if o.superseded else (codes[-1] if codes else "superseded"))
                if code == "superseded" and o.late and d is not None and not d.late:
                    code = "late-not-counted"   # PBP-2: kept and shown, the on-time post stands
                if code != "after-resolution":
                    theirs = by_post.get((o.post_id, key), []) if o.post_id is not None else []
                    shown_rolls.update(r.roll_index for r in theirs)
                    section.others.append({"code": code,
                                           "rolls": [r.breakdown for r in theirs]})
        section.events = _latency_params(section.events, d, missing=d is None)
        view.actors.append(section)
    view.unused = [f"#{r.roll_index} {r.breakdown}" for r in all_rolls
                   if r.roll_index not in shown_rolls]
    view.earlier = _earlier(session, rnd, names)
    view.overrides = [t for t in (_describe_override(o, campaign.language, names) for o in
                                  session.scalars(select(m.Override).where(
                                      m.Override.round_id == rnd.id).order_by(m.Override.id)))
                      if t]
    view.seed = rnd.seed if rnd.seed_revealed else None
    view.seed_commitment = rnd.commitment
    nxt = session.scalar(select(m.Round).where(m.Round.encounter_id == enc.id,
                                               m.Round.number > rnd.number)
                         .order_by(m.Round.number).limit(1))
    if nxt is not None:
        view.next_round, view.next_deadline, view.next_commitment = (
            nxt.number, nxt.deadline, nxt.commitment)
    view.ended = enc.status == "finished" and nxt is None
    return view


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
    prev = session.scalars(select(m.Round).where(m.Round.encounter_id == rnd.encounter_id,
                                                 m.Round.number == rnd.number - 1))
    out = []
    for p in prev:
        rows = session.execute(select(m.Declaration.notes, m.Combatant.name)
                               .join(m.Combatant, m.Combatant.id == m.Declaration.combatant_id)
                               .where(m.Declaration.round_id == p.id)
                               .order_by(m.Declaration.id))
        for notes, name in rows:
            if any(n.get("code") == "after-resolution" for n in notes or []):
                out.append({"code": "after-resolution", "name": name, "round": p.number})
    return out


def render_round_reply(session: Session, rnd: m.Round, kind: str, now: datetime, *,
                       marker: str) -> str:
    return render_reply(build_view(session, rnd, kind, now, marker=marker))


def queue_round_reply(session: Session, rnd: m.Round, kind: str, now: datetime, *,
                      suffix: str | None = None) -> int:
    """Render and store the (round, kind) reply once; returns its id."""
    key = f"{rnd.id}:{kind}" + (f":{suffix}" if suffix else "")
    existing = session.scalar(select(m.Reply.id).where(m.Reply.idempotency_key == key))
    if existing is not None:
        return existing
    marker = marker_for(key)
    enc = rnd.encounter
    body = render_round_reply(session, rnd, kind, now, marker=marker)
    held = enc.campaign.approval_mode and kind == "resolution"
    platform = reply_platform(enc.thread)
    limit = int((enc.thread.options or {}).get("max_reply_chars") or LIMITS.get(platform, 60_000))

    def part_key(i: int) -> str:
        return key if i == 1 else f"{key}:p{i}"

    parts = split_reply(body, marker, limit, lambda i: marker_for(part_key(i)))
    replies = [m.Reply(thread_id=enc.thread_id, round_id=rnd.id, kind=kind,
                       idempotency_key=part_key(i), marker=marker_for(part_key(i)),
                       platform=platform, language=enc.campaign.language, body=text,
                       state="held" if held else "pending", created_at=now)
               for i, text in enumerate(parts, 1)]
    try:
        with session.begin_nested():
            session.add_all(replies)
    except IntegrityError:
        found = session.scalar(select(m.Reply.id).where(m.Reply.idempotency_key == key))
        assert found is not None
        return found
    return replies[0].id


_PART = re.compile(r"^(?P<base>.+):p(?P<n>\d+)$")


def previous_part(session: Session, reply: m.Reply) -> m.Reply | None:
    """For part n > 1 of a long reply, part n - 1 (posted first, replied to)."""
    hit = _PART.match(reply.idempotency_key)
    if hit is None:
        return None
    n = int(hit.group("n"))
    prev = hit.group("base") if n == 2 else f"{hit.group('base')}:p{n - 1}"
    return session.scalar(select(m.Reply).where(m.Reply.idempotency_key == prev))


def reply_parts(session: Session, round_id: int, kind: str) -> list[m.Reply]:
    """Every part of the (round, kind) reply, in order."""
    key = f"{round_id}:{kind}"
    rows = session.scalars(select(m.Reply).where(m.Reply.round_id == round_id,
                                                 m.Reply.kind == kind).order_by(m.Reply.id))
    return [r for r in rows if r.idempotency_key == key
            or (_PART.match(r.idempotency_key) and r.idempotency_key.startswith(key + ":p"))]

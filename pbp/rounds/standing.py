"""Absences and standing orders in the round's life (STALL-1, STALL-2).

Two moments:

* a post is read (:func:`record_post`): its ``.away`` / ``.default`` / ``.if`` lines and
  free-form absences ("away until Friday") are stored; a post in character from a player
  who was away ends the absence; a post of standing lines only declares nothing;
* the deadline (:func:`plan_round` and :func:`fire`, called by the resolver): each player
  who declared nothing gets what the standing order says, or, while away, the ruleset's
  default for a missing character (the defend action where the ruleset has one) *without*
  the latency penalty (PBP-2 does not apply to an announced absence). A conditional order
  fires only when its condition happened in the round as the others resolved it: the
  resolver runs the engine once with the defaults, asks :func:`pbp.rules.standing.condition_event`
  of those events, and runs it again with the fired orders; only the second run is kept.

A default that would spend a limited resource (:func:`pbp.rules.standing.default_problem`)
is refused when set and never applied, even one stored before a rule changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ..parse import standing as read
from ..rules import engine
from ..rules import standing as rules
from ..rules.model import Action, ActionKind, Combatant, Declaration, Encounter, Event
from ..store import models as m
from ..store import standing as store
from . import codec
from .policy import RoundPolicy
from .reading import Reading


def _audit(session: Session, enc: m.Encounter, action: str, entity_id: str, now: datetime,
           after: Mapping[str, Any], *, round_id: int | None = None, entity: str = "combatant",
           actor: str = "system", narrator_id: int | None = None) -> None:
    session.add(m.AuditEntry(at=now, actor=actor, narrator_id=narrator_id,
                             campaign_id=enc.campaign_id,
                             encounter_id=enc.id, round_id=round_id, action=action,
                             entity=entity, entity_id=entity_id, before=None, after=dict(after)))


# --- a post is read -----------------------------------------------------------------------

def record_post(session: Session, post: m.Post, readings: Sequence[Reading], *,
                encounter: m.Encounter, rnd: m.Round | None, policy: RoundPolicy,
                now: datetime, absent: set[str] | None = None) -> None:
    """Store what *post* says of absences and standing orders (read again on an edit:
    what it said before is replaced). *absent*: a batch's casefolded players who may have
    an absence (SCALE-6: read once per batch; a player outside it has none to end, and one
    this post announces is added to it)."""
    if post.revisions_seen > 1 or post.deleted_at is not None:   # a new post said nothing yet
        for a in store.post_absences(session, post.id):
            session.delete(a)
        for o in store.post_orders(session, post.id):
            session.delete(o)
        session.flush()
    if post.deleted_at is not None:
        return
    rows: dict[str, m.Combatant] = {}   # by key, built only for a post with standing lines
    built: list[Any] = []

    def roster() -> list[Any]:
        """The encounter's combatants as models, built only for an order that names one
        (SCALE-6: building them for every post was a tenth of an ingest)."""
        if not built:
            built.extend(codec.combatant_to_model(c) for c in encounter.combatants)
        return built

    tz = policy.timezone
    specs: list[read.AwaySpec] = []
    back = False
    for reading in readings:
        if reading.standing and not rows:
            rows.update((c.key, c) for c in encounter.combatants)
        lang = reading.lang or policy.language
        for cmd in reading.standing:
            row = rows[reading.actor]
            rest = cmd.args[0] if cmd.args else ""
            if cmd.name == "standing.away":
                specs.append(read.away_command(rest, lang, post.posted_at, tz, cmd.position))
            elif cmd.name == "standing.back":
                back = True
            elif cmd.name == "standing.default":
                set_order(session, row, read.default_order(rest, lang, roster(), row.key,
                                                           cmd.position),
                          now=now, post=post, rnd=rnd)
            elif cmd.name == "standing.if":
                set_order(session, row, read.if_order(rest, lang, roster(), row.key, cmd.position),
                          now=now, post=post, rnd=rnd)
    if not specs and readings:
        specs = read.free_absences(post.text or "", readings[0].lang or policy.language,
                                   post.posted_at, tz)
    if (back or (not specs and any(r.in_character() for r in readings))) \
            and (absent is None or post.author.casefold() in absent):
        end_absences(session, encounter, post.author, post.posted_at, now, by="post",
                     round_id=rnd.id if rnd else None)
    if specs and absent is not None:
        absent.add(post.author.casefold())
    for spec in specs:
        absence = store.Absence(
            campaign_id=encounter.campaign_id, player=post.author, starts_at=post.posted_at,
            until=spec.until or post.posted_at, note=spec.text[:300], source="post",
            post_id=post.id, created_at=now,
            ended_at=None if spec.until else post.posted_at,
            ended_by=None if spec.until else "unread")
        session.add(absence)
        _audit(session, encounter, "absence.start" if spec.until else "absence.unread",
               post.author, now, {"until": spec.until.isoformat() if spec.until else None,
                                  "text": spec.text, "post": post.platform_id},
               round_id=rnd.id if rnd else None, entity="player")
    if absent is None:   # a batch flushes once at its end (SCALE-6)
        session.flush()


def end_absences(session: Session, encounter: m.Encounter, player: str, at: datetime,
                 now: datetime, *, by: str, round_id: int | None = None,
                 narrator_id: int | None = None, actor: str = "system") -> int:
    """End *player*'s absences running at *at* (begun before it); returns how many."""
    n = 0
    for a in store.absences(session, encounter.campaign_id, player=player):
        if a.active_at(at) and a.starts_at < at:
            a.ended_at, a.ended_by = at, by
            n += 1
            session.add(m.AuditEntry(at=now, actor=actor,
                                     narrator_id=narrator_id, campaign_id=encounter.campaign_id,
                                     encounter_id=encounter.id, round_id=round_id,
                                     action="absence.end", entity="player", entity_id=player,
                                     before={"until": a.until.isoformat()},
                                     after={"ended_at": at.isoformat(), "by": by}))
    return n


def set_order(session: Session, row: m.Combatant, spec: read.OrderSpec, *, now: datetime,
              post: m.Post | None = None, rnd: m.Round | None = None, source: str = "post",
              narrator_id: int | None = None, actor: str = "system"
              ) -> store.StandingOrder | None:
    """Store one order for *row*; a new default replaces the old one; a refused default
    (a limited resource, STALL-2) or unread words are stored ``refused`` with the reason,
    so the reply and the panel can say why. Returns the stored order (None: cleared)."""
    enc = row.encounter
    if spec.kind in ("default", "clear") and (spec.kind == "clear" or not spec.problem):
        problem = rules.default_problem(spec.actions) if spec.kind == "default" else None
        if problem is None:
            for old in store.orders(session, [row.id]):
                if old.kind == "default":
                    old.state, old.ended_at = "replaced", now
    else:
        problem = None
    reason = spec.problem or (f"limited:{problem}" if problem else None)
    order = store.StandingOrder(
        combatant_id=row.id, kind="default" if spec.kind == "clear" else spec.kind,
        text=spec.text[:300], actions=[a.to_dict() for a in spec.actions],
        condition=spec.condition.to_dict() if spec.condition else None,
        state="refused" if reason else ("cancelled" if spec.kind == "clear" else "active"),
        reason=reason if reason else ("cleared" if spec.kind == "clear" else None),
        source=source, post_id=post.id if post else None, round_id=rnd.id if rnd else None,
        narrator_id=narrator_id, created_at=now,
        ended_at=now if spec.kind == "clear" else None)
    session.add(order)
    _audit(session, enc, "standing.refused" if reason else f"standing.{spec.kind}", row.key, now,
           {"text": spec.text, "reason": reason}, round_id=rnd.id if rnd else None,
           actor=actor, narrator_id=narrator_id)
    session.flush()
    return order


# --- the deadline -------------------------------------------------------------------------

@dataclass
class Plan:
    """What one silent player's character does this round, and why."""

    actor: str
    actions: tuple[Action, ...] | None       # None: nothing stands in; the latency rule applies
    source: str                              # default | sheet | ruleset | if | none
    text: str = ""
    away: store.Absence | None = None
    conditionals: list[tuple[store.StandingOrder, rules.StandingCondition,
                             tuple[Action, ...]]] = field(default_factory=list)
    fired: store.StandingOrder | None = None


def _actions(data: Sequence[Mapping[str, Any]]) -> tuple[Action, ...]:
    return tuple(Action.from_dict(a) for a in data)


def ruleset_default(model: Encounter, key: str, houserules: Mapping[str, Any]
                    ) -> tuple[Action, ...]:
    """The ruleset's default for a missing character, without the latency penalty: the
    defend action where the ruleset accepts one (PBP-2's "total defense" / Dodge), else
    nothing (the turn passes)."""
    defend = (Action(ActionKind.DEFEND, text="defend", explicit=False),)
    problems = engine.validate(model, Declaration(actor=key, actions=defend),
                               houserules=houserules)
    return () if problems else defend


def plan_round(session: Session, rnd: m.Round, rows: Sequence[m.Combatant],
               declared: set[str], model: Encounter, policy: RoundPolicy) -> dict[str, Plan]:
    """For each player with no counted declaration: the standing order, or the away
    default, or nothing (the engine's latency rule then). An NPC the narrator has not
    declared for acts from its sheet's ``default_action`` when it has one, so a fight can
    run on with no narrator action (issue 15's simulated campaign); marked and audited
    like a player's standing order."""
    enc = rnd.encounter
    roster: list[Combatant] = list(model.combatants)
    mine: dict[int, list[store.StandingOrder]] = {}
    for o in store.orders(session, [c.id for c in rows]):
        mine.setdefault(o.combatant_id, []).append(o)
    plans: dict[str, Plan] = {}
    for row in rows:
        sheet_default = str((row.sheet or {}).get("default_action") or "").strip()
        if row.down or row.key in declared or (row.sheet or {}).get("is_object"):
            continue
        if not row.player and not sheet_default:
            continue   # an NPC acts when the narrator says so, or from its sheet's default
        away = (store.active_absence(session, enc.campaign_id, row.player, rnd.deadline)
                if row.player else None)
        orders = mine.get(row.id, [])
        plan = Plan(row.key, None, "none", away=away)
        default = next((o for o in reversed(orders) if o.kind == "default"), None)
        if default is not None and rules.default_problem(_actions(default.actions)) is None:
            plan.actions, plan.source, plan.text = _actions(default.actions), "default", default.text
        elif sheet_default:
            spec = read.default_order(sheet_default, policy.language, roster, row.key, 0)
            if spec.actions and rules.default_problem(spec.actions) is None:
                plan.actions, plan.source, plan.text = spec.actions, "sheet", sheet_default
        for o in orders:
            if o.kind == "if" and o.condition:
                plan.conditionals.append((o, rules.StandingCondition.from_dict(o.condition),
                                          _actions(o.actions)))
        if plan.actions is None and away is not None:
            plan.actions, plan.source = ruleset_default(model, row.key, policy.houserules), "ruleset"
            plan.text = "defend" if plan.actions else ""
        if plan.actions is not None or plan.conditionals:
            plans[row.key] = plan
    return plans


def declarations(decls: Sequence[Declaration], plans: Mapping[str, Plan]) -> list[Declaration]:
    """*decls* with each plan's stand-in added (no ``missing``: no latency penalty)."""
    out = [d for d in decls if d.actor not in plans]
    out.extend(Declaration(actor=p.actor, actions=p.actions) for p in plans.values()
               if p.actions is not None)
    return out


def conditional(plans: Mapping[str, Plan]) -> bool:
    return any(p.conditionals for p in plans.values())


def fire(plans: Mapping[str, Plan], events: Sequence[Event], sides: Mapping[str, str]) -> bool:
    """Fire each plan's first conditional order whose condition happened in *events*
    (the trial run); returns whether any fired."""
    any_fired = False
    for plan in plans.values():
        for order, cond, actions in plan.conditionals:
            ev = rules.condition_event(cond, events, plan.actor, sides)
            if ev is not None and actions:
                plan.actions, plan.source, plan.text = rules.aimed(actions, cond, ev), "if", order.text
                plan.fired = order
                any_fired = True
                break
    return any_fired


def events(plans: Mapping[str, Plan]) -> list[Event]:
    """One event per stand-in, for the reply and the audit: ``standing.away`` (away, with
    an order or the ruleset's default), ``standing.order`` (a default), ``standing.if``
    (a conditional order whose condition happened)."""
    out = []
    for p in plans.values():
        if p.actions is None:
            continue
        code = "standing.away" if p.away is not None else (
            "standing.if" if p.source == "if" else "standing.order")
        params: dict[str, Any] = {"source": p.source, "text": p.text}
        if p.away is not None:
            params["until"] = p.away.until.isoformat()
        out.append(Event(code=code, message=f"{p.actor}: {p.source} ({p.text})", actor=p.actor,
                         rule="STALL-1" if p.away is not None else "STALL-2", params=params))
    return out


def audit_plans(session: Session, rnd: m.Round, plans: Mapping[str, Plan], now: datetime) -> None:
    for p in plans.values():
        if p.actions is not None:
            _audit(session, rnd.encounter, "standing.apply", p.actor, now,
                   {"source": p.source, "text": p.text, "away": p.away is not None,
                    "order": p.fired.id if p.fired else None}, round_id=rnd.id)


# --- what the reply says ------------------------------------------------------------------

_ORDER_NOTE = {"active": "order-set", "replaced": "order-set", "refused": "order-refused",
               "cancelled": "order-cleared"}


def acknowledgments(session: Session, rnd: m.Round, rows: Sequence[m.Combatant]
                    ) -> dict[str, list[dict[str, Any]]]:
    """Combatant key -> notes saying what this round's posts set: orders noted, refused or
    not understood, absences noted or not understood (STALL-1, STALL-2)."""
    by_id = {c.id: c for c in rows}
    out: dict[str, list[dict[str, Any]]] = {}
    for o in store.round_orders(session, rnd.id):
        row = by_id.get(o.combatant_id)
        if row is None:
            continue
        code = _ORDER_NOTE.get(o.state, "order-set")
        if o.state == "refused" and not str(o.reason or "").startswith("limited:"):
            code = "order-unread"
        elif o.kind == "if" and code == "order-set":
            code = "order-if"
        out.setdefault(row.key, []).append({"code": code, "text": o.text, "reason": o.reason})
    post_ids = store.round_post_ids(session, rnd.id)
    for a in store.round_absences(session, rnd.encounter.campaign_id, post_ids):
        for row in rows:
            if row.player and row.player.casefold() == a.player.casefold():
                out.setdefault(row.key, []).append(
                    {"code": "away-unread" if a.ended_by == "unread" else "away-set",
                     "until": a.until.isoformat(), "text": a.note})
    return out


def stand_in_note(code: str, params: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The reply's note for a ``standing.*`` event of the resolver (see :func:`events`)."""
    p = dict(params, name=name)
    if code == "standing.away":
        p["code"] = ("away-order" if p.get("source") in ("default", "sheet", "if")
                     else "away-default" if p.get("text") else "away-pass")
    else:
        p["code"] = "standing-if" if code == "standing.if" else "standing-order"
    return p


def not_away(session: Session, rnd: m.Round, rows: Sequence[m.Combatant]) -> list[m.Combatant]:
    """*rows* (players who have not posted) without those away at the round's deadline:
    a reminder does not nag a player who said they are away (STALL-1)."""
    campaign_id = rnd.encounter.campaign_id
    return [c for c in rows if not c.player
            or store.active_absence(session, campaign_id, c.player, rnd.deadline) is None]

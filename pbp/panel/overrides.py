"""Narrator overrides as plain service functions: ``(session, ids, values, reason, narrator)``.

Each function checks the shape of the change, applies it to the store, and writes one
:class:`~pbp.store.models.Override` (shown, marked, in the reply it affects) and one
:class:`~pbp.store.models.AuditEntry` (before/after). None commits: the caller (a panel
view, the CLI, a worker) owns the transaction. No rule of the game is decided here:
what a changed value *means* is the engine's business at resolution.

Rolls are immutable (PBP-4; the store refuses to flush a change): setting a roll's
result records an Override of kind ``roll`` that resolution applies by roll index
(:func:`roll_totals`), and the panel shows the overridden total, marked.

>>> reason_or_fail("  typo in the tag ")
'typo in the tag'
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..store.models import (
    AuditEntry,
    Combatant,
    Declaration,
    Encounter,
    Narrator,
    Override,
    Reply,
    RollRecord,
    Round,
)

#: Every override kind, in the order the panel lists them.
KINDS = ("roll", "hp", "condition.add", "condition.remove", "initiative", "action.confirm",
         "action.correct", "action.reject", "penalty.waive", "penalty.apply", "deadline",
         "reply.hold", "reply.approve", "round.reresolve")


class OverrideError(PbpError):
    """An override that cannot be applied as asked (no reason, unknown id, wrong state)."""


def reason_or_fail(reason: str | None) -> str:
    text = (reason or "").strip()
    if not text:
        raise OverrideError("an override needs a reason")
    if len(text) > 500:
        raise OverrideError("a reason is at most 500 characters")
    return text


def _now() -> datetime:
    return datetime.now(UTC)


def _narrator(session: Session, narrator: Narrator | int | None) -> tuple[int | None, str]:
    if narrator is None:
        return None, "system"
    row = narrator if isinstance(narrator, Narrator) else session.get(Narrator, narrator)
    if row is None:
        raise OverrideError(f"no narrator #{narrator}")
    return row.id, row.username


def _get(session: Session, model: Any, ident: int, what: str) -> Any:
    row = session.get(model, ident)
    if row is None:
        raise OverrideError(f"no {what} #{ident}")
    return row


def _open_round(session: Session, encounter: Encounter) -> Round | None:
    return session.scalars(select(Round).where(Round.encounter_id == encounter.id)
                           .order_by(Round.number.desc()).limit(1)).first()


def _record(session: Session, *, encounter: Encounter, round_id: int | None, kind: str,
            target: str | None, before: Any, after: Any, reason: str,
            narrator: Narrator | int | None, entity: str, entity_id: Any,
            applied: bool = True, extra: dict[str, Any] | None = None) -> Override:
    narrator_id, actor = _narrator(session, narrator)
    payload = {"before": before, "after": after, **(extra or {})}
    ov = Override(encounter_id=encounter.id, round_id=round_id, narrator_id=narrator_id, kind=kind,
                  target=target, payload=payload, reason=reason, applied=applied, created_at=_now())
    session.add(ov)
    session.add(AuditEntry(at=_now(), narrator_id=narrator_id, actor=actor,
                           campaign_id=encounter.campaign_id, action=f"override.{kind}",
                           entity=entity, entity_id=str(entity_id),
                           before={"value": before}, after={"value": after}, note=reason))
    session.flush()
    return ov


# --- rolls --------------------------------------------------------------------------------


def set_roll(session: Session, roll_id: int, total: int, reason: str,
             narrator: Narrator | int | None) -> Override:
    """Set roll *roll_id*'s result to *total* (the stored roll stays as rolled)."""
    reason = reason_or_fail(reason)
    roll = _get(session, RollRecord, roll_id, "roll")
    rnd = _get(session, Round, roll.round_id, "round")
    before = roll_totals(session, rnd.id).get(roll.roll_index, roll.total)
    return _record(session, encounter=rnd.encounter, round_id=rnd.id, kind="roll",
                   target=str(roll.roll_index), before=before, after=int(total), reason=reason,
                   narrator=narrator, entity="roll", entity_id=roll.id, applied=False,
                   extra={"roll_id": roll.id, "roll_index": roll.roll_index, "actor": roll.actor,
                          "rolled": roll.total})


def roll_totals(session: Session, round_id: int) -> dict[int, int]:
    """Roll index -> total set by the narrator (the latest override wins)."""
    rows = session.scalars(select(Override).where(Override.round_id == round_id, Override.kind == "roll")
                           .order_by(Override.id))
    return {int(o.payload["roll_index"]): int(o.payload["after"]) for o in rows}


# --- combatants ---------------------------------------------------------------------------


def set_hp(session: Session, combatant_id: int, hp: int, reason: str,
           narrator: Narrator | int | None) -> Override:
    reason = reason_or_fail(reason)
    c = _get(session, Combatant, combatant_id, "combatant")
    before, c.hp = c.hp, int(hp)
    enc = c.encounter
    rnd = _open_round(session, enc)
    return _record(session, encounter=enc, round_id=rnd.id if rnd else None, kind="hp", target=c.key,
                   before=before, after=c.hp, reason=reason, narrator=narrator,
                   entity="combatant", entity_id=c.id, extra={"name": c.name})


def add_condition(session: Session, combatant_id: int, name: str, rounds: int | None, reason: str,
                  narrator: Narrator | int | None) -> Override:
    """Add condition *name* for *rounds* rounds (None: until removed), from this round."""
    reason = reason_or_fail(reason)
    name = (name or "").strip().lower()
    if not name:
        raise OverrideError("a condition needs a name")
    if rounds is not None and rounds < 1:
        raise OverrideError("a duration is at least one round")
    c = _get(session, Combatant, combatant_id, "combatant")
    enc = c.encounter
    before = [dict(x) for x in c.conditions]
    cond = {"name": name, "rounds": rounds, "started_round": enc.round_number, "started_count": None,
            "source": None, "value": 0}
    c.conditions = [x for x in before if x.get("name") != name] + [cond]
    rnd = _open_round(session, enc)
    return _record(session, encounter=enc, round_id=rnd.id if rnd else None, kind="condition.add",
                   target=c.key, before=before, after=c.conditions, reason=reason, narrator=narrator,
                   entity="combatant", entity_id=c.id, extra={"name": c.name, "condition": name,
                                                              "rounds": rounds})


def remove_condition(session: Session, combatant_id: int, name: str, reason: str,
                     narrator: Narrator | int | None) -> Override:
    reason = reason_or_fail(reason)
    c = _get(session, Combatant, combatant_id, "combatant")
    name = (name or "").strip().lower()
    before = [dict(x) for x in c.conditions]
    if not any(x.get("name") == name for x in before):
        raise OverrideError(f"{c.name} has no condition {name!r}")
    c.conditions = [x for x in before if x.get("name") != name]
    enc = c.encounter
    rnd = _open_round(session, enc)
    return _record(session, encounter=enc, round_id=rnd.id if rnd else None, kind="condition.remove",
                   target=c.key, before=before, after=c.conditions, reason=reason, narrator=narrator,
                   entity="combatant", entity_id=c.id, extra={"name": c.name, "condition": name})


def reorder_initiative(session: Session, encounter_id: int, order: list[str], reason: str,
                       narrator: Narrator | int | None) -> Override:
    """Replace the initiative order; *order* must name each combatant key exactly once."""
    reason = reason_or_fail(reason)
    enc = _get(session, Encounter, encounter_id, "encounter")
    keys = [c.key for c in enc.combatants]
    order = [k.strip() for k in order if k.strip()]
    unknown = [k for k in order if k not in keys]
    if unknown:
        raise OverrideError(f"unknown combatant {unknown[0]!r} in the order")
    if len(set(order)) != len(order):
        raise OverrideError("a combatant appears twice in the order")
    current = list(enc.order) or keys
    if set(order) != set(current) and set(order) != set(keys):
        missing = [k for k in current if k not in order]
        raise OverrideError(f"the order leaves out {', '.join(missing)}")
    before = list(current)
    enc.order = order
    rnd = _open_round(session, enc)
    if rnd is not None and rnd.state == "open":
        rnd.order = order
    return _record(session, encounter=enc, round_id=rnd.id if rnd else None, kind="initiative",
                   target=None, before=before, after=order, reason=reason, narrator=narrator,
                   entity="encounter", entity_id=enc.id)


# --- declarations -------------------------------------------------------------------------


def judge_action(session: Session, declaration_id: int, index: int, verdict: str, reason: str,
                 narrator: Narrator | int | None, *, kind: str | None = None,
                 target: str | None = None) -> Override:
    """Confirm, correct (new kind/target) or reject action *index* of a declaration."""
    reason = reason_or_fail(reason)
    if verdict not in ("confirm", "correct", "reject"):
        raise OverrideError(f"unknown verdict {verdict!r}")
    d = _get(session, Declaration, declaration_id, "declaration")
    actions = [dict(a) for a in d.actions]
    if not 0 <= index < len(actions):
        raise OverrideError(f"declaration #{d.id} has no action #{index}")
    before = dict(actions[index])
    if verdict == "reject":
        after = None
        del actions[index]
    else:
        after = dict(before, explicit=True, confidence=1.0)
        if verdict == "correct":
            from ..rules.model import ActionKind

            if kind:
                try:
                    after["kind"] = ActionKind(kind).value
                except ValueError:
                    raise OverrideError(f"unknown action kind {kind!r}") from None
            if target is not None:
                keys = {c.key for c in d.combatant.encounter.combatants}
                if target and target not in keys:
                    raise OverrideError(f"unknown target {target!r}")
                after["target"] = target or None
        actions[index] = after
    d.actions = actions
    d.updated_at = _now()
    enc = d.combatant.encounter
    return _record(session, encounter=enc, round_id=d.round_id, kind=f"action.{verdict}",
                   target=d.combatant.key, before=before, after=after, reason=reason,
                   narrator=narrator, entity="declaration", entity_id=d.id,
                   extra={"index": index, "name": d.combatant.name})


def set_penalty(session: Session, round_id: int, combatant_key: str, waive: bool, reason: str,
                narrator: Narrator | int | None) -> Override:
    """Waive (or apply again) the latency penalty (PBP-2) of one combatant this round."""
    reason = reason_or_fail(reason)
    rnd = _get(session, Round, round_id, "round")
    enc = rnd.encounter
    if combatant_key not in {c.key for c in enc.combatants}:
        raise OverrideError(f"unknown combatant {combatant_key!r}")
    before = sorted(rnd.waived)
    waived = set(before)
    (waived.add if waive else waived.discard)(combatant_key)
    rnd.waived = sorted(waived)
    return _record(session, encounter=enc, round_id=rnd.id,
                   kind="penalty.waive" if waive else "penalty.apply", target=combatant_key,
                   before=before, after=rnd.waived, reason=reason, narrator=narrator,
                   entity="round", entity_id=rnd.id)


# --- the round ----------------------------------------------------------------------------


def set_deadline(session: Session, round_id: int, deadline: datetime, reason: str,
                 narrator: Narrator | int | None) -> Override:
    """Extend or shorten an open round's deadline (*deadline* aware)."""
    reason = reason_or_fail(reason)
    if deadline.tzinfo is None:
        raise OverrideError("a deadline needs a time zone")
    rnd = _get(session, Round, round_id, "round")
    if rnd.state != "open":
        raise OverrideError(f"round {rnd.number} is {rnd.state}: its deadline is past changing")
    if deadline <= rnd.opens_at:
        raise OverrideError("the deadline must come after the round opens")
    before = rnd.deadline.isoformat()
    rnd.deadline = deadline.astimezone(UTC)
    return _record(session, encounter=rnd.encounter, round_id=rnd.id, kind="deadline", target=None,
                   before=before, after=rnd.deadline.isoformat(), reason=reason, narrator=narrator,
                   entity="round", entity_id=rnd.id)


def set_reply(session: Session, reply_id: int, approve: bool, reason: str,
              narrator: Narrator | int | None) -> Override:
    """Hold a reply for approval, or approve it (the outbox worker then posts it)."""
    reason = reason_or_fail(reason)
    reply = _get(session, Reply, reply_id, "reply")
    if reply.state not in ("held", "pending"):
        raise OverrideError(f"the reply is {reply.state}: too late to hold or approve it")
    if reply.round_id is None:
        raise OverrideError("only a round's reply can be held or approved here")
    rnd = _get(session, Round, reply.round_id, "round")
    before = reply.state
    narrator_id, _actor = _narrator(session, narrator)
    if approve:
        reply.state, reply.approved_by, reply.approved_at = "pending", narrator_id, _now()
    else:
        reply.state, reply.approved_by, reply.approved_at = "held", None, None
    return _record(session, encounter=rnd.encounter, round_id=rnd.id,
                   kind="reply.approve" if approve else "reply.hold", target=str(reply.id),
                   before=before, after=reply.state, reason=reason, narrator=narrator,
                   entity="reply", entity_id=reply.id)


def reresolve_round(session: Session, round_id: int, reason: str, narrator: Narrator | int | None,
                    now: datetime | None = None) -> Override:
    """Resolve a round again with the overrides made since (the reply must not be sent)."""
    reason = reason_or_fail(reason)
    rnd = _get(session, Round, round_id, "round")
    sent = session.scalars(select(Reply).where(Reply.round_id == rnd.id, Reply.kind == "resolution",
                                               Reply.state.in_(("sending", "sent")))).first()
    if sent is not None:
        raise OverrideError("the round's reply is already posted; open a correction instead")
    from ..rounds import service

    redo = getattr(service, "reresolve_round", None)
    if redo is None:
        raise OverrideError("re-resolution is not available in this version of the service")
    before = rnd.state
    redo(session, rnd.id, now or _now())
    return _record(session, encounter=rnd.encounter, round_id=rnd.id, kind="round.reresolve",
                   target=str(rnd.number), before=before, after=rnd.state, reason=reason,
                   narrator=narrator, entity="round", entity_id=rnd.id)


# --- what the reply says about them -------------------------------------------------------


def describe(ov: Override) -> str:
    """One plain-English line marking an override in a reply or the panel (no markup)."""
    p = ov.payload or {}
    who = p.get("name") or ov.target or ""
    lines: dict[str, Any] = {
        "roll": lambda: f"roll #{p.get('roll_index')} ({p.get('actor') or '?'}) set to {p.get('after')} "
                f"(rolled {p.get('rolled')})",
        "hp": lambda: f"{who}: HP {p.get('before')} -> {p.get('after')}",
        "condition.add": lambda: f"{who}: {p.get('condition')} added"
                         + (f" for {p.get('rounds')} rounds" if p.get("rounds") else ""),
        "condition.remove": lambda: f"{who}: {p.get('condition')} removed",
        "initiative": lambda: f"initiative order: {', '.join(p.get('after') or [])}",
        "action.confirm": lambda: f"{who}: inferred action confirmed",
        "action.correct": lambda: f"{who}: inferred action corrected",
        "action.reject": lambda: f"{who}: inferred action rejected",
        "penalty.waive": lambda: f"{ov.target}: latency penalty waived",
        "penalty.apply": lambda: f"{ov.target}: latency penalty applied",
        "deadline": lambda: f"deadline moved to {p.get('after')}",
        "reply.hold": lambda: "reply held for approval",
        "reply.approve": lambda: "reply approved",
        "round.reresolve": lambda: "round resolved again",
    }
    text = lines[ov.kind]() if ov.kind in lines else ov.kind
    return f"{text}: {ov.reason}"


#: Kinds that change what happened (marked in the reply); hold/approve only change when.
MARKED = frozenset(KINDS) - {"reply.hold", "reply.approve"}


def reply_marks(session: Session, round_id: int) -> list[str]:
    """The lines marking the narrator's overrides of a round, oldest first (for renderers)."""
    rows = session.scalars(select(Override).where(Override.round_id == round_id)
                           .order_by(Override.id))
    return [describe(o) for o in rows if o.kind in MARKED]


def as_dict(ov: Override) -> dict[str, Any]:
    return {"id": ov.id, "kind": ov.kind, "target": ov.target, "reason": ov.reason,
            "payload": dict(ov.payload or {}), "created_at": ov.created_at.isoformat()}


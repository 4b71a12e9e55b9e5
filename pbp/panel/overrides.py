"""The panel's corrections as plain service functions: ``(session, ids, values, reason,
narrator)``.

Each checks the shape of the change, applies it to the store and records it through
:func:`pbp.rounds.overrides.record` (one Override, one audit entry of one shape). The
overrides the resolver and ``pbp verify`` read too (a roll's total, the late-post
waiver) and the lines marking overrides in a reply live in :mod:`pbp.rounds.overrides`;
they are named here as well, so a panel view finds every override in one place. None
commits: the caller (a panel view, the CLI, a worker) owns the transaction. No rule of
the game is decided here: what a changed value *means* is the engine's business at
resolution.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from ..errors import UnreadableInput
from ..rounds import approval, codec, service
from ..rounds.notices import queue_deadline_notice
from ..rounds.overrides import (
    KINDS,
    MARKED,
    OverrideError,
    check_changeable,
    get_row,
    narrator_of,
    now_utc,
    reason_or_fail,
    record,
    reply_marks,
    roll_totals,
    set_penalty,
    set_roll,
)
from ..rules import engine
from ..rules.model import Action, ActionKind
from ..store import queries
from ..store.models import Combatant, Declaration, Encounter, Narrator, Override, Reply, Round

__all__ = [
    "KINDS", "MARKED", "OverrideError", "add_action", "add_condition", "judge_action", "reason_or_fail",
    "remove_condition", "reorder_initiative", "reply_marks", "reresolve_round", "roll_totals",
    "set_deadline", "set_hp", "set_penalty", "set_reply", "set_roll",
]


def _open_round(session: Session, encounter: Encounter) -> Round | None:
    return queries.current_round(session, encounter.id)


def _stored_name(ruleset: str, name: str | None) -> str:
    """The name a condition is stored under: the ruleset's canonical key, or (a name it
    does not know, perhaps stored before names were normalised) the name lower-cased."""
    text = (name or "").strip()
    try:
        return engine.normalise_condition(ruleset, text)
    except UnreadableInput:
        return text.lower()


# --- combatants ---------------------------------------------------------------------------


def set_hp(session: Session, combatant_id: int, hp: int, reason: str,
           narrator: Narrator | int | None) -> Override:
    reason = reason_or_fail(reason)
    c = get_row(session, Combatant, combatant_id, "combatant")
    if int(hp) > c.max_hp:   # issue 12: over max only where the narrator confirms it
        raise OverrideError(f"HP {int(hp)} is more than {c.name}'s max HP {c.max_hp}: edit the "
                            "combatant and confirm it there")
    before, c.hp = c.hp, int(hp)
    enc = c.encounter
    rnd = _open_round(session, enc)
    return record(session, encounter=enc, round_id=rnd.id if rnd else None, kind="hp", target=c.key,
                  before=before, after=c.hp, reason=reason, narrator=narrator,
                  entity="combatant", entity_id=c.id, extra={"name": c.name})


def add_condition(session: Session, combatant_id: int, name: str, rounds: int | None, reason: str,
                  narrator: Narrator | int | None) -> Override:
    """Add condition *name* for *rounds* rounds (None: until removed), from this round."""
    reason = reason_or_fail(reason)
    name = (name or "").strip()
    if not name:
        raise OverrideError("a condition needs a name")
    if rounds is not None and rounds < 1:
        raise OverrideError("a duration is at least one round")
    c = get_row(session, Combatant, combatant_id, "combatant")
    enc = c.encounter
    name = engine.normalise_condition(enc.ruleset, name)   # unknown: UnreadableInput, named
    before = [dict(x) for x in c.conditions]
    cond = {"name": name, "rounds": rounds, "started_round": enc.round_number, "started_count": None,
            "source": None, "value": 0}
    c.conditions = [x for x in before if x.get("name") != name] + [cond]
    rnd = _open_round(session, enc)
    return record(session, encounter=enc, round_id=rnd.id if rnd else None, kind="condition.add",
                  target=c.key, before=before, after=c.conditions, reason=reason, narrator=narrator,
                  entity="combatant", entity_id=c.id, extra={"name": c.name, "condition": name,
                                                              "rounds": rounds})


def remove_condition(session: Session, combatant_id: int, name: str, reason: str,
                     narrator: Narrator | int | None) -> Override:
    reason = reason_or_fail(reason)
    c = get_row(session, Combatant, combatant_id, "combatant")
    name = _stored_name(c.encounter.ruleset, name)
    before = [dict(x) for x in c.conditions]
    if not any(x.get("name") == name for x in before):
        raise OverrideError(f"{c.name} has no condition {name!r}")
    c.conditions = [x for x in before if x.get("name") != name]
    enc = c.encounter
    rnd = _open_round(session, enc)
    return record(session, encounter=enc, round_id=rnd.id if rnd else None, kind="condition.remove",
                  target=c.key, before=before, after=c.conditions, reason=reason, narrator=narrator,
                  entity="combatant", entity_id=c.id, extra={"name": c.name, "condition": name})


def reorder_initiative(session: Session, encounter_id: int, order: list[str], reason: str,
                       narrator: Narrator | int | None) -> Override:
    """Replace the initiative order; *order* must name each combatant key exactly once."""
    reason = reason_or_fail(reason)
    enc = get_row(session, Encounter, encounter_id, "encounter")
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
    return record(session, encounter=enc, round_id=rnd.id if rnd else None, kind="initiative",
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
    d = get_row(session, Declaration, declaration_id, "declaration")
    check_changeable(session, get_row(session, Round, d.round_id, "round"))
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
    d.updated_at = now_utc()
    enc = d.combatant.encounter
    return record(session, encounter=enc, round_id=d.round_id, kind=f"action.{verdict}",
                  target=d.combatant.key, before=before, after=after, reason=reason,
                  narrator=narrator, entity="declaration", entity_id=d.id,
                  extra={"index": index, "name": d.combatant.name})


_ARMED = frozenset(("attack", "cast", "maneuver", "reaction", "full-round"))


def add_action(session: Session, declaration_id: int, kind: str, target: str | None,
               weapon: str | None, reason: str, narrator: Narrator | int | None) -> Override:
    """Add an action to a declaration of a round still to resolve (issue 13 item 3): the
    narrator reads a post the parser did not understand ("no action", a post in words it
    does not know). An attack-like action takes the post's first roll tag that no action
    owns, so the roll the player made is the one resolved; the reply says the narrator
    read the post so."""
    reason = reason_or_fail(reason)
    d = get_row(session, Declaration, declaration_id, "declaration")
    rnd = get_row(session, Round, d.round_id, "round")
    if rnd.state != "open":
        raise OverrideError(f"round {rnd.number} is {rnd.state}: add actions to the open round")
    check_changeable(session, rnd)
    try:
        action_kind = ActionKind(kind)
    except ValueError:
        raise OverrideError(f"unknown action kind {kind!r}") from None
    enc = d.combatant.encounter
    target = (target or "").strip() or None
    if target is not None and target not in {c.key for c in enc.combatants}:
        raise OverrideError(f"unknown target {target!r}")
    options: dict[str, Any] = {"source": "narrator"}
    rolled = None
    if action_kind.value in _ARMED and d.post_id is not None:
        owned = {i for a in d.actions for i in (a.get("options") or {}).get("roll_indices") or ()}
        free = [r for r in queries.post_tag_rolls(session, d.post_id, d.combatant.key)
                if r.tag_index is not None and r.tag_index not in owned]
        if free:
            options.update(roll_index=free[0].tag_index, roll_indices=(free[0].tag_index,))
            rolled = codec.roll_from_record(free[0])
    action = Action(action_kind, target=target, weapon=(weapon or "").strip() or None,
                    explicit=True, confidence=1.0, rolled=rolled, options=options)
    after = action.to_dict()
    d.actions = [dict(a) for a in d.actions] + [after]
    d.updated_at = now_utc()
    return record(session, encounter=enc, round_id=d.round_id, kind="action.add",
                  target=d.combatant.key, before=None, after=after, reason=reason,
                  narrator=narrator, entity="declaration", entity_id=d.id,
                  extra={"index": len(d.actions) - 1, "name": d.combatant.name})


# --- the round ----------------------------------------------------------------------------


def set_deadline(session: Session, round_id: int, deadline: datetime, reason: str,
                 narrator: Narrator | int | None) -> Override:
    """Extend or shorten an open round's deadline (*deadline* aware)."""
    reason = reason_or_fail(reason)
    if deadline.tzinfo is None:
        raise OverrideError("a deadline needs a time zone")
    rnd = get_row(session, Round, round_id, "round")
    if rnd.state != "open":
        raise OverrideError(f"round {rnd.number} is {rnd.state}: its deadline is past changing")
    if deadline <= rnd.opens_at:
        raise OverrideError("the deadline must come after the round opens")
    previous = rnd.deadline
    rnd.deadline = deadline.astimezone(UTC)
    ov = record(session, encounter=rnd.encounter, round_id=rnd.id, kind="deadline", target=None,
                before=previous.isoformat(), after=rnd.deadline.isoformat(), reason=reason,
                narrator=narrator, entity="round", entity_id=rnd.id)
    if not queries.announcement_held(session, rnd):   # else the announcement will say it
        queue_deadline_notice(session, rnd, previous, ov.id, now_utc())
    return ov


def set_reply(session: Session, reply_id: int, approve: bool, reason: str,
              narrator: Narrator | int | None) -> Override:
    """Hold a reply for approval, or approve it (the outbox worker then posts it). An
    approved result opens the round it announces, its deadline starting now
    (:mod:`pbp.rounds.approval`, issue 11 item 4)."""
    reason = reason_or_fail(reason)
    reply = get_row(session, Reply, reply_id, "reply")
    if reply.state not in ("held", "pending"):
        raise OverrideError(f"the reply is {reply.state}: too late to hold or approve it")
    if reply.round_id is None:
        raise OverrideError("only a round's reply can be held or approved here")
    rnd = get_row(session, Round, reply.round_id, "round")
    before = reply.state
    narrator_id, _actor = narrator_of(session, narrator)
    after = before
    if approve and before == "held":
        after = "pending" if approval.approve(session, reply.id, narrator_id, now_utc()) else "cancelled"
    elif not approve:
        approval.hold(session, reply.id)
        after = "held"
    return record(session, encounter=rnd.encounter, round_id=rnd.id,
                  kind="reply.approve" if approve else "reply.hold", target=str(reply_id),
                  before=before, after=after, reason=reason, narrator=narrator,
                  entity="reply", entity_id=reply_id)


def reresolve_round(session: Session, round_id: int, reason: str, narrator: Narrator | int | None,
                    now: datetime | None = None) -> Override:
    """Resolve a round again with the overrides made since (the reply must not be sent)."""
    reason = reason_or_fail(reason)
    rnd = get_row(session, Round, round_id, "round")
    if queries.posted(queries.reply_parts(session, rnd.id, "resolution")):
        raise OverrideError("the round's reply is already posted; open a correction instead")
    before = rnd.state
    service.reresolve_round(session, rnd.id, now or now_utc())
    return record(session, encounter=rnd.encounter, round_id=rnd.id, kind="round.reresolve",
                  target=str(rnd.number), before=before, after=rnd.state, reason=reason,
                  narrator=narrator, entity="round", entity_id=rnd.id)

"""Narrator overrides, one home: how one is recorded, what a roll override totals, the
late-post waiver, and the line that marks an override in a reply.

Used by the resolver (:mod:`pbp.rounds.resolve`), ``pbp verify``, the round service and
the panel (:mod:`pbp.panel.overrides` adds the panel's other corrections on top). Every
override writes one :class:`~pbp.store.models.Override` (shown, marked, in the reply it
affects) and one :class:`~pbp.store.models.AuditEntry` of one shape: ``action`` is
``override.<kind>``, ``before``/``after`` are ``{"value": ...}``, ``note`` the reason,
``actor`` the narrator's username (``system`` without one). None commits: the caller
owns the transaction.

Rolls are immutable (PBP-4): setting a roll's result records an override of kind
``roll`` that resolution applies by roll index (:class:`OverridingBox`); the stored roll
stays as the seed gave it.

>>> reason_or_fail("  typo in the tag ")
'typo in the tag'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from ..dice import DiceBox, Roll, check_expression, has_stats, substitute_stats
from ..errors import PbpError
from ..render.overrides import override_text
from ..store import queries
from ..store.models import AuditEntry, Encounter, Narrator, Override, RollRecord, Round

#: Every override kind, in the order the panel lists them.
KINDS = ("roll", "hp", "condition.add", "condition.remove", "initiative", "action.add",
         "action.confirm", "action.correct", "action.reject", "penalty.waive", "penalty.apply", "deadline",
         "reply.hold", "reply.approve", "round.reresolve", "round.correct")

#: Kinds that change what happened (marked in the reply); hold/approve only change when,
#: and a correction is its own reply.
MARKED = frozenset(KINDS) - {"reply.hold", "reply.approve", "round.correct"}

#: Marked kinds a re-resolution or a correction brings into a resolved round's reply
#: (a deadline moved, a re-resolution, say nothing about the result).
RESULT_KINDS = MARKED - {"deadline", "round.reresolve"}


class OverrideError(PbpError):
    """An override that cannot be applied as asked (no reason, unknown id, wrong state)."""


def reason_or_fail(reason: str | None) -> str:
    """Every override says why (shown in the reply and the audit log)."""
    text = (reason or "").strip()
    if not text:
        raise OverrideError("an override needs a reason")
    if len(text) > 500:
        raise OverrideError("a reason is at most 500 characters")
    return text


def now_utc() -> datetime:
    return datetime.now(UTC)


def get_row(session: Session, model: Any, ident: int, what: str) -> Any:
    """Row *ident* of *model*, or an :class:`OverrideError` naming what is missing."""
    row = session.get(model, ident)
    if row is None:
        raise OverrideError(f"no {what} #{ident}")
    return row


def narrator_of(session: Session, narrator: Narrator | int | None) -> tuple[int | None, str]:
    """(narrator id, the audit log's actor) of whoever makes the override."""
    if narrator is None:
        return None, "system"
    row = narrator if isinstance(narrator, Narrator) else session.get(Narrator, narrator)
    if row is None:
        raise OverrideError(f"no narrator #{narrator}")
    return row.id, row.username


def record(session: Session, *, encounter: Encounter, round_id: int | None, kind: str,
           target: str | None, before: Any, after: Any, reason: str,
           narrator: Narrator | int | None, entity: str, entity_id: Any,
           applied: bool = True, extra: dict[str, Any] | None = None,
           now: datetime | None = None) -> Override:
    """Write the override and its audit entry (the one shape, see the module)."""
    narrator_id, actor = narrator_of(session, narrator)
    at = now or now_utc()
    payload = {"before": before, "after": after, **(extra or {})}
    rnd = session.get(Round, round_id) if round_id is not None else None
    if rnd is not None and rnd.state == "resolved" and kind in RESULT_KINDS:
        applied = False     # not in the round's result until re-resolved or corrected
    ov = Override(encounter_id=encounter.id, round_id=round_id, narrator_id=narrator_id, kind=kind,
                  target=target, payload=payload, reason=reason, applied=applied, created_at=at)
    session.add(ov)
    session.add(AuditEntry(at=at, narrator_id=narrator_id, actor=actor,
                           campaign_id=encounter.campaign_id, action=f"override.{kind}",
                           encounter_id=encounter.id, round_id=round_id,
                           entity=entity, entity_id=str(entity_id),
                           before={"value": before}, after={"value": after}, note=reason))
    session.flush()
    return ov


# --- roll overrides -----------------------------------------------------------------------


def totals(rows: Iterable[Override]) -> dict[int, int]:
    """Roll index -> the total the narrator set (the latest override of a roll wins)."""
    return {int(o.payload["roll_index"]): int(o.payload["after"]) for o in rows
            if o.kind == "roll" and "roll_index" in (o.payload or {})}


def roll_totals(session: Session, round_id: int) -> dict[int, int]:
    """:func:`totals` of a round's stored roll overrides."""
    return totals(queries.round_overrides(session, round_id, "roll"))


def override_roll(r: Roll, total: int) -> Roll:
    """*r* as the engine sees it once the narrator set its total (the breakdown says so)."""
    return dataclasses.replace(r, total=int(total),
                               breakdown=f"{r.breakdown} -> {int(total)} (narrator)")


class OverridingBox(DiceBox):
    """A DiceBox that hands the engine the narrator's total for an overridden roll index.

    The roll itself (faces, seed index) is what the seed gives and is stored as such
    (``raw``); only what the engine sees changes, and the reply marks it.
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


class ReplayingBox(OverridingBox):
    """An :class:`OverridingBox` that hands a re-resolution the rolls already made.

    Why: correcting one value of a resolved round must not re-roll everything else
    (issue 11 item 6: "re-resolved with every roll kept"). Each stored engine roll is
    kept in a queue per (expression as rolled, label); the engine's next request of
    the same expression and label gets the next stored roll made in the same actor's
    turn (else the next one of any turn: a reaction), at its own index, with the
    narrator's total if one was set. Why the turn: when a correction turns a hit into a
    miss, that hit's damage roll goes unused, and the next actor's damage must stay their
    own roll, not take the unused one (walked in tests/journey). A request nothing stored matches (an attack
    the correction made possible) draws a fresh roll at the next free index under the
    same seed; only those go to ``raw`` (stored), so ``pbp verify`` still checks all.
    """

    def __init__(self, seed: str, start_index: int, totals: Mapping[int, int],
                 stored: Iterable[RollRecord]) -> None:
        super().__init__(seed, start_index, totals)
        self.queues: dict[tuple[str, str | None], list[RollRecord]] = {}
        for rec in sorted(stored, key=lambda r: r.roll_index):
            self.queues.setdefault((rec.expression, rec.label), []).append(rec)
        self.fresh = start_index
        self.replayed: list[Roll] = []

    def roll(self, expression: str, **kwargs: Any) -> Roll:  # type: ignore[override]
        text = check_expression(expression)
        if has_stats(text):
            text = check_expression(substitute_stats(text, kwargs.get("stats") or {},
                                                     kwargs.get("resolve_name")))
        label = kwargs.get("label")
        queue = self.queues.get((text, (label or None) and label[:200]))
        if queue:
            turn = kwargs.get("turn")
            rec = queue.pop(next((i for i, r in enumerate(queue) if turn and r.actor == turn), 0))
            r = Roll(expression=rec.expression, total=rec.total, breakdown=rec.breakdown,
                     faces=tuple(rec.faces or ()), index=rec.roll_index, natural=rec.natural,
                     label=label, markdown=rec.markdown or "")
            self.replayed.append(r)
            return override_roll(r, self.totals[r.index]) if r.index in self.totals else r
        fresh = OverridingBox(self.seed, self.fresh, self.totals)
        r = fresh.roll(expression, **kwargs)
        self.fresh += 1
        self.raw.extend(fresh.raw)
        self.rolls.extend(fresh.rolls)
        return r


def set_roll(session: Session, roll_id: int, total: int, reason: str,
             narrator: Narrator | int | None) -> Override:
    """Set roll *roll_id*'s result to *total* (the stored roll stays as rolled)."""
    reason = reason_or_fail(reason)
    roll = get_row(session, RollRecord, roll_id, "roll")
    if roll.hidden:   # DICE-2: the reply's override list would show its value
        raise OverrideError("a secret roll is used by the narrator as it is: it cannot be "
                            "overridden (reveal it first if the thread must know)")
    rnd = get_row(session, Round, roll.round_id, "round")
    check_changeable(session, rnd)
    before = roll_totals(session, rnd.id).get(roll.roll_index, roll.total)
    return record(session, encounter=rnd.encounter, round_id=rnd.id, kind="roll",
                  target=str(roll.roll_index), before=before, after=int(total), reason=reason,
                  narrator=narrator, entity="roll", entity_id=roll.id, applied=False,
                  extra={"roll_id": roll.id, "roll_index": roll.roll_index, "actor": roll.actor,
                         "rolled": roll.total})


# --- the late-post waiver (PBP-2) ---------------------------------------------------------


def set_penalty(session: Session, round_id: int, combatant_key: str, waive: bool, reason: str,
                narrator: Narrator | int | None, *, now: datetime | None = None) -> Override:
    """Waive (or apply again) the latency penalty (PBP-2) of one combatant this round:
    ``rounds.waived`` changes, resolution reads it."""
    reason = reason_or_fail(reason)
    rnd = get_row(session, Round, round_id, "round")
    check_changeable(session, rnd)
    enc = rnd.encounter
    if combatant_key not in {c.key for c in enc.combatants}:
        raise OverrideError(f"unknown combatant {combatant_key!r}")
    before = sorted(rnd.waived or [])
    waived = set(before)
    (waived.add if waive else waived.discard)(combatant_key)
    rnd.waived = sorted(waived)
    return record(session, encounter=enc, round_id=rnd.id,
                  kind="penalty.waive" if waive else "penalty.apply", target=combatant_key,
                  before=before, after=rnd.waived, reason=reason, narrator=narrator,
                  entity="round", entity_id=rnd.id, now=now)


# --- what the reply says about them -------------------------------------------------------


def describe(ov: Override, lang: str, names: Mapping[str, str], *, private: bool = False) -> str:
    """The line marking *ov* in a reply ("" for hold/approve), in *lang*. The narrator's
    reason is private unless the narrator marked it public (:func:`make_public`): the
    line then says only what the narrator adjusted (issue 11 item 7). *private*: the
    campaign keeps set roll values out of replies (DICE-5; the fact is always said)."""
    reason = ov.reason if (ov.payload or {}).get("public") else ""
    return override_text(ov.kind, ov.payload, ov.target, reason, lang, names, private=private)


def make_public(ov: Override) -> Override:
    """Let the replies quote *ov*'s reason (the narrator ticked "show the reason")."""
    ov.payload = {**(ov.payload or {}), "public": True}
    return ov


def pending_overrides(session: Session, rnd: Round) -> list[Override]:
    """Overrides of resolved round *rnd* not applied yet (made after its result was
    computed, :func:`record`): not in its reply until it is re-resolved (reply not out)
    or corrected (reply out)."""
    return pending_among(queries.round_overrides(session, rnd.id), rnd)


def pending_among(rows: Iterable[Override], rnd: Round) -> list[Override]:
    """:func:`pending_overrides` among *rows* already loaded (the round's overrides)."""
    if rnd.state != "resolved":
        return []
    return [o for o in rows if not o.applied and o.kind in RESULT_KINDS]


def check_changeable(session: Session, rnd: Round) -> None:
    """Refuse an override that could never take effect (issue 11 item 6: nothing is
    recorded and silently not applied). The open round takes it at resolution; a
    resolved round by a re-resolution or a correction, which only the latest resolved
    round can have (a later result already built on it); a closed round never."""
    if rnd.state == "cancelled":
        raise OverrideError(f"round {rnd.number} was closed without a result: nothing to change")
    later = queries.next_round(session, rnd)
    if later is not None and later.state == "resolved":
        raise OverrideError(f"round {rnd.number} is past changing: round {later.number} "
                            "has been resolved since")


def marks(rows: Iterable[Override], lang: str, names: Mapping[str, str], *,
          private: bool = False) -> list[str]:
    """The lines of the overrides among *rows* that change what happened."""
    return [t for t in (describe(o, lang, names, private=private) for o in rows
                        if o.kind in MARKED) if t]


def reply_marks(session: Session, round_id: int) -> list[str]:
    """A round's override lines, oldest first, as its reply says them."""
    rnd = get_row(session, Round, round_id, "round")
    names = {c.key: c.name for c in rnd.encounter.combatants}
    campaign = rnd.encounter.campaign
    return marks(queries.round_overrides(session, round_id), campaign.language, names,
                 private=bool(campaign.private_roll_values))

"""Secret rolls (DICE-2) in the round's replies: sealed while secret, revealed after.

What a reply says of a hidden roll is built here from the store, as plain values
(:class:`pbp.render.hidden.HiddenRoll`) for :mod:`pbp.render.hidden` to say:

* a round's result lists its hidden rolls, sealed (who rolled, the seal
  ``sha256("h:expression")``), or revealed if the narrator already revealed them; their
  values are in no other part of the reply: a secret roll is given to no action (the
  parser keeps it apart), so no event shows it, and it is left out of the actor's rolls
  and of the unused ones;
* a reveal (the narrator's button) records a :class:`pbp.store.models.RollReveal` per roll
  (rolls never change) and the notice reply publishes ``h``, the expression and result;
* the encounter's end reveals every roll still sealed and publishes the key ``K``.

Nothing here queues a reply (:mod:`pbp.rounds.secret` does): the reply builder imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from sqlalchemy.orm import Session

from ..dice import hidden_seed
from ..render.hidden import HiddenRoll
from ..render.view import ReplyView
from ..store import hidden as store
from ..store import models as m


def hidden_roll(enc: m.Encounter, s: store.SecretRoll, names: Mapping[str, str]) -> HiddenRoll:
    """*s* as a reply may show it: with its seed, expression and value once revealed."""
    rec = s.roll
    who = names.get(rec.actor or "", rec.actor or "") if rec.kind != "narrator" else ""
    if s.reveal is None or enc.hidden_key is None:
        return HiddenRoll(rec.roll_index, s.round_number, who, rec.seal or "")
    return HiddenRoll(rec.roll_index, s.round_number, who, rec.seal or "",
                      seed=hidden_seed(enc.hidden_key, s.round_number, rec.roll_index),
                      expression=rec.expression, total=rec.total,
                      faces=tuple(int(f) for f in rec.faces or ()), label=rec.label)


def hidden_indexes(session: Session, round_id: int) -> set[int]:
    """The round's roll indexes no public list may show (sealed or not: a revealed roll is
    said by its own sentence, never as a plain roll)."""
    return {s.roll.roll_index for s in store.round_secrets(session, round_id)}


def opening(view: ReplyView, enc: m.Encounter) -> None:
    """The encounter's opening publishes the hidden key's commitment."""
    if enc.hidden_commitment:
        view.hidden_commitment = enc.hidden_commitment


def resolution(session: Session, view: ReplyView, rnd: m.Round, names: Mapping[str, str]) -> None:
    """A round's result: its secret rolls; at the encounter's end, every one revealed and K."""
    enc = rnd.encounter
    if view.ended:
        ending(session, view, enc, names)
        return
    view.secret = [hidden_roll(enc, s, names) for s in store.round_secrets(session, rnd.id)]


def ending(session: Session, view: ReplyView, enc: m.Encounter, names: Mapping[str, str]) -> None:
    """Every secret roll of the encounter, revealed (:func:`reveal_at_end` ran), and K."""
    if enc.hidden_key is None:
        return
    rolls = [hidden_roll(enc, s, names) for s in store.encounter_secrets(session, enc.id)]
    view.secret = rolls
    view.hidden_key = enc.hidden_key




def record_reveals(session: Session, enc: m.Encounter, secrets: Iterable[store.SecretRoll], *,
                   narrator_id: int | None, reason: str, now: datetime, at_end: bool = False
                   ) -> list[m.RollReveal]:
    """A reveal row for each of *secrets* not revealed yet (``roll_id`` is unique: a second
    reveal of the same roll is a no-op, never a second value)."""
    out = []
    for s in secrets:
        if s.reveal is not None:
            continue
        row = m.RollReveal(roll_id=s.roll.id, encounter_id=enc.id, narrator_id=narrator_id,
                           reason=reason, at_end=at_end, revealed_at=now)
        session.add(row)
        out.append(row)
    session.flush()
    return out


def reveal_at_end(session: Session, enc: m.Encounter, now: datetime) -> list[m.RollReveal]:
    """The encounter is over: every secret roll still sealed is revealed (audited once)."""
    rows = record_reveals(session, enc, store.unrevealed(session, enc.id), narrator_id=None,
                          reason="", now=now, at_end=True)
    if rows:
        session.add(m.AuditEntry(at=now, actor="system", campaign_id=enc.campaign_id,
                                 encounter_id=enc.id, action="roll.reveal", entity="encounter",
                                 entity_id=str(enc.id), before={"sealed": len(rows)},
                                 after={"revealed": [r.roll_id for r in rows], "at_end": True}))
    return rows

"""The narrator's secret rolls (DICE-2): roll one from the panel, reveal one or all.

Why a service and not panel code: the panel, ``pbp`` commands and tests reveal the same
way, audited, and the thread is told through the outbox (a short ``reveal`` reply, held
in approval mode like every reply). None commits: the caller owns the transaction.

The flow: :func:`roll_secret` in an open round (or a player's ``[roll hidden]``); the round's
result says "The narrator rolled in secret (sealed 3fa9c2…)"; :func:`reveal` queues "The
narrator's secret roll #3 of round 1, revealed: 1d20+5 = 19 (dice: 14)".
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from ..dice import check_expression
from ..errors import DiceError, PbpError
from ..render import render_reply
from ..render.hidden import HiddenRoll
from ..store import hidden as store
from ..store import models as m
from ..store import queries
from . import hidden, proof
from .overrides import narrator_of
from .replies import new_view, store_reply
from .rolls import make_roll

#: what a narrator may type as a secret roll's expression: dice, numbers, operators (no
#: stat names: the narrator's roll belongs to no sheet), so its proof line is plain text
_ALLOWED = frozenset("0123456789dDkhlpremiaxo+-*/() <>=f%F")


def _encounter(session: Session, encounter_id: int) -> m.Encounter:
    enc = session.get(m.Encounter, encounter_id)
    if enc is None:
        raise LookupError(f"no encounter {encounter_id}")
    return enc


def _audit(session: Session, enc: m.Encounter, action: str, narrator_id: int | None,
           actor: str, now: datetime, round_id: int | None, after: dict[str, object]) -> None:
    session.add(m.AuditEntry(at=now, narrator_id=narrator_id, actor=actor,
                             campaign_id=enc.campaign_id, encounter_id=enc.id, round_id=round_id,
                             action=action, entity="roll", entity_id=str(after.get("roll", "")),
                             before={}, after=after))


def roll_secret(session: Session, encounter_id: int, expression: str, label: str,
                narrator: m.Narrator | int | None, now: datetime) -> int:
    """Roll *expression* in secret in the open round, for the narrator; returns the roll id.
    The round's result will say "The narrator rolled in secret (sealed …)"."""
    enc = _encounter(session, encounter_id)
    text = " ".join(expression.split())
    if not text or set(text) - _ALLOWED:
        raise DiceError(f"'{expression[:60]}' is not a dice expression (dice, numbers and "
                        "+ - * / only, such as 1d20+5)")
    check_expression(text)
    rnd = queries.current_round(session, enc.id)
    if rnd is None or rnd.state != "open" or enc.status == "finished":
        raise PbpError("no round is open: a secret roll belongs to an open round")
    narrator_id, actor = narrator_of(session, narrator)
    rec = make_roll(session, rnd, text, kind="narrator", label=(label.strip() or None),
                    written=text, hidden=True)
    session.flush()
    _audit(session, enc, "roll.secret", narrator_id, actor, now, rnd.id,
           {"roll": rec.id, "index": rec.roll_index, "label": rec.label})
    return rec.id


def reveal(session: Session, encounter_id: int, roll_ids: Sequence[int] | None,
           narrator: m.Narrator | int | None, now: datetime, *, reason: str = "") -> int | None:
    """Reveal the secret rolls *roll_ids* (None: every one still sealed) and queue the
    reply that publishes them; returns its id, None when nothing was left to reveal."""
    enc = _encounter(session, encounter_id)
    secrets = store.unrevealed(session, enc.id)
    if roll_ids is not None:
        wanted = set(roll_ids)
        unknown = wanted - {s.roll.id for s in store.encounter_secrets(session, enc.id)}
        if unknown:
            raise PbpError(f"roll {min(unknown)} is not a secret roll of this encounter")
        secrets = [s for s in secrets if s.roll.id in wanted]
    narrator_id, actor = narrator_of(session, narrator)
    rows = hidden.record_reveals(session, enc, secrets, narrator_id=narrator_id,
                                 reason=reason.strip(), now=now)
    if not rows:
        return None
    rnd = queries.current_round(session, enc.id)
    _audit(session, enc, "roll.reveal", narrator_id, actor, now, rnd.id if rnd else None,
           {"roll": rows[0].roll_id, "revealed": [r.roll_id for r in rows],
            "reason": reason.strip()})
    shown = {r.roll_id for r in rows}
    names = {c.key: c.name for c in enc.combatants}
    rolls = [hidden.hidden_roll(enc, s, names)
             for s in store.encounter_secrets(session, enc.id) if s.roll.id in shown]
    reply_id = _queue(session, enc, rnd, rolls, reason.strip(), names, now, rows[0].id, shown)
    for r in rows:
        r.reply_id = reply_id
    session.flush()
    return reply_id


def _queue(session: Session, enc: m.Encounter, rnd: m.Round | None, rolls: list[HiddenRoll],
           reason: str, names: dict[str, str], now: datetime, first: int, shown: set[int]) -> int:
    if rnd is None:
        raise PbpError("the encounter never started: it has no secret roll to reveal")

    def body(marker: str) -> str:
        view = new_view(rnd, "reveal", marker, names)
        view.secret = rolls
        view.note = reason
        view.proof = proof.reveal_lines(session, enc, shown)
        return render_reply(view)

    return store_reply(session, enc, rnd.id, "reveal", f"enc{enc.id}:reveal:{first}", now, body)

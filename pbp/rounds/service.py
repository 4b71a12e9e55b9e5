"""The service layer of rounds: what workers, the panel and the CLI call (docs/rounds.md).

Functions take a Session and ids and commit nothing themselves: the caller owns the
transaction (``pbp.store.db.session_scope``). Every "at most once" promise is backed
by a unique constraint (posts per thread, rolls per post tag and per round index,
rounds per encounter number, replies per idempotency key), so a concurrent double
raises IntegrityError at commit instead of doubling anything.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from ..store import models as m
from ..store.queries import current_round, missing_players, reply_by_key
from ..store.types import utcnow
from .approval import approve, hold, release_held
from .corrections import correct_round
from .fight import end_encounter, start_encounter_now
from .ingest import ingest_posts
from .lifecycle import due_reminders, due_rounds, open_round, send_reminder, start_encounter
from .outbox import deliver_reply, pending_replies
from .overrides import make_public, set_penalty
from .preview import preview_text
from .replies import build_view, render_round_reply
from .resolve import reresolve_round, resolve_round
from .verify import verify_round


def preview_reply(session: Session, round_id: int, now: datetime | None = None) -> str:
    """The resolution reply as it would go out: the stored one once resolved; for an open
    round, a dry run in memory (:func:`pbp.rounds.preview.preview_text`): nothing is
    written, not even inside a savepoint, so a read-only request can show it (SCALE-4)."""
    now = now or utcnow()
    rnd = session.get(m.Round, round_id)
    if rnd is None:
        raise LookupError(f"no round {round_id}")
    stored = reply_by_key(session, f"{rnd.id}:resolution")
    if stored is not None:
        return stored.body
    if rnd.state != "open":
        return render_round_reply(session, rnd, "resolution", now, marker="")
    return preview_text(session, rnd, now)


def waive_penalty(session: Session, round_id: int, combatant_key: str, *, reason: str,
                  narrator_id: int | None = None, waive: bool = True,
                  now: datetime | None = None, public: bool = False) -> None:
    """PBP-2: the narrator waives (or restores) one combatant's latency penalty this round
    (:func:`pbp.rounds.overrides.set_penalty`, the one waiver the panel uses too);
    *public*: the reply may quote the reason (private otherwise)."""
    ov = set_penalty(session, round_id, combatant_key, waive, reason, narrator_id, now=now)
    if public:
        make_public(ov)


def round_status(session: Session, round_id: int) -> dict[str, object]:
    """What the panel and ``pbp status`` show about a round."""
    rnd = session.get(m.Round, round_id)
    if rnd is None:
        raise LookupError(f"no round {round_id}")
    return {"id": rnd.id, "number": rnd.number, "state": rnd.state,
            "opens_at": rnd.opens_at, "deadline": rnd.deadline, "commitment": rnd.commitment,
            "waiting": [c.key for c in missing_players(session, rnd)] if rnd.state == "open" else []}


def approve_reply(session: Session, reply_id: int, narrator_id: int | None,
                  now: datetime | None = None) -> int | None:
    """Release a held reply (approval mode); a held result opens the round it announces,
    with a fresh deadline (:func:`pbp.rounds.approval.approve`)."""
    return approve(session, reply_id, narrator_id, now or utcnow())


__all__ = [
    "approve_reply", "build_view", "correct_round", "current_round", "deliver_reply",
    "due_reminders", "due_rounds", "end_encounter", "hold", "ingest_posts", "open_round",
    "pending_replies", "preview_reply", "release_held", "render_round_reply",
    "reresolve_round", "resolve_round", "round_status", "send_reminder", "start_encounter",
    "start_encounter_now", "verify_round", "waive_penalty",
]

"""Start and end a fight by a narrator's hand: the panel's buttons, ``pbp encounter``.

Why here and not in the panel: an encounter created in the panel never opened round 1
(only the demo and ``pbp simulate`` called ``open_round``; issue 11 item 2). Starting
rolls initiative, runs the surprise round when the narrator says so and queues the
opening reply with the seed's commitment (:func:`pbp.rounds.lifecycle.open_round`);
ending closes the open round without a result, so nothing further opens, and tells the
thread. Both are audited. None commits: the caller owns the transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..store import models as m
from ..store import queries
from .hidden import reveal_at_end
from .lifecycle import open_round
from .notices import queue_closing
from .overrides import narrator_of


def _encounter(session: Session, encounter_id: int) -> m.Encounter:
    enc = session.get(m.Encounter, encounter_id)
    if enc is None:
        raise LookupError(f"no encounter {encounter_id}")
    return enc


def _audit(session: Session, enc: m.Encounter, action: str, narrator: m.Narrator | int | None,
           now: datetime, before: dict[str, object], after: dict[str, object]) -> None:
    narrator_id, actor = narrator_of(session, narrator)
    session.flush()
    latest = queries.current_round(session, enc.id)   # the round it started or ended in
    session.add(m.AuditEntry(at=now, narrator_id=narrator_id, actor=actor,
                             campaign_id=enc.campaign_id, encounter_id=enc.id,
                             round_id=latest.id if latest is not None else None, action=action,
                             entity="encounter", entity_id=str(enc.id), before=before, after=after))


def start_encounter_now(session: Session, encounter_id: int, now: datetime,
                        narrator: m.Narrator | int | None, *, surprise: bool | None = None,
                        surprised: Sequence[str] = (), deadline: datetime | None = None) -> int:
    """Open round 1 (or the surprise round) of an encounter in setup; returns its id.

    *surprise*/*surprised*: the narrator's call, as set on the encounter when None.
    In approval mode the opening waits for approval and the round's clock with it.
    """
    enc = _encounter(session, encounter_id)
    if enc.status == "finished":
        raise PbpError("the encounter is over: it cannot start again")
    started = queries.current_round(session, enc.id)
    if started is not None:
        raise PbpError(f"the encounter has started already (round {started.number})")
    if not enc.combatants:
        raise PbpError("add combatants before starting the encounter")
    if surprise is not None:
        keys = {c.key for c in enc.combatants}
        unknown = [k for k in surprised if k not in keys]
        if unknown:
            raise PbpError(f"unknown combatant {unknown[0]!r} among the surprised")
        enc.surprise, enc.surprised = bool(surprise), list(surprised) if surprise else []
    round_id = open_round(session, enc.id, now, deadline=deadline)
    rnd = session.get(m.Round, round_id)
    assert rnd is not None
    _audit(session, enc, "encounter.start", narrator, now, {"status": "setup"},
           {"status": enc.status, "round": rnd.number, "surprise": rnd.surprise,
            "order": list(rnd.order or []), "deadline": rnd.deadline.isoformat()})
    session.flush()
    return round_id


def end_encounter(session: Session, encounter_id: int, now: datetime,
                  narrator: m.Narrator | int | None) -> int | None:
    """Finish the encounter: its open round closes without a result (replies of that
    round not posted yet are cancelled), no round opens again, and a closing reply
    tells the thread. Returns the closing reply's id (None if no round ever opened)."""
    enc = _encounter(session, encounter_id)
    if enc.status == "finished":
        raise PbpError("the encounter is over already")
    closed: int | None = None
    for rnd in session.scalars(select(m.Round).where(m.Round.encounter_id == enc.id,
                                                     m.Round.state == "open")):
        rnd.state, rnd.closed_at, closed = "cancelled", now, rnd.number
        rnd.seed_revealed = True   # nothing more is rolled with it: pbp verify can check it
        for reply in session.scalars(select(m.Reply).where(
                m.Reply.round_id == rnd.id, m.Reply.state.in_(("held", "pending")),
                m.Reply.kind.in_(("opening", "reminder", "notice")))):
            reply.state = "cancelled"
    before = enc.status
    enc.status = "finished"
    reveal_at_end(session, enc, now)   # DICE-2: the closing reveals them and the key
    _audit(session, enc, "encounter.end", narrator, now, {"status": before},
           {"status": "finished", "closed_round": closed})
    session.flush()
    last = queries.current_round(session, enc.id)
    return queue_closing(session, last, closed, now) if last is not None else None

"""``pbp encounter start|end ENCOUNTER_ID``: begin or end a fight from the command line.

``start`` opens round 1 (:func:`pbp.rounds.service.start_encounter_now`): initiative,
surprise, the round's seed and the opening reply with its commitment, queued for the workers
to post. ``end`` closes the open round without a result and queues the closing reply
(:func:`pbp.rounds.service.end_encounter`). Both are the same service calls the panel's
buttons make; they print what they did in one or two lines.
"""

from __future__ import annotations

import click
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..rounds import service
from ..store import models as m
from ..store.db import session_scope
from ..store.queries import current_round
from ..store.types import utcnow
from .common import open_database


@click.group(name="encounter")
def command() -> None:
    """Start or end an encounter (a fight in a thread)."""


def _encounter(s: Session, encounter_id: int) -> m.Encounter:
    enc = s.get(m.Encounter, encounter_id)
    if enc is None:
        raise PbpError(f"no encounter {encounter_id} (the panel lists them under each campaign)")
    return enc


@command.command("start")
@click.argument("encounter_id", type=int)
@click.option("--database-url", envvar="PBP_DATABASE_URL", default=None, help="Default: the settings'.")
def start(encounter_id: int, database_url: str | None) -> None:
    """Open round 1 of ENCOUNTER_ID: initiative and the opening reply."""
    engine = open_database(database_url)
    with session_scope(engine) as s:
        enc = _encounter(s, encounter_id)
        if enc.status == "finished":
            raise PbpError(f"encounter {encounter_id} is over; create a new one to fight again")
        running = current_round(s, encounter_id)
        if running is not None:
            raise PbpError(f"encounter {encounter_id} has started already (round {running.number} "
                           f"is {running.state})")
        if not s.scalar(select(func.count()).select_from(m.Combatant)
                        .where(m.Combatant.encounter_id == encounter_id)):
            raise PbpError(f"encounter {encounter_id} has no combatants: add or import them first")
        rnd = s.get(m.Round, service.start_encounter_now(s, encounter_id, utcnow(), None))
        assert rnd is not None
        names = {c.key: c.name for c in enc.combatants}
        order = ", ".join(names.get(k, k) for k in rnd.order or [])
        click.echo(f"encounter {encounter_id} started: round {rnd.number} open until "
                   f"{rnd.deadline:%Y-%m-%d %H:%M:%S} UTC; initiative: {order or '-'}")
        click.echo(f"opening reply queued (commitment {rnd.commitment})")
    engine.dispose()


@command.command("end")
@click.argument("encounter_id", type=int)
@click.option("--database-url", envvar="PBP_DATABASE_URL", default=None, help="Default: the settings'.")
def end(encounter_id: int, database_url: str | None) -> None:
    """End ENCOUNTER_ID: cancel its open round and say so in the thread."""
    engine = open_database(database_url)
    with session_scope(engine) as s:
        _encounter(s, encounter_id)
        reply = service.end_encounter(s, encounter_id, utcnow(), None)
        cancelled = list(s.scalars(select(m.Round.number).where(
            m.Round.encounter_id == encounter_id, m.Round.state == "cancelled")))
    engine.dispose()
    said = "closing reply queued" if reply is not None else "no round had opened: nothing to post"
    rounds = f"; round {', '.join(map(str, cancelled))} cancelled" if cancelled else ""
    click.echo(f"encounter {encounter_id} ended{rounds}; {said}")

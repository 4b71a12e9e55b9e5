"""``pbp verify``: recompute every roll of a round from its revealed seed (docs/rounds.md),
then check the dice proof the encounter's replies publish (the chain, every roll line, every
breakdown the sentences show: docs/verifiable-dice.md), as a visitor would.

Exit status 0 when every roll matches, 1 when one does not (each named), 2 on an error.
"""

from __future__ import annotations

import sys

import click
from sqlalchemy import select

from ..errors import PbpError
from ..rounds.verify import verify_replies, verify_round
from ..store import models as m
from ..store.db import session_scope
from .common import open_database


@click.command("verify")
@click.option("--db", "database_url", default=None, help="Database URL (default: the settings').")
@click.option("--round", "round_ids", type=int, multiple=True, help="Round id to check (repeatable).")
@click.option("--encounter", "encounter_id", type=int, default=None,
              help="Check every resolved round of this encounter.")
@click.option("--published", type=click.File("r", encoding="utf-8"), default=None,
              help="The replies as posted on the platform (default: the outbox's copies).")
def command(database_url: str | None, round_ids: tuple[int, ...], encounter_id: int | None,
            published: object) -> None:
    """Check that a round's rolls are what its committed seed gives."""
    if not round_ids and encounter_id is None:
        raise click.UsageError("name a round (--round) or an encounter (--encounter)")
    engine = open_database(database_url)
    text = published.read() if published is not None else None  # type: ignore[attr-defined]
    ok = True
    with session_scope(engine) as s:
        ids = list(round_ids)
        if encounter_id is not None:
            ids += list(s.scalars(select(m.Round.id).where(m.Round.encounter_id == encounter_id,
                                                           m.Round.seed_revealed.is_(True))
                                  .order_by(m.Round.number)))
        if not ids:
            raise PbpError(f"encounter {encounter_id} has no resolved round to check")
        encounters: list[int] = []
        for rid in ids:
            report = verify_round(s, rid, published=text)
            ok = ok and report.ok
            for line in report.lines():
                click.echo(line)
            enc = s.get(m.Round, rid).encounter_id  # type: ignore[union-attr]
            if enc not in encounters:
                encounters.append(enc)
        for enc in encounters:   # DICE-1: the published proof, as a visitor checks it
            proof = verify_replies(s, enc, published=text)
            ok = ok and proof.ok
            click.echo(f"encounter {enc}, the replies' dice proof:")
            for line in proof.lines():
                click.echo("  " + line)
    engine.dispose()
    sys.exit(0 if ok else 1)

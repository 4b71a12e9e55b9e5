"""``pbp verify``: check the dice, from the thread as anyone reads it or from the database.

``pbp verify THREAD_URL`` (DICE-4) reads a forum thread or a Reddit submission as a
visitor (:mod:`pbp.sources.visitor`), takes the dice proof out of the bot's replies and
checks it (:mod:`pbp.verify_proof`): no database is opened or created, so a player runs
it from an empty data directory. ``--round``/``--encounter`` recompute stored rolls from
their revealed seeds (docs/rounds.md), for an operator who has the database, then check
the dice proof the encounter's stored replies publish, as a visitor would.

Exit status 0 when every check passes, 1 when one does not (each named), 2 on an error
(the thread cannot be read, no proof in it, no such round).
"""

from __future__ import annotations

import sys

import click
from sqlalchemy import select

from ..errors import PbpError
from ..rounds.verify import verify_replies, verify_round
from ..sources.visitor import read_thread
from ..store import models as m
from ..store.db import session_scope
from ..verify_proof import read_blocks
from ..verify_rounds import by_encounter, summarise
from .common import open_database, settings


@click.command("verify")
@click.argument("thread_url", required=False)
@click.option("--bot", default=None, help="With THREAD_URL: the account that posts pbp's replies "
              "(default: the one account whose posts carry pbp's reply marker).")
@click.option("--preset", default=None, help="With THREAD_URL: the forum engine's preset "
              "(default: the first whose thread pattern fits the address).")
@click.option("--db", "database_url", default=None, help="Database URL (default: the settings').")
@click.option("--round", "round_ids", type=int, multiple=True, help="Round id to check (repeatable).")
@click.option("--encounter", "encounter_id", type=int, default=None,
              help="Check every resolved round of this encounter.")
@click.option("--published", type=click.File("r", encoding="utf-8"), default=None,
              help="The replies as posted on the platform (default: the outbox's copies).")
def command(thread_url: str | None, bot: str | None, preset: str | None, database_url: str | None,
            round_ids: tuple[int, ...], encounter_id: int | None, published: object) -> None:
    """Check that the dice are what the published seeds give: THREAD_URL as a visitor
    reads it, or stored rounds (--round, --encounter)."""
    if thread_url is not None:
        if round_ids or encounter_id is not None or database_url or published is not None:
            raise click.UsageError("THREAD_URL is checked from the thread alone: --db, --round, "
                                   "--encounter and --published are for the database")
        sys.exit(_verify_thread(thread_url, bot, preset))
    if not round_ids and encounter_id is None:
        raise click.UsageError("name a thread (THREAD_URL), a round (--round) or an encounter (--encounter)")
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


def _verify_thread(url: str, bot: str | None, preset: str | None) -> int:
    """Read, check, print; the exit status."""
    read = read_thread(url, settings(), preset=preset, bot=bot)
    if read.bot is None:
        raise PbpError("no post of the thread carries pbp's reply marker: nothing to check", where=url)
    blocks = read_blocks(read.reply_texts())
    click.echo(f"{url}: {len(read.posts)} posts read as a visitor; {len(read.replies)} replies "
               f"by {read.bot}, {len({b.source for b in blocks})} with a dice proof")
    if not blocks:
        raise PbpError(f"none of {read.bot}'s replies carries a dice proof (pbp-dice lines): "
                       "nothing to check", where=url)
    groups = by_encounter(blocks)
    ok = True
    for n, group in enumerate(groups, 1):
        result = summarise(group)
        ok = ok and result.ok
        if len(groups) > 1:
            click.echo(f"encounter {n} of {len(groups)} in the thread:")
        for line in result.lines():
            click.echo(("  " if len(groups) > 1 else "") + line)
    click.echo("every check passes" if ok else "the dice do NOT check out: see FAIL above")
    return 0 if ok else 1

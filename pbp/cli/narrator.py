"""``pbp narrator``: narrator accounts for the panel.

``pbp narrator add NAME`` asks for the password twice (or reads one line from
standard input with ``--password-stdin``, for scripts); the password is stored as an
argon2id hash, never in clear. ``grant`` adds a co-narrator to a campaign.
"""

from __future__ import annotations

import sys

import click
from sqlalchemy import select

from ..errors import ConfigError, PbpError
from ..panel.security import hash_password
from ..store.db import session_scope
from ..store.logins import close_all_sessions
from ..store.models import Campaign, CampaignNarrator, Narrator
from .common import open_database


def _password(password_stdin: bool) -> str:
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    if len(password) < 8:
        raise ConfigError("a password has at least 8 characters")
    return password


@click.group(name="narrator")
def command() -> None:
    """Narrator accounts of the web panel."""


@command.command("add")
@click.argument("name")
@click.option("--display-name", default="", help="Name shown in the panel (default: NAME).")
@click.option("--language", type=click.Choice(["en", "pt", "ru"]), default="en", show_default=True)
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of stdin.")
@click.option("--database-url", envvar="PBP_DATABASE_URL", default=None, help="Default: the settings'.")
def add(name: str, display_name: str, language: str, password_stdin: bool, database_url: str | None) -> None:
    """Create narrator NAME."""
    name = name.strip()
    if not name or len(name) > 80:
        raise ConfigError("a narrator name has 1 to 80 characters")
    password = _password(password_stdin)
    engine = open_database(database_url, create=True)
    with session_scope(engine) as s:
        if s.scalar(select(Narrator.id).where(Narrator.username == name)) is not None:
            raise PbpError(f"narrator {name!r} already exists")
        s.add(Narrator(username=name, display_name=display_name or name, language=language,
                       password_hash=hash_password(password)))
    click.echo(f"narrator {name} added")


@command.command("passwd")
@click.argument("name")
@click.option("--password-stdin", is_flag=True)
@click.option("--database-url", envvar="PBP_DATABASE_URL", default=None)
def passwd(name: str, password_stdin: bool, database_url: str | None) -> None:
    """Set narrator NAME's password; every panel session of NAME ends."""
    password = _password(password_stdin)
    with session_scope(open_database(database_url)) as s:
        row = s.scalars(select(Narrator).where(Narrator.username == name)).first()
        if row is None:
            raise PbpError(f"no narrator {name!r}")
        row.password_hash = hash_password(password)
        ended = close_all_sessions(s, row.id)
    click.echo(f"password of {name} changed; {ended} panel session(s) ended")


@command.command("list")
@click.option("--database-url", envvar="PBP_DATABASE_URL", default=None)
def list_(database_url: str | None) -> None:
    """List narrators."""
    with session_scope(open_database(database_url)) as s:
        rows = list(s.scalars(select(Narrator).order_by(Narrator.username)))
        if not rows:
            click.echo("no narrators yet: `pbp narrator add NAME` creates one", err=True)
        for row in rows:
            click.echo(f"{row.username}\t{row.display_name}\t{row.language}\t{'active' if row.active else 'inactive'}")


@command.command("grant")
@click.argument("name")
@click.argument("campaign")
@click.option("--database-url", envvar="PBP_DATABASE_URL", default=None)
def grant(name: str, campaign: str, database_url: str | None) -> None:
    """Make narrator NAME a co-narrator of CAMPAIGN (its slug or id)."""
    with session_scope(open_database(database_url)) as s:
        row = s.scalars(select(Narrator).where(Narrator.username == name)).first()
        where = Campaign.id == int(campaign) if campaign.isdigit() else Campaign.slug == campaign
        camp = s.scalars(select(Campaign).where(where)).first()
        if row is None or camp is None:
            raise PbpError(f"no narrator {name!r}" if row is None else f"no campaign {campaign!r}")
        if s.scalar(select(CampaignNarrator.id).where(CampaignNarrator.campaign_id == camp.id,
                                                      CampaignNarrator.narrator_id == row.id)) is None:
            s.add(CampaignNarrator(campaign_id=camp.id, narrator_id=row.id, role="co"))
    click.echo(f"{name} narrates {camp.slug}")

"""``pbp preset check URL``: what a forum preset reads from a live thread page, and every
problem, so a narrator can write or fix a preset without Python (issue 14 point 10).

The page is read as a visitor (the board's own time zone, no bot session) and nothing
is posted or stored. Without ``--preset`` every preset whose thread pattern fits the
address is tried. ``--draft`` fetches the page twice and proposes ``volatile`` patterns
for what changed by itself. Exit status 1 when a problem was found.
"""

from __future__ import annotations

import sys

import click

from ..errors import PbpError
from ..sources.forum_check import detect_presets, fetch_check
from ..sources.forum_preset import available_presets
from .common import settings


@click.group(name="preset")
def command() -> None:
    """Forum presets: check one against a live thread."""


@command.command("check")
@click.argument("url")
@click.option("--preset", "name", default=None, help="The preset to check (default: every one that fits).")
@click.option("--page", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--posts", type=click.IntRange(min=1), default=5, show_default=True,
              help="How many posts to show.")
@click.option("--draft", is_flag=True, help="Fetch twice and propose `volatile` patterns.")
def check(url: str, name: str | None, page: int, posts: int, draft: bool) -> None:
    """Read page PAGE of the thread at URL with a preset and show what each key read."""
    names = [name] if name else detect_presets(url)
    if not names:
        raise PbpError(f"no preset's thread pattern fits {url}; name one with --preset "
                       f"(known: {', '.join(available_presets())})")
    problems = 0
    for n in names:
        found, proposals = fetch_check(url, n, settings(), page=page, draft=draft)
        for line in found.lines(limit=posts):
            click.echo(line)
        problems += len(found.problems)
        if proposals is not None:
            if proposals:
                click.echo("volatile patterns proposed (add them to [thread] volatile):")
                for p in proposals:
                    click.echo(f"  '{p}'")
            else:
                click.echo("volatile: the two fetches hash the same; nothing to add")
    sys.exit(1 if problems else 0)

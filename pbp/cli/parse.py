"""``pbp parse``: read one post on stdin, print what the parser found as JSON (docs/parse.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
import yaml

from ..errors import ConfigError
from ..parse import parse_post
from ..parse.normalise import FORMATS


def load_roster(path: str) -> list[Any]:
    """A roster file: JSON or YAML, a list of combatants or ``{"combatants": [...]}``.

    Each combatant is a name or ``{"key", "name", "aliases", "weapons"}`` (weapons are
    names or ``{"name", "aliases"}``).
    """
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
        data = json.loads(raw) if p.suffix.lower() == ".json" else yaml.safe_load(raw)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read the roster: {exc}", where=path) from None
    if isinstance(data, dict):
        data = data.get("combatants", data.get("roster"))
    if not isinstance(data, list) or not all(isinstance(c, (str, dict)) for c in data):
        raise ConfigError("a roster is a list of names or {key, name, aliases, weapons}",
                          where=path)
    for c in data:
        if isinstance(c, dict) and not (c.get("key") or c.get("name")):
            raise ConfigError(f"a combatant needs a key or a name: {c!r}", where=path)
    return data


@click.command("parse")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="How the post is written.")
@click.option("--lang", type=click.Choice(["en", "pt", "ru", "auto"]), default=None,
              help="The post's language (default: guessed from the text).")
@click.option("--roster", "roster_path", type=click.Path(dir_okay=False),
              help="JSON or YAML file of the encounter's combatants.")
@click.option("--actor", help="Roster key of the poster's character.")
@click.option("--compact", is_flag=True, help="One line of JSON.")
def command(fmt: str, lang: str | None, roster_path: str | None, actor: str | None,
            compact: bool) -> None:
    """Parse a post read on stdin: rolls, commands, actions, speech, ooc, errors."""
    roster = load_roster(roster_path) if roster_path else None
    data = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    post = parse_post(data, fmt=fmt, lang=lang, roster=roster, actor=actor)
    click.echo(json.dumps(post.to_dict(), ensure_ascii=False, indent=None if compact else 2))

"""STALL-9: the weekly "who owes a post" list, as posted in the thread the narrator picked.

Why plain lines and not a table: BBCode tables differ per forum and Reddit's Markdown
tables break on a phone; one line per owed post reads everywhere. Player names and
character names come from posts, so each is escaped for the platform
(:mod:`pbp.render.escape`). The marker goes on the last line, as on every reply, so a
lost answer is found on the platform instead of posted twice.

>>> from datetime import UTC, datetime
>>> line = OwedLine("Ashen Road fight", 3, datetime(2026, 12, 2, 12, tzinfo=UTC), "UTC",
...                 "vex_p", "Vex", None, 4.0, 0)
>>> print(owes_text([line], "en", "text", datetime(2026, 12, 2, 7, tzinfo=UTC), "pbp-reply:k"))
Who owes a post
- vex_p (Vex): Ashen Road fight, round 3, by 2026-12-02 12:00 (in 5 h); average delay 4.0 h, misses 0
pbp-reply:k
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from . import escape
from .i18n import say
from .status import relative_parts

#: the list's words (the catalog collects them)
WORDS: Mapping[str, str] = {
    "title": "Who owes a post",
    "line": "{player} ({character}): {encounter}, round {number}, by {deadline} ({relative}); "
            "average delay {delay} h, misses {misses}",
    "line-new": "{player} ({character}): {encounter}, round {number}, by {deadline} ({relative}); "
                "no post yet, misses {misses}",
    "away": "away until {until}",
    "nobody": "Nobody owes a post this week.",
}


@dataclass(frozen=True)
class OwedLine:
    """One owed post as the list says it (times aware, *timezone* the campaign's)."""

    encounter: str
    round_number: int
    deadline: datetime
    timezone: str
    player: str
    character: str
    away_until: datetime | None
    average_delay_hours: float | None
    misses: int


def _local(at: datetime, tz: str) -> str:
    try:
        zone = ZoneInfo(tz)
    except (KeyError, ValueError):
        zone = ZoneInfo("UTC")
    return at.astimezone(zone).strftime("%Y-%m-%d %H:%M")


def owes_text(lines: Sequence[OwedLine], lang: str, platform: str, now: datetime, marker: str) -> str:
    """The list in *lang* for *platform* (``bbcode`` | ``markdown`` | ``text``)."""
    esc = escape.for_platform(platform)
    title = say(WORDS["title"], lang)
    out = [f"[b]{title}[/b]" if platform == "bbcode" else f"**{title}**" if platform == "markdown" else title]
    if platform == "markdown":
        out.append("")
    for o in lines:
        text, n = relative_parts(o.deadline, now)
        params = {"player": esc(o.player), "character": esc(o.character), "encounter": esc(o.encounter),
                  "number": o.round_number, "deadline": _local(o.deadline, o.timezone),
                  "relative": say(text, lang, {"n": n}), "misses": o.misses,
                  "delay": f"{o.average_delay_hours:.1f}" if o.average_delay_hours is not None else ""}
        line = say(WORDS["line" if o.average_delay_hours is not None else "line-new"], lang, params)
        if o.away_until is not None:
            line += "; " + say(WORDS["away"], lang, {"until": _local(o.away_until, o.timezone)})
        out.append(("[*]" if platform == "bbcode" else "- ") + line)
    if not lines:
        out.append(say(WORDS["nobody"], lang))
    if platform == "bbcode":
        if lines:
            out.insert(1, "[list]")
            out.append("[/list]")
        out.append(f"[size=85]{marker}[/size]")
    elif platform == "markdown":
        out += ["", f"^({marker})"]
    else:
        out.append(marker)
    return "\n".join(out)


__all__ = ["WORDS", "OwedLine", "owes_text"]

"""What the escalation ladder says to a person (STALL-3), in the campaign's language.

Why its own table: these are not thread replies (no round template, no status block) but
short private messages — to a player who still owes a post, or to the narrator after N
missed rounds — each with the thread's link and the deadline in the campaign's zone.

>>> ladder_text("notify-subject", "pt", {"number": 3, "encounter": "Emboscada"})
'Sua vez: rodada 3 de Emboscada'
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .i18n import Plural, say

LADDER_TEXTS: Mapping[str, str | Plural] = {
    "notify-subject": "Your turn: round {number} of {encounter}",
    "notify-body": "{names} still owe(s) a post in round {number} of {encounter}. The deadline "
                   "is {deadline}. Post in the thread: {link}",
    "mention-body": "@{player}: {names} still owe(s) a post in round {number}; the deadline is "
                    "{deadline}. {link}",
    "narrator-subject": Plural("{player} missed {count} round in a row",
                               "{player} missed {count} rounds in a row"),
    "narrator-body": Plural("{player} ({names}) has missed {count} round in a row in {encounter} "
                            "(up to round {number}). Thread: {link}",
                            "{player} ({names}) has missed {count} rounds in a row in {encounter} "
                            "(up to round {number}). Thread: {link}"),
    "narrator-run-on": "pbp now runs the character for you (narrator-run) until the player "
                       "posts again.",
    "narrator-run-off": "The character still acts by its standing order or the ruleset's "
                        "rule for a missing character; you may set it to narrator-run on the "
                        "encounter page.",
}


def ladder_text(code: str, lang: str, params: Mapping[str, Any]) -> str:
    """The ladder's sentence *code* in *lang*, filled in (by ``count`` where it counts)."""
    text = LADDER_TEXTS[code]
    return text.say(lang, params) if isinstance(text, Plural) else say(text, lang, params)


def deadline_words(deadline: datetime, zone: str) -> str:
    """A deadline as a player reads it: the campaign's local time and its zone."""
    try:
        tz = ZoneInfo(zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        tz = ZoneInfo("UTC")
    return f"{deadline.astimezone(tz):%Y-%m-%d %H:%M} ({zone or 'UTC'})"


__all__ = ["LADDER_TEXTS", "deadline_words", "ladder_text"]

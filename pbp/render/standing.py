"""What a reply says of absences and standing orders (STALL-1, STALL-2), in en/pt/ru.

Why its own table: these notes carry a date (said in the campaign's zone, as a day when
the absence ends at midnight there) and a resource word, both said in the reply's
language before the sentence is; :func:`pbp.render.note_text` hands them here.

>>> standing_note({"code": "away-order", "name": "Lyra", "until": "2026-12-10T03:00:00+00:00",
...                "text": "defend"}, "en", "America/Sao_Paulo")
'Lyra is away until 2026-12-10 and follows the standing order: defend (STALL-1)'
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .i18n import say

STANDING_NOTES: Mapping[str, str] = {
    "away-order": "{name} is away until {until} and follows the standing order: {text}",
    "away-default": "{name} is away until {until}: the ruleset's default for a missing "
                    "character (defend), with no latency penalty",
    "away-pass": "{name} is away until {until}: the turn passes, with no latency penalty",
    "standing-order": "no post this round: standing order followed: {text}",
    "standing-if": "no post this round: the condition of a standing order happened, so it "
                   "is followed: {text}",
    "order-set": "standing order noted: {text}",
    "order-if": "conditional standing order noted: {text}",
    "order-cleared": "default standing order cleared",
    "order-refused": "standing order refused: a default may not spend a limited resource "
                     "({resource}): {text}",
    "order-unread": "standing order not understood: {text}",
    "away-set": "absence noted: away until {until}",
    "away-unread": "absence not understood (no date or length found): {text}",
}

#: STALL-6: a reactive roll the rules ask of a player who did not post it (a defense roll
#: where ``defense_roller = "player"``, initiative), made from the sheet by pbp; said next
#: to the roll so nobody takes it for the player's own
ROLLED_BY_PBP = "rolled by pbp"

#: what a refused default would have spent (pbp.rules.standing.limited_resource)
RESOURCES: Mapping[str, str] = {
    "spell": "a spell", "power": "a power", "item": "an item", "extra action": "an extra action",
}

STANDING_RULES: Mapping[str, str] = {
    "away-order": "STALL-1", "away-default": "STALL-1", "away-pass": "STALL-1",
    "away-set": "STALL-1", "away-unread": "STALL-1",
}


def day(value: str, tz: str) -> str:
    """An ISO instant as the campaign's zone shows it: the day alone at midnight there,
    else day and time."""
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    try:
        local = datetime.fromisoformat(value).astimezone(zone)
    except (TypeError, ValueError):
        return str(value)
    if (local.hour, local.minute) == (0, 0):
        return f"{local:%Y-%m-%d}"
    return f"{local:%Y-%m-%d %H:%M}"


def standing_note(n: Mapping[str, Any], lang: str, tz: str) -> str:
    """One absence or standing-order note in *lang*, with its rule id."""
    code = str(n.get("code"))
    params = dict(n)
    if params.get("until"):
        params["until"] = day(str(params["until"]), tz)
    resource = str(params.get("reason") or "").removeprefix("limited:")
    if resource in RESOURCES:
        params["resource"] = say(RESOURCES[resource], lang)
    return f"{say(STANDING_NOTES[code], lang, params)} ({STANDING_RULES.get(code, 'STALL-2')})"

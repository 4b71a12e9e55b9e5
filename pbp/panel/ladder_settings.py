"""The campaign form's STALL-3 fields: when the direct notification goes out, after how
many missed rounds in a row the narrator is told, whether the character then becomes
narrator-run, and the narrator's account for a private message.

Why text fields read here: a wrong value ("two", "-1", "30" when the round is 24 h long
is allowed: it is simply sent at once) is refused with a sentence naming the field,
never saved and never a Python error.

>>> parse_count("3"), parse_count("-1"), parse_count("three")
(3, None, None)
"""

from __future__ import annotations

import re
from typing import Any

from flask_babel import gettext as _

from .forms import CampaignForm
from .round_settings import format_hours, parse_hours

#: the latest a notification may be asked for: a week before the deadline
MAX_NOTIFY_HOURS = 24 * 7
#: the most missed rounds in a row the panel takes (0: never tell the narrator)
MAX_MISSED = 50
#: a platform user name: Reddit's (3-20 of letters, digits, _ and -) or a forum's
ACCOUNT = re.compile(r"^[\w.\- ]{1,120}$")


def parse_count(text: str) -> int | None:
    """A whole number from 0 up to :data:`MAX_MISSED`; None otherwise."""
    text = text.strip()
    return int(text) if text.isdigit() and int(text) <= MAX_MISSED else None


def fill(form: CampaignForm, campaign: Any) -> None:
    """The fields as stored (a new campaign: no notification, never told, by hand)."""
    hours = campaign.notify_hours if campaign else None
    form.notify_hours.data = "" if hours is None else format_hours(float(hours))
    form.missed_limit.data = str(campaign.missed_limit if campaign else 0)
    form.auto_narrator_run.data = bool(campaign.auto_narrator_run) if campaign else False
    form.narrator_account.data = (campaign.narrator_account or "") if campaign else ""


def read(form: CampaignForm) -> dict[str, Any] | None:
    """The values to store, or None with each problem on its field; a field the request
    left out keeps its stored value."""
    out: dict[str, Any] = {"auto_narrator_run": bool(form.auto_narrator_run.data)}
    ok = True
    if form.notify_hours.raw_data:
        text = (form.notify_hours.data or "").strip()
        hours = parse_hours(text) if text else None
        if text and (hours is None or not 0 < hours <= MAX_NOTIFY_HOURS):
            form.notify_hours.errors.append(_(
                "Direct notification: a number of hours before the deadline, more than 0 and up "
                "to %(max)s, like 4; empty: none.", max=MAX_NOTIFY_HOURS))
            ok = False
        else:
            out["notify_hours"] = hours
    if form.missed_limit.raw_data:
        count = parse_count(form.missed_limit.data or "")
        if count is None:
            form.missed_limit.errors.append(_(
                "Missed rounds: a whole number from 0 (never tell me) to %(max)s, like 2.",
                max=MAX_MISSED))
            ok = False
        else:
            out["missed_limit"] = count
    if form.narrator_account.raw_data:
        name = (form.narrator_account.data or "").strip().removeprefix("u/").removeprefix("/u/")
        if name and not ACCOUNT.match(name):
            form.narrator_account.errors.append(_(
                "Your account: the user name you have on the thread's platform (letters, digits, "
                "_ and -), like the_gm; empty: tell me on the panel only."))
            ok = False
        else:
            out["narrator_account"] = name
    if ok and out.get("auto_narrator_run") and not out.get("missed_limit", 1):
        form.auto_narrator_run.errors.append(_(
            "Narrator-run after missed rounds needs a number of missed rounds above 0."))
        ok = False
    return out if ok else None


__all__ = ["fill", "parse_count", "read"]

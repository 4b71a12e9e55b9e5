"""The campaign form's STALL-4/5 fields: the grace for edits before an early close, quiet
hours, weekends, and the extension limit; and an encounter's own round length.

Why text fields read here: a wrong value ("25:00", "ten") is refused with a sentence
naming the field, never saved and never a Python error (the rule itself lives in
:mod:`pbp.rounds.clocks`).

>>> parse_minutes("10"), parse_minutes("-1"), parse_minutes("ten")
(10, None, None)
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext as _

from ..rounds.clocks import parse_quiet
from .forms import CampaignForm
from .round_settings import MAX_ROUND_HOURS, format_hours, parse_hours, round_hours_problem

#: the longest grace the panel takes: a day (a longer one is simply a later deadline)
MAX_GRACE_MINUTES = 24 * 60
#: the most hours of extension a round may be granted without the narrator: a week
MAX_EXTENSION_HOURS = 24 * 7


def parse_minutes(text: str) -> int | None:
    """Whole minutes from 0 up to :data:`MAX_GRACE_MINUTES`; None otherwise."""
    text = text.strip()
    if not text.isdigit():
        return None
    value = int(text)
    return value if value <= MAX_GRACE_MINUTES else None


def fill(form: CampaignForm, campaign: Any) -> None:
    """The fields as stored (a new campaign: the defaults a new row gets)."""
    form.close_grace_minutes.data = str(campaign.close_grace_minutes if campaign else 10)
    form.quiet_hours.data = campaign.quiet_hours if campaign else ""
    form.skip_weekends.data = bool(campaign.skip_weekends) if campaign else False
    form.extension_limit_hours.data = format_hours(
        float(campaign.extension_limit_hours) if campaign else 12.0)


def read(form: CampaignForm) -> dict[str, Any] | None:
    """The values to store, or None with each problem on its field. A field the request
    left out keeps its stored value (it is not in the dict)."""
    out: dict[str, Any] = {"skip_weekends": bool(form.skip_weekends.data)}
    ok = True
    if form.close_grace_minutes.raw_data:
        minutes = parse_minutes(form.close_grace_minutes.data or "")
        if minutes is None:
            form.close_grace_minutes.errors.append(_(
                "Minutes for edits: a whole number from 0 to %(max)s, like 10.", max=MAX_GRACE_MINUTES))
            ok = False
        else:
            out["close_grace_minutes"] = minutes
    if form.quiet_hours.raw_data:
        text = (form.quiet_hours.data or "").strip()
        try:
            quiet = parse_quiet(text)
        except ValueError:
            form.quiet_hours.errors.append(_(
                "Quiet hours: two times of day as HH:MM-HH:MM, like 23:00-08:00 (hours 00 to 23, "
                "minutes 00 to 59, not the same twice); empty: none."))
            ok = False
        else:
            out["quiet_hours"] = "" if quiet is None else \
                f"{quiet[0]:%H:%M}-{quiet[1]:%H:%M}"
    if form.extension_limit_hours.raw_data:
        hours = parse_hours(form.extension_limit_hours.data or "")
        if hours is None or not 0 <= hours <= MAX_EXTENSION_HOURS:
            form.extension_limit_hours.errors.append(_(
                "Extensions: a number of hours from 0 (always ask me) to %(max)s, like 12.",
                max=MAX_EXTENSION_HOURS))
            ok = False
        else:
            out["extension_limit_hours"] = hours
    return out if ok else None


def encounter_hours_problem(text: str) -> tuple[float | None, str | None]:
    """An encounter's round length as typed: (hours or None for "the campaign's", problem)."""
    if not text.strip():
        return None, None
    hours = parse_hours(text)
    if hours is None:
        return None, _("Round length: a number of hours, like 24 or 1.5.")
    problem = round_hours_problem(hours)
    return (None, problem) if problem else (hours, None)


__all__ = ["MAX_ROUND_HOURS", "encounter_hours_problem", "fill", "parse_minutes", "read"]

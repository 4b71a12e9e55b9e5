"""A campaign's round settings as a narrator gives them: round length, reminders, early
close, time zone; and the houserules' ``[rounds]`` table (docs/rounds.md) checked in the
same words.

Why one module: the same value can come from two places (the campaign's fields and
``houserules.rounds``, which wins at play, :func:`pbp.rounds.policy.make_policy`), so
both are read here and a field that the houserules would silently override is refused
rather than saved and ignored. Every problem is a sentence naming the field, never a
Python error.

>>> parse_hours("1,5"), parse_hours("24"), parse_hours("lots"), parse_hours("nan")
(1.5, 24.0, None, None)
>>> parse_reminders("12, 2 0.5"), parse_reminders("2h")
([12.0, 2.0, 0.5], None)
>>> format_hours([12.0, 2.0]), format_hours(1.5)
('12, 2', '1.5')
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import available_timezones

from flask_babel import gettext as _

from ..rounds.policy import SPEECH_OVERFLOW

#: the keys of ``houserules.rounds`` (docs/rounds.md "Settings of the rounds layer")
ROUND_KEYS = ("crit_tables", "early_close", "reminder_hours", "round_hours", "speech_limit",
              "speech_overflow")
#: the longest round the panel takes: 90 days (a slow forum game plays a round a week)
MAX_ROUND_HOURS = 24 * 90
MAX_REMINDERS = 10


@dataclass(frozen=True)
class Timing:
    """Round length, reminder thresholds (hours before the deadline), early close."""

    round_hours: float
    reminder_hours: tuple[float, ...]
    early_close: bool


def parse_hours(text: str) -> float | None:
    """A positive-or-not finite number of hours from what a narrator typed; None if it is
    not a number (``1,5`` is read as 1.5: the decimal comma of pt and ru)."""
    try:
        value = float(text.strip().replace(",", "."))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_reminders(text: str) -> list[float] | None:
    """Hours before the deadline, separated by commas, semicolons or spaces; None if any
    part is not a number. Empty: no reminder."""
    parts = [p for p in re.split(r"[;,\s]+", text.strip()) if p]
    values = [parse_hours(p) for p in parts]
    return None if any(v is None for v in values) else [v for v in values if v is not None]


def format_hours(value: float | Sequence[float]) -> str:
    """Hours as the fields show them: ``24``, ``1.5``, ``12, 2``."""
    if isinstance(value, (int, float)):
        return f"{float(value):g}"
    return ", ".join(f"{float(v):g}" for v in value)


def round_hours_problem(hours: float) -> str | None:
    if hours <= 0:
        return _("Round length must be more than 0 hours.")
    if hours > MAX_ROUND_HOURS:
        return _("Round length can be at most %(max)s hours (90 days).", max=MAX_ROUND_HOURS)
    return None


def reminders_problem(reminders: Sequence[float], round_hours: float) -> str | None:
    if len(reminders) > MAX_REMINDERS:
        return _("Reminders: at most %(n)s.", n=MAX_REMINDERS)
    for h in reminders:
        if h <= 0:
            return _("Reminders are hours before the deadline and must be more than 0 (not %(value)s).",
                     value=format_hours(h))
        if h >= round_hours:
            return _("A reminder %(value)s hours before the deadline would come before the round "
                     "opens: rounds last %(length)s hours.", value=format_hours(h),
                     length=format_hours(round_hours))
    return None


def timezone_problem(name: str) -> str | None:
    if name == "UTC" or name in available_timezones():
        return None
    return _("Unknown time zone. Use a name like Europe/Lisbon, America/Sao_Paulo or UTC.")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def rounds_table_problems(table: Any, default_hours: float) -> list[str]:
    """Every problem of a houserules ``[rounds]`` table, each naming its key.
    *default_hours* is the round length reminders are checked against when the table
    does not set one."""
    if not isinstance(table, Mapping):
        return [_("[rounds] must be a table of settings.")]
    problems = [_("[rounds] %(key)s is not a round setting (known: %(known)s).", key=k,
                  known=", ".join(ROUND_KEYS)) for k in sorted(set(table) - set(ROUND_KEYS))]
    hours = default_hours
    if "round_hours" in table:
        got = _number(table["round_hours"])
        problem = _("a number of hours") if got is None else round_hours_problem(got)
        if problem:
            problems.append(_("[rounds] round_hours: %(problem)s", problem=problem))
        elif got is not None:
            hours = got
    if "reminder_hours" in table:
        raw = table["reminder_hours"]
        values = [_number(v) for v in raw] if isinstance(raw, list) else [None]
        if any(v is None for v in values):
            problems.append(_("[rounds] reminder_hours: a list of hours, like [12, 2]."))
        else:
            problem = reminders_problem([v for v in values if v is not None], hours)
            if problem:
                problems.append(_("[rounds] reminder_hours: %(problem)s", problem=problem))
    if "early_close" in table and not isinstance(table["early_close"], bool):
        problems.append(_("[rounds] early_close: true or false."))
    if "crit_tables" in table and not isinstance(table["crit_tables"], bool):
        problems.append(_("[rounds] crit_tables: true or false."))
    if "speech_limit" in table:
        limit = table["speech_limit"]
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= 100:
            problems.append(_("[rounds] speech_limit: a whole number from 0 (no limit) to 100."))
    if "speech_overflow" in table and table["speech_overflow"] not in SPEECH_OVERFLOW:
        problems.append(_("[rounds] speech_overflow: one of %(values)s.", values=", ".join(SPEECH_OVERFLOW)))
    return problems


def effective(timing: Timing, table: Mapping[str, Any]) -> Timing:
    """What play uses: the houserules' ``[rounds]`` values over the campaign's fields."""
    return Timing(
        round_hours=float(table.get("round_hours", timing.round_hours)),
        reminder_hours=tuple(float(h) for h in table.get("reminder_hours", timing.reminder_hours)),
        early_close=bool(table.get("early_close", timing.early_close)))


def overridden(field_value: Timing, table: Mapping[str, Any]) -> dict[str, str]:
    """Fields whose value differs from what ``[rounds]`` sets (the houserules would win, so
    the field's value would be saved and never used): field name -> the houserules' value."""
    eff = effective(field_value, table)
    out: dict[str, str] = {}
    if "round_hours" in table and eff.round_hours != field_value.round_hours:
        out["round_hours"] = format_hours(eff.round_hours)
    if "reminder_hours" in table and sorted(eff.reminder_hours) != sorted(field_value.reminder_hours):
        out["reminder_hours"] = format_hours(eff.reminder_hours)
    if "early_close" in table and eff.early_close != field_value.early_close:
        out["early_close"] = "true" if eff.early_close else "false"
    return out

"""Forum timestamps: printed text in a site's format, language and time zone -> UTC.

Why not a guessing parser: forums print dates in a format each site configures
("Nov. 30, 2026, 2:49 a.m.", "Wed Jan 02, 2013 7:14 pm", "2014-07-09, 11:17",
"30th Apr 2011, 17:10"), and a guess that swaps day and month moves a post by
months without a word. So a preset names its formats (``strptime`` codes) and
the text is first *normalised*, so one format covers a site's variants:

- lower case, whitespace collapsed, weekday names removed (any listed language);
- month names and abbreviations of the site's language (from Babel's CLDR data,
  with or without a trailing dot, plus "sept") become English ``jan``..``dec``;
- ordinals lose their suffix ("30th" -> "30", "1º" -> "1");
- "a.m."/"p.m." become "am"/"pm"; "noon"/"midnight" become "12 pm"/"12 am";
  an hour without minutes before am/pm gets ":00" ("2 pm" -> "2:00 pm");
- "today"/"yesterday" (and their translations) become the site-local date in ISO
  form, so a format may start with ``%Y-%m-%d`` for them (see ``relative_formats``).

The special format ``iso`` reads ISO 8601 (Discourse, ``<time datetime>``).

>>> d = DateReader(["%b %d, %Y, %I:%M %p"], timezone="UTC")
>>> d.parse("Nov. 30, 2026, 2:49 a.m.").isoformat()
'2026-11-30T02:49:00+00:00'
>>> DateReader(["%d %b %Y, %H:%M"], timezone="Europe/London").parse("30th Apr 2011, 17:10").isoformat()
'2011-04-30T16:10:00+00:00'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel import Locale, UnknownLocaleError
from babel.dates import get_day_names, get_month_names

from ..errors import ConfigError

_EN_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
#: Words for "today" (0) and "yesterday" (1), a preset may add its own.
RELATIVE_DAYS: Mapping[str, Mapping[str, int]] = {
    "en": {"today": 0, "yesterday": 1},
    "pt": {"hoje": 0, "ontem": 1},
    "es": {"hoy": 0, "ayer": 1},
    "fr": {"aujourd'hui": 0, "hier": 1},
    "de": {"heute": 0, "gestern": 1},
    "it": {"oggi": 0, "ieri": 1},
    "ru": {"сегодня": 0, "вчера": 1},
}
#: "N units ago" in the three languages of play and English, unit -> seconds. Engines
#: print these for fresh posts (MyBB: "5 minutes ago"; Portuguese boards: "há 5 minutos";
#: Russian ones: "5 минут назад"); the instant is *now* minus the amount, to the unit.
_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800,
          "segundo": 1, "minuto": 60, "hora": 3600, "dia": 86400, "semana": 604800,
          "секунд": 1, "минут": 60, "час": 3600, "дн": 86400, "день": 86400, "недел": 604800}
_ONE = r"(?P<n>\d+|an?|one|um|uma|одн[уа]|один)"
_AGO = (
    re.compile(_ONE + r"\s+(?P<unit>second|minute|hour|day|week)s?\s+ago\b"),
    re.compile(r"\bh[áa]\s+" + _ONE + r"\s+(?P<unit>segundo|minuto|hora|dia|semana)s?\b"),
    re.compile(r"(?:" + _ONE + r"\s+)?(?P<unit>секунд|минут|час|дн|день|недел)\w*\s+назад"),
)
DEFAULT_RELATIVE_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%d %I:%M %p", "%Y-%m-%d %H:%M:%S",
                            "%Y-%m-%d, %H:%M", "%Y-%m-%d, %I:%M %p", "%Y-%m-%d at %H:%M",
                            "%Y-%m-%d at %I:%M %p", "%Y-%m-%d às %H:%M", "%Y-%m-%d à(s) %H:%M",
                            "%Y-%m-%d в %H:%M", "%Y-%m-%d, в %H:%M")


@lru_cache(maxsize=32)
def _language_tables(language: str) -> tuple[re.Pattern[str], dict[str, str], re.Pattern[str]]:
    try:
        locales = {Locale.parse("en"), Locale.parse(language.replace("-", "_"))}
    except (UnknownLocaleError, ValueError):
        raise ConfigError(f"unknown date language {language!r}") from None
    months: dict[str, str] = {"sept": "sep"}
    days: set[str] = set()
    for loc in locales:
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                for num, name in get_month_names(width, context, loc).items():
                    months[name.lower().rstrip(".")] = _EN_MONTHS[num - 1]
                for name in get_day_names(width, context, loc).values():
                    days.add(name.lower().rstrip("."))
    names = sorted(months, key=len, reverse=True)
    month_re = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, names)) + r")\.?(?!\w)")
    day_re = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, sorted(days, key=len, reverse=True)))
                        + r")\.?,?(?!\w)")
    return month_re, months, day_re


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"unknown time zone {name!r}") from None


class DateReader:
    """Reads one site's printed dates. Raises ValueError (with the text) on a mismatch."""

    def __init__(self, formats: Sequence[str], *, language: str = "en", timezone: str = "UTC",
                 relative: Mapping[str, int] | None = None,
                 relative_formats: Sequence[str] = DEFAULT_RELATIVE_FORMATS) -> None:
        if not formats:
            raise ConfigError("a date reader needs at least one format")
        self.formats = tuple(formats)
        self.language = language
        self.tz = _zone(timezone)
        self._month_re, self._months, self._day_re = _language_tables(language)
        words = {**RELATIVE_DAYS["en"], **RELATIVE_DAYS.get(language.split("-")[0], {}),
                 **(relative or {})}
        self._relative = words
        self._relative_re = re.compile(r"(?<!\w)(" + "|".join(
            map(re.escape, sorted(words, key=len, reverse=True))) + r")(?!\w)")
        self.relative_formats = tuple(relative_formats)

    def ago(self, text: str, now: datetime | None = None) -> datetime | None:
        """The instant of "5 minutes ago" / "há 5 minutos" / "5 минут назад", or None."""
        t = " ".join(text.split()).lower()
        for pattern in _AGO:
            m = pattern.search(t)
            if m:
                raw = m.group("n")
                n = int(raw) if raw and raw.isdigit() else 1
                unit = m.group("unit")
                seconds = next(v for k, v in _UNITS.items() if unit.startswith(k))
                return (now or datetime.now(UTC)).astimezone(UTC) - timedelta(seconds=n * seconds)
        return None

    def normalise(self, text: str, now: datetime | None = None) -> tuple[str, bool]:
        # " ," from text joined across elements ("<strong>Yesterday</strong> , 04:30")
        t = re.sub(r"\s+,", ",", " ".join(text.split()).lower())
        relative = False
        m = self._relative_re.search(t)
        if m:
            now = now or datetime.now(UTC)
            day: date = now.astimezone(self.tz).date() - timedelta(days=self._relative[m.group(1)])
            t = t[:m.start()] + day.isoformat() + t[m.end():]
            relative = True
        t = re.sub(r"\b(\d{1,2})(?:st|nd|rd|th|º|ª)(?!\w)", r"\1", t)
        t = re.sub(r"\ba\.\s?m\.", "am", t)
        t = re.sub(r"\bp\.\s?m\.", "pm", t)
        t = re.sub(r"\bnoon\b", "12:00 pm", t)
        t = re.sub(r"\bmidnight\b", "12:00 am", t)
        t = re.sub(r"(?<![:\d])(\d{1,2})\s?(am|pm)\b", r"\1:00 \2", t)
        t = re.sub(r"(\d)(am|pm)\b", r"\1 \2", t)
        t = self._month_re.sub(lambda mm: self._months[mm.group(1)], t)
        t = self._day_re.sub("", t)
        return " ".join(t.split()).strip(" ,-"), relative

    def parse(self, text: str, now: datetime | None = None) -> datetime:
        """The UTC instant *text* names (naive results are read in the site's zone)."""
        if self.formats == ("iso",) or "iso" in self.formats:
            try:
                return self._utc(datetime.fromisoformat(text.strip().replace("Z", "+00:00")))
            except ValueError:
                if self.formats == ("iso",):
                    raise ValueError(f"{text!r} is not an ISO 8601 date") from None
        instant = self.ago(text, now)
        if instant is not None:
            return instant
        t, relative = self.normalise(text, now)
        for fmt in (self.relative_formats if relative else ()) + self.formats:
            if fmt == "iso":
                continue
            try:
                return self._utc(datetime.strptime(t, fmt))
            except ValueError:
                continue
        raise ValueError(f"date {text.strip()!r} (normalised {t!r}) matches none of the "
                         f"formats {list(self.formats)}")

    def _utc(self, dt: datetime) -> datetime:
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=self.tz)
        return dt.astimezone(UTC)

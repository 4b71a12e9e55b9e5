"""Forum dates: each site's printed format, language and time zone, read to UTC."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pbp.errors import ConfigError
from pbp.sources.forum_dates import DateReader

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(("formats", "language", "tz", "text", "utc"), [
    # the four forms the issue names
    (["%b %d, %Y, %I:%M %p"], "en", "UTC", "Nov. 30, 2026, 2:49 a.m.", "2026-11-30 02:49"),
    (["%b %d, %Y %I:%M %p"], "en", "UTC", "Wed Jan 02, 2013 7:14 pm", "2013-01-02 19:14"),
    (["%Y-%m-%d, %H:%M"], "pt", "Europe/Lisbon", "2014-07-09, 11:17", "2014-07-09 10:17"),
    (["%d %b %Y, %H:%M"], "en", "Europe/London", "30th Apr 2011, 17:10", "2011-04-30 16:10"),
    # Django's other shapes of "N j, Y, P"
    (["%b %d, %Y, %I:%M %p"], "en", "UTC", "May 1, 2026, noon", "2026-05-01 12:00"),
    (["%b %d, %Y, %I:%M %p"], "en", "UTC", "Sept. 3, 2026, 2 p.m.", "2026-09-03 14:00"),
    (["%b %d, %Y, %I:%M %p"], "en", "UTC", "March 3, 2026, midnight", "2026-03-03 00:00"),
    # SA's double space, SMF's seconds, a 1st
    (["%b %d, %Y %H:%M"], "en", "UTC", "Dec  5, 2024 21:45", "2024-12-05 21:45"),
    (["%b %d, %Y, %I:%M:%S %p"], "en", "UTC", "September 19, 2007, 02:16:51 PM", "2007-09-19 14:16"),
    (["%d %b %Y, %H:%M"], "en", "UTC", "1st Feb 2011, 09:05", "2011-02-01 09:05"),
    # other languages: month and weekday names from CLDR
    (["%d %b %Y, %H:%M"], "pt", "America/Sao_Paulo", "Seg 9 Jul 2012, 20:00", "2012-07-09 23:00"),
    (["%d de %b de %Y, %H:%M"], "pt", "UTC", "3 de março de 2014, 08:30", "2014-03-03 08:30"),
    (["%d. %b %Y, %H:%M"], "de", "Europe/Berlin", "Mo 2. Dezember 2013, 18:00", "2013-12-02 17:00"),
    (["%d %b %Y à %H:%M"], "fr", "Europe/Paris", "mardi 4 févr. 2014 à 10:15", "2014-02-04 09:15"),
    # relative words, read in the site's zone
    (["%b %d, %Y %I:%M %p"], "en", "UTC", "Today, 7:14 pm", "2026-11-30 19:14"),
    (["%Y-%m-%d, %H:%M"], "pt", "Europe/Lisbon", "Ontem às 23:50", "2026-11-29 23:50"),
    (["%d %b %Y, %H:%M"], "en", "Pacific/Auckland", "Yesterday, 08:00", "2026-11-28 19:00"),
    (["iso"], "en", "UTC", "2013-02-04T15:26:26.278-05:00", "2013-02-04 20:26"),
    (["iso"], "en", "UTC", "2014-02-06T04:55:19Z", "2014-02-06 04:55"),
])
def test_site_dates(formats: list[str], language: str, tz: str, text: str, utc: str) -> None:
    got = DateReader(formats, language=language, timezone=tz).parse(text, now=NOW)
    assert got.tzinfo is not None and got.utcoffset().total_seconds() == 0
    assert got.strftime("%Y-%m-%d %H:%M") == utc


def test_mismatch_quotes_the_text_and_formats() -> None:
    with pytest.raises(ValueError) as err:
        DateReader(["%Y-%m-%d %H:%M"]).parse("30th Apr 2011, 17:10")
    assert "30th Apr 2011, 17:10" in str(err.value) and "%Y-%m-%d %H:%M" in str(err.value)


def test_day_month_order_is_never_guessed() -> None:
    us = DateReader(["%m/%d/%Y %H:%M"]).parse("03/04/2014 10:00")
    eu = DateReader(["%d/%m/%Y %H:%M"]).parse("03/04/2014 10:00")
    assert (us.month, eu.month) == (3, 4)


@pytest.mark.parametrize(("kw", "needle"), [({"timezone": "Mars/Olympus"}, "Mars/Olympus"),
                                           ({"language": "xx-nowhere"}, "xx-nowhere")])
def test_bad_configuration(kw: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        DateReader(["%Y"], **kw)


CAPTURED = datetime(2026, 12, 1, 7, 51, 4, tzinfo=UTC)


@pytest.mark.parametrize("text,ago_seconds", [
    ("5 minutes ago", 300), ("1 minute ago", 60), ("an hour ago", 3600), ("3 hours ago", 10800),
    ("há 5 minutos", 300), ("há uma hora", 3600), ("há 2 dias", 172800),
    ("5 минут назад", 300), ("минуту назад", 60), ("3 часа назад", 10800), ("2 дня назад", 172800),
])
def test_relative_times_in_three_languages_and_english(text: str, ago_seconds: int) -> None:
    """Issue 14, relative dates: "N units ago" is *now* minus N units, whatever the format."""
    reader = DateReader(["%d/%m/%Y %H:%M"], timezone="Europe/Lisbon")
    assert (CAPTURED - reader.parse(text, CAPTURED)).total_seconds() == ago_seconds


@pytest.mark.parametrize("language,text,utc", [
    ("en", "Yesterday , 04:30 AM", "2026-11-30T07:30:00+00:00"),   # joined text: " ,"
    ("en", "Today at 04:30 AM", "2026-12-01T07:30:00+00:00"),
    ("pt", "Hoje às 04:30", "2026-12-01T07:30:00+00:00"),
    ("ru", "Сегодня в 04:30", "2026-12-01T07:30:00+00:00"),
    ("ru", "Вчера в 04:30", "2026-11-30T07:30:00+00:00"),
])
def test_today_and_yesterday_in_the_board_zone(language: str, text: str, utc: str) -> None:
    """Issue 14: "Today"/"Yesterday" name the board's local day (GMT-3 here: 04:51 local)."""
    reader = DateReader(["%d.%m.%Y %H:%M"], language=language, timezone="Etc/GMT+3")
    assert reader.parse(text, CAPTURED).isoformat() == utc

"""Absences (STALL-1) and standing orders (STALL-2) as a player writes them, in en/pt/ru.

Why a compact reader of its own rather than ``dateparser``: the forms are few (a date, a
weekday, "tomorrow", a number of days or weeks), the words are data
(``lexicon/standing.toml``), and a date must be resolved in the *campaign's* time zone
relative to the *post's* time, never the server's clock. Nothing here reads a clock.

Command lines (found by :mod:`.commands`, which blanks them so they declare nothing):

* ``.away until 2026-12-10`` / ``.ausente até 10/12`` / ``.отсутствую до 10.12``,
  ``.away for 3 days`` / ``.ausente por 3 dias`` / ``.отсутствую 3 дня``; ``.back``;
* ``.default defend`` / ``.padrão defender`` / ``.поумолчанию защита``; ``.default none``;
* ``.if the orc charges, I shoot it`` / ``.se o orco atacar, eu atiro nele`` /
  ``.если орк атакует, стреляю в него``.

Free forms anywhere in a post: "away until Friday", "fora até sexta",
"меня не будет до пятницы", "away for 3 days", "ausente por 3 dias", "отсутствую 3 дня".

>>> from datetime import datetime, UTC
>>> now = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)     # a Tuesday
>>> str(until_from("until Friday", "en", now, "UTC"))
'2026-12-04 00:00:00+00:00'
>>> str(until_from("до 10.12", "ru", now, "UTC"))
'2026-12-10 00:00:00+00:00'
>>> str(until_from("por 3 dias", "pt", now, "UTC"))
'2026-12-04 15:00:00+00:00'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..rules.model import Action, ActionKind, Combatant
from ..rules.standing import StandingCondition
from .lexicon import LANGUAGES, fold
from .post import parse_post
from .standing_words import command_words, words

#: the command names :mod:`.commands` gives standing lines
COMMANDS = ("standing.away", "standing.back", "standing.default", "standing.if")


def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):   # a bad setting must not lose an absence
        return ZoneInfo("UTC")


_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_NUMERIC = re.compile(r"\b(\d{1,2})[./](\d{1,2})(?:[./](\d{2,4}))?\b")
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th|º|-?го|-?е)?\s+(?:de\s+|of\s+)?([^\W\d_]{3,12})")
_MONTH_DAY = re.compile(r"\b([^\W\d_]{3,12})\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b")
_TOKEN = re.compile(r"\d{1,3}|[^\W\d_]+")


def _month(word: str, lang: str) -> int | None:
    folded = fold(word)
    for lex in (lang, "en"):
        for i, stem in enumerate(words(lex)["months"]):
            if folded.startswith(fold(stem)):
                return i + 1
    return None


def _next_date(today: date, month: int, day: int, year: int | None) -> date | None:
    """The date (*month*, *day*) on or after *today* when no year is given."""
    try:
        if year is not None:
            return date(year if year > 99 else 2000 + year, month, day)
        found = date(today.year, month, day)
        return found if found >= today else date(today.year + 1, month, day)
    except ValueError:
        return None


def _date_in(text: str, lang: str, today: date) -> date | None:
    """A date named in *text* (ISO, numeric, day and month, weekday, tomorrow)."""
    w = words(lang)
    if m := _ISO.search(text):
        return _next_date(today, int(m[2]), int(m[3]), int(m[1]))
    if m := _NUMERIC.search(text):
        a, b = int(m[1]), int(m[2])
        month, day = (a, b) if w.get("numeric") == "md" else (b, a)
        return _next_date(today, month, day, int(m[3]) if m[3] else None)
    for m in _DAY_MONTH.finditer(text):
        if (month := _month(m[2], lang)) is not None:
            return _next_date(today, month, int(m[1]), None)
    for m in _MONTH_DAY.finditer(text):
        if (month := _month(m[1], lang)) is not None:
            return _next_date(today, month, int(m[2]), None)
    tokens = [fold(t) for t in re.findall(r"[^\W\d_]+", text)]
    if any(t in {fold(x) for x in w["tomorrow"]} for t in tokens):
        return today + timedelta(days=1)
    for token in tokens:
        for i, stems in enumerate(w["weekdays"]):
            if any(token.startswith(fold(s)) for s in stems):
                ahead = (i - today.weekday()) % 7 or 7   # "until Friday" on a Friday: next week's
                return today + timedelta(days=ahead)
    return None


def _duration(text: str, lang: str) -> timedelta | None:
    """A length named in *text*: "3 days", "uma semana", "12 часов", "12h"; a bare week
    or day ("на неделю") is one."""
    w = words(lang)
    numbers = {fold(k): int(v) for k, v in w["numbers"].items()}
    units = {**{fold(x): timedelta(days=1) for x in w["day"]},
             **{fold(x): timedelta(weeks=1) for x in w["week"]},
             **{fold(x): timedelta(hours=1) for x in w["hour"]}}
    tokens = [fold(t) for t in _TOKEN.findall(text)]
    for i, token in enumerate(tokens):
        unit = units.get(token)
        if unit is None:
            continue
        before = tokens[i - 1] if i else ""
        n = int(before) if before.isdigit() else numbers.get(before)
        if n is None and unit >= timedelta(days=1) and i <= 2:
            n = 1
        if n is not None and 0 < n <= 365:
            return unit * n
    return None


def until_from(text: str, lang: str, posted_at: datetime, tz: str) -> datetime | None:
    """When an absence written as *text* ends (aware UTC), or None when *text* names no
    date or length. A date ends at its start in the campaign's zone *tz* ("away until
    Friday": back on Friday); a length counts from *posted_at*."""
    zone = _zone(tz)
    local = posted_at.astimezone(zone)
    folded = fold(text)
    day = _date_in(folded, lang, local.date())
    if day is not None:
        start = datetime(day.year, day.month, day.day, tzinfo=zone)
        return start.astimezone(UTC) if start > local else None
    length = _duration(folded, lang)
    if length is not None:
        return posted_at.astimezone(UTC) + length
    return None


@dataclass(frozen=True)
class AwaySpec:
    """An absence a post announces: *until* (None: unreadable, *problem* says why)."""

    until: datetime | None
    text: str
    position: int
    form: str = "command"            # command | free
    problem: str | None = None


@cache
def _free_pattern(lang: str) -> re.Pattern[str]:
    """"<away word> [until/for] <up to 40 characters>", in *lang*'s words (folded)."""
    w = words(lang)
    heads = "|".join(re.escape(fold(x)) for x in sorted(w["free"], key=len, reverse=True))
    links = "|".join(re.escape(fold(x)) for x in (*w["until"], *w["for"]))
    return re.compile(rf"(?<!\w)(?:{heads})\s+(?:(?:{links})\s+)?([^.\n;!?()]{{1,40}})")


_BOUNDARY = ".!?([:;,\n-—–"


def _clause_start(before: str, lang: str) -> bool:
    """Whether a free form starting after *before* speaks of the poster: at the start of
    a clause, after a first-person lead ("I'll be", "estarei"), or anywhere in a language
    whose forms are first person already (ru: "меня не будет", "отсутствую")."""
    w = words(lang)
    if w.get("anywhere"):
        return True
    text = before.rstrip()
    if not text or text[-1] in _BOUNDARY:
        return True
    return any(re.search(rf"(?:^|[^\w']){re.escape(fold(lead))}$", text) for lead in w["lead"])


def free_absences(text: str, lang: str, posted_at: datetime, tz: str) -> list[AwaySpec]:
    """Free-form absences in *text* ("away until Friday", "fora até sexta", "меня не
    будет до пятницы"), read in *lang* and English; only those naming a readable date."""
    out: list[AwaySpec] = []
    folded = fold(text)
    for lex in dict.fromkeys((lang, "en")):
        for m in _free_pattern(lex).finditer(folded):
            if not _clause_start(folded[:m.start()], lex):
                continue
            until = until_from(m[0], lex, posted_at, tz)
            if until is not None:
                out.append(AwaySpec(until, text[m.start():m.end()].strip(), m.start(), "free"))
        if out:
            break
    return out


def away_command(rest: str, lang: str, posted_at: datetime, tz: str, position: int) -> AwaySpec:
    """``.away <when>``: its end, or a problem the reply can say."""
    until = until_from(rest, lang, posted_at, tz)
    if until is None:
        for other in LANGUAGES:
            if other != lang and (until := until_from(rest, other, posted_at, tz)) is not None:
                break
    problem = None if until is not None else ("standing.away-unread" if rest.strip()
                                              else "standing.away-empty")
    return AwaySpec(until, rest.strip(), position, "command", problem)


@dataclass(frozen=True)
class OrderSpec:
    """A standing order a post sets: a default (*condition* None) or a conditional one;
    ``clear`` drops the default. *problem* names what could not be read."""

    kind: str                        # default | if | clear
    text: str
    actions: tuple[Action, ...] = ()
    condition: StandingCondition | None = None
    position: int = 0
    problem: str | None = None


def _actions(text: str, lang: str, roster: Sequence[Combatant], actor: str | None
             ) -> tuple[Action, ...]:
    parsed = parse_post(text, lang=lang, roster=list(roster), actor=actor, own_language=True)
    found = tuple(a for a in parsed.actions if a.kind is not ActionKind.OTHER)
    if found:
        return found
    nouns = {fold(k): v for k, v in words(parsed.lang)["nouns"].items()}
    kind = nouns.get(fold(text.strip(" .!")))
    return (Action(ActionKind(kind), text=text.strip(), explicit=False),) if kind else ()


def default_order(rest: str, lang: str, roster: Sequence[Combatant], actor: str | None,
                  position: int) -> OrderSpec:
    """``.default <action>`` (or ``none``): the action read by the post parser."""
    text = rest.strip()
    if any(fold(text) == fold(x) for lex in LANGUAGES for x in words(lex)["clear"]):
        return OrderSpec("clear", text, position=position)
    actions = _actions(text, lang, roster, actor)
    return OrderSpec("default", text, actions, position=position,
                     problem=None if actions else "standing.action-unread")


def _has(text: str, phrases: Sequence[str]) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(fold(p))}(?!\w)", text) for p in phrases)


def _who(text: str, roster: Sequence[Combatant], actor: str | None) -> str | None:
    """The combatant a condition names (its key, name or alias; a Russian or Portuguese
    ending after the alias allowed: "орка", "orcos")."""
    best: tuple[int, str] | None = None
    for c in roster:
        if c.key == actor:
            continue
        for n in (c.key, c.name, *c.aliases):
            if not n:
                continue
            m = re.search(rf"(?<!\w){re.escape(fold(n))}\w{{0,3}}(?!\w)", text)
            if m and (best is None or len(n) > best[0]):
                best = (len(n), c.key)
    return best[1] if best else None


def condition_from(text: str, lang: str, roster: Sequence[Combatant], actor: str | None
                   ) -> StandingCondition | None:
    """The condition part of ``.if``: who does what (see :mod:`pbp.rules.standing`)."""
    folded = fold(text)
    for lex in dict.fromkeys((lang, "en")):
        w = words(lex)
        if _has(folded, w["hit"]):
            return StandingCondition("hit", me=True)
        who = _who(folded, roster, actor)
        if _has(folded, w["falls"]):
            return StandingCondition("falls", who)
        if _has(folded, w["attacks"]) or any(
                re.search(rf"(?<!\w){re.escape(fold(a))}\w*", folded) for a in w["attacks"]):
            return StandingCondition("attacks", who, me=_has(folded, w["me"]))
    return None


def if_order(rest: str, lang: str, roster: Sequence[Combatant], actor: str | None,
             position: int) -> OrderSpec:
    """``.if <condition>, <action>``: parted at the first comma (or "then")."""
    text = rest.strip()
    w = words(lang)
    thens = "|".join(re.escape(x) for x in (*w["then"], *words("en")["then"]))
    parts = re.split(rf",|;|\s(?:{thens})\s", text, maxsplit=1, flags=re.IGNORECASE)
    if len(parts) < 2 or not parts[1].strip():
        return OrderSpec("if", text, position=position, problem="standing.if-unread")
    cond = condition_from(parts[0], lang, roster, actor)
    actions = _actions(parts[1], lang, roster, actor)
    problem = ("standing.condition-unread" if cond is None
               else None if actions else "standing.action-unread")
    return OrderSpec("if", text, actions, cond, position, problem)


__all__ = ["COMMANDS", "AwaySpec", "OrderSpec", "away_command", "command_words",
           "condition_from", "default_order", "free_absences", "if_order", "until_from",
           "words"]

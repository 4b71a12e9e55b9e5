"""STALL-5: a player's request for more time, as a command line of its own.

``.extend 12h`` (English), ``.prorrogar 12h`` (Portuguese), ``.продлить 12ч`` (Russian),
with a number and a unit: hours (``h``/``ч``), days (``1d``/``1д``), minutes (``30m``/
``30мин``); a bare number is hours; a comma or a point for decimals (``1,5h``). The
commands and units of all three languages are read in any campaign (a Portuguese player
in an English game). A request pbp cannot read is returned with its text, so the reply can
say how to write it instead of dropping it.

>>> [(a.hours, a.problem) for a in asks(".extend 12h\\n.prorrogar 1d\\n.продлить 30мин")]
[(12.0, None), (24.0, None), (0.5, None)]
>>> asks(".extend soon")[0].problem
'unreadable'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .lexicon import LANGUAGES, fold, get

#: the longest extension one request may ask for (a week); more is refused in words
MAX_HOURS = 168.0
_AMOUNT = re.compile(r"^\s*(\d{1,4}(?:[.,]\d{1,2})?)\s*([^\W\d_]{0,10})\.?(?:[\s,;:!?()-][^\n]*)?$")


@dataclass(frozen=True)
class ExtensionAsk:
    """One request: *hours* asked (None when unreadable), *written* as typed, *problem*:
    None, ``unreadable`` or ``too-long``."""

    written: str
    hours: float | None = None
    problem: str | None = None


@cache
def _words() -> tuple[frozenset[str], dict[str, float]]:
    commands: set[str] = set()
    units: dict[str, float] = {}
    for lang in LANGUAGES:
        table = get(lang).data.get("extend", {})
        commands.update(form for c in table.get("commands", ()) for form in (c.casefold(), fold(c)))
        for name, factor in (("hours", 1.0), ("days", 24.0), ("minutes", 1 / 60)):
            units.update({fold(u): factor for u in table.get(name, ())})
    return frozenset(commands), units


@cache
def _line() -> re.Pattern[str]:
    commands, _units = _words()
    names = "|".join(sorted((re.escape(c) for c in commands), key=len, reverse=True))
    return re.compile(rf"(?im)^[ \t]{{0,16}}(?P<cmd>{names})(?![\w])(?P<rest>[^\n]{{0,60}})")


def asks(text: str) -> list[ExtensionAsk]:
    """Every extension command line in *text*, in order."""
    _commands, units = _words()
    out = []
    for m in _line().finditer(text):
        written = (m.group("cmd") + m.group("rest")).strip()
        amount = _AMOUNT.match(m.group("rest"))
        factor = units.get(fold(amount.group(2)), None) if amount and amount.group(2) else 1.0
        if amount is None or factor is None:
            out.append(ExtensionAsk(written, problem="unreadable"))
            continue
        hours = round(float(amount.group(1).replace(",", ".")) * factor, 4)
        if hours <= 0:
            out.append(ExtensionAsk(written, problem="unreadable"))
        elif hours > MAX_HOURS:
            out.append(ExtensionAsk(written, hours=hours, problem="too-long"))
        else:
            out.append(ExtensionAsk(written, hours=hours))
    return out

"""STALL-8: the status block's words: how long until the deadline, enemies' wounds.

Why enemies get descriptors and players numbers: players track their own HP and need the
number; an enemy's exact HP is the narrator's secret, but how hurt it looks is what the
characters see. The thresholds, on current HP against maximum HP:

* **unhurt**: HP at (or above) its maximum;
* **wounded**: below the maximum, above half of it (``2 * hp > max_hp``);
* **badly wounded**: half or less, above 0;
* **down**: 0 or less, or marked down.

>>> wound_word(9, 9), wound_word(5, 9), wound_word(4, 9), wound_word(0, 9)
('unhurt', 'wounded', 'badly wounded', 'down')
>>> from datetime import UTC
>>> relative_parts(datetime(2026, 12, 2, 11, 0, tzinfo=UTC), datetime(2026, 12, 1, 12, 0, tzinfo=UTC))
('in {n} h', 23)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from .i18n import say
from .view import StatusBlock, StatusEntry

#: the words of the block that are not in a template (the catalog collects them)
WORDS: Mapping[str, str] = {
    "unhurt": "unhurt", "wounded": "wounded", "badly wounded": "badly wounded", "down": "down",
    "minutes": "in {n} min", "hours": "in {n} h", "days": "in {n} d", "passed": "deadline passed",
    "nobody": "nobody", "left": "{name} ({n} rounds left)", "left1": "{name} (1 round left)",
    "hp": "{name} {hp}/{max_hp}", "hp-down": "{name} {hp}/{max_hp}, down",
}


def wound_word(hp: int, max_hp: int, down: bool = False) -> str:
    """The descriptor of an enemy's HP (thresholds in the module text)."""
    if down or hp <= 0:
        return "down"
    if hp >= max_hp:
        return "unhurt"
    return "wounded" if 2 * hp > max_hp else "badly wounded"


def relative_parts(deadline: datetime, now: datetime) -> tuple[str, int]:
    """(message id, n) for "in N ...": whole minutes under an hour (rounded up, so a
    deadline 30 s away is "in 1 min"), whole hours under 48 h (rounded down: "in 23 h"
    is never later than it says), whole days after."""
    seconds = (deadline - now).total_seconds()
    if seconds <= 0:
        return WORDS["passed"], 0
    if seconds < 3600:
        return WORDS["minutes"], max(1, -int(-seconds // 60))
    hours = int(seconds // 3600)
    if hours < 48:
        return WORDS["hours"], hours
    return WORDS["days"], int(seconds // 86400)


@dataclass(frozen=True)
class StatusWords:
    """The status block said in one language, each part ready for a template."""

    relative: str
    declared: str
    owed: str
    away: str
    players: str
    enemies: str
    conditions: str


def _names(values: list[str], lang: str) -> str:
    return ", ".join(values) if values else say(WORDS["nobody"], lang)


def _condition(name: str, left: int | None, lang: str) -> str:
    if left is None:
        return name
    return say(WORDS["left1"] if left == 1 else WORDS["left"], lang, {"name": name, "n": left})


def status_words(block: StatusBlock, lang: str, word: object) -> StatusWords:
    """*block* in *lang*; *word* says a condition's name (the renderer's ``word``)."""
    say_word = word if callable(word) else (lambda w: w)
    text, n = relative_parts(block.deadline, block.now) if block.deadline else ("", 0)

    def hp(e: StatusEntry) -> str:
        return say(WORDS["hp-down" if e.down or e.hp <= 0 else "hp"], lang,
                   {"name": e.name, "hp": e.hp, "max_hp": e.max_hp})

    players = [hp(e) for e in block.combatants if e.player]
    enemies = [f"{e.name} {say(WORDS[wound_word(e.hp, e.max_hp, e.down)], lang)}"
               for e in block.combatants if not e.player]
    conditions = [f"{e.name}: " + ", ".join(_condition(str(say_word(c)), left, lang)
                                            for c, left in e.conditions)
                  for e in block.combatants if e.conditions]
    return StatusWords(relative=say(text, lang, {"n": n}) if text else "",
                       declared=_names(block.declared, lang), owed=_names(block.owed, lang),
                       away=", ".join(block.away), players=", ".join(players),
                       enemies=", ".join(enemies), conditions="; ".join(conditions))


__all__ = ["WORDS", "StatusWords", "relative_parts", "status_words", "wound_word"]

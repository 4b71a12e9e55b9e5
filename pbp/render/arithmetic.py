"""Replies players can check (issue 11 item 7): every sum a reply shows, with its parts by name.

Why here and not in the engine: the engine already records what it added (the
``mods``/``defense_mods`` of an attack, the ``parts``, ``multiplier``, ``reduction`` and
``floor`` of a damage event, :func:`pbp.rules.context.damage_parts`); saying it
is the renderer's job, in the reply's language. A roll's own breakdown
(``1d20 (19) = 19``) is kept exactly as stored, because ``pbp verify`` and players look
for it in the published replies, and the named modifiers follow it:
``1d20 (19) = 19 + 3 Fortitude + 10 armor = 32``.

Why the check: a line a player reads must add up. Each sum is recomputed here from the
parts it shows and compared with the total the engine reached; when they differ (a
narrator's total the event does not follow, a rule this module does not know) the
roll is shown as before, never with arithmetic that is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..rules import messages
from .i18n import say
from .view import EventLine

#: a stored roll: ``1d20 (19) + 5 = 24``, with a narrator's total ``-> 27 (narrator)``
ROLL = re.compile(r"^(?P<expr>.+?) = (?P<total>-?\d+)(?: -> (?P<set>-?\d+) \(narrator\))?$")

#: modifier and damage-part names the rulesets give (``Modifier.reason``) that are not
#: already words of :mod:`pbp.rules.messages`: the English a reply says for each
PART_NAMES: Mapping[str, str] = {
    "armor": "armor",
    "base": "base",
    "dex": "Dex",
    "str": "Str",
    "dodge": "Dodge",
    "dex_mod": "Dex modifier",
    "str_mod": "Str modifier",
    "half level": "half level",
    "proficiency": "proficiency",
    "reduction": "reduction",
    "late post": "late post",
    "total defense": "total defense",
    "shooting into melee": "shooting into melee",
    "flat-footed (feint)": "flat-footed (feint)",
    "bonus from powers or items": "bonus from powers or items",
    "controle": "Controle",
    "enganacao": "Enganação",
}
#: names with a number or a note in them
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^extra attack #(?P<n>\d+)$"), "extra attack #{n}"),
    (re.compile(r"^power (?P<note>.+)$"), "power {note}"),
)
#: the other words a sum says
WORDS: Mapping[str, str] = {
    "defense": "defense",
    "minimum": "minimum {floor}",
}


#: (modifiers param, total param, which roll of the event) of the sums events carry: an
#: attack or a check, the other side of an opposed test (FD-14), a spell's power and the
#: target's resistance test (FD-4)
SUMS: tuple[tuple[str, str, int], ...] = (
    ("mods", "total", 0), ("opposed_mods", "opposed", 1),
    ("dc_mods", "dc", 0), ("resist_mods", "total", 1),
)


def message_ids() -> list[str]:
    """Every English text this module says (for :mod:`pbp.render.catalog`)."""
    return list(PART_NAMES.values()) + [p for _, p in PATTERNS] + list(WORDS.values())


def part_name(name: str, lang: str) -> str:
    """A modifier's name in *lang*; a name nobody translated (a sheet's own skill) as written."""
    if name in messages.WORDS:
        return say(name, lang)
    if name in PART_NAMES:
        return say(PART_NAMES[name], lang)
    for pattern, text in PATTERNS:
        if (m := pattern.match(name)) is not None:
            return say(text, lang, {k: part_name(v, lang) if k == "note" else v
                                    for k, v in m.groupdict().items()})
    return name


def _value(part: Mapping[str, Any]) -> int | None:
    value = part.get("value")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def terms(parts: Sequence[Mapping[str, Any]], lang: str, rule: str | None,
          sign: int = 1) -> tuple[str, int] | None:
    """`` + 3 Fortitude - 4 shooting into melee (FD-11)`` and the sum it adds; a part's rule
    is cited when it is not the event's own. None when a part has no whole value."""
    text, added = "", 0
    for part in parts:
        value = _value(part)
        if value is None:
            return None
        if not value:
            continue
        value *= sign
        added += value
        text += f" {'+' if value >= 0 else '-'} {abs(value)} {part_name(str(part.get('reason', '')), lang)}"
        cited = part.get("rule")
        if cited and cited != rule:
            text += f" ({cited})"
    return text, added


def _roll(text: str) -> int | None:
    """The value a stored roll stands for: its total, or the narrator's when set."""
    m = ROLL.match(text)
    if m is None:
        return None
    return int(m["set"] if m["set"] is not None else m["total"])


def with_mods(roll: str, mods: Any, stated: Any, lang: str, rule: str | None) -> str:
    """*roll* with *mods* added, ``= stated``; the roll unchanged unless that adds up."""
    base = _roll(roll)
    if base is None or not isinstance(mods, list) or _value({"value": stated}) is None:
        return roll
    shown = terms(mods, lang, rule)
    if shown is None or base + shown[1] != stated or not shown[0]:
        return roll   # does not add up, or nothing added: the roll already says it
    return f"{roll}{shown[0]} = {stated}"


def damage(roll: str, params: Mapping[str, Any], lang: str, rule: str | None) -> str:
    """A damage roll itemised: the dice, each bonus by name, the critical multiplier, what
    was subtracted by name, the minimum, the amount dealt (FD-7, FD-9, FD-19)."""
    base = _roll(roll)
    amount = _value({"value": params.get("amount")})
    if base is None or amount is None:
        return roll
    bonus = terms(params.get("parts") or [], lang, rule)
    taken = terms(params.get("reduction") or [], lang, rule, sign=-1)
    times = _value({"value": params.get("multiplier", 1)}) or 1
    if bonus is None or taken is None:
        return roll
    expr, value = roll, base
    if times > 1 and bonus[0] and params.get("multiply_bonuses", True):
        expr, value = f"({expr}{bonus[0]}) × {times}", (value + bonus[1]) * times
    elif times > 1:
        expr, value = f"{expr} × {times}{bonus[0]}", value * times + bonus[1]
    else:
        expr, value = expr + bonus[0], value + bonus[1]
    expr, value = expr + taken[0], value + taken[1]
    text = f"{expr} = {value}"
    floor = _value({"value": params.get("floor")})
    if floor is not None and value < floor:
        value = floor
        text += f" → {floor} ({say(WORDS['minimum'], lang, {'floor': floor})})"
    if value != amount or expr == roll and text == f"{roll} = {value}":
        return roll   # does not add up, or the dice alone already say it
    return text


def static_defense(params: Mapping[str, Any], lang: str, rule: str | None) -> str | None:
    """A defense nobody rolled (BEY-13), summed from its named parts, or None."""
    mods, stated = params.get("defense_mods"), params.get("defense")
    if not isinstance(mods, list) or not mods or _value({"value": stated}) is None:
        return None
    shown = terms(mods, lang, rule)
    if shown is None or shown[1] != stated or not shown[0]:
        return None
    first = shown[0].removeprefix(" + ")
    return f"{say(WORDS['defense'], lang)}: {first} = {stated}"


def shown_rolls(ev: EventLine, lang: str) -> list[str]:
    """The event's rolls as the reply shows them, each sum with its parts by name."""
    rolls = list(ev.rolls)
    p = ev.params
    if not rolls:
        return rolls
    if ev.code == "damage":
        rolls[0] = damage(rolls[0], p, lang, ev.rule)
        return rolls
    for key, value, index in SUMS:
        if key in p and index < len(rolls):
            rolls[index] = with_mods(rolls[index], p[key], p.get(value), lang, ev.rule)
    if "defense_mods" in p and "defense" in p:
        if len(rolls) > 1:
            rolls[1] = with_mods(rolls[1], p["defense_mods"], p["defense"], lang, ev.rule)
        elif (static := static_defense(p, lang, ev.rule)) is not None:
            rolls.append(static)
    return rolls

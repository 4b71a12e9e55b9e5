"""The tables of the ``two-action`` ruleset (TA-5 weapon bonus, TA-6 situational modifiers).

Source 004 (Russian homebrew). The numbers come from ``pbp/config/rulesets/two-action.toml``
(``[weapon_bonus]`` and ``[situational]``), so a narrator can change them; the defaults
below are the source's own, and the shipped TOML repeats them.

Situational modifiers are declared per attack as ``Action.options["situational"]``, a
mapping with these keys (all optional):

========== ======================================= ==========================
key        meaning (source)                         value
========== ======================================= ==========================
above      "you are above the target" +1            true/false
size       "target size" -3..+3                     integer in the range
distance   "distance over x10 the skill", -1 each   distance in cells/metres
obstacles  "obstacles in the way" -2                true/false
cover      "target in cover" -5                     true/false
in_melee   "target engaged in melee" -3             true/false
light      "too dark / too bright" -1..-3           integer -3..-1 (or 0)
========== ======================================= ==========================

The distance penalty reads "-1 for each excess over x10 the skill": with skill 3 the
range is 30; 31..60 is one excess (-1), 61..90 two (-2), and so on.

>>> situational({"above": True, "cover": True}, skill=3)
(-4, [])
>>> situational({"size": 5}, skill=3)[1]
['target size must be between -3 and +3, not 5']
>>> situational({"distance": 61}, skill=3)[0]
-2
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

#: TA-5 weapon-type bonus to the opposed check (source table).
WEAPON_BONUS: dict[str, int] = {
    "thrown": 0,
    "bow": 10,
    "blowpipe": 10,
    "crossbow": 10,
    "rocket": 20,
    "firearm": 30,
    "beam": 40,
}

#: TA-6 defaults (source table).
SITUATIONAL: dict[str, int] = {
    "above": 1,
    "size_min": -3,
    "size_max": 3,
    "distance_multiplier": 10,
    "distance_penalty": -1,
    "obstacles": -2,
    "cover": -5,
    "in_melee": -3,
    "light_min": -3,
    "light_max": -1,
}

FLAGS = ("above", "obstacles", "cover", "in_melee")
KEYS = frozenset(FLAGS + ("size", "distance", "light"))


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def situational(mods: Mapping[str, Any] | None, *, skill: int,
                table: Mapping[str, int] | None = None) -> tuple[int, list[str]]:
    """Total TA-6 modifier for *mods*, and every problem found (each a sentence).

    A problem does not stop the others from being checked (validation reports all at once);
    a bad entry contributes 0.
    """
    t = dict(SITUATIONAL)
    if table:
        t.update(table)
    total = 0
    problems: list[str] = []
    for key, value in (mods or {}).items():
        if key not in KEYS:
            problems.append(
                f"'{key}' is not a situational modifier (use: {', '.join(sorted(KEYS))})")
            continue
        if key in FLAGS:
            if not isinstance(value, bool):
                problems.append(f"'{key}' must be true or false, not {value!r}")
            elif value:
                total += t[key]
            continue
        number = _as_int(value)
        if number is None:
            problems.append(f"'{key}' must be a whole number, not {value!r}")
            continue
        if key == "size":
            if not t["size_min"] <= number <= t["size_max"]:
                problems.append(
                    f"target size must be between {t['size_min']} and +{t['size_max']}, "
                    f"not {number}")
            else:
                total += number
        elif key == "light":
            if number == 0:
                continue
            if not t["light_min"] <= number <= t["light_max"]:
                problems.append(
                    f"too dark/too bright must be between {t['light_min']} and "
                    f"{t['light_max']}, not {number}")
            else:
                total += number
        else:  # distance
            if number < 0:
                problems.append(f"distance cannot be negative ({number})")
                continue
            reach = max(skill, 0) * t["distance_multiplier"]
            if number > reach:
                excess = math.ceil((number - reach) / reach) if reach else 1
                total += excess * t["distance_penalty"]
    return total, problems


def weapon_bonus(category: str, table: Mapping[str, int] | None = None) -> int | None:
    """The TA-5 bonus for a weapon category, None when the table has no such type."""
    t = dict(WEAPON_BONUS)
    if table:
        t.update(table)
    return t.get(category)

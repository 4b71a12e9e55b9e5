"""What a declared action spends, in the game's own words (RULES.md).

Its own module so that :mod:`pbp.rules.options` (one options type per kind) and
:mod:`pbp.rules.model` (the action itself) both use it without importing each other.
"""

from __future__ import annotations

import enum


class ActionKind(str, enum.Enum):
    """What a declared action spends, in the game's own words (RULES.md)."""

    ATTACK = "attack"
    CAST = "cast"
    MOVE = "move"
    QUICK = "quick"
    FREE = "free"
    FULL_ROUND = "full-round"
    DELAY = "delay"
    READY = "ready"
    DEFEND = "defend"
    MANEUVER = "maneuver"
    BONUS = "bonus"        # DND-5
    REACTION = "reaction"  # DND-7
    OTHER = "other"


#: the ruleset method carrying out each kind (``on_full_round``...), named once (SCALE-6)
HANDLERS: dict[ActionKind, str] = {k: "on_" + k.value.replace("-", "_") for k in ActionKind}

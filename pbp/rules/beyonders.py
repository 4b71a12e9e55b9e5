"""beyonders (RULES.md BEY-1..BEY-17). Work in progress."""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from .base import Ruleset
from .registry import register


@register
class Beyonders(Ruleset):
    id = "beyonders"
    title = "Beyonders d20"
    source = "000_a1a962720c911b51.txt"
    has_surprise_round = True
    defaults: ClassVar[Mapping[str, Any]] = {
        "speech_limit": 0, "round_seconds": 6, "conversion_ratio": 2,
        "actions": {"attack": 1, "quick": 3, "move": 1},
        "surprise": {"quick": 2, "advantage": True},
        "initiative": {"mode": "roll", "ties": "dex"},
        "latency": {"enabled": True, "mode": "total-defense", "penalty": 2,
                    "total_defense_bonus": 4},
        "defense": {"base": 10, "flat_footed_loses_dex": True},
        "movement": {"item_on_body": 1, "item_beside": 2},
    }

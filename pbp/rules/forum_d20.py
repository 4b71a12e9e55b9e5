"""forum-d20 (RULES.md FD-1..FD-19): the Brazilian play-by-post d20 system. Work in progress."""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from .base import Ruleset
from .registry import register


@register
class ForumD20(Ruleset):
    id = "forum-d20"
    title = "forum d20 (tópico)"
    source = "001_90c634a2e356debd.txt"
    defaults: ClassVar[Mapping[str, Any]] = {
        "speech_limit": 3, "round_seconds": 120, "defense_roller": "service",
        "minimum_damage": 1, "conversion_ratio": 1,
        "initiative": {"mode": "roll", "ties": "bonus"},
        "latency": {"enabled": True, "mode": "total-defense", "penalty": 2,
                    "total_defense_bonus": 4},
        "crits": {"natural_20_hits": True, "natural_1_misses": True,
                  "naturals_on_defense": True, "multiply_bonuses": True},
        "attacks": {"extra_attack_penalty": 4, "ranged_into_melee": 4, "higher_ground": 1},
        "powers": {"control_dc": 10},
        "movement": {"base": 9},
        "maneuvers": {"ties": "defender", "push_base": 1.5, "push_step": 1.5, "push_margin": 5},
        "delay": {"floor": 10},
    }

"""STALL-7: the names of the initiative modes and their check, below the ruleset base.

Why a module of its own: the ruleset base refuses a mistyped mode when it is built, and
:mod:`pbp.rules.turn_order` (which needs the base) computes the order; both read these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .narrators_call import check_choices

#: how turns are taken (:mod:`pbp.rules.turn_order`)
TURN_MODES: tuple[str, ...] = ("individual", "side", "block", "popcorn")
#: who goes first between the sides in the side and block modes
SIDES_FIRST: tuple[str, ...] = ("initiative", "players", "enemies")


def check_turns(ruleset_id: str, setting: Callable[[str], Any]) -> None:
    """Refuse an unknown ``initiative.turns`` / ``initiative.sides_first``, naming the choices."""
    check_choices(ruleset_id, setting, {"initiative.turns": TURN_MODES,
                                        "initiative.sides_first": SIDES_FIRST})

"""Which ruleset an encounter plays under, and which round comes next.

Why a module of its own: the engine's round loop and its read-only queries
(:mod:`pbp.rules.queries`) both start from these two answers, and neither should
import the other to get them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Ruleset
from .houserule_tables import deep_merge
from .model import Encounter
from .registry import get as get_ruleset
from .registry import ruleset_class


def ruleset_for(encounter: Encounter, houserules: Mapping[str, Any] | None = None) -> Ruleset:
    """The encounter's ruleset with its stored houserules and *houserules* on top."""
    merged = deep_merge(encounter.houserules, houserules or {})
    if merged:
        return get_ruleset(encounter.ruleset, merged)
    # SCALE-6: with no houserules a ruleset is its class's defaults only, the same every
    # round: one instance per class, whose settings lookups (Settings) stay answered
    cls = ruleset_class(encounter.ruleset)
    kept = _PLAIN.get(cls)
    if kept is None:
        kept = _PLAIN[cls] = get_ruleset(encounter.ruleset, merged)
    return kept


#: the ruleset without houserules, by class (see :func:`ruleset_for`)
_PLAIN: dict[type[Ruleset], Ruleset] = {}


def round_number(encounter: Encounter, ruleset: Ruleset) -> tuple[int, bool]:
    """(number of the round to resolve, whether it is a surprise round)."""
    if encounter.round == 0 and encounter.surprise and ruleset.has_surprise_round:
        return 0, True
    return max(1, encounter.round), False

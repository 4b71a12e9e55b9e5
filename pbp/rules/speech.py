"""PBP-3: how many speeches a post may carry, and whether a post keeps to it.

Why in the rules package: the limit is a rule of each ruleset (FD-17 three; BEY-16 none;
dnd5e "brief", three by default; the others none), which a campaign may change. The
rounds layer counts the speeches of a post and asks here for the verdict; the reply
and the panel only show it.

>>> speech_verdict("forum-d20", {}, 5)
SpeechVerdict(limit=3, within=False, over=2)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .registry import get as get_ruleset


@dataclass(frozen=True)
class SpeechVerdict:
    """``limit`` None: no limit. ``over``: how many speeches are past the limit (0 within)."""

    limit: int | None
    within: bool
    over: int


def speech_limit(ruleset: str, houserules: Mapping[str, Any]) -> int | None:
    """The speech limit of *ruleset* under *houserules* (None: unlimited).

    *houserules* are the engine's houserules (``speech_limit``, 0 = none), optionally with
    the rounds layer's ``rounds`` table, whose ``speech_limit`` wins when present (a
    campaign may set it there); 0 in either place means no limit.
    """
    engine = {k: v for k, v in houserules.items() if k != "rounds"}
    limit = get_ruleset(ruleset, engine).speech_limit
    rounds = houserules.get("rounds")
    if isinstance(rounds, Mapping) and "speech_limit" in rounds:
        limit = int(rounds["speech_limit"]) or None
    return limit


def verdict(limit: int | None, count: int) -> SpeechVerdict:
    """The verdict on *count* speeches against *limit* (None: no limit)."""
    if limit is None or count <= limit:
        return SpeechVerdict(limit, True, 0)
    return SpeechVerdict(limit, False, count - limit)


def speech_verdict(ruleset: str, houserules: Mapping[str, Any], count: int) -> SpeechVerdict:
    """PBP-3: *count* speeches in one post, judged against the ruleset's limit."""
    return verdict(speech_limit(ruleset, houserules), count)

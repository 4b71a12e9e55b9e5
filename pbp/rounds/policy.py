"""What a campaign's round rules are: houserules merged, speech limit, overflow, timing.

Why a separate object: the engine's houserules are checked against the ruleset's known
keys, while a few settings belong to the rounds layer alone (what to do with speech
over the limit, early close). Campaign and encounter houserules may carry those under
a ``rounds`` table; everything else goes to the engine untouched.

>>> p = make_policy("forum-d20", {"rounds": {"speech_limit": 2}})
>>> (p.speech_limit, p.speech(5))
(2, SpeechVerdict(limit=2, within=False, over=3))
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from ..houserule_files import load as load_houserules
from ..houserule_files import path_for
from ..rules import engine, registry
from ..rules.base import deep_merge
from ..rules.speech import speech_limit, verdict

#: speech over the limit: "drop" (PBP-3 default: not part of the round) or "warn" (kept)
SPEECH_OVERFLOW = ("drop", "warn")


@dataclass(frozen=True)
class RoundPolicy:
    ruleset: str
    houserules: Mapping[str, Any] = field(default_factory=dict)   # for the engine
    rounds: Mapping[str, Any] = field(default_factory=dict)       # the rounds-layer table
    speech_limit: int | None = None
    speech_overflow: str = "drop"
    early_close: bool = False
    close_grace_minutes: float = 0.0
    round_hours: float = 24.0
    reminder_hours: tuple[float, ...] = (2.0,)
    timezone: str = "UTC"
    language: str = "en"
    latency_enabled: bool = True

    def speech(self, count: int) -> engine.SpeechVerdict:
        """PBP-3: the engine's verdict on *count* speeches in one post, against the limit
        :func:`make_policy` asked the engine for once (SCALE-6: asking again built the
        ruleset, houserules deep-copied, for every declaration)."""
        return verdict(self.speech_limit, count)


def split_houserules(houserules: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(engine houserules, rounds-layer settings)."""
    engine = {k: v for k, v in houserules.items() if k != "rounds"}
    return engine, dict(houserules.get("rounds") or {})


def engine_houserules(ruleset: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The ruleset file's houserules with *overrides* on top, checked against the
    ruleset's known keys (:func:`pbp.houserule_files.load`)."""
    return load_houserules(ruleset, overrides)


#: policies made, by their inputs and the ruleset file's modification time (SCALE-6: an
#: ingest batch made one each, re-reading and re-checking the TOML file every time)
_MADE: dict[tuple[Any, ...], RoundPolicy] = {}


def make_policy(ruleset: str, houserules: Mapping[str, Any], *, round_hours: float = 24.0,
                reminder_hours: tuple[float, ...] = (2.0,), early_close: bool = False,
                close_grace_minutes: float = 0.0, timezone: str = "UTC", language: str = "en") -> RoundPolicy:
    """The policy of *ruleset* under *houserules*; the same inputs, with the ruleset's
    file unchanged on disk, give the same policy without reading the file again."""
    try:
        key: tuple[Any, ...] | None = (
            ruleset, json.dumps(houserules, sort_keys=True, default=str), round_hours,
            tuple(reminder_hours), early_close, close_grace_minutes, timezone, language,
            os.stat(path_for(ruleset)).st_mtime_ns)
    except (OSError, TypeError, ValueError):
        key = None   # an unknown ruleset or odd values: made (and refused) the long way
    if key is not None and key in _MADE:
        return _MADE[key]
    made = _make_policy(ruleset, houserules, round_hours=round_hours,
                        reminder_hours=reminder_hours, early_close=early_close,
                        close_grace_minutes=close_grace_minutes, timezone=timezone,
                        language=language)
    if key is not None:
        if len(_MADE) >= 256:
            _MADE.clear()
        _MADE[key] = made
    return made


def _make_policy(ruleset: str, houserules: Mapping[str, Any], *, round_hours: float,
                 reminder_hours: tuple[float, ...], early_close: bool,
                 close_grace_minutes: float, timezone: str, language: str) -> RoundPolicy:
    engine_over, rounds = split_houserules(houserules)
    merged = engine_houserules(ruleset, engine_over)
    rs = registry.get(ruleset, merged)
    limit = speech_limit(ruleset, {**merged, "rounds": rounds})
    overflow = str(rs.setting("speech_overflow", "drop"))
    latency_enabled = bool(rs.setting("latency.enabled", True))
    overflow = str(rounds.get("speech_overflow", overflow))
    if overflow not in SPEECH_OVERFLOW:
        raise ConfigError(f"speech_overflow must be one of {', '.join(SPEECH_OVERFLOW)}, "
                          f"not {overflow!r}")
    return RoundPolicy(
        ruleset=ruleset, houserules=merged, rounds=rounds, speech_limit=limit,
        speech_overflow=overflow,
        early_close=bool(rounds.get("early_close", early_close)),
        close_grace_minutes=float(rounds.get("close_grace_minutes", close_grace_minutes)),
        round_hours=float(rounds.get("round_hours", round_hours)),
        reminder_hours=tuple(float(h) for h in rounds.get("reminder_hours", reminder_hours)),
        timezone=timezone, language=language, latency_enabled=latency_enabled,
    )


def policy_for(campaign: Any, encounter: Any) -> RoundPolicy:
    """The policy of *encounter* (a row) in *campaign* (a row). The round length is the
    encounter's own when set (STALL-5: a fight's rounds), else the campaign's."""
    houserules = deep_merge(campaign.houserules or {}, encounter.houserules or {})
    own_hours = getattr(encounter, "round_hours", None)
    return make_policy(encounter.ruleset or campaign.ruleset, houserules,
                       round_hours=float(own_hours) if own_hours else campaign.round_hours,
                       reminder_hours=tuple(campaign.reminder_hours or ()),
                       early_close=campaign.early_close,
                       close_grace_minutes=float(getattr(campaign, "close_grace_minutes", 0) or 0),
                       timezone=campaign.timezone,
                       language=campaign.language)

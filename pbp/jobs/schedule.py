"""When to try again: exponential backoff for failures, jitter for regular polls.

>>> import random
>>> backoff(0, rng=random.Random(1)) <= 2 and backoff(3, rng=random.Random(1)) >= 8
True
>>> backoff(0, retry_after=30.0, rng=random.Random(1)) >= 30
True
"""

from __future__ import annotations

import random

from ..settings import Settings

#: +- this fraction of a thread's interval is added at random to its next poll time.
POLL_JITTER = 0.1


def backoff(retries: int, retry_after: float | None = None, *, base: float | None = None,
            cap: float | None = None, rng: random.Random | None = None) -> float:
    """Seconds before retry number *retries* + 1: exponential with "equal jitter"
    (half fixed, half random), never below the platform's ``retry_after``. *base* and
    *cap* default to the settings' defaults; workers pass their ``retry_base``/``retry_cap``."""
    base = Settings.retry_base if base is None else base
    cap = Settings.retry_cap if cap is None else cap
    uniform = rng.uniform if rng is not None else random.uniform
    step = min(cap, base * (2 ** retries))
    delay = step / 2 + uniform(0, step / 2)
    if retry_after is not None:
        delay = max(delay, float(retry_after) + uniform(0, min(5.0, base)))
    return delay


def jittered(interval: float, rng: random.Random | None = None) -> float:
    """*interval* +- POLL_JITTER of itself, so a thousand threads do not poll in step."""
    uniform = rng.uniform if rng is not None else random.uniform
    return interval * (1 + uniform(-POLL_JITTER, POLL_JITTER))

"""Issue 11 item 1 on a forum whose thread addresses two engines share: Misago's
``/t/slug/ID/`` fits Misago's preset and Discourse's. The address alone cannot say which
engine the forum runs; the forum's first page can (``forum_check.reading_engine``, used
by the panel when a source is added and by ``pbp verify URL``)."""

from __future__ import annotations

from typing import Any

import pytest

from pbp.settings import load_settings
from pbp.sources.forum_check import detect_presets, reading_engine
from pbp.sources.http import reset_host_intervals

pytestmark = pytest.mark.integration


def _settings() -> Any:
    return load_settings(env={"PBP_MIN_HOST_INTERVAL": "0", "PBP_USER_AGENT": "pbp-tests/1",
                              "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})


def test_a_misago_address_fits_two_engines_and_misago_reads_it(misago: Any) -> None:
    reset_host_intervals()
    line = next(x for x in misago.seed("thread", "Probe", "3") if x.startswith("THREAD"))
    url = misago.base + line.split()[1]
    fits = detect_presets(url)
    assert set(fits) == {"misago", "discourse"}, fits      # the question the panel asked
    assert reading_engine(url, fits, _settings()) == "misago"
    assert reading_engine(url, ["discourse"], _settings()) is None   # Discourse's JSON: a 404


def test_a_forum_that_does_not_answer_leaves_the_question_open() -> None:
    """Nothing listens there: no engine reads it, so the narrator is asked (no error)."""
    reset_host_intervals()
    url = "http://127.0.0.1:9/t/the-ambush/12/"
    assert reading_engine(url, detect_presets(url), _settings()) is None

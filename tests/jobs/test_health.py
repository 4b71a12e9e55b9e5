"""The heartbeat watch (pbp/jobs/health.py, issue 18 item 2): a stale worker or beat is
logged at ERROR once per incident, its return at INFO once, and a service that has just
started is given a stale period to send its first heartbeat before "never" is said."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from pbp.jobs.health import Watch, ago, record
from pbp.store.db import make_engine, upgrade


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    upgrade(url)
    eng = make_engine(url)
    yield eng
    eng.dispose()


def _said(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "pbp.jobs.health"]


def test_a_stale_worker_is_logged_once_per_incident(engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    watch = Watch(engine, stale_after=60, roles=("worker",), grace=0)
    record(engine, "beat:h", "beat")
    with caplog.at_level(logging.INFO, logger="pbp.jobs.health"):
        record(engine, "worker:w@h", "worker", at=time.time() - 130)
        watch.check()
        watch.check()                                   # the same incident: nothing more
        record(engine, "worker:w@h", "worker")
        watch.check()
        watch.check()
        record(engine, "worker:w@h", "worker", at=time.time() - 61)
        watch.check()                                   # a second incident
    assert _said(caplog) == [
        ("ERROR", "the worker has not answered for 2 minutes; rounds are not being resolved "
                  "and replies are not being posted"),
        ("INFO", "the worker answers again"),
        ("ERROR", "the worker has not answered for 1 minute; rounds are not being resolved "
                  "and replies are not being posted"),
    ]


def test_beat_watched_for_and_a_fresh_start_given_time(engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    """No heartbeat at all during the grace is a service still starting, not an incident."""
    young = Watch(engine, stale_after=60, roles=("beat",))
    old = Watch(engine, stale_after=60, roles=("beat",), grace=0)
    with caplog.at_level(logging.INFO, logger="pbp.jobs.health"):
        assert young.check().beat.stale
        assert _said(caplog) == []
        old.check()
    assert _said(caplog) == [("ERROR", "beat has not answered yet; deadlines are not being swept "
                                       "and threads are not being polled")]


def test_durations_as_an_operator_says_them() -> None:
    assert [ago(s) for s in (1, 45, 60, 130, 3600, 90000)] == [
        "1 second", "45 seconds", "1 minute", "2 minutes", "1 hour", "1 day"]

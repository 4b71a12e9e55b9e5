"""The jobs service on a real database (a SQLite file and PostgreSQL in a schema of its own),
with real leases (the database back end) and a scenario file as the thread."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine

from pbp.jobs.schedule import backoff
from pbp.settings import Settings, load_settings
from pbp.sources.scenario_file import append_post
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Base, Thread
from pbp.store.testing import temporary_database
from tests.rounds.world import World, make_world
from workers.locks import DatabaseLease


@dataclass
class Res:
    """:class:`pbp.jobs.resources.Resources` for a test, as ``workers.runtime.Runtime`` is
    for a worker process."""

    settings: Settings
    engine: Engine
    leases: DatabaseLease

    def backoff(self, retries: int, retry_after: float | None = None) -> float:
        return backoff(retries, retry_after, base=self.settings.retry_base, cap=self.settings.retry_cap)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    pg = request.getfixturevalue("postgres_url") if request.param == "postgresql" else None
    with temporary_database(request.param, directory=tmp_path, postgres_url=pg) as url:
        eng = make_engine(url)
        Base.metadata.create_all(eng)
        yield eng
        eng.dispose()


@pytest.fixture
def res(engine: Engine, tmp_path: Path) -> Res:
    settings = load_settings(env={"PBP_DATA_DIR": str(tmp_path / "var"), "PBP_RETRY_MAX": "3",
                                  "PBP_RETRY_BASE": "2", "PBP_RETRY_CAP": "60",
                                  "PBP_FINAL_POLL_GRACE": "600", "PBP_POLL_INTERVAL": "30",
                                  # the local forums listen on loopback (issue 12 item 5)
                                  "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})
    return Res(settings, engine, DatabaseLease(engine))


@pytest.fixture
def world(res: Res, tmp_path: Path) -> World:
    """The rounds tests' campaign, its thread a scenario file with two posts."""
    w = make_world(res.engine)
    path = tmp_path / "thread.yaml"
    append_post(path, "alice", "Aria attacks Goblin Snag [roll]1d20+5[/roll]")
    append_post(path, "bob", "Bram attacks Goblin Rot")
    with session_scope(res.engine) as s:
        s.get(Thread, w.thread_id).url = str(path)
    return w

"""Fixtures for the rounds tests: a fresh database per test, on SQLite and on PostgreSQL.

PostgreSQL tests live in a schema of their own (``pbp.store.testing``), so parallel
runs never see each other's rows. Round seeds are deterministic here (``seed-1``,
``seed-2``...) so replies can be compared with committed files.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from pbp.rounds import lifecycle
from pbp.store.db import make_engine
from pbp.store.models import Base
from pbp.store.testing import temporary_database


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:  # type: ignore[no-untyped-def]
    pg = request.getfixturevalue("postgres_url") if request.param == "postgresql" else None
    with temporary_database(request.param, directory=tmp_path, postgres_url=pg) as url:
        yield url


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    Base.metadata.create_all(eng)
    yield eng
    eng.dispose()


@pytest.fixture(autouse=True)
def fixed_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = itertools.count(1)
    monkeypatch.setattr(lifecycle, "seed_source", lambda: f"seed-{next(counter)}")

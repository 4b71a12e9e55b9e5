"""Store fixtures: an empty database URL, SQLite file or PostgreSQL schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pbp.store.testing import temporary_database


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:  # type: ignore[no-untyped-def]
    pg = request.getfixturevalue("postgres_url") if request.param == "postgresql" else None
    with temporary_database(request.param, directory=tmp_path, postgres_url=pg) as url:
        yield url

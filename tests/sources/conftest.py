"""Fixtures for the sources' tests.

Forum (machina) part: a real django-machina forum (tests/harness/machina/), started once
per session on free ports: ``machina`` as stock machina (no validators), ``machina_etag``
with Django's ConditionalGetMiddleware (ETag + 304), ``machina_flood`` with HTML 429
flood control on replies. ``machina_any`` runs a test on both of the first two.
The harness is set up by ``.ci/run`` (``bash tests/harness/machina/setup.sh``); a test
run sets it up itself when it is missing (skip locally if that fails, fail in CI).

``misago`` is a real Misago 0.39.6 (PyPI) on PostgreSQL (tests/harness/misago/), one
server per session on its own copy of the seeded database.

Reddit fixtures live in tests/sources/reddit_fixtures.py (another module, imported by
those tests).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness.machina.helpers import load_harness, serve
from tests.harness.misago.helpers import load_harness as load_misago
from tests.harness.misago.helpers import serve as serve_misago


@pytest.fixture(scope="session")
def machina_harness() -> Any:
    return load_harness()


@pytest.fixture(scope="session")
def machina(machina_harness: Any) -> Iterator[Any]:
    yield from serve(machina_harness, etag=False)


@pytest.fixture(scope="session")
def machina_etag(machina_harness: Any) -> Iterator[Any]:
    yield from serve(machina_harness, etag=True)


@pytest.fixture(scope="session")
def machina_flood(machina_harness: Any) -> Iterator[Any]:
    yield from serve(machina_harness, etag=False, flood=30)


@pytest.fixture(params=["plain", "etag"])
def machina_any(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue("machina" if request.param == "plain" else "machina_etag")


@pytest.fixture
def new_topic() -> Any:
    """``new_topic(server, subject, posts=1)``: a fresh topic (through the ORM), its URL."""
    def make(server: Any, subject: str, posts: int = 1) -> str:
        line = next(x for x in server.seed("topic", subject, str(posts)) if x.startswith("TOPIC"))
        return str(server.base + line.split()[1])
    return make


# -- Misago (JSON API on PostgreSQL; tests/harness/misago/) ------------------------------
@pytest.fixture(scope="session")
def misago_harness() -> Any:
    return load_misago()


@pytest.fixture(scope="session")
def misago(misago_harness: Any) -> Iterator[Any]:
    yield from serve_misago(misago_harness)

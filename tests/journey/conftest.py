"""Fixtures of the journeys (issue 11, "What it must show"): Debian's Chromium (the panel
tests' ``browser``: absent, it skips locally and fails in CI), the screenshots' folder,
a real django-machina forum and the local Reddit server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, shared_path
from tests.harness.machina.helpers import load_harness, serve

OUTPUT = ROOT / "test-output" / "journey"


@pytest.fixture(scope="session")
def journey_dir() -> Path:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    return OUTPUT


@pytest.fixture
def machina() -> Iterator[Any]:
    """A machina forum of its own (the harness; missing: skip locally, fail in CI)."""
    yield from serve(load_harness())


@pytest.fixture
def reddit() -> Iterator[Any]:
    """The local Reddit (tests/harness/reddit_server.py), its shapes from ../shared."""
    from tests.sources.reddit_fixtures import load_server_module

    module = load_server_module()
    with module.RedditServer(shared_path("fixtures", "reddit")) as server:
        yield server

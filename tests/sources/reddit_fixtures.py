"""Fixtures for the Reddit tests: the local Reddit server and real praw clients on it.

Imported by ``tests/sources/test_reddit_*.py`` (``from reddit_fixtures import *``), so
the shared ``tests/sources/conftest.py`` stays the forum harness's. The server's shapes
come from ``../shared/fixtures/reddit``; without that folder these tests skip (fail in CI).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import praw
import pytest

from pbp.sources.outbound import PrivateHosts
from pbp.sources.reddit_client import RedditConfig, make_reddit

ROOT = Path(__file__).resolve().parents[2]
#: the local Reddit server listens on loopback: allow-listed as an operator would
#: (issue 12 item 5), so pbp's outbound check lets it through
LOCAL = PrivateHosts.parse("127.0.0.1")


def _load(name: str, path: Path) -> Any:
    """A module by path (``tests`` is not a package, and ``conftest`` is ambiguous)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def load_server_module() -> Any:
    return _load("pbp_test_reddit_server", ROOT / "tests" / "harness" / "reddit_server.py")


def fixtures_dir() -> Path:
    """``../shared/fixtures/reddit`` via ``tests/conftest.py::shared_path`` (skip / CI fail)."""
    return _load("pbp_tests_conftest", ROOT / "tests" / "conftest.py").shared_path("fixtures", "reddit")  # type: ignore[no-any-return]


def client(server: Any, username: str | None = "pbp_bot", **overrides: Any) -> praw.Reddit:
    """A real praw client (hardened as pbp builds it) pointed at *server*."""
    config = RedditConfig(client_id="test-client", client_secret="test-secret",
                          username=username, password="pw" if username else None,
                          user_agent="pbp-tests/0.1 (by u/pbp_bot)",
                          oauth_url=server.url, reddit_url=server.url,
                          private_hosts=LOCAL, **overrides)
    return make_reddit(config, shared=False)


@pytest.fixture
def reddit_server() -> Iterator[Any]:
    module = load_server_module()
    with module.RedditServer(fixtures_dir()) as server:
        yield server


@pytest.fixture
def bot(reddit_server: Any) -> praw.Reddit:
    return client(reddit_server)


@pytest.fixture
def player(reddit_server: Any) -> praw.Reddit:
    """A second account, for edits and deletions done the way a player does them."""
    return client(reddit_server, username="brakka")

"""Shared test plumbing: real services or an honest skip (a failure in CI).

``require_service(name, probe)`` skips a test whose service is missing on a
developer's machine, and fails it when ``CI=true``: CI must never pass by
skipping integration tests. The same goes for ``../shared`` fixtures.
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import socket
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = (ROOT.parent / "shared").resolve()
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

#: The per-user data and settings directories (pbp.settings) point into a temporary folder
#: for the whole run, subprocesses included: a test that builds settings from the
#: environment never reads nor writes the developer's own pbp data or settings file.
_USER_DIRS = Path(tempfile.mkdtemp(prefix="pbp-test-user-"))
os.environ["XDG_DATA_HOME"] = str(_USER_DIRS / "data")
os.environ["XDG_CONFIG_HOME"] = str(_USER_DIRS / "config")
atexit.register(shutil.rmtree, _USER_DIRS, True)


def missing(reason: str) -> None:
    """Skip locally, fail in CI."""
    if IN_CI:
        pytest.fail(f"required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def require_port(name: str, host: str, port: int) -> None:
    if not port_open(host, port):
        missing(f"{name} is not listening on {host}:{port}")


def shared_path(*parts: str) -> Path:
    """A path under ../shared; skips (fails in CI) when the folder is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        missing(f"{path} is absent (../shared holds the real fixtures; never copied here)")
    return path


POSTGRES_URL = os.environ.get("PBP_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("PBP_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def postgres_url() -> str:
    require_port("PostgreSQL", "127.0.0.1", 5432)
    return POSTGRES_URL


@pytest.fixture
def redis_url() -> str:
    require_port("Redis", "127.0.0.1", 6379)
    return REDIS_URL


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return shared_path()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Collect what the run left to the garbage collector, and name it instead of failing.

    A socket that a test leaks *during* a test is still an error there (filterwarnings =
    error, attributed to that test). One that is only found by the final collection after
    every test passed belongs to no test, and pytest would turn it into an exit code 1 with
    no failed test; print it so it gets fixed, without failing a green run."""
    with warnings.catch_warnings(record=True) as leaked:
        warnings.simplefilter("always", ResourceWarning)
        for _ in range(3):
            gc.collect()
    for w in leaked:
        print(f"\nleft to the garbage collector at exit: {w.message}")


# --- the browser ----------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser() -> Any:
    """The session's one Chromium (Debian's, through Playwright). One definition for every
    folder: Playwright's sync API cannot start a second instance in the same thread, so a
    second session fixture of the same name (imported into another conftest) errored every
    browser test that ran after the first."""
    if not Path(CHROMIUM).exists():
        missing(f"{CHROMIUM} is absent (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (pip install playwright)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()

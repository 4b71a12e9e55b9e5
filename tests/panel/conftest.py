"""Fixtures of the panel's tests: a migrated SQLite database with the sample fight, an
app on it, a logged-in test client, and (browser tests) the app served by werkzeug in
a thread with Debian's Chromium driven by Playwright."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbp.panel import create_app, sample
from pbp.settings import load_settings
from pbp.store.db import make_engine, session_scope, upgrade
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, ROOT, missing  # noqa: F401
from tests.panel.served import served

OUTPUT = ROOT / "test-output" / "panel"
AXE_DIR = ROOT / "build" / "axe"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"

_TEMPLATE_DB: dict[str, Any] = {}
_STARTED: list[float] = []


def pytest_sessionstart(session: Any) -> None:
    _STARTED.append(time.time())


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The hostile-forms property test's figures (issue 12), when it ran in this session."""
    figures = ROOT / "test-output" / "hypothesis.txt"
    if _STARTED and figures.exists() and figures.stat().st_mtime >= _STARTED[0]:
        terminalreporter.write_sep("-", "hostile values posted to the panel's forms")
        terminalreporter.write_line(figures.read_text().rstrip())


@pytest.fixture
def db_url(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A migrated SQLite file with the sample fight (built once, then copied per test)."""
    if "seeded" not in _TEMPLATE_DB:
        base = tmp_path_factory.mktemp("panel-db") / "seeded.sqlite"
        url = f"sqlite:///{base}"
        upgrade(url)
        engine = make_engine(url)
        with session_scope(engine) as s:
            _TEMPLATE_DB["ids"] = sample.seed(s)
        engine.dispose()
        _TEMPLATE_DB["seeded"] = base
    target = tmp_path / "pbp.sqlite"
    shutil.copy(_TEMPLATE_DB["seeded"], target)
    return f"sqlite:///{target}"


@pytest.fixture
def ids(db_url: str) -> dict[str, Any]:
    """The sample's ids, plus the open round's rolls, posts and combatants."""
    from sqlalchemy import select

    from pbp.store.models import Combatant, Declaration, Post, RollRecord

    out = dict(_TEMPLATE_DB["ids"])  # type: ignore[arg-type]
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        out["rolls"] = list(s.scalars(select(RollRecord.id).where(RollRecord.round_id == out["round"])
                                      .order_by(RollRecord.roll_index)))
        out["rolls1"] = list(s.scalars(select(RollRecord.id).where(RollRecord.round_id == out["round1"],
                                                                   RollRecord.post_id.is_not(None))
                                       .order_by(RollRecord.roll_index)))
        out["posts"] = list(s.scalars(select(Post.id).where(Post.round_id == out["round"]).order_by(Post.id)))
        out["declarations"] = list(s.scalars(select(Declaration.id).where(Declaration.round_id == out["round"])
                                             .order_by(Declaration.id)))
        out["combatants"] = {k: i for k, i in s.execute(
            select(Combatant.key, Combatant.id).where(Combatant.encounter_id == out["encounter"])).all()}
        out["other_combatant"] = s.scalars(select(Combatant.id).where(
            Combatant.encounter_id == out["other_encounter"])).first()
    engine.dispose()
    return out


@pytest.fixture
def app(db_url: str) -> Any:
    # sources on the local test forums (127.0.0.1) are allow-listed as an operator would
    # (issue 12 item 5); test_sources_panel.py clears it to see the refusal
    return create_app({"TESTING": True, "SECRET_KEY": "test-secret", "DATABASE_URL": db_url,
                       "LOGIN_MAX_FAILURES": 3, "LOGIN_LOCKOUT": 60},
                      settings=load_settings().with_overrides(allow_private_hosts="127.0.0.1"))


def csrf_from(html: str) -> str:
    m = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html)
    assert m, "no CSRF token in the page"
    return m.group(1)


class Client:
    """A test client that knows the CSRF token of the last page it fetched."""

    def __init__(self, client: Any) -> None:
        self.c = client
        self.token = ""

    def get(self, url: str, **kw: Any) -> Any:
        r = self.c.get(url, **kw)
        if r.status_code == 200 and r.mimetype == "text/html" and "csrf_token" in r.text:
            self.token = csrf_from(r.text)
        return r

    def post(self, url: str, data: dict[str, Any] | None = None, *, csrf: bool = True, **kw: Any) -> Any:
        data = dict(data or {})
        if csrf:
            if not self.token:
                self.get("/login")
            data.setdefault("csrf_token", self.token)
        return self.c.post(url, data=data, **kw)

    def login(self, name: str = "alice", password: str = sample.PASSWORD) -> Any:
        self.get("/login")
        r = self.post("/login", {"name": name, "password": password})
        if r.status_code == 302:
            self.get("/")  # the session was renewed at login: fetch a fresh CSRF token
        return r


@pytest.fixture
def client(app: Any) -> Client:
    return Client(app.test_client())


@pytest.fixture
def alice(client: Client) -> Client:
    r = client.login()
    assert r.status_code == 302, r.text
    return client


# --- browser ------------------------------------------------------------------------------


@pytest.fixture
def live_server(db_url: str) -> Iterator[str]:
    """The panel on a free localhost port, served by werkzeug in a thread."""
    app = create_app({"SECRET_KEY": "browser-secret", "DATABASE_URL": db_url, "REFRESH_INTERVAL_MS": 500},
                     settings=load_settings().with_overrides(allow_private_hosts="127.0.0.1"))
    with served(app) as base:
        yield base


@pytest.fixture(scope="session")
def axe_js() -> Path:
    """axe-core's axe.min.js from the npm registry, installed once into build/axe."""
    if not AXE_JS.exists():
        if shutil.which("npm") is None:
            missing("npm is absent: cannot install axe-core")
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix",
                               str(AXE_DIR), "axe-core@4"], capture_output=True, text=True, check=False, timeout=300)
        if proc.returncode != 0 or not AXE_JS.exists():
            missing(f"npm install axe-core failed: {proc.stderr[-500:]}")
    return AXE_JS


@pytest.fixture(scope="session")
def output_dir() -> Path:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    return OUTPUT


PHONE = {"width": 390, "height": 844}


def browser_login(page: Any, base: str, name: str = "alice", password: str = sample.PASSWORD) -> None:
    """Log in through the panel's own form, as a narrator does, and land on the dashboard."""
    page.goto(f"{base}/login")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")


def flash_ok(page: Any, button: Any, says: str = "") -> str:
    """Click a form's submit *button* and read the "done" flash of the page its POST
    redirects to (saying *says*). Waiting for any ``.flash.ok`` after the click was a race
    (test_browser_fight failed 1 run in 12 under load): the click returns before the
    redirect's page has loaded, and the page before may still show the flash of the form
    sent before it, which was then read as this one's."""
    with page.expect_navigation():
        button.click()
    flash = page.locator(".flash.ok", has_text=says).first
    flash.wait_for()
    return str(flash.inner_text())

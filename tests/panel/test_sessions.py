"""Issue 12, item 3: sessions end when they should.

A cookie copied before a logout, a password change (panel or ``pbp narrator passwd``) or
"log out everywhere" is refused afterwards: the copy is sent back to the login page. A
session also ends after its idle and absolute lifetimes (settings
``panel_session_idle_hours``, ``panel_session_max_days``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from sqlalchemy import select

from pbp.panel import create_app, sample
from pbp.settings import load_settings
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Narrator, NarratorSession

from .conftest import ROOT, Client

COOKIE = "pbp_session"


def copy_of(client: Client, app: Any) -> Client:
    """A second browser holding a copy of *client*'s session cookie (the thief's)."""
    thief = Client(app.test_client())
    value = client.c.get_cookie(COOKIE).value
    thief.c.set_cookie(COOKIE, value)
    return thief


def refused(client: Client) -> bool:
    r = client.get("/")
    return r.status_code == 302 and r.headers["Location"].startswith("/login")


def sessions_of(db_url: str, name: str) -> int:
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            nid = s.scalar(select(Narrator.id).where(Narrator.username == name))
            return len(list(s.scalars(select(NarratorSession).where(NarratorSession.narrator_id == nid))))
    finally:
        engine.dispose()


def test_issue12_3_copied_cookie_works_before_and_fails_after_logout(alice: Client, app: Any) -> None:
    thief = copy_of(alice, app)
    assert thief.get("/").status_code == 200          # the copy is as good as the original...
    assert alice.post("/logout", {}).status_code == 302
    assert refused(thief)                             # ...until the owner logs out
    assert refused(alice)


def test_issue12_3_logout_ends_only_that_session(app: Any, db_url: str) -> None:
    """Logging out on the phone leaves the laptop logged in (each login is its own row)."""
    laptop, phone = Client(app.test_client()), Client(app.test_client())
    assert laptop.login().status_code == 302 and phone.login().status_code == 302
    assert sessions_of(db_url, "alice") == 2
    phone.post("/logout", {})
    assert refused(phone) and laptop.get("/").status_code == 200
    assert sessions_of(db_url, "alice") == 1


def test_issue12_3_remember_cookie_copied_fails_after_logout(app: Any) -> None:
    """The "keep me logged in" cookie names the session too: it cannot bring it back."""
    alice = Client(app.test_client())
    alice.get("/login")
    assert alice.post("/login", {"name": "alice", "password": sample.PASSWORD, "remember": "y"}).status_code == 302
    remember = alice.c.get_cookie("remember_token").value
    thief = Client(app.test_client())
    thief.c.set_cookie("remember_token", remember)
    assert thief.get("/").status_code == 200          # restored from the remember cookie alone
    alice.get("/")
    alice.post("/logout", {})
    late = Client(app.test_client())
    late.c.set_cookie("remember_token", remember)
    assert refused(late)


def test_issue12_3_pbp_narrator_passwd_ends_every_session(alice: Client, app: Any, db_url: str,
                                                          tmp_path: Any) -> None:
    thief = copy_of(alice, app)
    assert thief.get("/").status_code == 200
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PBP_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "pbp.cli", "narrator", "passwd", "alice", "--password-stdin",
                           "--database-url", db_url], input="a whole new secret\n", env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "1 panel session(s) ended" in done.stdout
    assert refused(thief) and refused(alice)
    assert Client(app.test_client()).login("alice", "a whole new secret").status_code == 302


def test_issue12_3_panel_password_change_ends_other_sessions(alice: Client, app: Any, db_url: str) -> None:
    other = Client(app.test_client())
    assert other.login().status_code == 302
    thief = copy_of(alice, app)
    page = alice.get("/account/")
    assert page.status_code == 200 and "Log out everywhere" in page.text
    assert "Browsers and devices logged in as you: 2" in page.text
    r = alice.post("/account/password", {"current": "wrong", "new": "n3w password!", "confirm": "n3w password!"})
    assert r.status_code == 400 and "not your current password" in r.text
    assert thief.get("/").status_code == 200          # a refused change ends nothing
    r = alice.post("/account/password", {"current": sample.PASSWORD, "new": "n3w password!",
                                         "confirm": "n3w password?"})
    assert r.status_code == 400 and "differ" in r.text
    r = alice.post("/account/password", {"current": sample.PASSWORD, "new": "n3w password!",
                                         "confirm": "n3w password!"})
    assert r.status_code == 302
    assert refused(thief) and refused(other)
    assert alice.get("/").status_code == 200          # the browser that changed it stays in
    assert sessions_of(db_url, "alice") == 1
    assert Client(app.test_client()).login().status_code == 401   # the old password is gone


def test_issue12_3_log_out_everywhere(alice: Client, app: Any, db_url: str) -> None:
    other = Client(app.test_client())
    assert other.login().status_code == 302
    bob = Client(app.test_client())
    assert bob.login("bob").status_code == 302
    thief = copy_of(alice, app)
    alice.get("/account/")
    assert alice.post("/account/logout-everywhere", {}, csrf=False).status_code == 400
    assert thief.get("/").status_code == 200
    alice.get("/account/")
    r = alice.post("/account/logout-everywhere", {})
    assert r.status_code == 302 and r.headers["Location"] == "/login"
    assert refused(thief) and refused(other) and refused(alice)
    assert sessions_of(db_url, "alice") == 0
    assert bob.get("/").status_code == 200            # another narrator's sessions are theirs


def test_issue12_3_idle_and_absolute_lifetimes(db_url: str) -> None:
    now = [1_000_000.0]
    app = create_app({"TESTING": True, "SECRET_KEY": "k", "DATABASE_URL": db_url, "LOGIN_CLOCK": lambda: now[0],
                      "SESSION_IDLE": 3600, "SESSION_MAX_AGE": 4 * 3600})
    a = Client(app.test_client())
    assert a.login().status_code == 302
    now[0] += 3500
    assert a.get("/").status_code == 200              # used within the idle hour: refreshed
    now[0] += 3500
    assert a.get("/").status_code == 200
    now[0] += 3601
    assert refused(a)                                 # idle past an hour
    b = Client(app.test_client())
    b.get("/login")
    assert b.post("/login", {"name": "alice", "password": sample.PASSWORD, "remember": "y"}).status_code == 302
    now[0] += 3 * 3600                                # "keep me logged in": idle does not end it
    assert b.get("/").status_code == 200
    now[0] += 3601                                    # ...the absolute lifetime does
    assert refused(b)


def test_issue12_3_lifetimes_come_from_the_settings(db_url: str) -> None:
    settings = load_settings(env={"PBP_PANEL_SESSION_IDLE_HOURS": "2", "PBP_PANEL_SESSION_MAX_DAYS": "1",
                                  "PBP_DATABASE_URL": db_url, "PBP_SECRET_KEY": "k"})
    app = create_app({"TESTING": True}, settings=settings)
    assert app.config["SESSION_IDLE"] == 7200 and app.config["SESSION_MAX_AGE"] == 86400
    # the session cookie lives as long as the login may; the idle end is the server's
    assert app.config["PERMANENT_SESSION_LIFETIME"].total_seconds() == 86400
    assert app.config["REMEMBER_COOKIE_DURATION"].total_seconds() == 86400
    default = create_app({"TESTING": True}, settings=load_settings(env={"PBP_DATABASE_URL": db_url,
                                                                        "PBP_SECRET_KEY": "k"}))
    assert default.config["SESSION_IDLE"] == 12 * 3600 and default.config["SESSION_MAX_AGE"] == 7 * 86400


def test_issue12_3_the_session_cookie_lives_as_long_as_the_login(db_url: str) -> None:
    """The session cookie set at login expires with the login's absolute lifetime (one
    day here), not after the idle hours (two): the idle end is the server's, and the live
    refresh keeps the server's session in use while its answers never send the cookie
    again (pbp.panel.cookies). With the cookie's own life at the idle hours, a narrator
    whose encounter tab had refreshed all along was logged out at the next click."""
    settings = load_settings(env={"PBP_PANEL_SESSION_IDLE_HOURS": "2", "PBP_PANEL_SESSION_MAX_DAYS": "1",
                                  "PBP_DATABASE_URL": db_url, "PBP_SECRET_KEY": "k"})
    app = create_app({"TESTING": True}, settings=settings)
    c = Client(app.test_client())
    c.get("/login")
    r = c.post("/login", {"name": "alice", "password": sample.PASSWORD})
    assert r.status_code == 302
    cookie = next(h for h in r.headers.getlist("Set-Cookie") if h.startswith("pbp_session="))
    expires = parsedate_to_datetime(cookie.split("Expires=", 1)[1].split(";", 1)[0])
    assert abs((expires - datetime.now(UTC)).total_seconds() - 86400) < 120, cookie


def test_issue12_3_a_forged_user_id_is_refused(app: Any, alice: Client) -> None:
    """The session's user id without a token (the old cookie format), or another
    narrator's id with alice's token, opens nothing."""
    loader = app.login_manager._user_callback
    with app.test_request_context():
        assert loader("1") is None and loader("1:") is None and loader("x:y") is None
        assert loader("2:" + "a" * 43) is None
        assert loader("9" * 40 + ":t") is None

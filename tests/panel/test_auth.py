"""Login, logout, CSRF, lockout, cookies, access to other narrators' campaigns."""

from __future__ import annotations

from typing import Any

import pytest

from pbp.panel import create_app, sample

from .conftest import Client, csrf_from

PAGES = ["/", "/campaigns/new", "/campaigns/{campaign}", "/encounters/{encounter}",
         "/encounters/{encounter}/live", "/encounters/{encounter}/combatants/",
         "/encounters/{encounter}/combatants/{combatant}"]


@pytest.mark.parametrize("path", [p for p in PAGES if not p.endswith("/live")])
def test_unauthenticated_access_redirects_to_login(client: Any, ids: dict[str, Any], path: str) -> None:
    url = path.format(combatant=ids["combatants"]["aria"], **ids)
    r = client.get(url)
    assert r.status_code == 302
    assert r.headers["Location"].startswith("/login?next=")


def test_unauthenticated_live_refresh_answers_401_json(client: Any, ids: dict[str, Any]) -> None:
    r = client.get(f"/encounters/{ids['encounter']}/live")
    assert r.status_code == 401 and r.get_json()["login"] == "/login"


POSTS = ["/encounters/{encounter}/override/" + k for k in
         ("roll", "hp", "condition", "initiative", "action", "penalty", "deadline", "reply", "resolve")] + [
    "/campaigns/new", "/campaigns/{campaign}", "/campaigns/{campaign}/threads", "/campaigns/{campaign}/narrators",
    "/campaigns/{campaign}/narrators/1/accounts", "/campaigns/{campaign}/encounters", "/encounters/{encounter}/combatants/new",
    "/encounters/{encounter}/combatants/import", "/logout"]


@pytest.mark.parametrize("path", POSTS)
def test_unauthenticated_post_redirects_to_login(client: Any, ids: dict[str, Any], path: str) -> None:
    r = client.post(path.format(**ids), {"reason": "x"})
    assert r.status_code == 302 and "/login" in r.headers["Location"]


def test_login_page_and_success(client: Any) -> None:
    r = client.get("/login")
    assert r.status_code == 200 and 'name="csrf_token"' in r.text
    r = client.login()
    assert r.status_code == 302 and r.headers["Location"] == "/"
    assert "Alice" in client.get("/").text


def test_login_follows_only_local_next(client: Any) -> None:
    client.get("/login")
    r = client.post("/login", {"name": "alice", "password": "correct horse battery", "next": "//evil.example/x"})
    assert r.headers["Location"] == "/"
    client.get("/")
    assert client.post("/logout", {}).status_code == 302
    client.get("/login")
    r = client.post("/login", {"name": "alice", "password": "correct horse battery", "next": "/campaigns/new"})
    assert r.headers["Location"] == "/campaigns/new"


def test_wrong_password_and_unknown_name_answer_alike(client: Any) -> None:
    a = client.login("alice", "wrong password")
    b = client.login("nobody", "wrong password")
    assert a.status_code == b.status_code == 401
    assert "Wrong name or password." in a.text and "Wrong name or password." in b.text


def test_lockout_after_repeated_failures(client: Any) -> None:
    for _ in range(3):  # LOGIN_MAX_FAILURES in the test app
        assert client.login("alice", "nope").status_code == 401
    r = client.login("alice")  # right password, but locked out now
    assert r.status_code == 429
    assert "Too many failed logins" in r.text


def test_lockout_ends(db_url: str) -> None:
    now = [1000.0]
    app = create_app({"TESTING": True, "SECRET_KEY": "k", "DATABASE_URL": db_url, "LOGIN_MAX_FAILURES": 2,
                      "LOGIN_LOCKOUT": 30, "LOGIN_CLOCK": lambda: now[0]})
    c = Client(app.test_client())
    assert c.login("alice", "x").status_code == 401
    assert c.login("alice", "y").status_code == 401
    now[0] += 29
    assert c.login("alice").status_code == 429
    now[0] += 2
    assert c.login("alice").status_code == 302


def test_login_form_without_csrf_is_refused(client: Any) -> None:
    client.get("/login")
    r = client.post("/login", {"name": "alice", "password": "correct horse battery"}, csrf=False)
    assert r.status_code == 400
    assert client.get("/").status_code == 302  # still logged out


def test_logout_needs_post_with_csrf(alice: Any) -> None:
    assert alice.c.get("/logout").status_code == 405
    assert alice.post("/logout", {}, csrf=False).status_code == 400
    assert alice.get("/").status_code == 200
    assert alice.post("/logout", {}).status_code == 302
    assert alice.get("/").status_code == 302


def test_session_cookie_is_secure_httponly_samesite(app: Any) -> None:
    """Over https (tests/panel/test_lan_http.py: plain http drops only Secure)."""
    c = app.test_client()
    page = c.get("/login", base_url="https://localhost")
    r = c.post("/login", base_url="https://localhost", headers={"Referer": "https://localhost/login"}, data={
        "csrf_token": csrf_from(page.text), "name": "alice", "password": sample.PASSWORD})
    assert r.status_code == 302
    cookie = r.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_security_headers(client: Any) -> None:
    r = client.get("/login")
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", ["/campaigns/{other_campaign}", "/encounters/{other_encounter}",
                                  "/encounters/{other_encounter}/live",
                                  "/encounters/{other_encounter}/combatants/",
                                  "/encounters/{other_encounter}/combatants/{other_combatant}",
                                  "/encounters/{encounter}/combatants/{other_combatant}",
                                  "/campaigns/999999", "/encounters/999999"])
def test_another_narrators_campaign_answers_404(alice: Any, ids: dict[str, Any], path: str) -> None:
    assert alice.get(path.format(**ids)).status_code == 404


@pytest.mark.parametrize("path,data", [
    ("/campaigns/{other_campaign}", {"name": "x", "ruleset": "dnd5e", "language": "en", "timezone": "UTC"}),
    ("/campaigns/{other_campaign}/threads", {"thread-kind": "forum", "thread-url": "http://x.invalid/t"}),
    ("/campaigns/{other_campaign}/narrators", {"co-name": "alice"}),
    ("/campaigns/{other_campaign}/narrators/2/accounts", {"accounts": "alice_gm"}),
    ("/encounters/{other_encounter}/override/hp", {"combatant_id": "{other_combatant}", "hp": "1", "reason": "x"}),
    ("/encounters/{encounter}/override/hp", {"combatant_id": "{other_combatant}", "hp": "1", "reason": "x"}),
])
def test_another_narrators_forms_answer_404(alice: Any, ids: dict[str, Any], path: str,
                                            data: dict[str, str]) -> None:
    r = alice.post(path.format(**ids), {k: v.format(**ids) for k, v in data.items()})
    assert r.status_code == 404


def test_co_narrator_sees_the_campaign(alice: Any, app: Any, ids: dict[str, Any]) -> None:
    r = alice.post(f"/campaigns/{ids['campaign']}/narrators", {"co-name": "bob"})
    assert r.status_code == 302
    bob = Client(app.test_client())
    assert bob.login("bob").status_code == 302
    assert bob.get(f"/encounters/{ids['encounter']}").status_code == 200
    assert "The Sunken Keep" in bob.get("/").text
    r = alice.post(f"/campaigns/{ids['campaign']}/narrators", {"co-name": "nobody"})
    assert r.status_code == 400 and "No narrator of that name." in r.text


@pytest.mark.parametrize("path", [p for p in POSTS if p != "/logout"] + ["/language"])
def test_every_form_refuses_a_missing_csrf_token(alice: Any, ids: dict[str, Any], path: str,
                                                 db_url: str) -> None:
    from sqlalchemy import func, select

    from pbp.store.db import make_engine, session_scope
    from pbp.store.models import AuditEntry

    data = {"reason": "r", "name": "X", "hp": "1", "max_hp": "1", "key": "x", "side": "s", "total": "1",
            "combatant_id": str(ids["combatants"]["aria"]), "roll_id": str(ids["rolls"][0]),
            "round_id": str(ids["round"]), "reply_id": str(ids["reply"]), "language": "pt",
            "thread_id": str(ids["thread"]), "order": "aria", "ruleset": "dnd5e", "timezone": "UTC"}
    r = alice.post(path.format(**ids), data, csrf=False)
    assert r.status_code == 400
    with session_scope(make_engine(db_url)) as s:
        assert s.scalar(select(func.count(AuditEntry.id)).where(AuditEntry.narrator_id.is_not(None))) == 0

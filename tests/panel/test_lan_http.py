"""Issue 11 item 9: the cookies' Secure flag follows how the panel is served.

Plain http from another machine of the LAN logs in (no Secure flag, a warning in the log);
https, or an https proxy the operator trusts (``panel_trust_proxy``), gets Secure cookies;
a refused form is a page in words that names the settings, never Flask-WTF's raw 400."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from pbp.panel import create_app, sample
from pbp.settings import load_settings

from .conftest import csrf_from

LAN = {"REMOTE_ADDR": "192.168.1.30"}


def _login(c: Any, base_url: str, headers: dict[str, str] | None = None, remember: bool = False) -> Any:
    page = c.get("/login", base_url=base_url, headers=headers, environ_base=LAN)
    data = {"csrf_token": csrf_from(page.text), "name": "alice", "password": sample.PASSWORD}
    if remember:
        data["remember"] = "y"
    # a browser sends Referer to its own origin (Referrer-Policy: same-origin); Flask-WTF
    # requires it over https
    origin = ("https://" + headers["X-Forwarded-Host"]) if headers else base_url
    return c.post("/login", base_url=base_url, environ_base=LAN, data=data,
                  headers={**(headers or {}), "Referer": f"{origin}/login"})


def _cookies(r: Any) -> dict[str, str]:
    return {h.split("=", 1)[0]: h for h in r.headers.getlist("Set-Cookie")}


def test_plain_http_from_the_lan_logs_in_without_secure_and_warns(
        app: Any, caplog: pytest.LogCaptureFixture) -> None:
    c = app.test_client()
    with caplog.at_level(logging.WARNING, logger="pbp.panel"):
        r = _login(c, "http://192.168.1.20:5000", remember=True)
    assert r.status_code == 302, r.text
    cookies = _cookies(r)
    assert "Secure" not in cookies["pbp_session"] and "HttpOnly" in cookies["pbp_session"]
    assert "remember_token" in cookies and "Secure" not in cookies["remember_token"]
    assert "HttpOnly" in cookies["remember_token"]
    # the browser sends the cookie back over http: the session holds
    assert c.get("/", base_url="http://192.168.1.20:5000", environ_base=LAN).status_code == 200
    warnings = [rec.getMessage() for rec in caplog.records if rec.levelno == logging.WARNING]
    assert any("plain http" in w and "panel_trust_proxy" in w for w in warnings)


def test_https_sets_secure_on_both_cookies(app: Any) -> None:
    r = _login(app.test_client(), "https://pbp.example.org", remember=True)
    assert r.status_code == 302
    cookies = _cookies(r)
    assert "Secure" in cookies["pbp_session"] and "Secure" in cookies["remember_token"]


def test_forwarded_proto_counts_only_when_the_proxy_is_trusted(db_url: str) -> None:
    proxied = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "pbp.example.org"}
    base = {"TESTING": True, "SECRET_KEY": "k", "DATABASE_URL": db_url}
    untrusted = create_app(base)
    r = _login(untrusted.test_client(), "http://10.0.0.5:5000", proxied)
    assert r.status_code == 302 and "Secure" not in _cookies(r)["pbp_session"]
    settings = load_settings(env={"PBP_PANEL_TRUST_PROXY": "true", "PBP_DATA_DIR": "/nonexistent"})
    assert settings.panel_trust_proxy is True
    trusted = create_app(base, settings=settings)
    r = _login(trusted.test_client(), "http://10.0.0.5:5000", proxied)
    assert r.status_code == 302 and "Secure" in _cookies(r)["pbp_session"]
    assert r.headers["Location"].startswith(("/", "https://pbp.example.org"))


def test_an_explicit_setting_wins_over_auto(db_url: str) -> None:
    app = create_app({"TESTING": True, "SECRET_KEY": "k", "DATABASE_URL": db_url,
                      "SESSION_COOKIE_SECURE": False})
    r = _login(app.test_client(), "https://pbp.example.org")
    assert "Secure" not in _cookies(r)["pbp_session"]


def test_csrf_failure_is_a_page_in_words(app: Any) -> None:
    c = app.test_client()
    r = c.post("/login", base_url="http://192.168.1.20:5000", environ_base=LAN,
               data={"name": "alice", "password": sample.PASSWORD})
    assert r.status_code == 400 and r.mimetype == "text/html"
    assert "The CSRF session token is missing" not in r.text and "Bad Request" not in r.text
    assert "The form was not accepted" in r.text and "panel_trust_proxy" in r.text
    assert "PBP_PANEL_SESSION_COOKIE_SECURE" in r.text


def test_csrf_failure_names_a_secure_cookie_forced_on_plain_http(db_url: str) -> None:
    """The old default (Secure always) behind plain http: the page says what to change."""
    app = create_app({"TESTING": True, "SECRET_KEY": "k", "DATABASE_URL": db_url,
                      "SESSION_COOKIE_SECURE": True})
    c = app.test_client()
    page = c.get("/login", base_url="http://192.168.1.20:5000", environ_base=LAN)
    assert "Secure" in _cookies(page)["pbp_session"]
    # a browser drops that cookie over http: the form comes back without a session
    c.delete_cookie("pbp_session", domain="192.168.1.20")
    r = c.post("/login", base_url="http://192.168.1.20:5000", environ_base=LAN,
               data={"csrf_token": csrf_from(page.text), "name": "alice",
                     "password": sample.PASSWORD})
    assert r.status_code == 400
    assert "http://192.168.1.20:5000" in r.text and "cookie is marked Secure" in r.text
    assert "PBP_PANEL_SESSION_COOKIE_SECURE=auto" in r.text


def test_csrf_page_is_translated(app: Any) -> None:
    c = app.test_client()
    r = c.post("/login", data={"name": "x"}, headers={"Accept-Language": "pt"})
    assert r.status_code == 400 and "O formulário não foi aceito" in r.text

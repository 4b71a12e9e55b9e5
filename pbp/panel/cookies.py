"""The cookies' Secure flag follows how the panel is served; a refused form says why.

Why: a browser drops a ``Secure`` cookie sent over plain http (localhost excepted), so a
panel reached at ``http://192.168.1.20:5000`` from another machine of the LAN could never
keep a session: every login ended in Flask-WTF's raw "Bad Request — The CSRF session token
is missing.". With ``SESSION_COOKIE_SECURE``/``REMEMBER_COOKIE_SECURE`` at ``"auto"`` (the
default) the flag is set exactly when the request came over https: directly
(``request.is_secure``), or through a proxy whose ``X-Forwarded-Proto`` the operator said
to believe (``panel_trust_proxy``: werkzeug's ProxyFix, one hop). Plain http from another
machine works and is logged once as a warning naming the settings; ``true``/``false`` fix
the flag either way. A CSRF refusal is a page in words that names the same settings.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

from flask import Flask, Response, current_app, g, has_request_context, render_template, request
from flask.sessions import SecureCookieSessionInterface
from flask_wtf.csrf import CSRFError
from werkzeug.middleware.proxy_fix import ProxyFix

log = logging.getLogger("pbp.panel")

AUTO = "auto"
#: set in ``g`` on a request whose answer must not send the session cookie again
KEEP_COOKIE = "pbp_keep_cookie"


def _loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def cookie_secure(app: Flask, key: str = "SESSION_COOKIE_SECURE") -> bool:
    """Whether a cookie set now carries ``Secure``: the setting when it is true or false;
    with ``"auto"``, whether this request came over https."""
    setting = app.config.get(key, AUTO)
    if isinstance(setting, bool):
        return setting
    if str(setting).lower() != AUTO:
        return str(setting).lower() in {"1", "true", "yes", "on"}
    if not has_request_context():
        return True
    if request.is_secure:
        return True
    if not _loopback(request.remote_addr) and not app.extensions.get("pbp_http_warned"):
        app.extensions["pbp_http_warned"] = True
        log.warning("panel served over plain http to another machine: its session cookie is "
                    "not Secure; serve it over https, or behind an https proxy set "
                    "panel_trust_proxy (PBP_PANEL_TRUST_PROXY=true)",
                    extra={"remote": request.remote_addr, "host": request.host})
    return False


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session, with the Secure flag of :func:`cookie_secure`."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return cookie_secure(app)

    def should_set_cookie(self, app: Flask, session: Any) -> bool:
        """Never in the answer to a page's background request (the live refresh, a part
        loaded on demand: panel.js marks them). One still in flight when a form is posted
        answers after the POST's redirect, and its cookie, the session as it was before the
        POST, would replace the POST's: the "done" message lost (test_browser_fight's
        flake under load), or anything else the POST put in the session undone. Nor on an
        answer that asked for the cookie to stay as it is (the live refresh's "nothing
        changed", SCALE-5: no cookie signed again every few seconds per tab)."""
        if g.get(KEEP_COOKIE):
            return False
        if has_request_context() and (request.headers.get("X-Fragment") or "X-Live-Have" in request.headers):
            return False
        return bool(super().should_set_cookie(app, session))


def _remember_cookie(response: Response) -> Response:
    """Flask-Login writes its remember cookie with the config value as is ("auto" comes out
    as ``Secure=auto``): put the flag of :func:`cookie_secure` there instead."""
    app = current_app
    if str(app.config.get("REMEMBER_COOKIE_SECURE")).lower() != AUTO:
        return response
    name = app.config.get("REMEMBER_COOKIE_NAME", "remember_token")
    headers = response.headers.getlist("Set-Cookie")
    if not any(h.startswith(f"{name}=") for h in headers):
        return response
    secure = cookie_secure(app, "REMEMBER_COOKIE_SECURE")
    response.headers.remove("Set-Cookie")
    for header in headers:
        if header.startswith(f"{name}="):
            parts = [p for p in header.split("; ") if p.split("=", 1)[0].lower() != "secure"]
            header = "; ".join(parts + (["Secure"] if secure else []))
        response.headers.add("Set-Cookie", header)
    return response


def _csrf_refused(error: CSRFError) -> tuple[str, int]:
    """The refusal in words: what happened and which setting decides the cookie."""
    fixed = current_app.config.get("SESSION_COOKIE_SECURE")
    secure_on_http = fixed is True and not request.is_secure
    log.warning("form refused: CSRF check failed", extra={"reason": error.description,
                                                           "remote": request.remote_addr,
                                                           "secure": request.is_secure})
    return render_template("panel/csrf_error.html", secure_on_http=secure_on_http,
                           scheme=request.scheme, host=request.host), 400


def init_app(app: Flask) -> None:
    """Install the session interface, the remember-cookie fix, the proxy trust and the page.

    Call before Flask-Login's ``init_app``: after-request hooks run last-registered first,
    so this one sees the remember cookie Flask-Login has just set.
    """
    app.session_interface = SessionInterface()
    app.after_request(_remember_cookie)
    hops: Any = app.config.get("TRUSTED_PROXIES") or 0
    if int(hops) > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=int(hops), x_proto=int(hops),  # type: ignore[method-assign]
                                x_host=int(hops), x_port=int(hops))
    app.register_error_handler(CSRFError, _csrf_refused)

"""Flask configuration of the panel: defaults, and the keys taken from :class:`Settings`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ..settings import Settings, ensure_secret_key

#: The cookies' Secure flag follows how the page was served (``"auto"``,
#: :func:`pbp.panel.security.cookie_secure`): Secure over https (or a proxy's
#: ``X-Forwarded-Proto: https`` when ``panel_trust_proxy`` is on), not over plain http, where
#: a browser would refuse a Secure cookie and no login could ever work. ``true`` or
#: ``false`` (``PBP_PANEL_SESSION_COOKIE_SECURE``) fixes it either way.
DEFAULTS: dict[str, Any] = {
    "SESSION_COOKIE_SECURE": "auto",
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "SESSION_COOKIE_NAME": "pbp_session",
    "REMEMBER_COOKIE_SECURE": "auto",
    "REMEMBER_COOKIE_HTTPONLY": True,
    "REMEMBER_COOKIE_SAMESITE": "Lax",
    #: A session ends after SESSION_IDLE seconds unused (unless "keep me logged in" was
    #: ticked) and SESSION_MAX_AGE seconds after the login in any case; logout, a password
    #: change and "log out everywhere" end it at once (server-side rows,
    #: :mod:`pbp.store.logins`). From the settings ``panel_session_idle_hours`` (12) and
    #: ``panel_session_max_days`` (7); both cookies live ``SESSION_MAX_AGE`` (the idle end
    #: is the server's alone).
    "SESSION_IDLE": 12 * 3600,
    "SESSION_MAX_AGE": 7 * 86400,
    "WTF_CSRF_ENABLED": True,
    "WTF_CSRF_TIME_LIMIT": None,           # tied to the session instead (a narrator keeps a tab open)
    "MAX_CONTENT_LENGTH": 2 * 1024 * 1024,  # combatant imports
    "LANGUAGES": ("en", "pt", "ru"),
    #: Failed logins (pbp.panel.throttle): after LOGIN_MAX_FAILURES within LOGIN_WINDOW
    #: seconds for one name from one address, refuse that name from there for LOGIN_LOCKOUT
    #: seconds (doubling on each new lockout, up to LOGIN_LOCKOUT_MAX); after
    #: LOGIN_ADDRESS_MAX_FAILURES from one address, whatever the names, refuse the address.
    "LOGIN_MAX_FAILURES": 5,
    "LOGIN_ADDRESS_MAX_FAILURES": 100,
    "LOGIN_WINDOW": 900,
    "LOGIN_LOCKOUT": 60,
    "LOGIN_LOCKOUT_MAX": 3600,
    "REFRESH_INTERVAL_MS": 5000,            # the encounter page's poller
    "APPROVAL_MODE": False,
    #: Proxy hops whose X-Forwarded-For/-Proto/-Host are believed (werkzeug's ProxyFix);
    #: 0: none (the ``panel_trust_proxy`` setting turns one hop on).
    "TRUSTED_PROXIES": 0,
}


def secret_key(settings: Settings) -> str:
    """The setting, else a key generated once into ``<data_dir>/secret_key`` (shared by workers)."""
    return ensure_secret_key(settings)


def _redis(url: str) -> str:
    return url if url.split("://", 1)[0] in {"redis", "rediss"} else ""


def from_settings(settings: Settings) -> dict[str, Any]:
    idle, max_age = settings.panel_session_idle_hours * 3600, settings.panel_session_max_days * 86400
    return {
        "SESSION_IDLE": idle,
        "SESSION_MAX_AGE": max_age,
        # the cookie lives as long as the login may: the idle end is the server's (the
        # session row, touched by the live refresh). A cookie that died after `idle`
        # logged out a narrator whose tab had been refreshing all along, since background
        # answers never send the cookie again (pbp.panel.cookies)
        "PERMANENT_SESSION_LIFETIME": timedelta(seconds=max_age),
        "REMEMBER_COOKIE_DURATION": timedelta(seconds=max_age),
        #: where failed logins are counted: the leases' Redis (else the database)
        "THROTTLE_REDIS_URL": _redis(settings.lock_url) or _redis(settings.broker_url),
        "THROTTLE_REDIS_PREFIX": settings.broker_keyprefix,
        "DATABASE_URL": settings.database_url,
        "BABEL_DEFAULT_LOCALE": settings.language if settings.language in DEFAULTS["LANGUAGES"] else "en",
        "BABEL_DEFAULT_TIMEZONE": settings.timezone,
        "APPROVAL_MODE": settings.approval_mode,
        "TRUSTED_PROXIES": 1 if settings.panel_trust_proxy else 0,
    }

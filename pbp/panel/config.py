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
    "PERMANENT_SESSION_LIFETIME": timedelta(hours=12),
    "WTF_CSRF_ENABLED": True,
    "WTF_CSRF_TIME_LIMIT": None,           # tied to the session instead (a narrator keeps a tab open)
    "MAX_CONTENT_LENGTH": 2 * 1024 * 1024,  # combatant imports
    "LANGUAGES": ("en", "pt", "ru"),
    #: Failed logins: after LOGIN_MAX_FAILURES within LOGIN_WINDOW seconds for one name
    #: or one address, refuse for LOGIN_LOCKOUT seconds (doubling on each new lockout).
    "LOGIN_MAX_FAILURES": 5,
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


def from_settings(settings: Settings) -> dict[str, Any]:
    return {
        "DATABASE_URL": settings.database_url,
        "BABEL_DEFAULT_LOCALE": settings.language if settings.language in DEFAULTS["LANGUAGES"] else "en",
        "BABEL_DEFAULT_TIMEZONE": settings.timezone,
        "APPROVAL_MODE": settings.approval_mode,
        "TRUSTED_PROXIES": 1 if settings.panel_trust_proxy else 0,
    }

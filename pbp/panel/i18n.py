"""The panel in English, Portuguese and Russian (Flask-Babel), chosen by the narrator.

Order: the narrator's saved language, else the session's choice (login page
switcher), else the browser's Accept-Language, else the default setting.
Catalogs live in ``pbp/panel/translations``; the .mo files are committed and
``tests/panel/test_i18n.py`` checks they match the .po sources.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from flask import Flask, current_app, g, request, session
from flask_babel import Babel, get_locale, get_translations
from flask_babel import lazy_gettext as _l
from flask_login import current_user

from ..render import precise

TRANSLATIONS = Path(__file__).resolve().parent / "translations"
LANGUAGE_NAMES = {"en": "English", "pt": "Português", "ru": "Русский"}

babel = Babel()


def select_locale() -> str:
    languages = current_app.config["LANGUAGES"]
    user_lang = getattr(current_user, "language", None) if current_user else None
    if user_lang in languages:
        return str(user_lang)
    if session.get("lang") in languages:
        return str(session["lang"])
    return request.accept_languages.best_match(languages) or current_app.config["BABEL_DEFAULT_LOCALE"]


def _gettext(message: str) -> str:
    cache = g.setdefault("_i18n_cache", {})
    if message not in cache:
        cache[message] = get_translations().ugettext(message)
    return cache[message]  # type: ignore[no-any-return]


def _ngettext(singular: str, plural: str, n: int) -> str:
    return get_translations().ungettext(singular, plural, n)  # type: ignore[no-any-return]


def panel_language() -> str:
    """The language the panel speaks to this request (en, pt or ru): what the replies'
    catalogs say in it, where the page shows the words of a reply (the Violations list)."""
    locale = get_locale()
    return locale.language if locale is not None else "en"


def select_timezone() -> str | None:
    tz = getattr(current_user, "timezone", None) if current_user else None
    return tz or None


#: Stored state codes (rounds, replies) as the panel shows them.
STATES = {
    "open": _l("open"), "resolving": _l("resolving"), "resolved": _l("resolved"),
    "cancelled": _l("cancelled"), "held": _l("held"), "pending": _l("pending"),
    "sending": _l("sending"), "sent": _l("sent"), "failed": _l("failed"),
    "setup": _l("setup"), "active": _l("active"), "finished": _l("finished"),
}


def state_name(code: str | None) -> str:
    return str(STATES[code]) if code in STATES else (code or "")


def init_app(app: Flask) -> None:
    babel.init_app(app, default_translation_directories=str(TRANSLATIONS),
                   locale_selector=select_locale, timezone_selector=select_timezone)
    # Flask-Babel looks the catalog up on every call (~100 us); a page of 200 posts makes
    # thousands of calls, so templates get the same lookups memoised per request.
    app.jinja_env.install_gettext_callables(_gettext, _ngettext, newstyle=True)  # type: ignore[attr-defined]
    app.jinja_env.globals["LANGUAGE_NAMES"] = LANGUAGE_NAMES
    app.jinja_env.filters["when"] = when
    app.jinja_env.filters["state"] = state_name
    app.jinja_env.globals["get_locale"] = get_locale


def when(value: object, tz: str | None = None) -> str:
    """A datetime in the campaign's time zone, ``2026-11-30 14:05``."""
    if not isinstance(value, datetime):
        return "" if value is None else str(value)
    try:
        zone = ZoneInfo(tz or "UTC")
    except (KeyError, ValueError):
        zone = ZoneInfo("UTC")
    shown, seconds = precise(value)   # never earlier than the real time (issue 11 item 5)
    return shown.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")

"""The live refresh's "nothing changed": one statement, no body, no cookie (SCALE-5).

Why: an open encounter tab asks every few seconds, and almost every answer is "nothing
changed". That answer cost four ORM queries (the login session through Flask-Login's
loader, the encounter with its access check, the round, the version), the JSON body, and
the session cookie signed and sent again; served at a third of the rate of a bare
50-row Flask page. :func:`answer` gives it from one Core statement
(:func:`pbp.store.page_version.unchanged_statement`): the login session's row read on
every request (no cache: a logout, a password change or "log out everywhere" in any
process refuses the very next refresh), the narrator's access, the version. It answers
``204 No Content`` without touching the cookie.

Anything else takes the full path (the Flask-Login check, the view): no version asked
for, a session without a login, a browser that is not the one that logged in (Flask-Login's
session protection decides), no row (revoked, idle, another narrator's encounter, no such
round: the full path answers 401 or 404), a session past its idle or absolute lifetime
(the full path deletes it), or one whose last-seen time is due (the full path writes it
and sends the cookie again: the cookie's own lifetime follows a narrator who only keeps a
tab open).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import Response, current_app, g, request, session
from sqlalchemy.engine import Engine

from ..store import logins, page_version
from . import auth
from .access import db_id
from .cookies import KEEP_COOKIE

#: Flask-Login's keys in the session
USER_ID, IDENTIFIER = "_user_id", "_id"


def _identity() -> tuple[int, str] | None:
    """(narrator id, token) of a logged-in session of this very browser, or None."""
    ident = session.get(USER_ID)
    if not isinstance(ident, str):
        return None
    manager: Any = auth.login_manager
    if session.get(IDENTIFIER) != manager._session_identifier_generator():
        return None     # Flask-Login's session protection has its say on the full path
    nid, _sep, token = ident.partition(":")
    if not (nid.isascii() and nid.isdigit()) or len(nid) > 18 or not token:
        return None
    return int(nid), token


def answer(encounter_id: int) -> Response | None:
    """``204`` when the tab's version (``v``) is current and its login good; None: take the
    full path."""
    held = request.args.get("v")
    if not held:
        return None
    who = _identity()
    if who is None:
        return None
    number = request.args.get("round", type=int)
    if number is not None and db_id(number) is None:
        return None     # no round the database can hold: the full path's answer
    engine: Engine = current_app.extensions["pbp_engine_read"]
    found = page_version.unchanged(engine, encounter_id, who[0], logins.digest(who[1]), number)
    if found is None:
        return None
    (created, seen, remember), current, has_round = found
    if number is not None and not has_round:
        return None     # no such round: the full path answers 404
    config, now = current_app.config, auth.now()
    if (now - created > float(config["SESSION_MAX_AGE"])
            or (not remember and now - seen > float(config["SESSION_IDLE"]))
            or now - seen > logins.TOUCH_EVERY):
        return None
    if current != held:
        return None
    g.setdefault(KEEP_COOKIE, True)
    return Response(b"", status=204)   # no body: Flask-Compress leaves it as it is


def first(full: Callable[[int], Any]) -> Callable[[int], Any]:
    """The live view: :func:`answer`, else *full* (the view behind Flask-Login)."""
    @functools.wraps(full)
    def view(encounter_id: int) -> Any:
        quick = answer(encounter_id)
        return quick if quick is not None else full(encounter_id)
    return view

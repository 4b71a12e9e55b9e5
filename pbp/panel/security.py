"""Passwords (argon2id), CSRF on every form, failed-login lockout, security headers.

Why argon2id: the current OWASP recommendation for password storage; argon2-cffi's
defaults follow RFC 9106's low-memory profile. The lockout (:mod:`pbp.panel.throttle`)
lives in the database or Redis, so every worker and a restarted panel see the same count.
"""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import Flask, Response, abort, request
from flask_wtf.csrf import CSRFProtect

from . import cookies, csrf_mask, throttle
from .db import session as db_session

csrf = CSRFProtect()
_hasher = PasswordHasher()
#: Verified against when the name is unknown, so both paths cost one argon2 run.
_DUMMY_HASH = _hasher.hash("not a password")


def hash_password(password: str) -> str:
    if not password:
        raise ValueError("a password cannot be empty")
    return _hasher.hash(password)


def verify_password(stored: str | None, password: str) -> bool:
    """True when *password* matches *stored*; an unknown user (None) costs the same time."""
    try:
        return _hasher.verify(stored or _DUMMY_HASH, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    return _hasher.check_needs_rehash(stored)


_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def _headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", _CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response


def _refuse_malformed_forms() -> None:
    """A form part without a name, or a NUL character in a field's name, is no form a
    browser sends from the panel's pages: refused with 400 before anything reads it
    (Flask-WTF's CSRF check stumbled on the nameless part: a 500, found by
    tests/panel/test_hostile_forms.py). A NUL in a value is the form's to refuse in words
    (:class:`pbp.panel.forms.Form`)."""
    if request.method != "POST":
        return
    for key in request.form.keys():
        if key is None or "\x00" in key:
            abort(400, description="malformed form")
    for key, upload in request.files.items(multi=True):
        if key is None or "\x00" in key or "\x00" in (upload.filename or ""):
            abort(400, description="malformed form")


def init_app(app: Flask) -> None:
    cookies.init_app(app)
    app.before_request(_refuse_malformed_forms)   # before CSRFProtect's own check
    csrf_mask.init_app(app)                       # BREACH: unmask before the check
    csrf.init_app(app)
    csrf_mask.init_templates(app)
    app.extensions["pbp_login_throttle"] = throttle.from_config(app.config, db_session)
    app.after_request(_headers)

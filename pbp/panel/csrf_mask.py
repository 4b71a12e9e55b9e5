"""CSRF tokens masked afresh on every render, so a compressed page leaks nothing (BREACH).

Why: the panel's pages are compressed (:mod:`pbp.panel.compression`) and reflect text an
outsider chooses (a player's post, a query argument). BREACH guesses a secret that
repeats across responses one character at a time, from the compressed length. Flask-WTF's
token is the same signed value all through a request, and its signed part is the same
session secret for the whole login. Masking (the approach of Django and Rails): the page
carries ``m.`` + base64(mask + (token XOR mask)) with a new random mask on every call, so
no two responses share the bytes an attacker would guess. A POST's masked value is
turned back into the signed token before Flask-WTF's CSRFProtect checks it; an unmasked
token (an API client, an old tab) is still taken as it is.

>>> unmask(mask("abc.def")) == "abc.def"
True
>>> mask("abc.def") != mask("abc.def")
True
>>> unmask("plain-token")
'plain-token'
"""

from __future__ import annotations

import base64
import binascii
import os
from typing import Any

from flask import Flask, request
from flask_wtf.csrf import generate_csrf
from flask_wtf.form import _FlaskFormCSRF
from werkzeug.datastructures import ImmutableMultiDict

PREFIX = "m."
FIELD = "csrf_token"


def mask(token: str) -> str:
    """*token* under a fresh random mask (different bytes on every call)."""
    raw = token.encode()
    pad = os.urandom(len(raw))
    return PREFIX + base64.urlsafe_b64encode(pad + bytes(a ^ b for a, b in zip(raw, pad, strict=True))).decode()


def unmask(value: str) -> str:
    """The token *value* masks; *value* itself when it is not masked (or not valid base64:
    Flask-WTF then refuses it in its own words)."""
    if not value.startswith(PREFIX):
        return value
    try:
        blob = base64.urlsafe_b64decode(value[len(PREFIX):].encode())
    except (binascii.Error, ValueError):
        return value
    half = len(blob) // 2
    if not blob or len(blob) != 2 * half:
        return value
    try:
        return bytes(a ^ b for a, b in zip(blob[:half], blob[half:], strict=True)).decode()
    except UnicodeDecodeError:
        return value


def masked_csrf_token() -> str:
    """The Jinja ``csrf_token()`` of the panel: the request's token, masked anew."""
    return mask(generate_csrf())


class MaskedCSRF(_FlaskFormCSRF):  # type: ignore[misc]
    """The forms' hidden ``csrf_token`` field, masked like :func:`masked_csrf_token`."""

    def generate_csrf_token(self, csrf_token_field: Any) -> str:
        return mask(super().generate_csrf_token(csrf_token_field))


def _is_token(key: str) -> bool:
    return key == FIELD or key.endswith("-" + FIELD)


def _unmask_posted() -> None:
    """Before CSRFProtect: the posted field (and the ``X-CSRFToken`` header's value is left
    to CSRFProtect, which the panel's own pages never send) turned back into the token."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    form = request.form
    # a prefixed form's field is "<prefix>-csrf_token" (Flask-WTF looks for any key ending so)
    values = [v for k, v in form.items(multi=True) if _is_token(k)]
    if not any(v.startswith(PREFIX) for v in values):
        return
    items = [(k, unmask(v) if _is_token(k) else v) for k, v in form.items(multi=True)]
    request.form = ImmutableMultiDict(items)  # type: ignore[misc]  # werkzeug caches it here


def init_app(app: Flask) -> None:
    """Call before ``CSRFProtect.init_app`` (its check is a before-request hook too, and
    must see the unmasked token)."""
    app.before_request(_unmask_posted)


def init_templates(app: Flask) -> None:
    """Call after ``CSRFProtect.init_app``, which sets the plain ``csrf_token`` as a Jinja
    global AND in a context processor (which wins over the global): replace both, the
    processor by one registered after it (later processors' names win)."""
    app.jinja_env.globals["csrf_token"] = masked_csrf_token
    app.context_processor(lambda: {"csrf_token": masked_csrf_token})

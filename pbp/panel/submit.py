"""How a panel form is applied: checked, run in the request's session, then committed and
said, or rolled back and refused in words.

Why one place: the encounter page's forms (overrides, secret rolls, standing orders) each
carried a copy of these steps; a refusal must read the same everywhere and never leave
half a change behind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import flash
from flask_babel import gettext as _
from flask_wtf import FlaskForm
from sqlalchemy.orm import Session

from ..errors import PbpError
from .db import session as db_session


def form_errors(form: FlaskForm) -> str:
    """Every field's problems, each after its label."""
    return "; ".join(f"{getattr(form, k).label.text}: {' '.join(map(str, v))}"
                     for k, v in form.errors.items())


def submit(form: FlaskForm, run: Callable[[Session], Any], back: Callable[[], Any],
           ok: str | Callable[[Session, Any], str]) -> Any:
    """Check *form*, ``run(session)``, commit and flash *ok* (or ``ok(session, result)``);
    a bad form or a :class:`PbpError` flashes why and changes nothing. Returns ``back()``."""
    if not form.validate_on_submit():
        flash(_("Not changed: %(errors)s", errors=form_errors(form)), "error")
        return back()
    s = db_session()
    try:
        result = run(s)
        message = ok(s, result) if callable(ok) else ok
    except PbpError as exc:
        s.rollback()
        flash(_("Not changed: %(error)s", error=exc.message), "error")
        return back()
    s.commit()
    flash(message, "ok")
    return back()

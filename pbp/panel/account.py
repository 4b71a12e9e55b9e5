"""The narrator's own account: change the password, log out everywhere (issue 12, item 3).

Both end every session of the narrator (:func:`pbp.store.logins.close_all_sessions`):
after a password change whoever held a copied cookie, or a forgotten browser, is out;
the browser that changed the password is given a fresh session so the narrator stays in.
``pbp narrator passwd`` ends the sessions the same way.
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, session, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required, logout_user
from flask_wtf import FlaskForm

from ..store import logins
from ..store.models import Narrator
from .auth import start_session
from .db import session as db_session
from .forms import PasswordForm
from .security import hash_password, verify_password

bp = Blueprint("account", __name__, url_prefix="/account")


def _page(form: PasswordForm, status: int = 200):  # type: ignore[no-untyped-def]
    count = logins.session_count(db_session(), current_user.id)
    return render_template("panel/account.html", form=form, everywhere=FlaskForm(),
                           sessions=count), status


@bp.get("/")
@login_required
def index():  # type: ignore[no-untyped-def]
    return _page(PasswordForm())


@bp.post("/password")
@login_required
def password():  # type: ignore[no-untyped-def]
    form = PasswordForm()
    if not form.validate_on_submit():
        return _page(form, 400)
    s = db_session()
    row = s.get(Narrator, current_user.id)
    if row is None or not verify_password(row.password_hash, form.current.data):
        form.current.errors = [_("This is not your current password.")]
        return _page(form, 400)
    if form.new.data != form.confirm.data:
        form.confirm.errors = [_("The two new passwords differ.")]
        return _page(form, 400)
    row.password_hash = hash_password(form.new.data)
    logins.close_all_sessions(s, row.id)
    start_session(row, remember=False)
    flash(_("Password changed. Every other session of yours has ended."), "ok")
    return redirect(url_for("account.index"))


@bp.post("/logout-everywhere")
@login_required
def everywhere():  # type: ignore[no-untyped-def]
    form = FlaskForm()
    if not form.validate_on_submit():
        return _page(PasswordForm(), 400)
    s = db_session()
    logins.close_all_sessions(s, current_user.id)
    s.commit()
    logout_user()
    session.clear()
    flash(_("You have been logged out everywhere."), "ok")
    return redirect(url_for("auth.login"))

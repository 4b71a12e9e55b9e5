"""Login and logout (Flask-Login), the narrator's language choice.

A failed login is answered like an unknown name (no account enumeration) and
counted per name and per address; past the limit the form answers 429 with the
wait in seconds until the lockout ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_login import (
    LoginManager,
    UserMixin,
    current_user,
    login_required,
    login_user,
    logout_user,
)
from sqlalchemy import select

from ..store.models import Narrator
from .db import session as db_session
from .forms import LanguageForm, LoginForm
from .security import hash_password, needs_rehash, verify_password

bp = Blueprint("auth", __name__)
login_manager = LoginManager()


@dataclass
class PanelUser(UserMixin):
    """What a request knows of its narrator: a detached copy, never an ORM row."""

    id: int
    name: str
    username: str = ""
    language: str | None = None

    def get_id(self) -> str:
        return str(self.id)


def _user(row) -> PanelUser:  # type: ignore[no-untyped-def]
    return PanelUser(id=row.id, name=row.display_name or row.username, username=row.username,
                     language=row.language or None)


def init_app(app: Flask) -> None:
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.login_message = None
    login_manager.session_protection = "strong"

    @login_manager.unauthorized_handler
    def unauthorized():  # type: ignore[no-untyped-def]
        # the live poller asks for JSON: a redirect to the login page would hand it HTML
        if request.accept_mimetypes.best == "application/json" or request.path.endswith("/live"):
            return jsonify(error="login required", login=url_for("auth.login")), 401
        return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))

    @login_manager.user_loader
    def load_user(user_id: str) -> PanelUser | None:
        if not user_id.isdigit():
            return None
        row = db_session().get(Narrator, int(user_id))
        if row is None or getattr(row, "active", True) is False:
            return None
        return _user(row)


def _safe_next(target: str | None) -> str | None:
    if not target:
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target


@bp.route("/login", methods=["GET", "POST"])
def login():  # type: ignore[no-untyped-def]
    if current_user.is_authenticated:
        return redirect(url_for("dashboard.index"))
    form = LoginForm()
    if request.method == "GET":
        form.next.data = request.args.get("next", "")
    throttle = current_app.extensions["pbp_login_throttle"]
    status = 200
    if form.validate_on_submit():
        name = form.name.data.strip()
        keys = (f"name:{name.casefold()}", f"ip:{request.remote_addr}")
        wait = throttle.retry_after(*keys)
        if wait:
            flash(_("Too many failed logins. Try again in %(seconds)s seconds.", seconds=wait), "error")
            return render_template("panel/login.html", form=form), 429
        s = db_session()
        row = s.scalars(select(Narrator).where(Narrator.username == name)).first()
        if row is not None and getattr(row, "active", True) is False:
            row = None
        if verify_password(row.password_hash if row is not None else None, form.password.data):
            throttle.succeed(*keys)
            if needs_rehash(row.password_hash):
                row.password_hash = hash_password(form.password.data)
            row.last_login_at = datetime.now(UTC)
            s.commit()
            session.clear()
            login_user(_user(row), remember=form.remember.data)
            return redirect(_safe_next(form.next.data) or url_for("dashboard.index"))
        throttle.fail(*keys)
        flash(_("Wrong name or password."), "error")
        status = 401
    elif request.method == "POST":
        status = 400
    return render_template("panel/login.html", form=form), status


@bp.route("/logout", methods=["POST"])
@login_required
def logout():  # type: ignore[no-untyped-def]
    logout_user()
    session.clear()
    return redirect(url_for("auth.login"))


@bp.route("/language", methods=["POST"])
def language():  # type: ignore[no-untyped-def]
    form = LanguageForm()
    if not form.validate_on_submit():
        abort(400)
    session["lang"] = form.language.data
    if current_user.is_authenticated:
        s = db_session()
        row = s.get(Narrator, current_user.id)
        if row is not None:
            row.language = form.language.data
            s.commit()
    return redirect(_safe_next(request.form.get("next")) or url_for("dashboard.index"))

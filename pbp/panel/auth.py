"""Login and logout (Flask-Login), the narrator's language choice.

A failed login is answered like an unknown name (no account enumeration) and counted
per (name, address) pair and per address (:mod:`pbp.panel.throttle`); past a limit the
form answers 429 and says in words how long to wait.

Sessions live on the server (:mod:`pbp.store.logins`): the cookie (and the "keep me
logged in" cookie) carries ``<narrator id>:<token>``, and every request looks the token
up, so logout, a password change and "log out everywhere" (:mod:`pbp.panel.account`)
end a session at once, even for a copy of the cookie taken before (issue 12, item 3).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
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
from flask_babel import format_timedelta
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

from ..store import logins
from ..store.models import Narrator
from .db import session as db_session
from .db import writer as db_writer
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
    token: str = ""

    def get_id(self) -> str:
        """What Flask-Login keeps in the session and the remember cookie: the narrator and
        the session token, so either cookie is only as good as the session's row."""
        return f"{self.id}:{self.token}"


def _user(row, token: str) -> PanelUser:  # type: ignore[no-untyped-def]
    return PanelUser(id=row.id, name=row.display_name or row.username, username=row.username,
                     language=row.language or None, token=token)


def now() -> float:
    """The panel's clock (``LOGIN_CLOCK`` in tests), unix seconds."""
    clock = current_app.config.get("LOGIN_CLOCK") or time.time
    return float(clock())


def start_session(row: Narrator, *, remember: bool) -> None:
    """Open a server-side session for *row* and log this browser into it (the request's
    database session is committed)."""
    s = db_session()
    t = now()
    logins.prune_sessions(s, now=t, max_age=float(current_app.config["SESSION_MAX_AGE"]))
    token = logins.open_session(s, row.id, now=t, remember=remember)
    s.commit()
    session.clear()
    session.permanent = True
    login_user(_user(row, token), remember=remember)


def client_address() -> str:
    """The client's address: the socket's peer, or the proxy's X-Forwarded-For only when
    the operator enabled ``panel_trust_proxy`` (ProxyFix, :mod:`pbp.panel.cookies`)."""
    return request.remote_addr or "unknown"


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
        ident, _sep, token = user_id.partition(":")
        if not ident.isdigit() or not token or len(ident) > 18:
            return None
        config = current_app.config
        row = logins.live_session(db_session(), int(ident), token, now=now(), write=db_writer(),
                                  idle=float(config["SESSION_IDLE"]), max_age=float(config["SESSION_MAX_AGE"]))
        return None if row is None else _user(row, token)


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
        name, address = form.name.data.strip(), client_address()
        wait = throttle.retry_after(name, address)
        if wait:
            flash(_("Too many failed logins. Try again %(when)s.", when=format_timedelta(
                timedelta(seconds=wait), add_direction=True)), "error")
            return render_template("panel/login.html", form=form), 429, {"Retry-After": str(wait)}
        s = db_session()
        row = s.scalars(select(Narrator).where(Narrator.username == name)).first()
        if row is not None and getattr(row, "active", True) is False:
            row = None
        if verify_password(row.password_hash if row is not None else None, form.password.data):
            throttle.succeed(name, address)
            if needs_rehash(row.password_hash):
                row.password_hash = hash_password(form.password.data)
            row.last_login_at = datetime.now(UTC)
            start_session(row, remember=bool(form.remember.data))
            return redirect(_safe_next(form.next.data) or url_for("dashboard.index"))
        throttle.fail(name, address)
        flash(_("Wrong name or password."), "error")
        status = 401
    elif request.method == "POST":
        status = 400
    return render_template("panel/login.html", form=form), status


@bp.route("/logout", methods=["POST"])
@login_required
def logout():  # type: ignore[no-untyped-def]
    """End this session: its row goes, so a copy of the cookie is refused too."""
    s = db_session()
    logins.close_session(s, current_user.token)
    s.commit()
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

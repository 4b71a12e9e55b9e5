"""The encounter page's clock controls (STALL-5): the fight's own round length, and the
players' extension requests waiting for the narrator (grant or refuse).

Why its own blueprint: the rules live in :mod:`pbp.rounds.extensions` and
:mod:`pbp.rounds.clocks`; these routes only check access and the form, call the service,
audit, commit and go back to the page, each answer in words.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Flask, abort, flash, redirect, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from flask_wtf import FlaskForm

from ..errors import PbpError
from ..rounds import extensions
from ..store.models import ExtensionRequest
from .access import encounter_or_404, in_encounter_or_404
from .audit import write as audit_write
from .clock_settings import encounter_hours_problem
from .db import session as db_session
from .round_settings import format_hours

bp = Blueprint("clocks", __name__, url_prefix="/encounters")


def init_app(app: Flask) -> None:
    """Hours as the fields print them (``24``, ``1.5``)."""
    app.jinja_env.filters["hours"] = lambda v: format_hours(float(v)) if v is not None else ""


def _back(encounter_id: int) -> Any:
    return redirect(url_for("encounters.show", encounter_id=encounter_id) + "#h-clock", code=303)


@bp.route("/<int:encounter_id>/round-length", methods=["POST"])
@login_required
def round_length(encounter_id: int):  # type: ignore[no-untyped-def]
    """Set (or clear: empty) this encounter's round length; from its next round on."""
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    if not FlaskForm().validate_on_submit():
        abort(400)
    hours, problem = encounter_hours_problem(request.form.get("round_hours") or "")
    if problem:
        flash(_("Not changed: %(error)s", error=problem), "error")
        return _back(encounter_id)
    before = enc.round_hours
    enc.round_hours = hours
    audit_write(s, enc.campaign_id, "encounter.round_hours", "encounter", enc.id, before, hours,
                encounter_id=enc.id)
    s.commit()
    flash(_("Rounds of this encounter now last %(hours)s hours, from the next round on.",
            hours=format_hours(hours)) if hours is not None else
          _("Rounds of this encounter last as long as the campaign's (%(hours)s hours), from the next round on.",
            hours=format_hours(enc.campaign.round_hours)), "ok")
    return _back(encounter_id)


@bp.route("/<int:encounter_id>/extensions/<int:request_id>", methods=["POST"])
@login_required
def decide(encounter_id: int, request_id: int):  # type: ignore[no-untyped-def]
    """Grant or refuse a queued extension request; the thread is told either way."""
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    if not FlaskForm().validate_on_submit():
        abort(400)
    req = in_encounter_or_404(s, ExtensionRequest, request_id, enc)
    decision = request.form.get("decision")
    if decision not in ("grant", "refuse"):
        abort(400)
    problem = (_("this request was already decided.") if req.state != "queued" else
               _("its round is no longer open.") if req.round.state != "open" else None)
    if problem:
        flash(_("Not changed: %(error)s", error=problem), "error")
        return _back(encounter_id)
    try:
        extensions.decide(s, req.id, decision == "grant", current_user.id, datetime.now(UTC))
    except PbpError as exc:   # a concurrent decision: the service refuses the second one
        s.rollback()
        flash(_("Not changed: %(error)s", error=exc.message), "error")
        return _back(encounter_id)
    s.commit()
    flash(_("Extension granted; the thread is told of the new deadline.") if decision == "grant"
          else _("Extension refused; the thread is told."), "ok")
    return _back(encounter_id)

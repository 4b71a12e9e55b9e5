"""Absences and standing orders on the encounter page (STALL-1, STALL-2): who is away
until when, each character's default and conditional orders, and the narrator's forms to
set and end them. The rules (what a default may spend, how words are read) are the
rounds layer's (:mod:`pbp.rounds.standing_panel`); this module loads, validates the
form's shape, calls it, commits and goes back to the page."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from flask import Blueprint, abort, redirect, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required
from sqlalchemy.orm import Session
from wtforms import DateTimeLocalField, HiddenField, SelectField, StringField
from wtforms.validators import DataRequired, Length, Optional

from ..rounds import standing_panel as service
from ..store import standing as store
from ..store.models import Combatant, Encounter
from .access import db_id, encounter_or_404, in_encounter_or_404
from .db import session as db_session
from .forms import Form, choices
from .submit import submit

bp = Blueprint("standing", __name__, url_prefix="/encounters/<int:encounter_id>/standing")


class AbsenceForm(Form):
    player = SelectField(_l("Player"), choices=[], validate_choice=False)
    starts = DateTimeLocalField(_l("From (campaign time; empty: now)"), format="%Y-%m-%dT%H:%M",
                                validators=[Optional()])
    until = DateTimeLocalField(_l("Until (campaign time)"), format="%Y-%m-%dT%H:%M",
                               validators=[DataRequired()])
    note = StringField(_l("Note"), validators=[Optional(), Length(max=300)])


class OrderForm(Form):
    combatant_id = HiddenField(validators=[DataRequired()])
    kind = SelectField(_l("Order"), choices=choices([("default", _l("Default")),
                                                     ("if", _l("If ... then ..."))]))
    text = StringField(_l("Words, as a player would post them"),
                       validators=[DataRequired(), Length(max=300)])


class PlainForm(Form):
    """A button with its CSRF token (end an absence, cancel an order)."""


def page_context(session: Session, enc: Encounter) -> dict[str, Any]:
    """What the encounter page shows: the players' absences (newest first, each marked
    running, coming or over) and each combatant's orders in force."""
    now = datetime.now(UTC)
    players = sorted({c.player for c in enc.combatants if c.player}, key=str.casefold)
    folded = {p.casefold() for p in players}
    rows = []
    for a in store.absences(session, enc.campaign_id):
        if a.player.casefold() not in folded or a.ended_by == "unread":
            continue
        state = ("running" if a.active_at(now) else "coming" if a.starts_at > now
                 and a.ended_at is None else "over")
        rows.append({"absence": a, "state": state})
    orders: dict[int, list[store.StandingOrder]] = {}
    for o in store.orders(session, [c.id for c in enc.combatants]):
        orders.setdefault(o.combatant_id, []).append(o)
    away = {row["absence"].player.casefold(): row["absence"].until for row in rows
            if row["state"] == "running"}
    return {"standing_players": players, "standing_absences": rows, "standing_orders": orders,
            "standing_away": away,
            "absence_form": AbsenceForm(), "order_form": OrderForm(), "plain_form": PlainForm()}


def _back(encounter_id: int) -> Any:
    return redirect(url_for("encounters.show", encounter_id=encounter_id) + "#standing")


def _apply(encounter_id: int, form: Form, apply: Any, ok: str) -> Any:
    return submit(form, apply, lambda: _back(encounter_id), ok)


def _on_row(encounter_id: int, field: str, act: Callable[[Session, int], None], ok: str) -> Any:
    """A plain button's POST on the one row its form names in *field* (end an absence,
    cancel an order): no usable id is a 404, as a row of another encounter is."""
    row_id = db_id(request.form.get(field))
    if row_id is None:
        abort(404)
    return _apply(encounter_id, PlainForm(), lambda s: act(s, row_id), ok)


def _who() -> dict[str, Any]:
    return {"narrator_id": current_user.id, "narrator": current_user.username,
            "now": datetime.now(UTC)}


@bp.route("/absence", methods=["POST"])
@login_required
def add_absence(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = encounter_or_404(db_session(), encounter_id)
    form = AbsenceForm()
    zone = ZoneInfo(enc.campaign.timezone or "UTC")

    def apply(s: Session) -> None:
        starts = (form.starts.data.replace(tzinfo=zone) if form.starts.data
                  else datetime.now(UTC).replace(second=0, microsecond=0))
        service.add_absence(s, enc, form.player.data or "", starts,
                            form.until.data.replace(tzinfo=zone), form.note.data or "", **_who())

    return _apply(encounter_id, form, apply, _("Absence recorded."))


@bp.route("/absence/end", methods=["POST"])
@login_required
def end_absence(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = encounter_or_404(db_session(), encounter_id)
    return _on_row(encounter_id, "absence_id", lambda s, absence_id: service.end_absence(
        s, enc, absence_id, **_who()), _("Absence ended."))


@bp.route("/order", methods=["POST"])
@login_required
def set_order(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = encounter_or_404(db_session(), encounter_id)
    form = OrderForm()
    row = in_encounter_or_404(db_session(), Combatant, request.form.get("combatant_id"), enc)
    return _apply(encounter_id, form, lambda s: service.order_from_panel(
        s, row, form.kind.data, form.text.data or "", **_who()), _("Standing order recorded."))


@bp.route("/order/cancel", methods=["POST"])
@login_required
def cancel_order(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = encounter_or_404(db_session(), encounter_id)
    row = in_encounter_or_404(db_session(), Combatant, request.form.get("combatant_id"), enc)
    return _on_row(encounter_id, "order_id", lambda s, order_id: service.cancel_order(
        s, row, order_id, **_who()), _("Standing order cancelled."))

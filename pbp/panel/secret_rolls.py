"""The encounter page's secret rolls (DICE-2): what only the narrator sees, and the buttons.

The narrator sees every hidden roll's value, expression, who made it and from which post;
reveals one ("Reveal") or every one still sealed ("Reveal all"), with an optional reason,
audited and told to the thread through the outbox (:func:`pbp.rounds.secret.reveal`); and
rolls in secret from the panel (expression and label) in the open round. The rule stays in
the service layer; these routes validate, call it, commit and go back to the page.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required
from sqlalchemy.orm import Session
from wtforms import HiddenField, StringField
from wtforms.validators import DataRequired, Length, Optional

from ..dice import hidden_seed
from ..rounds import secret
from ..store import hidden as store
from ..store.models import Encounter, RollRecord
from .access import encounter_or_404, in_encounter_or_404
from .db import session as db_session
from .forms import Form
from .overrides import now_utc
from .submit import submit

bp = Blueprint("secret_rolls", __name__, url_prefix="/encounters")


class SecretRollForm(Form):
    """The narrator's own secret roll: an expression (dice and numbers) and a label."""

    expression = StringField(_l("Dice"), validators=[DataRequired(message=_l("Write the dice, such as 1d20+5.")),
                                                     Length(max=256)])
    label = StringField(_l("Label (only you see it until it is revealed)"),
                        validators=[Optional(), Length(max=200)])


class RevealForm(Form):
    """Reveal one secret roll (``roll_id``) or all of them; the reason is optional."""

    roll_id = HiddenField()
    reason = StringField(_l("Reason (optional, quoted in the thread)"),
                         validators=[Optional(), Length(max=500)])


def secret_context(session: Session, enc: Encounter) -> dict[str, Any]:
    """The page's secret rolls, newest round first, each with what only the narrator sees."""
    names = {c.key: c.name for c in enc.combatants}
    rows = []
    for s in reversed(store.encounter_secrets(session, enc.id)):
        rec = s.roll
        rows.append({
            "id": rec.id, "round": s.round_number, "index": rec.roll_index,
            "who": names.get(rec.actor or "", rec.actor) if rec.kind != "narrator" else None,
            "post": s.post, "label": rec.label, "expression": rec.expression,
            "breakdown": rec.breakdown, "total": rec.total, "seal": rec.seal or "",
            "reveal": s.reveal,
            "seed": hidden_seed(enc.hidden_key, s.round_number, rec.roll_index)
            if s.reveal is not None and enc.hidden_key else None})
    return {"secrets": rows, "secret_form": SecretRollForm(prefix="secret"),
            "reveal_form": RevealForm(prefix="reveal"),
            "sealed_count": sum(1 for r in rows if r["reveal"] is None)}


def _back(encounter_id: int) -> Any:
    return redirect(url_for("encounters.show", encounter_id=encounter_id) + "#secret-rolls", code=303)


def _apply(encounter_id: int, form: Form, run: Any, ok: str) -> Any:
    return submit(form, run, lambda: _back(encounter_id), lambda s, result: ok if result is not None
                  else _("Nothing to reveal: every secret roll is revealed."))


@bp.route("/<int:encounter_id>/secret/roll", methods=["POST"])
@login_required
def roll(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = encounter_or_404(db_session(), encounter_id)
    form = SecretRollForm(prefix="secret")
    return _apply(encounter_id, form, lambda s: secret.roll_secret(
        s, enc.id, form.expression.data or "", form.label.data or "", current_user.id, now_utc()),
        _("Rolled in secret. The thread will see only that you rolled, and its seal."))


@bp.route("/<int:encounter_id>/secret/reveal", methods=["POST"])
@login_required
def reveal(encounter_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    form = RevealForm(prefix="reveal")
    ids: list[int] | None = None
    if request.form.get("reveal-roll_id"):
        ids = [in_encounter_or_404(s, RollRecord, form.roll_id.data, enc).id]
    return _apply(encounter_id, form, lambda s: secret.reveal(
        s, enc.id, ids, current_user.id, now_utc(), reason=form.reason.data or ""),
        _("Revealed. The reveal is queued for the thread."))

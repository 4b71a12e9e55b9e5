"""STALL-7: the narrator picks the initiative mode of a campaign or of one encounter.

Why its own blueprint: the order itself is computed in :mod:`pbp.rules.turn_order`; the
mode travels to the engine as the houserule table ``initiative`` (``turns``,
``sides_first``, ``first``), the encounter's over the campaign's. These routes check
access and the values, store, audit, commit and go back, each answer in words; a bad
value is refused with the choices and nothing is saved.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, abort, flash, redirect, request, url_for
from flask_babel import gettext as _
from flask_login import login_required
from flask_wtf import FlaskForm

from ..rules.turn_modes import SIDES_FIRST, TURN_MODES
from .access import campaign_or_404, encounter_or_404
from .audit import write as audit_write
from .db import session as db_session

bp = Blueprint("initiative_modes", __name__)


def mode_labels() -> dict[str, str]:
    """The modes as the form offers them, in the narrator's language."""
    return {"individual": _("individual (each at its own count)"),
            "side": _("side (each side acts as a block)"),
            "block": _("block (players in the order they posted)"),
            "popcorn": _("popcorn (whoever acts names who acts next)")}


def sides_labels() -> dict[str, str]:
    return {"initiative": _("the side with the best initiative roll"),
            "players": _("the players"), "enemies": _("the enemies")}


def read(form: Mapping[str, str], keys: set[str], *, allow_inherit: bool) -> tuple[dict[str, Any] | None, list[str]]:
    """The ``initiative`` houserule values from the form, or None and every problem.

    ``turns`` empty on an encounter means "the campaign's" (the table is dropped).
    """
    problems: list[str] = []
    turns = (form.get("turns") or "").strip()
    if turns == "" and allow_inherit:
        return {}, []
    if turns not in TURN_MODES:
        problems.append(_("Initiative mode: '%(value)s' is not one of %(choices)s.",
                          value=turns, choices=", ".join(TURN_MODES)))
    sides_first = (form.get("sides_first") or "initiative").strip()
    if sides_first not in SIDES_FIRST:
        problems.append(_("Which side acts first: '%(value)s' is not one of %(choices)s.",
                          value=sides_first, choices=", ".join(SIDES_FIRST)))
    first = (form.get("first") or "").strip()
    if first and first not in keys:
        problems.append(_("First to act (popcorn): '%(value)s' is not in this fight.", value=first))
    if problems:
        return None, problems
    return {"turns": turns, "sides_first": sides_first, "first": first}, []


def _apply(row: Any, values: dict[str, Any]) -> tuple[Any, Any]:
    rules = dict(row.houserules or {})
    before = {k: v for k, v in dict(rules.get("initiative") or {}).items()
              if k in ("turns", "sides_first", "first")} or None
    table = {k: v for k, v in dict(rules.get("initiative") or {}).items()
             if k not in ("turns", "sides_first", "first")}
    table.update(values)
    if table:
        rules["initiative"] = table
    else:
        rules.pop("initiative", None)
    row.houserules = rules
    return before, values or None


def _refuse(problems: list[str]) -> None:
    flash(_("Not changed: %(error)s", error=" ".join(problems)), "error")


@bp.route("/encounters/<int:encounter_id>/initiative-mode", methods=["POST"])
@login_required
def encounter_mode(encounter_id: int):  # type: ignore[no-untyped-def]
    """This encounter's mode (empty: the campaign's); from the next round on."""
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    if not FlaskForm().validate_on_submit():
        abort(400)
    back = redirect(url_for("encounters.show", encounter_id=encounter_id) + "#h-initiative-mode",
                    code=303)
    values, problems = read(request.form, {c.key for c in enc.combatants}, allow_inherit=True)
    if values is None:
        _refuse(problems)
        return back
    before, after = _apply(enc, values)
    audit_write(s, enc.campaign_id, "encounter.initiative_mode", "encounter", enc.id, before,
                after, encounter_id=enc.id)
    s.commit()
    flash(_("Initiative mode of this encounter: %(mode)s, from the next round on.",
            mode=mode_labels()[values["turns"]]) if values else
          _("This encounter uses the campaign's initiative mode, from the next round on."), "ok")
    return back


@bp.route("/campaigns/<int:campaign_id>/initiative-mode", methods=["POST"])
@login_required
def campaign_mode(campaign_id: int):  # type: ignore[no-untyped-def]
    """The campaign's mode, for every encounter that has none of its own."""
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    if not FlaskForm().validate_on_submit():
        abort(400)
    back = redirect(url_for("campaigns.show", campaign_id=campaign.id) + "#h-initiative-mode",
                    code=303)
    values, problems = read(request.form, set(), allow_inherit=False)
    if values is None:
        _refuse(problems)
        return back
    before, after = _apply(campaign, values)
    audit_write(s, campaign.id, "campaign.initiative_mode", "campaign", campaign.id, before, after)
    s.commit()
    flash(_("Initiative mode of the campaign: %(mode)s.", mode=mode_labels()[values["turns"]]), "ok")
    return back


def current(encounter: Any) -> dict[str, Any]:
    """What the encounter's form shows: its own values, and the campaign's mode."""
    own = dict((encounter.houserules or {}).get("initiative") or {})
    camp = dict((encounter.campaign.houserules or {}).get("initiative") or {})
    return {"own": own.get("turns", ""), "sides_first": own.get("sides_first", "initiative"),
            "first": own.get("first", ""), "campaign": camp.get("turns", "individual"),
            "modes": mode_labels(), "sides": sides_labels()}

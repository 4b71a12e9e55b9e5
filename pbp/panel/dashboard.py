"""Dashboard: the narrator's campaigns, watched threads (last poll, errors), open rounds
with their deadlines and who has not posted yet."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask_login import current_user, login_required
from sqlalchemy import select

from ..store.models import Encounter, Reply, Round, Thread
from . import access, db
from .encounter_view import current_round, ordered_combatants

bp = Blueprint("dashboard", __name__)


@bp.route("/")
@login_required
def index():  # type: ignore[no-untyped-def]
    s = db.session()
    camps = access.campaigns(s, current_user.id)
    ids = [c.id for c in camps]
    threads = list(s.scalars(select(Thread).where(Thread.campaign_id.in_(ids)).order_by(Thread.id))) if ids else []
    encounters = list(s.scalars(select(Encounter).where(Encounter.campaign_id.in_(ids),
                                                        Encounter.status != "finished")
                                .order_by(Encounter.id))) if ids else []
    rows = []
    for enc in encounters:
        rnd = current_round(s, enc)
        missing = []
        if rnd is not None and rnd.state == "open":
            from ..store.models import Declaration

            declared = set(s.scalars(select(Declaration.combatant_id).where(Declaration.round_id == rnd.id)))
            missing = [c.name for c in ordered_combatants(enc, rnd)
                       if c.player and not c.down and c.id not in declared]
        held = list(s.scalars(select(Round.number).join(Reply, Reply.round_id == Round.id)
                              .where(Round.encounter_id == enc.id, Reply.state == "held")
                              .order_by(Round.number)))
        rows.append({"encounter": enc, "round": rnd, "missing": missing, "held": held})
    return render_template("panel/dashboard.html", campaigns=camps, threads=threads, rows=rows)

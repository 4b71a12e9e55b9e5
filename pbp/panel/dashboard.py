"""Dashboard: the narrator's campaigns, watched threads (last poll, errors), open rounds
with their deadlines and who has not posted yet, and the one queue of replies waiting for
approval; and whether the worker and beat answer (issue 18: a stopped worker is said in
words at the top, not found out from a round that never closes).

SCALE-4: everything the template reads is loaded first (the campaigns' rows, which every
encounter, thread and round shown points to, are in the session already), then the read
transaction ends and the page is rendered with no transaction open."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask_login import current_user, login_required
from sqlalchemy import select

from ..store import queries
from ..store.models import Encounter, Thread
from .access import campaigns
from .db import end_reads, session
from .encounter_view import ordered_combatants
from .health import for_template, verdict

bp = Blueprint("dashboard", __name__)


@bp.route("/")
@login_required
def index():  # type: ignore[no-untyped-def]
    s = session()
    camps = campaigns(s, current_user.id)
    ids = [c.id for c in camps]
    threads = list(s.scalars(select(Thread).where(Thread.campaign_id.in_(ids)).order_by(Thread.id))) if ids else []
    encounters = list(s.scalars(select(Encounter).where(Encounter.campaign_id.in_(ids),
                                                        Encounter.status != "finished")
                                .order_by(Encounter.id))) if ids else []
    rows = []
    for enc in encounters:
        rnd = queries.current_round(s, enc.id)
        missing = []
        if rnd is not None and rnd.state == "open":
            waiting = {c.id for c in queries.missing_players(s, rnd)}
            missing = [c.name for c in ordered_combatants(enc, rnd) if c.id in waiting]
        held = [number for _reply, number in queries.held_replies(s, enc.id)]
        rows.append({"encounter": enc, "round": rnd, "missing": missing, "held": held,
                     "unresolvable": queries.unresolvable_actions(s, enc.id)})
    # one queue of every held reply, oldest first (issue 11 item 4)
    queue = queries.held_queue(s, ids)
    for _reply, rnd in queue:   # a held reply of a finished encounter: its row too
        if rnd is not None:
            _ = rnd.encounter.campaign
    health = for_template(verdict())
    end_reads()
    return render_template("panel/dashboard.html", campaigns=camps, threads=threads, rows=rows,
                           queue=queue, health=health)

"""The roll ledger of an encounter (DICE-3): a page with filters, and CSV/JSON exports.

Narrator-only like every encounter page (:func:`pbp.panel.access.encounter_or_404`
answers 404 for another narrator's encounter). The question is the store's
(:func:`pbp.store.roll_ledger.encounter_ledger`); this module only filters by what the
URL asks, renders and exports. The CSV guards against formula injection: a cell a
player wrote that begins like a spreadsheet formula is quoted with a leading ``'``.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from flask import Blueprint, Response, render_template, request
from flask_login import login_required

from ..store.roll_ledger import FLAGS, LedgerRow, encounter_ledger, players
from .access import encounter_or_404
from .db import session as db_session

bp = Blueprint("ledger", __name__, url_prefix="/encounters")

#: the columns of the CSV export, in order
COLUMNS = ("round_number", "roll_index", "kind", "player", "actor", "actor_name", "post",
           "post_url", "tag_index", "revision", "label", "written", "expression", "total",
           "faces", "breakdown", "set_total", "set_reason", "seed_total", "used", "given_to",
           "fishing_with", "flags")


def _filters() -> tuple[str | None, int | None]:
    player = (request.args.get("player") or "").strip() or None
    return player, request.args.get("round", type=int)


def _ledger(encounter_id: int) -> tuple[Any, list[LedgerRow], str | None, int | None]:
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    player, number = _filters()
    return enc, encounter_ledger(s, enc.id, player=player, round_number=number), player, number


@bp.route("/<int:encounter_id>/ledger")
@login_required
def page(encounter_id: int):  # type: ignore[no-untyped-def]
    enc, rows, player, number = _ledger(encounter_id)
    everyone = players(encounter_ledger(db_session(), enc.id)) if player or number else players(rows)
    return render_template("panel/ledger.html", encounter=enc, campaign=enc.campaign, rows=rows,
                           player=player, number=number, players=everyone, flags=FLAGS)


def _cell(value: Any) -> str:
    text = " ".join(map(str, value)) if isinstance(value, list) else "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@bp.route("/<int:encounter_id>/ledger.csv")
@login_required
def export_csv(encounter_id: int):  # type: ignore[no-untyped-def]
    enc, rows, _player, _number = _ledger(encounter_id)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for r in rows:
        data = r.as_dict()
        writer.writerow([_cell(data[c]) for c in COLUMNS])
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="encounter-{enc.id}-ledger.csv"'})


@bp.route("/<int:encounter_id>/ledger.json")
@login_required
def export_json(encounter_id: int):  # type: ignore[no-untyped-def]
    enc, rows, player, number = _ledger(encounter_id)
    body = {"encounter": enc.id, "name": enc.name, "player": player, "round": number,
            "rolls": [r.as_dict() for r in rows]}
    return Response(json.dumps(body, ensure_ascii=False, indent=1), mimetype="application/json",
                    headers={"Content-Disposition":
                             f'attachment; filename="encounter-{enc.id}-ledger.json"'})

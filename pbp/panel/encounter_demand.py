"""The encounter page's parts loaded on demand and by the live refresh (SCALE-5).

One override form filled for one action, declaration, roll or combatant, a long post's
whole text, and the posts a live answer sends as data. Apart from
:mod:`pbp.panel.encounters` to keep it small; :mod:`.encounters` registers ``form`` and
``post_body`` on its blueprint, so their endpoints stay ``encounters.form`` and
``encounters.post_body``.
"""

from __future__ import annotations

from typing import Any

from flask import abort, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from flask_login import login_required
from sqlalchemy import select

from ..rounds.overrides import roll_totals
from ..rules import engine
from ..store import queries
from ..store.models import Combatant, Declaration, Post, RollRecord, Round
from .access import encounter_or_404, in_encounter_or_404
from .db import session as db_session
from .encounter_view import action_view, ordered_combatants
from .kind_words import kind_options


def post_data(p: Post, decls: list[Declaration]) -> dict[str, Any]:
    return {"id": p.id, "author": p.author, "posted_at": p.posted_at.isoformat(), "text": p.text,
            "declarations": [{"id": d.id, "combatant": d.combatant.key, "actions": d.actions,
                              "late": d.late, "edited_after_roll": d.edited_after_roll} for d in decls]}


def live_data(encounter_id: int, ids: set[int]) -> tuple[list[dict[str, Any]], list[str]]:
    """With a kept rendering (no rows loaded): the sent posts as data, and the keys of the
    combatants who have not declared, read from the store."""
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    rnd = queries.current_round(s, enc.id, request.args.get("round", type=int))
    if rnd is None:
        return [], []
    decls = list(s.scalars(select(Declaration).where(Declaration.round_id == rnd.id,
                                                     Declaration.superseded.is_(False))))
    missing = [c.key for c in queries.missing_among(ordered_combatants(enc, rnd), decls)]
    by_post: dict[int, list[Declaration]] = {}
    for d in decls:
        by_post.setdefault(d.post_id or 0, []).append(d)
    posts = [post_data(p, by_post.get(p.id, [])) for p in
             s.scalars(select(Post).where(Post.id.in_(ids)).order_by(Post.posted_at, Post.id))] if ids else []
    return posts, missing


def fragment_wanted() -> bool:
    """Asked by the page's script (the form goes in place) rather than followed as a link."""
    return request.headers.get("X-Fragment") == "1"


FORM_TITLES = {"action": _l("Confirm, correct or reject"), "add": _l("Add an action"),
               "penalty": _l("Latency penalty"), "roll": _l("Set result"), "combatant": _l("Change"),
               "order": _l("Set an order")}


@login_required
def form(encounter_id: int, kind: str):  # type: ignore[no-untyped-def]
    """One override form of the encounter page, filled for one action, declaration, roll or
    combatant (``?id=``, ``&index=`` for an action): the fragment for the page's script, a
    page of its own for a browser without it. Posts to the same override routes as ever."""
    if kind not in FORM_TITLES:
        abort(404)
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    ident = request.args.get("id")
    ctx: dict[str, Any] = {"kind": kind, "encounter": enc, "campaign": enc.campaign,
                           "selected": request.args.get("round", type=int), "kind_options": kind_options}
    if kind in ("combatant", "order"):
        ctx["c"] = in_encounter_or_404(s, Combatant, ident, enc)
        ctx["condition_names"] = engine.known_conditions(enc.ruleset)
    elif kind == "roll":
        r = in_encounter_or_404(s, RollRecord, ident, enc)
        totals = roll_totals(s, r.round_id) if r.round_id is not None else {}
        ctx.update(r=r, over=totals.get(r.roll_index))
    else:
        d = in_encounter_or_404(s, Declaration, ident, enc)
        ctx["d"] = d
        if kind == "action":
            index = request.args.get("index", type=int)
            if index is None or not 0 <= index < len(d.actions):
                abort(404)
            ctx.update(index=index, a=action_view(d.actions[index]))
        elif kind == "add":
            ctx["combatants"] = sorted(enc.combatants, key=lambda c: c.id)
    if fragment_wanted():
        return render_template("panel/encounter/_form.html", **ctx)
    back = url_for("encounters.show", encounter_id=enc.id, round=ctx["selected"])
    return render_template("panel/encounter_form.html", title=str(FORM_TITLES[kind]), back=back,
                           subject=_subject(ctx), **ctx)


def _subject(ctx: dict[str, Any]) -> str:
    """What the form changes, for its page of its own: the combatant, or the roll or
    declaration with whose it is. The page said only "Change" or "Set result": a narrator
    without JavaScript, or with two tabs, could not tell whose HP or roll it was."""
    if "c" in ctx:
        return str(ctx["c"].name)
    if "r" in ctx:
        r = ctx["r"]
        return " · ".join(str(x) for x in (r.actor, f"#{r.roll_index}", r.written or r.expression) if x)
    d = ctx["d"]
    return str(d.combatant.name)


@login_required
def post_body(encounter_id: int, post_id: int):  # type: ignore[no-untyped-def]
    """A long post's whole text (the page shows its start): as a fragment, or a page."""
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    post = s.get(Post, post_id)
    if post is None or post.round_id is None:
        abort(404)
    in_encounter_or_404(s, Round, post.round_id, enc)
    if fragment_wanted():
        return render_template("panel/encounter/_post_body.html", post=post)
    return render_template("panel/encounter_post.html", post=post, encounter=enc, campaign=enc.campaign)

"""The encounter page, its JSON refresh endpoint, and one POST route per override.

Each override route: load by id within the narrator's encounter (404 otherwise),
validate the form (CSRF, a reason), call :mod:`pbp.panel.overrides`, commit, go
back to the page. The rule of the game stays in the service layer and the engine.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user, login_required
from flask_wtf import FlaskForm

from ..errors import PbpError
from ..store.models import Combatant, Declaration, Reply, RollRecord, Round
from . import access, db, encounter_view
from . import overrides as ov
from .forms import (
    ConditionForm,
    DeadlineForm,
    HpOverrideForm,
    InferredForm,
    InitiativeForm,
    PenaltyForm,
    ReplyForm,
    ResolveForm,
    RollOverrideForm,
    choices,
)

bp = Blueprint("encounters", __name__, url_prefix="/encounters")

FRAGMENTS = ("combatants", "posts", "violations", "preview", "audit", "round")


def _forms() -> dict[str, Any]:
    from ..rules.model import ActionKind

    inferred = InferredForm()
    inferred.kind.choices = choices((k.value, k.value) for k in ActionKind)
    return {"roll_form": RollOverrideForm(), "hp_form": HpOverrideForm(), "condition_form": ConditionForm(),
            "initiative_form": InitiativeForm(), "inferred_form": inferred, "penalty_form": PenaltyForm(),
            "deadline_form": DeadlineForm(), "reply_form": ReplyForm(), "resolve_form": ResolveForm()}


def _round_arg() -> int | None:
    return request.args.get("round", type=int)


def _context(encounter_id: int, number: int | None = None, enc: Any = None, **known: Any) -> dict[str, Any]:
    """The page's context; *enc* and *known* (``rnd``, ``page_version``) when already loaded."""
    s = db.session()
    if enc is None:
        enc = access.encounter_or_404(s, encounter_id)
    ctx = encounter_view.build(s, enc, number, **known)
    if number is not None and ctx["round"] is None:
        abort(404)
    ctx["selected"] = number
    ctx["campaign"] = enc.campaign
    ctx["tz"] = ZoneInfo(enc.campaign.timezone or "UTC")
    ctx.update(_forms())
    return ctx


@bp.route("/<int:encounter_id>")
@login_required
def show(encounter_id: int):  # type: ignore[no-untyped-def]
    return render_template("panel/encounter.html", **_context(encounter_id, _round_arg()))


@bp.route("/<int:encounter_id>/live")
@login_required
def live(encounter_id: int):  # type: ignore[no-untyped-def]
    """JSON refresh: ``{changed: false}`` when the version the page holds is current, else
    the new version, the posts and declarations as data, and the page's fragments."""
    s = db.session()
    enc = access.encounter_or_404(s, encounter_id)
    rnd = encounter_view.current_round(s, enc, _round_arg())
    version = encounter_view.version(s, enc, rnd)
    if request.args.get("v") == version:
        return jsonify(changed=False, version=version)
    ctx = _context(encounter_id, _round_arg(), enc, rnd=rnd, page_version=version)
    env = current_app.jinja_env
    frags = {name: env.get_template(f"panel/encounter/_{name}.html").render(**ctx) for name in FRAGMENTS}
    posts = [{"id": p.post.id, "author": p.post.author, "posted_at": p.post.posted_at.isoformat(),
              "text": p.post.text,
              "declarations": [{"id": d.id, "combatant": d.combatant.key, "actions": d.actions,
                                "late": d.late, "edited_after_roll": d.edited_after_roll} for d in p.declarations]}
             for p in ctx["posts"]]
    return jsonify(changed=True, version=ctx["version"], posts=posts, fragments=frags,
                   missing=[c.key for c in ctx["missing"]])


def _back(encounter_id: int, anchor: str = "") -> Any:
    number = request.form.get("round_number", type=int)
    url = url_for("encounters.show", encounter_id=encounter_id, round=number) + anchor
    return redirect(url, code=303)


def _done(encounter_id: int, form: FlaskForm, apply: Any) -> Any:
    if not form.validate_on_submit():
        flash(_("Not changed: %(errors)s", errors="; ".join(
            f"{getattr(form, k).label.text}: {' '.join(map(str, v))}" for k, v in form.errors.items())), "error")
        return _back(encounter_id)
    s = db.session()
    try:
        apply(s)
    except PbpError as exc:
        s.rollback()
        flash(_("Not changed: %(error)s", error=exc.message), "error")
        return _back(encounter_id)
    s.commit()
    flash(_("Change recorded."), "ok")
    return _back(encounter_id)


def _enc(encounter_id: int) -> Any:
    return access.encounter_or_404(db.session(), encounter_id)


@bp.route("/<int:encounter_id>/override/roll", methods=["POST"])
@login_required
def override_roll(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = RollOverrideForm()
    roll = access.in_encounter_or_404(db.session(), RollRecord, form.roll_id.data, enc)
    return _done(encounter_id, form, lambda s: ov.set_roll(s, roll.id, form.total.data, form.reason.data,
                                                           current_user.id))


@bp.route("/<int:encounter_id>/override/hp", methods=["POST"])
@login_required
def override_hp(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = HpOverrideForm()
    c = access.in_encounter_or_404(db.session(), Combatant, form.combatant_id.data, enc)
    return _done(encounter_id, form, lambda s: ov.set_hp(s, c.id, form.hp.data, form.reason.data, current_user.id))


@bp.route("/<int:encounter_id>/override/condition", methods=["POST"])
@login_required
def override_condition(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = ConditionForm()
    c = access.in_encounter_or_404(db.session(), Combatant, form.combatant_id.data, enc)

    def apply(s: Any) -> Any:
        if form.remove.data:
            return ov.remove_condition(s, c.id, form.name.data, form.reason.data, current_user.id)
        return ov.add_condition(s, c.id, form.name.data, form.rounds.data, form.reason.data, current_user.id)

    return _done(encounter_id, form, apply)


@bp.route("/<int:encounter_id>/override/initiative", methods=["POST"])
@login_required
def override_initiative(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = InitiativeForm()
    return _done(encounter_id, form, lambda s: ov.reorder_initiative(
        s, enc.id, (form.order.data or "").split(","), form.reason.data, current_user.id))


@bp.route("/<int:encounter_id>/override/action", methods=["POST"])
@login_required
def override_action(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = _forms()["inferred_form"]
    d = access.in_encounter_or_404(db.session(), Declaration, form.declaration_id.data, enc)
    return _done(encounter_id, form, lambda s: ov.judge_action(
        s, d.id, form.index.data, form.verdict.data, form.reason.data, current_user.id,
        kind=form.kind.data if form.verdict.data == "correct" else None,
        target=form.target.data if form.verdict.data == "correct" else None))


@bp.route("/<int:encounter_id>/override/penalty", methods=["POST"])
@login_required
def override_penalty(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = PenaltyForm()
    d = access.in_encounter_or_404(db.session(), Declaration, form.declaration_id.data, enc)
    return _done(encounter_id, form, lambda s: ov.set_penalty(
        s, d.round_id, d.combatant.key, form.waive.data == "waive", form.reason.data, current_user.id))


@bp.route("/<int:encounter_id>/override/deadline", methods=["POST"])
@login_required
def override_deadline(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = DeadlineForm()
    rnd = access.in_encounter_or_404(db.session(), Round, request.form.get("round_id"), enc)

    def apply(s: Any) -> Any:
        when: datetime = form.deadline.data.replace(tzinfo=ZoneInfo(enc.campaign.timezone or "UTC"))
        return ov.set_deadline(s, rnd.id, when, form.reason.data, current_user.id)

    return _done(encounter_id, form, apply)


@bp.route("/<int:encounter_id>/override/reply", methods=["POST"])
@login_required
def override_reply(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = ReplyForm()
    reply = access.in_encounter_or_404(db.session(), Reply, request.form.get("reply_id"), enc)
    return _done(encounter_id, form, lambda s: ov.set_reply(
        s, reply.id, form.action.data == "post", form.reason.data, current_user.id))


@bp.route("/<int:encounter_id>/override/resolve", methods=["POST"])
@login_required
def override_resolve(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = ResolveForm()
    rnd = access.in_encounter_or_404(db.session(), Round, request.form.get("round_id"), enc)
    return _done(encounter_id, form, lambda s: ov.reresolve_round(s, rnd.id, form.reason.data, current_user.id))

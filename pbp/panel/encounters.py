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
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required
from flask_wtf import FlaskForm

from ..rounds import service
from ..rounds.overrides import RESULT_KINDS, make_public, pending_among
from ..store import queries
from ..store.models import Combatant, Declaration, Override, Reply, RollRecord, Round
from . import encounter_demand as demand
from . import fragments, live_quick
from .access import db_id, encounter_or_404, in_encounter_or_404
from .db import end_reads
from .db import session as db_session
from .encounter_view import build, ordered_combatants
from .encounter_view import version as page_version
from .fight_forms import AddActionForm, CorrectionForm, EndForm, StartForm
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
from .initiative_modes import current as initiative_mode
from .kind_words import KINDS, kind_word
from .overrides import (
    add_action,
    add_condition,
    judge_action,
    now_utc,
    remove_condition,
    reorder_initiative,
    reresolve_round,
    set_deadline,
    set_hp,
    set_penalty,
    set_reply,
    set_roll,
)
from .secret_rolls import secret_context
from .standing import page_context as standing_context
from .submit import submit

bp = Blueprint("encounters", __name__, url_prefix="/encounters")

#: the fragments every page has (besides one ``post-<id>`` per post of the round)
FRAGMENTS = (*fragments.SIMPLE, "posts", "orphans")


def _forms() -> dict[str, Any]:
    inferred = InferredForm()
    inferred.kind.choices = choices((k, kind_word(k)) for k in KINDS)
    return {"roll_form": RollOverrideForm(), "hp_form": HpOverrideForm(), "condition_form": ConditionForm(),
            "initiative_form": InitiativeForm(), "inferred_form": inferred, "penalty_form": PenaltyForm(),
            "deadline_form": DeadlineForm(), "reply_form": ReplyForm(), "resolve_form": ResolveForm(),
            "end_form": EndForm(), "correction_form": CorrectionForm()}


def _round_arg() -> int | None:
    n = request.args.get("round", type=int)
    return n if n is None or db_id(n) is not None else abort(404)   # no round holds it (was a 500)


def _context(encounter_id: int, number: int | None = None, enc: Any = None, **known: Any) -> dict[str, Any]:
    """The page's context; *enc* and *known* (``rnd``, ``page_version``) when already loaded."""
    s = db_session()
    if enc is None:
        enc = encounter_or_404(s, encounter_id)
    ctx = build(s, enc, number, **known)
    if number is not None and ctx["round"] is None:
        abort(404)
    ctx["selected"] = number
    ctx["campaign"] = enc.campaign
    ctx["tz"] = ZoneInfo(enc.campaign.timezone or "UTC")
    ctx.update(_forms())
    ctx["start_form"] = start_form(enc)
    ctx.update(secret_context(s, enc))        # DICE-2: what only the narrator sees
    ctx["extensions"] = queries.round_extensions(s, ctx["round"].id) if ctx["round"] else []
    ctx["initiative_mode"] = initiative_mode(enc)   # STALL-7
    ctx.update(_round_flags(ctx))
    return ctx


def _round_flags(ctx: dict[str, Any]) -> dict[str, Any]:
    """From the rows the page loaded already (no query): whether the round's clock waits
    for its announcement's approval, whether its result is out, what is not in it yet."""
    rnd = ctx["round"]
    if rnd is None:
        return {"announcement_held": False, "result_posted": False, "pending_overrides": []}
    earlier = [n for n, _state in ctx["rounds"] if n < rnd.number]
    if earlier:
        held = any(r.kind == "resolution" and n == max(earlier) for r, n in ctx["held"])
    else:
        held = any(r.kind == "opening" and r.state == "held" for r in ctx["replies"])
    return {"announcement_held": rnd.state == "open" and held,
            "result_posted": queries.posted([r for r in ctx["replies"] if r.kind == "resolution"]),
            "pending_overrides": pending_among(ctx["overrides"], rnd)}


def _rendered(encounter_id: int, known: tuple[Any, Any, str] | None = None
              ) -> tuple[Any, Any, Any, str, fragments.Rendered]:
    """The encounter, its round, the page's context (None when not built), the page
    version and the page's fragments, kept per version (SCALE-5): the context is built
    only when this process has no rendering of this version, round and language. *known*:
    the encounter, round and version when the caller has them."""
    s = db_session()
    number = _round_arg()
    if known is None:
        enc = encounter_or_404(s, encounter_id)
        rnd = queries.current_round(s, enc.id, number)
        if number is not None and rnd is None:
            abort(404)
        version = page_version(s, enc, rnd)
    else:
        enc, rnd, version = known
    key = (str(s.get_bind().engine.url), enc.id, number, version, str(get_locale()))
    box: dict[str, Any] = {}

    def build_context() -> dict[str, Any]:
        box["ctx"] = _context(encounter_id, number, enc, rnd=rnd, page_version=version)
        return box["ctx"]

    rendered = fragments.kept(key, build_context)
    return enc, rnd, box.get("ctx"), version, rendered


@bp.route("/<int:encounter_id>")
@login_required
def show(encounter_id: int):  # type: ignore[no-untyped-def]
    enc, rnd, _ctx, version, got = _rendered(encounter_id)
    s = db_session()
    page = {"encounter": enc, "campaign": enc.campaign, "selected": _round_arg(), "version": version,
            "round": rnd, "combatants": ordered_combatants(enc, rnd)}
    page.update(standing_context(s, enc))   # STALL-1/2: not versioned (time-bound), so per request
    frag = {k: fragments.fill(got.html[k]) for k in FRAGMENTS}
    end_reads()   # SCALE-4: no transaction open while the page renders
    return render_template("panel/encounter.html", frag=frag, posts_html=got.posts,
                           frag_hashes=got.hashes, post_order=got.order, **page)


@login_required
def live(encounter_id: int):  # type: ignore[no-untyped-def]
    """JSON refresh (SCALE-5), past :mod:`pbp.panel.live_quick`. ``204`` when the version the
    page holds (``v``) is current: nothing rendered. Else the new version, the round's post ids in
    order, and only the fragments whose hash differs from the one the tab sent in the
    ``X-Live-Have`` header (``name:hash,...``; none sent: every fragment), with their new
    hashes, the posts among them as data, and who is missing."""
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    rnd = queries.current_round(s, enc.id, _round_arg())
    version = page_version(s, enc, rnd)
    if request.args.get("v") == version:
        return "", 204
    have = fragments.parse_have(request.headers.get("X-Live-Have"))
    _enc, _rnd, ctx, version, got = _rendered(encounter_id, (enc, rnd, version))
    changed = [k for k, h in got.hashes.items() if have.get(k) != h]
    ids = {int(k[5:]) for k in changed if k.startswith("post-")}
    if ctx is not None:    # built just now: its rows
        posts = [demand.post_data(pv.post, pv.declarations) for pv in ctx["posts"] if pv.post.id in ids]
        missing = [c.key for c in ctx["missing"]]
    else:
        posts, missing = demand.live_data(encounter_id, ids)
    end_reads()   # SCALE-4: nothing more is read for this answer
    return jsonify(changed=True, version=version, fragments={k: fragments.fill(got.html[k]) for k in changed},
                   hashes={k: got.hashes[k] for k in changed}, order=got.order, posts=posts, missing=missing)


bp.add_url_rule("/<int:encounter_id>/live", "live", live_quick.first(live))  # SCALE-5


# --- on demand (SCALE-5): one override form, a whole post (pbp/panel/encounter_demand.py) ---
bp.add_url_rule("/<int:encounter_id>/form/<kind>", view_func=demand.form)
bp.add_url_rule("/<int:encounter_id>/posts/<int:post_id>", view_func=demand.post_body)


@bp.route("/<int:encounter_id>/rounds/<int:number>/posts")
@login_required
def round_posts(encounter_id: int, number: int):  # type: ignore[no-untyped-def]
    """An earlier round's posts, opened in place on the page (the link without script
    goes to the page of that round)."""
    if not demand.fragment_wanted():
        return redirect(url_for("encounters.show", encounter_id=encounter_id, round=number))
    ctx = _context(encounter_id, number)
    module = current_app.jinja_env.get_template(fragments.POSTS).make_module(vars=ctx)
    return "".join(str(module.post(pv)) for pv in ctx["posts"]) or str(module)


def _back(encounter_id: int, anchor: str = "") -> Any:
    number = request.form.get("round_number", type=int)
    url = url_for("encounters.show", encounter_id=encounter_id, round=number) + anchor
    return redirect(url, code=303)


def _done(encounter_id: int, form: FlaskForm, apply: Any, ok: str | None = None) -> Any:
    def run(s: Any) -> Any:
        result = apply(s)
        if isinstance(result, Override) and request.form.get("public"):
            make_public(result)     # issue 11 item 7: the reason is private unless ticked
        return result
    return submit(form, run, lambda: _back(encounter_id), ok or _recorded)


def _recorded(s: Any, result: Any) -> str:
    """What the narrator is told: an override on a round whose result is posted is not in
    the thread until a correction is posted (issue 11 item 6), and the page says so."""
    if isinstance(result, Override) and result.round_id is not None and result.kind in RESULT_KINDS:
        if queries.posted(queries.reply_parts(s, result.round_id, "resolution")):
            return _("Change recorded. The round's result is already posted: "
                     "post a correction to apply it.")
    return _("Change recorded.")


def _enc(encounter_id: int) -> Any:
    return encounter_or_404(db_session(), encounter_id)


@bp.route("/<int:encounter_id>/override/roll", methods=["POST"])
@login_required
def override_roll(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = RollOverrideForm()
    roll = in_encounter_or_404(db_session(), RollRecord, form.roll_id.data, enc)
    return _done(encounter_id, form, lambda s: set_roll(s, roll.id, form.total.data, form.reason.data,
                                                           current_user.id))


@bp.route("/<int:encounter_id>/override/hp", methods=["POST"])
@login_required
def override_hp(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = HpOverrideForm()
    c = in_encounter_or_404(db_session(), Combatant, form.combatant_id.data, enc)
    return _done(encounter_id, form, lambda s: set_hp(s, c.id, form.hp.data, form.reason.data, current_user.id))


@bp.route("/<int:encounter_id>/override/condition", methods=["POST"])
@login_required
def override_condition(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = ConditionForm()
    c = in_encounter_or_404(db_session(), Combatant, form.combatant_id.data, enc)

    def apply(s: Any) -> Any:
        if form.remove.data:
            return remove_condition(s, c.id, form.name.data, form.reason.data, current_user.id)
        return add_condition(s, c.id, form.name.data, form.rounds.data, form.reason.data, current_user.id)

    return _done(encounter_id, form, apply)


@bp.route("/<int:encounter_id>/override/initiative", methods=["POST"])
@login_required
def override_initiative(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = InitiativeForm()
    return _done(encounter_id, form, lambda s: reorder_initiative(
        s, enc.id, (form.order.data or "").split(","), form.reason.data, current_user.id))


@bp.route("/<int:encounter_id>/override/action", methods=["POST"])
@login_required
def override_action(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = _forms()["inferred_form"]
    d = in_encounter_or_404(db_session(), Declaration, form.declaration_id.data, enc)
    return _done(encounter_id, form, lambda s: judge_action(
        s, d.id, form.index.data, form.verdict.data, form.reason.data, current_user.id,
        kind=form.kind.data if form.verdict.data == "correct" else None,
        target=form.target.data if form.verdict.data == "correct" else None))


@bp.route("/<int:encounter_id>/override/action/add", methods=["POST"])
@login_required
def override_action_add(encounter_id: int):  # type: ignore[no-untyped-def]
    """Issue 13 item 3: the narrator adds an action to a post of the open round."""
    enc = _enc(encounter_id)
    form = AddActionForm()
    d = in_encounter_or_404(db_session(), Declaration, form.declaration_id.data, enc)
    return _done(encounter_id, form, lambda s: add_action(
        s, d.id, form.kind.data, form.target.data, form.weapon.data, form.reason.data,
        current_user.id))


@bp.route("/<int:encounter_id>/override/penalty", methods=["POST"])
@login_required
def override_penalty(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = PenaltyForm()
    d = in_encounter_or_404(db_session(), Declaration, form.declaration_id.data, enc)
    return _done(encounter_id, form, lambda s: set_penalty(
        s, d.round_id, d.combatant.key, form.waive.data == "waive", form.reason.data, current_user.id))


@bp.route("/<int:encounter_id>/override/deadline", methods=["POST"])
@login_required
def override_deadline(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = DeadlineForm()
    rnd = in_encounter_or_404(db_session(), Round, request.form.get("round_id"), enc)

    def apply(s: Any) -> Any:
        when: datetime = form.deadline.data.replace(tzinfo=ZoneInfo(enc.campaign.timezone or "UTC"))
        return set_deadline(s, rnd.id, when, form.reason.data, current_user.id)

    return _done(encounter_id, form, apply)


@bp.route("/<int:encounter_id>/override/reply", methods=["POST"])
@login_required
def override_reply(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = ReplyForm()
    reply = in_encounter_or_404(db_session(), Reply, request.form.get("reply_id"), enc)
    return _done(encounter_id, form, lambda s: set_reply(
        s, reply.id, form.action.data == "post", form.reason.data, current_user.id))


@bp.route("/<int:encounter_id>/override/resolve", methods=["POST"])
@login_required
def override_resolve(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = ResolveForm()
    rnd = in_encounter_or_404(db_session(), Round, request.form.get("round_id"), enc)
    return _done(encounter_id, form, lambda s: reresolve_round(s, rnd.id, form.reason.data, current_user.id))


# --- the fight: start, end, correct (issue 11 items 2 and 6) ----------------------------------


def start_form(enc: Any) -> StartForm:
    form = StartForm()
    form.surprised.choices = choices((c.key, c.name) for c in enc.combatants)
    return form


@bp.route("/<int:encounter_id>/start", methods=["POST"])
@login_required
def start(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = start_form(enc)
    return _done(encounter_id, form, lambda s: service.start_encounter_now(
        s, enc.id, now_utc(), current_user.id, surprise=bool(form.surprise.data),
        surprised=list(form.surprised.data or [])),
        ok=_("Encounter started: round 1 is open.") if not enc.campaign.approval_mode else
        _("Encounter started. The opening waits for your approval; the round's clock starts then."))


@bp.route("/<int:encounter_id>/end", methods=["POST"])
@login_required
def end(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = EndForm()
    if form.validate_on_submit() and not form.confirm.data:
        flash(_("Not changed: tick the box to end the encounter."), "error")
        return _back(encounter_id)
    return _done(encounter_id, form, lambda s: service.end_encounter(s, enc.id, now_utc(), current_user.id),
                 ok=_("Encounter ended. The thread is told; no round opens again."))


@bp.route("/<int:encounter_id>/correct", methods=["POST"])
@login_required
def correct(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = _enc(encounter_id)
    form = CorrectionForm()
    rnd = in_encounter_or_404(db_session(), Round, request.form.get("round_id"), enc)
    return _done(encounter_id, form, lambda s: service.correct_round(
        s, rnd.id, form.reason.data, current_user.id, now_utc(), public=bool(form.public.data)),
        ok=_("Correction queued for the thread."))

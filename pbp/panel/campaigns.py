"""Campaign settings: ruleset, houserules, language, time zone, approval mode; watched
sources (forum thread URL or Reddit submission); co-narrators."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from datetime import UTC, datetime
from zoneinfo import available_timezones

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from sqlalchemy import select

from ..errors import PbpError
from ..rounds.approval import release_held
from ..rules import registry
from ..store.models import Campaign, CampaignNarrator, Encounter, Narrator, Thread
from .access import campaign_or_404
from .audit import write as audit_write
from .db import session as db_session
from .forms import CampaignForm, CoNarratorForm, ThreadForm, choices

bp = Blueprint("campaigns", __name__, url_prefix="/campaigns")

def _rulesets() -> list[str]:
    return sorted(registry.registered())


def _slug(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "campaign"


def _toml(houserules: dict) -> str:  # type: ignore[type-arg]
    lines: list[str] = []

    def emit(prefix: str, table: dict) -> None:  # type: ignore[type-arg]
        scalars = {k: v for k, v in table.items() if not isinstance(v, dict)}
        if scalars and prefix:
            lines.append(f"[{prefix}]")
        for k, v in scalars.items():
            lines.append(f"{k} = {_value(v)}")
        for k, v in table.items():
            if isinstance(v, dict):
                emit(f"{prefix}.{k}" if prefix else k, v)

    emit("", houserules or {})
    return "\n".join(lines)


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _form(campaign: Campaign | None = None) -> CampaignForm:
    form = CampaignForm(obj=campaign if request.method == "GET" else None)
    form.ruleset.choices = choices((r, r) for r in _rulesets())
    if request.method == "GET" and campaign is not None:
        form.houserules.data = _toml(campaign.houserules)
    if request.method == "GET" and campaign is None:
        form.timezone.data = "UTC"
    return form


def _apply(form: CampaignForm, campaign: Campaign) -> bool:
    if form.timezone.data not in available_timezones() and form.timezone.data != "UTC":
        form.timezone.errors.append(_("Unknown time zone."))
        return False
    try:
        houserules = tomllib.loads(form.houserules.data or "")
    except tomllib.TOMLDecodeError as exc:
        form.houserules.errors.append(_("Not valid TOML: %(error)s", error=str(exc)))
        return False
    try:
        registry.get(form.ruleset.data, houserules)
    except PbpError as exc:  # an unknown key or a wrong value: the ruleset says which
        form.houserules.errors.append(str(exc))
        return False
    campaign.name = form.name.data.strip()
    campaign.ruleset = form.ruleset.data
    campaign.language = form.language.data
    campaign.timezone = form.timezone.data
    campaign.houserules = houserules
    campaign.approval_mode = bool(form.approval_mode.data)
    return True


def _settings(c: Campaign) -> dict:  # type: ignore[type-arg]
    return {"name": c.name, "ruleset": c.ruleset, "language": c.language, "timezone": c.timezone,
            "houserules": c.houserules, "approval_mode": c.approval_mode}


@bp.route("/new", methods=["GET", "POST"])
@login_required
def new():  # type: ignore[no-untyped-def]
    form = _form()
    if form.validate_on_submit():
        s = db_session()
        campaign = Campaign(name="", slug="", ruleset="", owner_id=current_user.id)
        if _apply(form, campaign):
            base = slug = _slug(campaign.name)
            n = 1
            while s.scalar(select(Campaign.id).where(Campaign.slug == slug)) is not None:
                n += 1
                slug = f"{base}-{n}"
            campaign.slug = slug
            s.add(campaign)
            s.flush()
            s.add(CampaignNarrator(campaign_id=campaign.id, narrator_id=current_user.id, role="owner"))
            audit_write(s, campaign.id, "campaign.create", "campaign", campaign.id, None, _settings(campaign))
            s.commit()
            flash(_("Campaign created."), "ok")
            return redirect(url_for("campaigns.show", campaign_id=campaign.id))
    return render_template("panel/campaign_new.html", form=form), 400 if form.errors else 200


@bp.route("/<int:campaign_id>", methods=["GET", "POST"])
@login_required
def show(campaign_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    form = _form(campaign)
    status = 200
    if request.method == "POST":
        before = _settings(campaign)
        if form.validate_on_submit() and _apply(form, campaign):
            audit_write(s, campaign.id, "campaign.settings", "campaign", campaign.id, before, _settings(campaign))
            if before["approval_mode"] and not campaign.approval_mode:   # issue 11 item 4: release, in order
                release_held(s, campaign.id, current_user.id, datetime.now(UTC))
            s.commit()
            flash(_("Settings saved."), "ok")
            return redirect(url_for("campaigns.show", campaign_id=campaign.id))
        s.rollback()
        status = 400
    return _page(campaign, status, form=form)


def _page(campaign: Campaign, status: int, *, form: CampaignForm | None = None,
          thread_form: ThreadForm | None = None,
          narrator_form: CoNarratorForm | None = None) -> tuple[str, int]:
    """The campaign page with the forms given (the others fresh) and its lists."""
    return render_template(
        "panel/campaign.html", campaign=campaign,
        form=_form(campaign) if form is None else form,
        thread_form=ThreadForm(prefix="thread") if thread_form is None else thread_form,
        narrator_form=CoNarratorForm(prefix="co") if narrator_form is None else narrator_form,
        **_lists(campaign)), status


def _lists(campaign: Campaign) -> dict:  # type: ignore[type-arg]
    s = db_session()
    return {
        "threads": list(s.scalars(select(Thread).where(Thread.campaign_id == campaign.id).order_by(Thread.id))),
        "encounters": list(s.scalars(select(Encounter).where(Encounter.campaign_id == campaign.id)
                                     .order_by(Encounter.id))),
        "narrators": list(s.execute(select(CampaignNarrator, Narrator)
                                    .join(Narrator, Narrator.id == CampaignNarrator.narrator_id)
                                    .where(CampaignNarrator.campaign_id == campaign.id)
                                    .order_by(CampaignNarrator.id))),
    }


@bp.route("/<int:campaign_id>/threads", methods=["POST"])
@login_required
def add_thread(campaign_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    form = ThreadForm(prefix="thread")
    if form.validate_on_submit():
        url = form.url.data.strip()
        if form.kind.data == "reddit" and "/comments/" not in url:
            form.url.errors.append(_("A Reddit submission address contains /comments/."))
        elif s.scalar(select(Thread.id).where(Thread.campaign_id == campaign.id, Thread.url == url)):
            form.url.errors.append(_("This source is already watched."))
        else:
            t = Thread(campaign_id=campaign.id, kind=form.kind.data, url=url,
                       platform="markdown" if form.kind.data == "reddit" else "bbcode")
            s.add(t)
            s.flush()
            audit_write(s, campaign.id, "thread.add", "thread", t.id, None, {"kind": t.kind, "url": t.url})
            s.commit()
            flash(_("Source added."), "ok")
            return redirect(url_for("campaigns.show", campaign_id=campaign.id))
    return _page(campaign, 400, thread_form=form)


@bp.route("/<int:campaign_id>/narrators", methods=["POST"])
@login_required
def add_narrator(campaign_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    form = CoNarratorForm(prefix="co")
    if form.validate_on_submit():
        other = s.scalars(select(Narrator).where(Narrator.username == form.name.data.strip())).first()
        if other is None:
            form.name.errors.append(_("No narrator of that name."))
        elif s.scalar(select(CampaignNarrator.id).where(CampaignNarrator.campaign_id == campaign.id,
                                                         CampaignNarrator.narrator_id == other.id)):
            form.name.errors.append(_("Already a narrator of this campaign."))
        else:
            s.add(CampaignNarrator(campaign_id=campaign.id, narrator_id=other.id, role="co"))
            audit_write(s, campaign.id, "narrator.add", "narrator", other.id, None, {"username": other.username})
            s.commit()
            flash(_("Co-narrator added."), "ok")
            return redirect(url_for("campaigns.show", campaign_id=campaign.id))
    return _page(campaign, 400, narrator_form=form)


@bp.route("/<int:campaign_id>/encounters", methods=["POST"])
@login_required
def new_encounter(campaign_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    if not FlaskForm().validate_on_submit():
        abort(400)
    thread_id = request.form.get("thread_id", type=int)
    thread = s.get(Thread, thread_id) if thread_id else None
    if thread is None or thread.campaign_id != campaign.id:
        abort(404)
    name = (request.form.get("name") or "").strip()[:200] or _("Encounter")
    enc = Encounter(campaign_id=campaign.id, thread_id=thread.id, name=name, ruleset=campaign.ruleset)
    s.add(enc)
    s.flush()
    audit_write(s, campaign.id, "encounter.create", "encounter", enc.id, None, {"name": name})
    s.commit()
    return redirect(url_for("combatants.index", encounter_id=enc.id))

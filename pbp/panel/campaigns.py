"""Campaign settings: ruleset, houserules, language, time zone, approval mode; watched
sources (forum thread URL or Reddit submission); co-narrators."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from sqlalchemy import select

from ..errors import PbpError
from ..rounds.approval import release_held
from ..rounds.policy import make_policy, split_houserules
from ..rules import registry
from ..store.models import Campaign, CampaignNarrator, Encounter, Thread
from ..store.narrators import narrators_of
from ..table_files import tables_for
from . import clock_settings, ladder_settings, owes_settings, sources
from . import round_settings as rs
from .access import campaign_or_404, db_id
from .account_names import player_clash
from .audit import write as audit_write
from .audit_words import campaign_lines
from .db import session as db_session
from .forms import CampaignForm, CoNarratorForm, SourceForm, TablesForm, choices
from .i18n import panel_language
from .initiative_modes import mode_labels, sides_labels
from .polling import forum_polling

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


def _timing(campaign: Campaign | None) -> rs.Timing:
    if campaign is None:   # a new campaign closes early by default (STALL-4)
        return rs.Timing(24.0, (2.0,), True)
    return rs.Timing(float(campaign.round_hours), tuple(float(h) for h in campaign.reminder_hours or ()),
                     bool(campaign.early_close))


def _form(campaign: Campaign | None = None, *, stored: bool | None = None) -> CampaignForm:
    """The settings form: as stored (*stored*, the default on GET) or as posted."""
    stored = request.method == "GET" if stored is None else stored
    form = CampaignForm(formdata=None, obj=campaign) if stored else CampaignForm()
    form.ruleset.choices = choices((r, r) for r in _rulesets())
    if stored:
        # what play uses: the houserules' [rounds] values win over the campaign's own
        _, table = split_houserules(campaign.houserules or {} if campaign else {})
        timing = rs.effective(_timing(campaign), table)
        form.round_hours.data = rs.format_hours(timing.round_hours)
        form.reminder_hours.data = rs.format_hours(timing.reminder_hours)
        form.early_close.data = timing.early_close
        clock_settings.fill(form, campaign)
        ladder_settings.fill(form, campaign)
    owes_settings.fill(form, campaign, stored=stored)
    if stored and campaign is not None:
        form.houserules.data = _toml(campaign.houserules)
    if stored and campaign is None:
        form.timezone.data = "UTC"
        # the replies' language starts as the narrator's own (a Portuguese narrator's
        # new campaign was set to English until changed)
        if panel_language() in {value for value, *_ in form.language.choices}:  # type: ignore[union-attr]
            form.language.data = panel_language()
    return form


def _houserules(form: CampaignForm, default_hours: float) -> dict | None:  # type: ignore[type-arg]
    """The houserules text read and checked: the engine's part by the ruleset, the
    ``[rounds]`` table by the rounds layer (docs/rounds.md); None with the problems on
    the field."""
    try:
        houserules = tomllib.loads(form.houserules.data or "")
    except tomllib.TOMLDecodeError as exc:
        form.houserules.errors.append(_("Not valid TOML: %(error)s", error=str(exc)))
        return None
    problems = rs.rounds_table_problems(houserules.get("rounds", {}), default_hours)
    try:
        # the engine's part; [rounds] is the rounds layer's (pbp.rounds.policy.split_houserules)
        registry.get(form.ruleset.data, {k: v for k, v in houserules.items() if k != "rounds"})
        if not problems:
            make_policy(form.ruleset.data, houserules)
    except PbpError as exc:  # an unknown key or a wrong value: the ruleset says which
        problems.append(str(exc))
    form.houserules.errors.extend(problems)
    return None if problems else houserules


def _read_timing(form: CampaignForm, current: rs.Timing) -> rs.Timing | None:
    """The round fields as typed (a field the request left out keeps *current*), or None
    with the problem on the field that has it."""
    hours: float | None = current.round_hours
    if form.round_hours.raw_data:
        hours = rs.parse_hours(form.round_hours.data or "")
        problem = (_("Round length: a number of hours, like 24 or 1.5.") if hours is None
                   else rs.round_hours_problem(hours))
        if problem:
            form.round_hours.errors.append(problem)
            hours = None
    reminders: list[float] | None = list(current.reminder_hours)
    if form.reminder_hours.raw_data:
        reminders = rs.parse_reminders(form.reminder_hours.data or "")
        if reminders is None:
            form.reminder_hours.errors.append(_("Reminders: hours before the deadline separated by commas, "
                                                "like 12, 2 (empty: no reminder)."))
        elif hours is not None and (problem := rs.reminders_problem(reminders, hours)):
            form.reminder_hours.errors.append(problem)
            reminders = None
    if hours is None or reminders is None:
        return None
    return rs.Timing(hours, tuple(sorted(set(reminders), reverse=True)), bool(form.early_close.data))


def _apply(form: CampaignForm, campaign: Campaign) -> bool:
    problem = rs.timezone_problem(form.timezone.data or "")
    if problem:
        form.timezone.errors.append(problem)
    timing = _read_timing(form, _timing(campaign if campaign.id else None))
    houserules = _houserules(form, timing.round_hours if timing else 24.0)
    if timing is not None and houserules is not None:
        for name, value in rs.overridden(timing, houserules.get("rounds", {})).items():
            getattr(form, name).errors.append(_(
                "House rules [rounds] set %(key)s = %(value)s, which is what play uses: change it there, "
                "or remove it from the house rules to set it here.", key=name, value=value))
    clock = clock_settings.read(form)
    ladder = ladder_settings.read(form)
    account = (ladder or {}).get("narrator_account")
    clash = player_clash(db_session(), campaign.id, [account]) if account and campaign.id else None
    if clash:
        form.narrator_account.errors.append(clash)
    weekly = owes_settings.read(form, campaign)
    if problem or timing is None or houserules is None or clock is None or ladder is None \
            or weekly is None or form.errors:
        return False
    for name, value in {**clock, **ladder, **weekly}.items():
        setattr(campaign, name, value)
    campaign.name = form.name.data.strip()
    campaign.ruleset = form.ruleset.data
    campaign.language = form.language.data
    campaign.timezone = form.timezone.data
    campaign.houserules = houserules
    campaign.approval_mode = bool(form.approval_mode.data)
    campaign.public_verification = bool(form.public_verification.data)
    campaign.round_hours = timing.round_hours
    campaign.reminder_hours = list(timing.reminder_hours)
    campaign.early_close = timing.early_close
    campaign.private_roll_values = bool(form.private_roll_values.data)
    return True


def _settings(c: Campaign) -> dict:  # type: ignore[type-arg]
    return {"name": c.name, "ruleset": c.ruleset, "language": c.language, "timezone": c.timezone,
            "houserules": c.houserules, "approval_mode": c.approval_mode, "round_hours": c.round_hours,
            "reminder_hours": list(c.reminder_hours or []), "early_close": c.early_close,
            "close_grace_minutes": c.close_grace_minutes, "quiet_hours": c.quiet_hours,
            "skip_weekends": c.skip_weekends, "extension_limit_hours": c.extension_limit_hours,
            "private_roll_values": c.private_roll_values, "notify_hours": c.notify_hours,
            "missed_limit": c.missed_limit, "auto_narrator_run": c.auto_narrator_run,
            "narrator_account": c.narrator_account,
            "public_verification": bool(c.public_verification)}


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
          thread_form: SourceForm | None = None, detection: sources.Detection | None = None,
          narrator_form: CoNarratorForm | None = None,
          tables_form: TablesForm | None = None,
          accounts_tried: dict[str, Any] | None = None) -> tuple[str, int]:
    """The campaign page with the forms given (the others fresh) and its lists;
    *detection* is what the address being added was found to be (engines to choose);
    *tables_form*: the random tables as posted, with their problems (pbp.panel.tables);
    *accounts_tried*: a co-narrator's accounts as posted and what is wrong (pbp.panel.narrators)."""
    if tables_form is None:
        tables_form = TablesForm(prefix="tables", formdata=None, data={"tables": campaign.tables or ""})
    return render_template(
        "panel/campaign.html", campaign=campaign,
        initiative_modes=mode_labels(), initiative_sides=sides_labels(),   # STALL-7
        form=_form(campaign, stored=True) if form is None else form,   # another form was posted
        thread_form=sources.new_form() if thread_form is None else thread_form,
        detection=detection, engines=sources.engines(),
        narrator_form=CoNarratorForm(prefix="co") if narrator_form is None else narrator_form,
        tables_form=tables_form, table_set=tables_for(campaign.ruleset, campaign.tables),
        accounts_tried=accounts_tried or {}, **_lists(campaign)), status


page = _page


def _lists(campaign: Campaign) -> dict:  # type: ignore[type-arg]
    s = db_session()
    threads = list(s.scalars(select(Thread).where(Thread.campaign_id == campaign.id).order_by(Thread.id)))
    return {
        "threads": threads,
        "polling": forum_polling(s, current_app.config["PBP_SETTINGS"],
                                 [t.url for t in threads if t.kind == "forum"],
                                 current_app.config["DATABASE_URL"]),
        "encounters": list(s.scalars(select(Encounter).where(Encounter.campaign_id == campaign.id)
                                     .order_by(Encounter.id))),
        "narrators": narrators_of(s, campaign.id),
        "history": campaign_lines(s, campaign),
    }


@bp.route("/<int:campaign_id>/threads", methods=["POST"])
@login_required
def add_thread(campaign_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    form = sources.new_form()
    detection = None
    if form.validate_on_submit():
        thread, detection = sources.add(s, campaign, form)
        if thread is not None:
            s.commit()
            flash(_("Source added: %(what)s.", what=sources.engine_name(thread.options["preset"])
                    if thread.kind == "forum" else _("Reddit submission")), "ok")
            return redirect(url_for("campaigns.show", campaign_id=campaign.id) + "#h-sources")
    # several engines fit: a question, not an error
    asking = detection is not None and not form.errors and len(detection.presets) > 1
    return _page(campaign, 200 if asking else 400, thread_form=form, detection=detection)


@bp.route("/<int:campaign_id>/encounters", methods=["POST"])
@login_required
def new_encounter(campaign_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    if not FlaskForm().validate_on_submit():
        abort(400)
    thread_id = db_id(request.form.get("thread_id"))
    thread = s.get(Thread, thread_id) if thread_id else None
    if thread is None or thread.campaign_id != campaign.id:
        abort(404)
    name = (request.form.get("name") or "").replace("\x00", "").strip()[:200] or _("Encounter")
    enc = Encounter(campaign_id=campaign.id, thread_id=thread.id, name=name, ruleset=campaign.ruleset)
    s.add(enc)
    s.flush()
    audit_write(s, campaign.id, "encounter.create", "encounter", enc.id, None, {"name": name},
                encounter_id=enc.id)
    s.commit()
    return redirect(url_for("combatants.index", encounter_id=enc.id))

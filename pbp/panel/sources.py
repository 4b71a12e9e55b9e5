"""Watched sources in the panel: add a thread by its address alone, edit, pause, remove.

Why the address alone: a narrator knows the thread's address, not which engine the forum
runs. The engine is found by matching the address against every preset's
``thread.pattern`` (:func:`pbp.sources.forum_check.detect_presets`): one match is taken,
several are offered to choose from (phpBB 2 and 3 share one shape), none shows every
engine with the shape of its thread addresses (the preset's ``example``); before asking,
the forum's first page is read with each engine that fits
(:func:`pbp.sources.forum_check.reading_engine`). A Reddit
submission is recognised by its address. Every refusal says, in the narrator's words,
which engine was expected and what the address should look like; never a regex.

Pausing clears ``Thread.active``, which the pollers already skip. Removing deletes the
source and what pbp stored from it only while none of its encounters was played: a
played round's rolls and replies are the game's record (PBP-4) and stay.
"""

from __future__ import annotations

import functools
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import login_required
from flask_wtf import FlaskForm
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ..errors import ConfigError, PbpError
from ..sources.forum_check import detect_presets, reading_engine
from ..sources.forum_preset import ForumPreset, available_presets, load_preset
from ..sources.outbound import VARIABLE, PrivateHosts, refusal
from ..sources.reddit import parse_submission_id
from ..store.models import Campaign, Encounter, Post, Round, Thread
from .access import campaign_or_404
from .audit import write as audit_write
from .db import session as db_session
from .forms import SourceForm, choices

bp = Blueprint("sources", __name__, url_prefix="/sources")

#: the preset a forum thread without one is read with (ForumSource.from_options' default)
DEFAULT_PRESET = "machina"
MAX_URL = 500
_REDDIT_HOSTS = re.compile(r"(^|\.)(reddit\.com|redd\.it)$", re.IGNORECASE)
_REDDIT_PATH = re.compile(r"^/r/[A-Za-z0-9_]{2,21}/comments/[a-z0-9]{1,12}(/|$)", re.IGNORECASE)
_REDDIT_EXAMPLE = "https://www.reddit.com/r/yourgame/comments/abc123/the_fight/"
_ERROR_PREFIX = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?Z? )?([A-Z]\w*(Error|Exception): )?")
_REGEX_TAIL = re.compile(r"\s*\(expected \^.*?\)(?=:|$| \[)", re.DOTALL)


@dataclass(frozen=True)
class Engine:
    """A forum engine as a narrator sees it: its name and a thread address of its shape."""

    name: str
    engine: str
    example: str


@dataclass
class Detection:
    """What an address is: ``kind`` forum or reddit (empty: refused, ``problem`` says why)
    and, for a forum, the presets that fit it."""

    kind: str = ""
    presets: list[str] = field(default_factory=list)
    problem: str = ""


@functools.cache
def _loaded() -> tuple[tuple[str, ForumPreset], ...]:
    """Every preset that loads, once per process (loading all takes ~30 ms; pages show the
    engine of every source). A preset file added later is seen after a restart."""
    out = []
    for name in available_presets():
        try:
            out.append((name, load_preset(name)))
        except ConfigError:      # a broken file: `pbp` commands that load it say why
            continue
    return tuple(out)


def engines() -> list[Engine]:
    return [Engine(name, p.engine or name, p.example) for name, p in _loaded()]


def engine_name(preset: str) -> str:
    return next((e.engine for e in engines() if e.name == preset), preset)


def _shape(preset: str) -> str:
    e = next((e for e in engines() if e.name == preset), None)
    if e is None or not e.example:
        return _("Choose an engine from the list.")
    return _("A %(engine)s thread address looks like %(example)s", engine=e.engine, example=e.example)


def _web_address(url: str) -> str:
    """Why *url* is not a web address a narrator could have pasted ("" when it is)."""
    parts = urlsplit(url)
    if (parts.scheme.lower() not in ("http", "https") or not parts.hostname
            or re.search(r"[\s\x00-\x1f\x7f]", url)):
        return _("Paste the thread's whole address as your browser shows it, starting with https://.")
    if len(url) > MAX_URL:
        return _("This address is too long (at most %(n)s characters).", n=MAX_URL)
    return ""


def detect(url: str) -> Detection:
    """What *url* is: a Reddit submission, a forum thread (with the presets that fit), or
    refused in words. Pure: nothing is fetched."""
    problem = _web_address(url)
    if problem:
        return Detection(problem=problem)
    parts = urlsplit(url)
    if _REDDIT_HOSTS.search(parts.hostname or "") or _REDDIT_PATH.match(parts.path):
        try:
            parse_submission_id(parts.path if _REDDIT_PATH.match(parts.path) else url)
        except PbpError:
            return Detection(problem=_("This Reddit address is not a submission: a submission's address "
                                       "contains /comments/, like %(example)s", example=_REDDIT_EXAMPLE))
        return Detection(kind="reddit")
    return Detection(kind="forum", presets=detect_presets(url))


def check(url: str, preset: str) -> tuple[Detection, str]:
    """(what *url* is, the problem with it in words or ""); *preset* is the engine the
    narrator chose ("" for none). A forum address that fits several engines and no
    choice is not a problem: the page asks."""
    d = detect(url)
    if d.problem or d.kind == "reddit":
        return d, d.problem
    if preset:
        if preset not in available_presets():
            return d, _("Choose an engine from the list.")
        if preset not in d.presets:
            return d, _("This is not a %(engine)s thread address. %(shape)s",
                        engine=engine_name(preset), shape=_shape(preset))
        d.presets = [preset]
        return d, ""
    if not d.presets:
        return d, _("pbp does not recognise this address as a thread of a forum engine it reads. "
                    "Choose your forum's engine below: each reads thread addresses of the shape shown.")
    return d, ""


def network_problem(url: str) -> str:
    """Why the workers will not fetch *url* ("" when they will): its host resolves inside
    the operator's network (loopback, private, link-local, cloud metadata) and the
    ``allow_private_hosts`` setting does not name it. Resolves the name; fetches nothing.
    A name that does not resolve now is not refused here: the poll will say so."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        allow = PrivateHosts.parse(current_app.config["PBP_SETTINGS"].allow_private_hosts)
    except (ValueError, ConfigError):
        return ""
    refused = refusal(parts.hostname or "", port, allow)
    if refused is None:
        return ""
    address = refused.address if refused.address == refused.host else f"{refused.host}: {refused.address}"
    entry = f"[{refused.host}]:{port}" if ":" in refused.host else f"{refused.host}:{port}"
    setting, example = f"allow_private_hosts ({VARIABLE})", f"{VARIABLE}={entry}"
    return _("pbp does not fetch addresses inside your network (%(address)s); the operator can allow it "
             "with the setting %(setting)s, for example %(example)s.", address=address,
             setting=setting, example=example)


def _fitting(url: str) -> list[str]:
    return [name for name, p in _loaded() if p.thread.pattern.match(url)]


def engine_mismatch(thread: Thread) -> bool:
    """A forum source whose address its engine (chosen, or the default) cannot read."""
    preset = (thread.options or {}).get("preset") or DEFAULT_PRESET
    return thread.kind == "forum" and preset not in _fitting(thread.url)


def last_error(thread: Thread) -> str:
    """The last poll's error without its time, the exception's name or a regex."""
    return _REGEX_TAIL.sub("", _ERROR_PREFIX.sub("", thread.last_error or "")).strip()


def source_problem(thread: Thread) -> str:
    """What is wrong with a watched source, in words ("" when nothing known is): a forum
    address its engine cannot read, and the last poll's error."""
    words = []
    if engine_mismatch(thread):
        chosen = (thread.options or {}).get("preset")
        preset, fits = chosen or DEFAULT_PRESET, _fitting(thread.url)
        words.append(_("This is not a %(engine)s thread address.", engine=engine_name(preset)) if chosen else
                     _("No engine was chosen for this source, so pbp assumed %(engine)s, and this is not a "
                       "%(engine)s thread address.", engine=engine_name(preset)))
        words.append(_("The address fits %(engines)s: edit the source to choose.",
                       engines=" / ".join(engine_name(n) for n in fits)) if fits else
                     _shape(preset) + " " + _("Edit the source to choose its engine."))
    error = last_error(thread)
    if error and not (words and "thread URL" in error):   # the same problem, said above
        words.append(_("Last error: %(error)s", error=error))
    return " ".join(words)


def new_form() -> SourceForm:
    form = SourceForm(prefix="thread")
    form.preset.choices = choices([("", _("Detect from the address"))]
                                  + [(e.name, e.engine) for e in engines()])
    return form


def add(s: Session, campaign: Campaign, form: SourceForm) -> tuple[Thread | None, Detection]:
    """Add the source the form names, or None with the problem on the form's URL field
    (or the presets to choose from when the address fits several)."""
    url = (form.url.data or "").strip()
    d, problem = check(url, form.preset.data or "")
    if not problem and d.kind == "forum":
        problem = network_problem(url)
    if not problem and s.scalar(select(Thread.id).where(Thread.campaign_id == campaign.id, Thread.url == url)):
        problem = _("This source is already watched.")
    if problem:
        form.url.errors.append(problem)
        return None, d
    if d.kind == "forum" and len(d.presets) > 1:   # the forum itself may say which
        found = reading_engine(url, d.presets, current_app.config["PBP_SETTINGS"])
        d.presets = [found] if found else d.presets
    if d.kind == "forum" and len(d.presets) != 1:
        return None, d
    t = Thread(campaign_id=campaign.id, kind=d.kind, url=url, title=(form.title.data or "").strip(),
               platform="markdown" if d.kind == "reddit" else markup_of(d.presets[0]),
               options={"preset": d.presets[0]} if d.kind == "forum" else {})
    s.add(t)
    s.flush()
    audit_write(s, campaign.id, "thread.add", "thread", t.id, None, _described(t))
    return t, d


def _described(t: Thread) -> dict[str, Any]:
    described = {"kind": t.kind, "url": t.url, "title": t.title,
                 "preset": (t.options or {}).get("preset"), "active": t.active}
    if (t.options or {}).get("reread_requested_at"):
        described["reread_requested_at"] = t.options["reread_requested_at"]
    return described


def _thread_or_404(s: Session, thread_id: int) -> tuple[Thread, Campaign]:
    t = s.get(Thread, thread_id)
    if t is None:
        abort(404)
    return t, campaign_or_404(s, t.campaign_id)


def _back(campaign: Campaign) -> Any:
    return redirect(url_for("campaigns.show", campaign_id=campaign.id) + "#h-sources")


@bp.route("/<int:thread_id>", methods=["GET", "POST"])
@login_required
def edit(thread_id: int):  # type: ignore[no-untyped-def]
    """Change a source's address, engine or name; a new address or engine reads the
    thread again from the start (posts already stored are kept, never stored twice)."""
    s = db_session()
    t, campaign = _thread_or_404(s, thread_id)
    form = new_form()
    if request.method == "GET":
        form.url.data, form.title.data = t.url, t.title
        form.preset.data = (t.options or {}).get("preset", "")
    detection = detect(t.url) if t.kind != "file" else Detection(kind="file")
    if request.method == "POST" and form.validate_on_submit():
        before, title = _described(t), (form.title.data or "").strip()
        url = (form.url.data or "").strip() if t.kind != "file" else t.url   # a file's path is the demo's
        detection, problem = check(url, form.preset.data or "") if t.kind != "file" else (detection, "")
        if not problem and url != t.url and s.scalar(select(Thread.id).where(
                Thread.campaign_id == campaign.id, Thread.url == url)):
            problem = _("This source is already watched.")
        if not problem and detection.kind == "forum" and url != t.url:
            problem = network_problem(url)
        if not problem and detection.kind != t.kind:
            problem = _("A forum thread cannot become a Reddit submission or the other way round: add the "
                        "new one as a source of its own.")
        if problem:
            form.url.errors.append(problem)
        elif detection.kind != "forum" or len(detection.presets) == 1:
            _update(t, url, detection, title)
            audit_write(s, campaign.id, "thread.edit", "thread", t.id, before, _described(t))
            s.commit()
            flash(_("Source saved."), "ok")
            return _back(campaign)
    asking = request.method == "POST" and not form.errors and len(detection.presets) > 1
    status = 400 if request.method == "POST" and not asking else 200
    return render_template("panel/campaign_source.html", campaign=campaign, thread=t, form=form,
                           detection=detection, engines=engines(), problem=source_problem(t)), status


def _update(t: Thread, url: str, d: Detection, title: str) -> None:
    options = dict(t.options or {})
    if d.kind == "forum":
        options["preset"] = d.presets[0]
    if url != t.url or options.get("preset") != (t.options or {}).get("preset"):
        t.cursor, t.next_poll, t.error_count, t.last_error = None, None, 0, None
    t.url, t.title, t.options = url, title, options


@bp.route("/<int:thread_id>/pause", methods=["POST"])
@login_required
def pause(thread_id: int):  # type: ignore[no-untyped-def]
    """Stop or restart reading a source (``action`` pause or resume)."""
    s = db_session()
    t, campaign = _thread_or_404(s, thread_id)
    if not FlaskForm().validate_on_submit() or request.form.get("action") not in ("pause", "resume"):
        abort(400)
    before = _described(t)
    t.active = request.form["action"] == "resume"
    if t.active:
        t.next_poll = None      # read again at the next dispatch
    audit_write(s, campaign.id, "thread.resume" if t.active else "thread.pause", "thread", t.id,
                before, _described(t))
    s.commit()
    flash(_("Source resumed: pbp reads it again.") if t.active else
          _("Source paused: pbp reads no new post from it until you resume it. Rounds in this thread "
            "still close at their deadlines."), "ok")
    return _back(campaign)


@bp.route("/<int:thread_id>/reread", methods=["POST"])
@login_required
def reread(thread_id: int):  # type: ignore[no-untyped-def]
    """Ask the workers to read every page of a forum thread at its next poll (edits on
    earlier pages; issue 14 point 7). Only the thread's options change: the worker owns
    the cursor and compares its last full read with this request's time."""
    s = db_session()
    t, campaign = _thread_or_404(s, thread_id)
    if not FlaskForm().validate_on_submit() or t.kind != "forum":
        abort(400)
    before = _described(t)
    t.options = {**(t.options or {}), "reread_requested_at": time.time()}
    t.next_poll = None
    audit_write(s, campaign.id, "thread.reread", "thread", t.id, before, _described(t))
    s.commit()
    flash(_("The whole thread will be read again at the next poll."), "ok")
    return redirect(url_for("sources.edit", thread_id=t.id))


def _played(s: Session, t: Thread) -> tuple[list[Encounter], list[Encounter]]:
    """(encounters played: with a round, encounters not started) of a thread."""
    encounters = list(s.scalars(select(Encounter).where(Encounter.thread_id == t.id).order_by(Encounter.id)))
    played_ids = set(s.scalars(select(Round.encounter_id).where(
        Round.encounter_id.in_([e.id for e in encounters])))) if encounters else set()
    return [e for e in encounters if e.id in played_ids], [e for e in encounters if e.id not in played_ids]


@bp.route("/<int:thread_id>/remove", methods=["GET", "POST"])
@login_required
def remove(thread_id: int):  # type: ignore[no-untyped-def]
    """Ask, then remove a source with the posts stored from it and its encounters not
    started; refused while one of its encounters was played."""
    s = db_session()
    t, campaign = _thread_or_404(s, thread_id)
    played, unstarted = _played(s, t)
    posts = s.scalar(select(func.count(Post.id)).where(Post.thread_id == t.id)) or 0
    if request.method == "POST" and not played:
        if not FlaskForm().validate_on_submit():
            abort(400)
        before = {**_described(t), "posts": posts, "encounters": [e.name for e in unstarted]}
        s.execute(delete(Encounter).where(Encounter.thread_id == t.id))
        s.execute(delete(Post).where(Post.thread_id == t.id))
        s.execute(delete(Thread).where(Thread.id == t.id))
        audit_write(s, campaign.id, "thread.remove", "thread", thread_id, before, None)
        s.commit()
        flash(_("Source removed."), "ok")
        return _back(campaign)
    return render_template("panel/campaign_source_remove.html", campaign=campaign, thread=t, played=played,
                           unstarted=unstarted, posts=posts), 409 if played and request.method == "POST" else 200


def init_app(app: Any) -> None:
    app.jinja_env.filters["source_problem"] = source_problem
    app.jinja_env.filters["last_error"] = last_error
    app.jinja_env.tests["engine_mismatch"] = engine_mismatch
    app.jinja_env.filters["engine_name"] = engine_name
    app.register_blueprint(bp)


def markup_of(preset: str) -> str:
    """The markup replies take in a thread of *preset*'s engine (BBCode when unreadable:
    the source's own check reports the preset)."""
    try:
        return load_preset(preset).markup
    except PbpError:
        return "bbcode"

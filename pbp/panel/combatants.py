"""Combatant sheets: list, add, edit, and import from CSV or YAML."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import login_required
from sqlalchemy import select

from ..errors import UnreadableInput
from ..rounds.standing_panel import sheet_default_problem
from ..rules.sheet_checks import SheetProblem, check_sheet, weapon_lines
from ..rules.stats import normalise_sheet
from ..store.models import Combatant, Encounter
from .access import encounter_or_404, in_encounter_or_404
from .audit import write as audit_write
from .db import session as db_session
from .forms import CombatantForm, ImportForm
from .importer import KEY
from .importer import parse as parse_import
from .table_words import say as say_problem

bp = Blueprint("combatants", __name__, url_prefix="/encounters/<int:encounter_id>/combatants")


def _sheet_text(c: Combatant) -> tuple[str, str]:
    sheet = c.sheet or {}
    stats = "\n".join(f"{k} = {v}" for k, v in (sheet.get("stats") or {}).items())
    weapons = "\n".join(f"{w.get('name')}: {w.get('damage', '1d4')}" for w in sheet.get("weapons") or [])
    return stats, weapons


def _parse_sheet(form: CombatantForm, ruleset: str, was_hp: int | None) -> dict[str, Any] | None:
    """The sheet from the form, or None with every refused value said on its field: the
    checks a scenario meets at load (:mod:`pbp.rules.sheet_checks`), so nothing saved here
    can stall a round."""
    stats: dict[str, int] = {}
    for n, line in enumerate((form.stats.data or "").splitlines(), 1):
        if not line.strip():
            continue
        k, sep, v = line.partition("=")
        try:
            if not sep or not k.strip():
                raise ValueError
            stats.update(normalise_sheet({k.strip(): v.strip()}))  # Destreza / Ловкость -> dex
        except (ValueError, UnreadableInput):
            form.stats.errors.append(_("Line %(n)s: write name = number.", n=n))
            return None
    weapons, problems = weapon_lines(line for line in (form.weapons.data or "").splitlines() if line.strip())
    problems += check_sheet(ruleset, hp=form.hp.data, max_hp=form.max_hp.data, weapons=weapons,
                            stats=stats, over_max=bool(form.hp_over_max.data), was_hp=was_hp)
    for p in problems:
        getattr(form, p.field).errors.append(_said(p))
    return None if problems else {"stats": stats, "weapons": weapons}


def _default_action(form: CombatantForm, enc: Encounter, sheet: dict[str, Any] | None
                    ) -> dict[str, Any] | None:
    """STALL-2: the sheet's ``default_action``, read as a post's ``.default`` would be; one
    that spends a spell, power, item or extra action is refused on its field."""
    text = (form.default_action.data or "").strip()
    if text:
        problem = sheet_default_problem(enc, (form.key.data or "").strip().lower(), text)
        if problem == "unread":
            form.default_action.errors.append(_("Not understood as an action: %(text)s", text=text))
            return None
        if problem is not None:
            spent = {"spell": _("a spell"), "power": _("a power"), "item": _("an item"),
                     "extra action": _("an extra action")}.get(problem, problem)
            form.default_action.errors.append(
                _("A default may not spend a limited resource (%(resource)s).", resource=spent))
            return None
    return None if sheet is None else {**sheet, "default_action": text}


def _said(p: SheetProblem) -> str:
    """A refused value in the narrator's language (the dice's own reason too, by its code)."""
    if p.code == "weapon.syntax":
        return _("Weapon line %(n)s (%(text)s): write name: dice, like sword: 1d8.",
                 n=p.params["line"], text=p.params["text"])
    if p.code == "weapon.damage":
        return _("Weapon %(name)s: its damage cannot be rolled (%(reason)s).",
                 name=p.params["weapon"], reason=say_problem(p.params["reason"]))
    if p.code == "hp.over-max":
        return _("HP %(hp)s is more than max HP %(max)s: tick \"HP above max HP is intended\" "
                 "to save it.", hp=p.params["value"], max=p.params["max_hp"])
    if p.code == "hp.negative":
        return _("HP must be 0 or more.")
    if p.code == "max_hp.range":
        return _("Max HP must be 1 to %(most)s.", most=p.params["most"])
    return p.message


def _snapshot(c: Combatant) -> dict[str, Any]:
    return {"key": c.key, "name": c.name, "side": c.side, "player": c.player, "hp": c.hp,
            "max_hp": c.max_hp, "initiative": c.initiative, "sheet": dict(c.sheet or {})}


@bp.route("/", methods=["GET"])
@login_required
def index(encounter_id: int):  # type: ignore[no-untyped-def]
    enc = encounter_or_404(db_session(), encounter_id)
    return render_template("panel/combatants.html", encounter=enc, form=CombatantForm(),
                           import_form=ImportForm(prefix="import"))


@bp.route("/new", methods=["POST"])
@bp.route("/<int:combatant_id>", methods=["GET", "POST"])
@login_required
def edit(encounter_id: int, combatant_id: int | None = None):  # type: ignore[no-untyped-def]
    s = db_session()
    enc: Encounter = encounter_or_404(s, encounter_id)
    c = in_encounter_or_404(s, Combatant, combatant_id, enc) if combatant_id else None
    form = CombatantForm(obj=c if request.method == "GET" else None)
    if request.method == "GET" and c is not None:
        form.stats.data, form.weapons.data = _sheet_text(c)
        form.initiative.data = int(c.initiative) if c.initiative is not None else None
        form.default_action.data = (c.sheet or {}).get("default_action") or ""
    if request.method == "POST" and form.validate_on_submit():
        sheet = _parse_sheet(form, enc.ruleset, c.hp if c is not None else None)
        sheet = _default_action(form, enc, sheet)
        key = form.key.data.strip().lower()
        if not KEY.match(key):
            form.key.errors.append(_("Use lower-case letters, digits, - or _."))
        elif s.scalar(select(Combatant.id).where(Combatant.encounter_id == enc.id, Combatant.key == key,
                                                 Combatant.id != (c.id if c else -1))):
            form.key.errors.append(_("Another combatant has this key."))
        elif sheet is not None:
            before = _snapshot(c) if c else None
            if c is None:
                c = Combatant(encounter_id=enc.id, key=key, name="")
                s.add(c)
            c.key, c.name, c.side = key, form.name.data.strip(), form.side.data.strip()
            c.player = (form.player.data or "").strip() or None
            c.hp, c.max_hp = form.hp.data, form.max_hp.data
            c.initiative = float(form.initiative.data) if form.initiative.data is not None else None
            c.sheet = {k: v for k, v in dict(c.sheet or {}, **sheet).items()
                       if not (k == "default_action" and not v)}
            s.flush()
            audit_write(s, enc.campaign_id, "combatant.save", "combatant", c.id, before, _snapshot(c),
                        encounter_id=enc.id)
            s.commit()
            flash(_("Combatant saved."), "ok")
            return redirect(url_for("combatants.index", encounter_id=enc.id), code=303)
    status = 400 if request.method == "POST" else 200
    if c is None:
        return render_template("panel/combatants.html", encounter=enc, form=form,
                               import_form=ImportForm(prefix="import")), status
    return render_template("panel/combatant.html", encounter=enc, combatant=c, form=form), status


@bp.route("/import", methods=["POST"])
@login_required
def import_file(encounter_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    enc = encounter_or_404(s, encounter_id)
    form = ImportForm(prefix="import")
    if form.validate_on_submit():
        upload = form.file.data
        try:
            rows = parse_import(upload.filename or "upload", upload.read())
            taken = set(s.scalars(select(Combatant.key).where(Combatant.encounter_id == enc.id)))
            clash = [r["key"] for r in rows if r["key"] in taken]
            if clash:
                raise UnreadableInput(_("key %(key)s is already in this encounter", key=clash[0]))
        except UnreadableInput as exc:
            form.file.errors.append(str(exc))
        else:
            for r in rows:
                s.add(Combatant(encounter_id=enc.id, **r))
            audit_write(s, enc.campaign_id, "combatant.import", "encounter", enc.id, None,
                        {"count": len(rows), "keys": [r["key"] for r in rows][:50]}, encounter_id=enc.id)
            s.commit()
            flash(_("%(n)s combatants imported.", n=len(rows)), "ok")
            return redirect(url_for("combatants.index", encounter_id=enc.id), code=303)
    return render_template("panel/combatants.html", encounter=enc, form=CombatantForm(), import_form=form), 400

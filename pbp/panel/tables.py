"""A campaign's own random tables (DICE-6), edited on the campaign page as TOML text.

Why checked here, before the save: a table whose ranges leave a hole or overlap would
fail in the middle of a round (a roll with no entry, or two). :func:`pbp.random_tables.parse_tables`
names every problem at once (the table, the numbers), and the text is kept in the form
so the narrator fixes it in place. Saved, the text lives in ``campaigns.tables`` and
plays on top of the ruleset's own files (``pbp/config/tables/<ruleset>/``).
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, url_for
from flask_babel import gettext as _
from flask_login import login_required

from ..random_tables import TableError, parse_tables
from . import campaigns
from .access import campaign_or_404
from .audit import write as audit_write
from .db import session as db_session
from .forms import TablesForm
from .table_words import say

bp = Blueprint("tables", __name__, url_prefix="/campaigns")

#: the most a file upload may hold (the text field's own limit)
MAX_BYTES = 60000


def _keys(text: str | None) -> list[str]:
    """The keys of a stored text, for the audit (a text broken by hand: none)."""
    try:
        return [t.key for t in parse_tables(text or "")]
    except TableError:
        return []


def _text(form: TablesForm) -> str | None:
    """The TOML the narrator gave: an uploaded file wins over the text field."""
    upload = form.file.data
    if upload is not None and getattr(upload, "filename", ""):
        raw = upload.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            form.file.errors = [*form.file.errors, _("The file is larger than %(n)s bytes.", n=MAX_BYTES)]
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            form.file.errors = [*form.file.errors, _("The file is not UTF-8 text.")]
            return None
    return form.tables.data or ""


@bp.route("/<int:campaign_id>/tables", methods=["POST"])
@login_required
def save(campaign_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    form = TablesForm(prefix="tables")
    text = _text(form) if form.validate_on_submit() else None
    if text is not None:
        try:
            tables = parse_tables(text)
        except TableError as exc:
            form.tables.data = text
            form.tables.errors = [*form.tables.errors, *(say(p) for p in exc.problems)]
        else:
            before = {"keys": _keys(campaign.tables)}
            campaign.tables = text if text.strip() else None
            audit_write(s, campaign.id, "campaign.tables", "campaign", campaign.id, before,
                        {"keys": [t.key for t in tables]})
            s.commit()
            flash(_("Random tables saved: %(n)s.", n=len(tables)), "ok")
            return redirect(url_for("campaigns.show", campaign_id=campaign.id) + "#h-tables")
    s.rollback()
    return campaigns.page(campaign, 400, tables_form=form)

"""The campaign's narrators: adding a co-narrator, and each co-narrator's accounts on the
thread's platforms.

Why accounts: a post declares for the characters no player runs (the NPCs) when its author
is a narrator (:func:`pbp.rounds.declare.narrator_names`). The owner names theirs in the
campaign's settings; a co-narrator had no form, so their NPC posts were read as nobody's.
An account that is a player's is refused: it would take that player's posts for the narrator's."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for
from flask_babel import gettext as _
from flask_login import login_required
from sqlalchemy import select

from ..store.campaigns import CampaignNarrator, Narrator
from . import campaigns
from .access import campaign_or_404, db_id
from .account_names import read_accounts
from .audit import write as audit_write
from .db import session as db_session
from .forms import CoNarratorForm

bp = Blueprint("narrators", __name__, url_prefix="/campaigns")

@bp.route("/<int:campaign_id>/narrators", methods=["POST"])
@login_required
def add(campaign_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    form = CoNarratorForm(prefix="co")
    if form.validate_on_submit():
        other = s.scalars(select(Narrator).where(Narrator.username == form.name.data.strip())).first()
        names, problem = read_accounts(s, campaign.id, form.account.data or "")
        if other is None:
            form.name.errors.append(_("No narrator of that name."))
        elif s.scalar(select(CampaignNarrator.id).where(CampaignNarrator.campaign_id == campaign.id,
                                                         CampaignNarrator.narrator_id == other.id)):
            form.name.errors.append(_("Already a narrator of this campaign."))
        elif problem:
            form.account.errors.append(problem)
        else:
            s.add(CampaignNarrator(campaign_id=campaign.id, narrator_id=other.id, role="co",
                                   platform_names=names))
            audit_write(s, campaign.id, "narrator.add", "narrator", other.id, None,
                        {"username": other.username, "accounts": names})
            s.commit()
            flash(_("Co-narrator added."), "ok")
            return redirect(url_for("campaigns.show", campaign_id=campaign.id) + "#h-narrators")
    return campaigns.page(campaign, 400, narrator_form=form)


@bp.route("/<int:campaign_id>/narrators/<int:link_id>/accounts", methods=["POST"])
@login_required
def accounts(campaign_id: int, link_id: int):  # type: ignore[no-untyped-def]
    s = db_session()
    campaign = campaign_or_404(s, campaign_id)
    ident = db_id(link_id)
    link = s.get(CampaignNarrator, ident) if ident is not None else None
    if link is None or link.campaign_id != campaign.id:
        flash(_("That narrator is not in this campaign any more."), "error")
        return redirect(url_for("campaigns.show", campaign_id=campaign.id) + "#h-narrators")
    text = request.form.get("accounts", "")
    names, problem = read_accounts(s, campaign.id, text[:1000])
    if problem:
        return campaigns.page(campaign, 400, accounts_tried={"id": link.id, "value": text[:1000],
                                                             "error": problem})
    before = list(link.platform_names or [])
    if names != before:
        link.platform_names = names
        audit_write(s, campaign.id, "narrator.accounts", "narrator", link.narrator_id,
                    {"username": link.narrator.username, "accounts": before},
                    {"username": link.narrator.username, "accounts": names})
        s.commit()
    flash(_("Accounts of %(name)s saved.", name=link.narrator.display_name or link.narrator.username), "ok")
    return redirect(url_for("campaigns.show", campaign_id=campaign.id) + "#h-narrators")

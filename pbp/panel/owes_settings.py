"""The campaign form's STALL-9 and STALL-8 fields: the weekly who-owes-a-post list (which
thread, which weekday, which hour in the campaign's zone) and the tracker post.

Why the thread is checked here and not by WTForms' choice validation: the choices are the
campaign's own threads, known only once the campaign is loaded; a thread id of another
campaign (a hostile form) is refused in words, never stored.
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from .forms import CampaignForm

WEEKDAYS = (_l("Monday"), _l("Tuesday"), _l("Wednesday"), _l("Thursday"), _l("Friday"),
            _l("Saturday"), _l("Sunday"))


def fill(form: CampaignForm, campaign: Any, *, stored: bool) -> None:
    """The choices (always) and, on a page as stored, the stored values."""
    threads = list(campaign.threads) if campaign is not None and campaign.id else []
    form.owes_thread.choices = [("", _("No weekly post"))] + [
        (str(t.id), t.title or t.url) for t in threads]
    form.owes_weekday.choices = [(str(i), str(day)) for i, day in enumerate(WEEKDAYS)]
    form.owes_hour.choices = [(str(h), f"{h:02d}:00") for h in range(24)]
    if stored:
        weekly = campaign is not None and campaign.owes_weekday is not None and campaign.owes_thread_id
        form.owes_thread.data = str(campaign.owes_thread_id) if weekly else ""
        form.owes_weekday.data = str(campaign.owes_weekday if weekly else 0)
        form.owes_hour.data = str(campaign.owes_hour if campaign is not None else 9)
        form.tracker_post.data = bool(campaign.tracker_post) if campaign is not None else False


def read(form: CampaignForm, campaign: Any) -> dict[str, Any] | None:
    """The values to store, or None with the problem on its field."""
    out: dict[str, Any] = {"tracker_post": bool(form.tracker_post.data)}
    thread = (form.owes_thread.data or "").strip()
    if not thread:
        out["owes_thread_id"], out["owes_weekday"] = None, None
    else:
        ids = {str(t.id): t.id for t in (campaign.threads if campaign.id else [])}
        weekday, hour = form.owes_weekday.data or "", form.owes_hour.data or ""
        if thread not in ids:
            form.owes_thread.errors.append(_("Weekly post: choose one of this campaign's threads."))
            return None
        if weekday not in {str(i) for i in range(7)} or hour not in {str(h) for h in range(24)}:
            form.owes_weekday.errors.append(_("Weekly post: choose a weekday and an hour."))
            return None
        out.update(owes_thread_id=ids[thread], owes_weekday=int(weekday), owes_hour=int(hour))
    return out

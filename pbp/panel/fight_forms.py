"""Forms of the encounter page's fight controls: start, end, post a correction, and add
an action to a post the parser read otherwise (issue 13 item 3).

Kept apart from :mod:`pbp.panel.forms` (one form per override there) because these drive
the round lifecycle rather than change a value (issue 11 items 2 and 6).
"""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, HiddenField, SelectField, SelectMultipleField, StringField
from wtforms.validators import DataRequired, Length, Optional

from .forms import Form, ReasonForm


class StartForm(Form):
    """Start the encounter: round 1, or a surprise round with the combatants surprised."""

    surprise = BooleanField(_l("Begin with a surprise round"))
    surprised = SelectMultipleField(_l("Surprised (they do not act in the surprise round)"),
                                    choices=[], validate_choice=True)


class EndForm(Form):
    """End the encounter; the checkbox guards against a stray click."""

    confirm = BooleanField(_l("Yes, end the encounter"))


class CorrectionForm(ReasonForm):
    """Post a correction of a round whose result is out; the reason is private unless
    the narrator ticks *public*."""

    public = BooleanField(_l("Public: quote it in the thread"))


class AddActionForm(ReasonForm):
    """Add an action to a declaration of the open round: the narrator's reading of a post
    the parser read as "no action" or read wrong (issue 13 item 3)."""

    declaration_id = HiddenField(validators=[DataRequired()])
    kind = SelectField(_l("Action"), choices=[], validate_choice=False)
    target = StringField(_l("Target"), validators=[Optional(), Length(max=80)])
    weapon = StringField(_l("Weapon"), validators=[Optional(), Length(max=80)])

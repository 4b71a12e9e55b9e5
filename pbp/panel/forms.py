"""WTForms forms of the panel. Every form carries a CSRF token (Flask-WTF).

Validation here is about shapes (a number, a non-empty reason); whether a change is
allowed by the game is the service layer's business.
"""

from __future__ import annotations

from typing import Any

from flask import request
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from werkzeug.datastructures import CombinedMultiDict, MultiDict
from wtforms import (
    BooleanField,
    DateTimeLocalField,
    HiddenField,
    IntegerField,
    PasswordField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional

from .csrf_mask import MaskedCSRF

try:  # WTForms 3.3 deprecates (value, label) tuples
    from wtforms import SelectChoice as _Choice
except ImportError:  # pragma: no cover - older WTForms
    _Choice = None


def choices(pairs: Any) -> list[Any]:
    """(value, label) pairs in the form this WTForms wants."""
    return [_Choice(v, label) if _Choice else (v, label) for v, label in pairs]


class Form(FlaskForm):
    """The panel's form: a file is read only by a file field. (Flask-WTF hands every field
    the uploads too, so a file posted under a text field's name reached the text
    validators as a FileStorage and crashed them: a 500 found by
    tests/panel/test_hostile_forms.py. Now that field sees no value, as if left empty.)"""

    class Meta(FlaskForm.Meta):
        csrf_class = MaskedCSRF     # a fresh mask on every render (BREACH, docs/panel.md)

        def wrap_formdata(self, form: Any, formdata: Any) -> Any:
            data = super().wrap_formdata(form, formdata)
            if not isinstance(data, CombinedMultiDict):
                return data
            files = {f.name for f in form._fields.values() if isinstance(f, FileField)}
            uploads = MultiDict([(k, v) for k, v in request.files.items(multi=True) if k in files])
            return CombinedMultiDict([uploads, request.form])

    def validate(self, extra_validators: Any = None) -> bool:
        """The fields' own checks, and no NUL character in any text (PostgreSQL cannot store
        one: it was a 500, now a sentence under the field)."""
        ok = bool(super().validate(extra_validators))
        for f in self:
            if isinstance(f.data, str) and "\x00" in f.data:
                f.errors = [*f.errors, _l("This text holds a NUL character (code 0), which cannot be saved.")]
                ok = False
        return ok


REASON = [DataRequired(message=_l("A reason is required.")), Length(max=500)]


class LoginForm(Form):
    name = StringField(_l("Name"), validators=[DataRequired(), Length(max=80)],
                       render_kw={"autocomplete": "username", "autofocus": True})
    password = PasswordField(_l("Password"), validators=[DataRequired(), Length(max=1024)],
                             render_kw={"autocomplete": "current-password"})
    remember = BooleanField(_l("Keep me logged in"))
    next = HiddenField()


class PasswordForm(Form):
    current = PasswordField(_l("Current password"), validators=[DataRequired(), Length(max=1024)],
                            render_kw={"autocomplete": "current-password"})
    new = PasswordField(_l("New password"), validators=[
        DataRequired(), Length(min=8, max=1024, message=_l("A password has 8 to 1024 characters."))],
        render_kw={"autocomplete": "new-password"})
    confirm = PasswordField(_l("New password again"), validators=[DataRequired(), Length(max=1024)],
                            render_kw={"autocomplete": "new-password"})


class LanguageForm(Form):
    language = SelectField(_l("Language"), choices=choices([("en", "English"), ("pt", "Português"),
                                                    ("ru", "Русский")]))


class CampaignForm(Form):
    name = StringField(_l("Name"), validators=[DataRequired(), Length(max=120)])
    ruleset = SelectField(_l("Ruleset"), choices=[])
    language = SelectField(_l("Language of replies"), choices=choices([("en", "English"), ("pt", "Português"),
                                                               ("ru", "Русский")]))
    timezone = StringField(_l("Time zone"), validators=[DataRequired(), Length(max=64)])
    houserules = TextAreaField(_l("House rules (TOML)"), validators=[Optional(), Length(max=20000)])
    approval_mode = BooleanField(_l("Hold every reply until I approve it"))
    # read by pbp.panel.round_settings (text, so a wrong value is refused in words)
    round_hours = StringField(_l("Round length (hours)"), render_kw={"inputmode": "decimal"})
    reminder_hours = StringField(_l("Reminders (hours before the deadline, comma-separated)"),
                                 render_kw={"inputmode": "decimal"})
    early_close = BooleanField(_l("Close a round early when every player has declared"))
    # DICE-5: a roll the narrator sets is always marked in the reply; this hides the value only
    private_roll_values = BooleanField(_l("Keep the value of a roll I set out of the replies "
                                          "(the reply still says the narrator set it)"))
    public_verification = BooleanField(_l("Anyone with an encounter's link may check its dice, "
                                          "logged out"))
    # STALL-4/5, read by pbp.panel.clock_settings (text, so a wrong value is refused in words)
    close_grace_minutes = StringField(_l("Minutes left for edits after the last player declared"),
                                      render_kw={"inputmode": "numeric"})
    quiet_hours = StringField(_l("Quiet hours (no deadline falls in them)"),
                              render_kw={"placeholder": "23:00-08:00"})
    skip_weekends = BooleanField(_l("No deadline on Saturdays or Sundays"))
    extension_limit_hours = StringField(_l("Extensions granted without asking me (hours per round)"),
                                        render_kw={"inputmode": "decimal"})
    # STALL-3, read by pbp.panel.ladder_settings (text, so a wrong value is refused in words)
    notify_hours = StringField(_l("Direct notification (hours before the deadline)"),
                               render_kw={"inputmode": "decimal"})
    missed_limit = StringField(_l("Tell me after this many missed rounds in a row"),
                               render_kw={"inputmode": "numeric"})
    auto_narrator_run = BooleanField(_l("Then I run the character (narrator-run) until the player posts"))
    narrator_account = StringField(_l("My account on the thread's platform"))
    # STALL-9 / STALL-8, read by pbp.panel.owes_settings (the threads are the campaign's)
    owes_thread = SelectField(_l("Weekly who-owes-a-post list in"), choices=[], validate_choice=False)
    owes_weekday = SelectField(_l("Weekday"), choices=[], validate_choice=False)
    owes_hour = SelectField(_l("Hour (campaign time)"), choices=[], validate_choice=False)
    tracker_post = BooleanField(_l("Keep one tracker post per encounter, edited in place (Reddit, Misago)"))


class SourceForm(Form):
    """A watched thread by its address; the engine is detected (pbp.panel.sources) and
    asked only when the address fits several or none."""

    url = StringField(_l("Thread address"), render_kw={"inputmode": "url", "autocomplete": "off"})
    preset = SelectField(_l("Forum engine"), choices=[], validate_choice=False)
    title = StringField(_l("Name in the panel (optional)"),
                        validators=[Optional(), Length(max=300, message=_l("At most 300 characters."))])


class CoNarratorForm(Form):
    name = StringField(_l("Narrator name"), validators=[DataRequired(), Length(max=80)])
    # read by pbp.panel.narrators.read_accounts (commas, players' names refused)
    account = StringField(_l("Their accounts on the thread's platforms (optional)"),
                          validators=[Length(max=1000)])


class ReasonForm(Form):
    reason = StringField(_l("Reason"), validators=REASON)


class RollOverrideForm(ReasonForm):
    roll_id = HiddenField(validators=[DataRequired()])
    total = IntegerField(_l("New result"), validators=[InputRequired(), NumberRange(-10000, 10000)])


class HpOverrideForm(ReasonForm):
    combatant_id = HiddenField(validators=[DataRequired()])
    hp = IntegerField(_l("HP"), validators=[InputRequired(), NumberRange(-10000, 100000)])


class ConditionForm(ReasonForm):
    combatant_id = HiddenField(validators=[DataRequired()])
    name = StringField(_l("Condition"), validators=[DataRequired(), Length(max=40)])
    rounds = IntegerField(_l("Rounds (empty: until removed)"), validators=[Optional(), NumberRange(1, 1000)])
    remove = BooleanField(_l("Remove"))


class InitiativeForm(ReasonForm):
    order = StringField(_l("Order (keys, comma-separated)"), validators=[DataRequired(), Length(max=5000)])


class InferredForm(ReasonForm):
    declaration_id = HiddenField(validators=[DataRequired()])
    index = IntegerField(validators=[InputRequired(), NumberRange(0, 100)])
    verdict = SelectField(_l("Verdict"), choices=choices([("confirm", _l("Confirm")), ("correct", _l("Correct")),
                                                  ("reject", _l("Reject"))]))
    kind = SelectField(_l("Action"), choices=[], validate_choice=False)
    target = StringField(_l("Target"), validators=[Optional(), Length(max=80)])


class PenaltyForm(ReasonForm):
    declaration_id = HiddenField(validators=[DataRequired()])
    waive = SelectField(_l("Latency penalty"), choices=choices([("waive", _l("Waive")), ("apply", _l("Apply"))]))


class DeadlineForm(ReasonForm):
    deadline = DateTimeLocalField(_l("New deadline (campaign time)"), validators=[DataRequired()],
                                  format="%Y-%m-%dT%H:%M")


class ReplyForm(ReasonForm):
    action = SelectField(_l("Reply"), choices=choices([("hold", _l("Hold for approval")),
                                               ("post", _l("Approve and post now"))]))


class ResolveForm(ReasonForm):
    pass


class CombatantForm(Form):
    key = StringField(_l("Key"), validators=[DataRequired(), Length(max=40)])
    name = StringField(_l("Name"), validators=[DataRequired(), Length(max=80)])
    side = StringField(_l("Side"), validators=[DataRequired(), Length(max=40)], default="players")
    player = StringField(_l("Player (poster name)"), validators=[Optional(), Length(max=80)])
    hp = IntegerField(_l("HP"), validators=[InputRequired(), NumberRange(-1000, 100000)], default=10)
    max_hp = IntegerField(_l("Max HP"), validators=[InputRequired(), NumberRange(1, 100000)], default=10)
    hp_over_max = BooleanField(_l("HP above max HP is intended"))
    initiative = IntegerField(_l("Initiative"), validators=[Optional()])
    stats = TextAreaField(_l("Stats (name = value, one a line)"), validators=[Optional(), Length(max=5000)])
    weapons = TextAreaField(_l("Weapons (name: damage, one a line)"), validators=[Optional(), Length(max=5000)])
    default_action = StringField(_l("Default action when the player has not posted (optional)"),
                                 validators=[Optional(), Length(max=300)])


class ImportForm(Form):
    file = FileField(_l("CSV or YAML file"), validators=[FileRequired()])


class TablesForm(Form):
    """A campaign's own random tables (DICE-6): TOML typed or pasted, or a file uploaded;
    checked by :func:`pbp.random_tables.parse_tables` before it is saved."""

    tables = TextAreaField(_l("Random tables (TOML)"), validators=[Optional(), Length(max=60000)],
                           render_kw={"rows": 12, "spellcheck": "false"})
    file = FileField(_l("Or upload a .toml file"))

"""The service's other codes as words on the narrator's panel: override, reply and roll
kinds, thread kinds and narrator roles (issue 17 i18n leftover, after
:mod:`pbp.panel.kind_words`).

Why here: the panel showed these as the codes the store keeps ("hp · goblin-1",
"#3 table · alice", a held "resolution", "(bob, co)") to a narrator reading it in
Portuguese or Russian, and the roll ledger worded three roll kinds of five in its own
template. Each kind has one table here, with its own gettext context (a reply's
"correction" is a post, an override's "action corrected" a change), read by the
templates through the filters :func:`init_app` installs and by the audit log
(:mod:`pbp.panel.audit_words`). The codes stay what the store and the forms keep.

A code missing here is shown as itself, never an error;
``tests/panel/test_code_words.py`` keeps every code of the source lists
(:data:`pbp.rounds.overrides.KINDS`, :data:`pbp.store.ledger.REPLY_KINDS`,
:data:`pbp.store.models.ROLL_KINDS`) in the tables.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_babel import lazy_pgettext as _p

from .kind_words import word_for

#: each override kind (pbp.rounds.overrides.KINDS) as the change it records
OVERRIDE_WORDS: dict[str, Any] = {
    "roll": _p("override kind (panel)", "roll result set"),
    "hp": _p("override kind (panel)", "HP changed"),
    "condition.add": _p("override kind (panel)", "condition added"),
    "condition.remove": _p("override kind (panel)", "condition removed"),
    "initiative": _p("override kind (panel)", "initiative changed"),
    "action.add": _p("override kind (panel)", "action added"),
    "action.confirm": _p("override kind (panel)", "action confirmed"),
    "action.correct": _p("override kind (panel)", "action corrected"),
    "action.reject": _p("override kind (panel)", "action rejected"),
    "penalty.waive": _p("override kind (panel)", "late-post penalty waived"),
    "penalty.apply": _p("override kind (panel)", "late-post penalty applied"),
    "deadline": _p("override kind (panel)", "deadline moved"),
    "reply.hold": _p("override kind (panel)", "reply held"),
    "reply.approve": _p("override kind (panel)", "reply approved"),
    "round.reresolve": _p("override kind (panel)", "round re-resolved"),
    "round.correct": _p("override kind (panel)", "correction posted"),
}

#: each reply kind (pbp.store.ledger.REPLY_KINDS) as the post it is
REPLY_WORDS: dict[str, Any] = {
    "opening": _p("reply kind (panel)", "opening"),
    "reminder": _p("reply kind (panel)", "reminder"),
    "resolution": _p("reply kind (panel)", "result"),
    "notice": _p("reply kind (panel)", "notice"),
    "closing": _p("reply kind (panel)", "closing"),
    "correction": _p("reply kind (panel)", "correction"),
    "extension": _p("reply kind (panel)", "deadline extension"),
    "reveal": _p("reply kind (panel)", "secret rolls revealed"),
    "tracker": _p("reply kind (panel)", "tracker"),
    "edit": _p("reply kind (panel)", "tracker update"),
    "owes": _p("reply kind (panel)", "weekly owed-posts list"),
}

#: each roll kind (pbp.store.models.ROLL_KINDS) as who or what rolled it
ROLL_WORDS: dict[str, Any] = {
    "tag": _p("roll kind (panel)", "tag roll"),
    "initiative": _p("roll kind (panel)", "initiative roll"),
    "engine": _p("roll kind (panel)", "engine roll"),
    "table": _p("roll kind (panel)", "table roll"),
    "narrator": _p("roll kind (panel)", "narrator's roll"),
}

#: each thread kind (pbp.store.campaigns.Thread.kind) as the kind of source it is
THREAD_WORDS: dict[str, Any] = {
    "forum": _p("thread kind (panel)", "forum"),
    "reddit": _p("thread kind (panel)", "Reddit"),
    "file": _p("thread kind (panel)", "scenario file"),
}

#: each narrator role of a campaign (pbp.store.campaigns.CampaignNarrator.role)
ROLE_WORDS: dict[str, Any] = {
    "owner": _p("narrator role (panel)", "owner"),
    "co": _p("narrator role (panel)", "co-narrator"),
}


def override_word(code: Any) -> str:
    """An override kind (``condition.add``) as the narrator's words."""
    return word_for(OVERRIDE_WORDS, code)


def reply_word(code: Any) -> str:
    """A reply kind (``resolution``) as the narrator's words."""
    return word_for(REPLY_WORDS, code)


def roll_word(code: Any) -> str:
    """A roll kind (``table``) as the narrator's words."""
    return word_for(ROLL_WORDS, code)


def thread_word(code: Any) -> str:
    """A thread kind (``file``) as the narrator's words."""
    return word_for(THREAD_WORDS, code)


def role_word(code: Any) -> str:
    """A campaign narrator's role (``co``) as the narrator's words."""
    return word_for(ROLE_WORDS, code)


def init_app(app: Flask) -> None:
    """``{{ o.kind|override_word }}``, ``reply_word``, ``roll_word``, ``thread_word`` and
    ``role_word`` in every panel template."""
    for f in (override_word, reply_word, roll_word, thread_word, role_word):
        app.jinja_env.filters[f.__name__] = f

"""Action kinds and budget slots as words on the narrator's panel (issue 17 i18n leftover).

Why here: the encounter page showed the engine's codes (``attack → goblin``, "combat 0 |
move 1") to a narrator reading the panel in Portuguese or Russian. The codes stay what the
forms post and the store keeps; only what the narrator reads goes through the panel's
catalogs. The reply catalogs already say these codes with the context "action kind", but
adjectivally (pt "de ataque", for "ação de ataque"): a standalone label needs a noun, so
the panel has its own entries under :data:`CONTEXT`.

A code missing here (a ruleset adding a slot) is shown as itself, never an error; the
test in ``tests/panel/test_kind_words.py`` keeps every :class:`~pbp.rules.model.ActionKind`
and every slot a ruleset's budget names in the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask
from flask_babel import get_locale
from flask_babel import lazy_pgettext as _p
from markupsafe import Markup, escape

from ..rules.model import ActionKind

#: the gettext context of these labels (extracted with ``-k _p:1c,2``, pbp/panel/babel.cfg)
CONTEXT = "action kind (panel)"

#: each action kind (:class:`~pbp.rules.model.ActionKind`) and budget slot as a noun
WORDS: dict[str, Any] = {
    # action kinds (a declared action's "attack → goblin")
    "attack": _p("action kind (panel)", "attack"),
    "cast": _p("action kind (panel)", "cast"),
    "move": _p("action kind (panel)", "move"),
    "quick": _p("action kind (panel)", "quick action"),
    "free": _p("action kind (panel)", "free action"),
    "full-round": _p("action kind (panel)", "full-round action"),
    "delay": _p("action kind (panel)", "delay"),
    "ready": _p("action kind (panel)", "ready"),
    "defend": _p("action kind (panel)", "defend"),
    "maneuver": _p("action kind (panel)", "maneuver"),
    "bonus": _p("action kind (panel)", "bonus action"),
    "reaction": _p("action kind (panel)", "reaction"),
    "other": _p("action kind (panel)", "other action"),
    # budget slots that are not kinds (the "Actions left" column)
    "action": _p("action kind (panel)", "action"),
    "combat": _p("action kind (panel)", "combat action"),
    "interaction": _p("action kind (panel)", "object interaction"),
    "extra-attack": _p("action kind (panel)", "extra attack"),
    "extra-free": _p("action kind (panel)", "extra free action"),
}

#: the kinds the action forms offer, in the engine's order
KINDS: tuple[str, ...] = tuple(k.value for k in ActionKind)

#: (locale, selected kind) -> the ``<option>`` list; the form is rendered once per
#: inferred action, and the labels change only with the language
_OPTIONS: dict[tuple[str, str | None], Markup] = {}


def word_for(words: Mapping[str, Any], code: Any) -> str:
    """*code* as its word in *words* (:mod:`pbp.panel.code_words` says its kinds with it
    too); unknown codes as themselves, None as nothing."""
    if code is None:
        return ""
    code = str(getattr(code, "value", code))   # an ActionKind's str() is "ActionKind.ATTACK"
    word = words.get(code)
    return str(word) if word is not None else code


def kind_word(code: Any) -> str:
    """*code* (an action kind or budget slot) as the narrator's word; unknown codes as themselves."""
    return word_for(WORDS, code)


def kind_options(selected: Any = None) -> Markup:
    """The action-kind ``<option>`` list of the action forms: the value is the code the
    form posts (:func:`pbp.panel.overrides.judge_action` reads it), the text the word."""
    code = getattr(selected, "value", selected)
    chosen = code if code in KINDS else None
    key = (str(get_locale()), chosen)
    found = _OPTIONS.get(key)
    if found is None:
        found = Markup("".join(
            f'<option value="{escape(k)}"{" selected" if k == chosen else ""}>{escape(kind_word(k))}</option>'
            for k in KINDS))
        _OPTIONS[key] = found
    return found


def init_app(app: Flask) -> None:
    """``{{ a.kind|kind_word }}`` and ``{{ kind_options(a.kind) }}`` in every panel template."""
    app.jinja_env.filters["kind_word"] = kind_word
    app.jinja_env.globals["kind_options"] = kind_options

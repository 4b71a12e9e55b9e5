"""The dice's refusals (:mod:`pbp.dice_errors`) said in the reader's language.

Why here: a refused roll tag reaches the thread as "not understood: ..." and the public
dice check (DICE-4) quotes a refusal inside its own translated sentences; both said the
dice's English ("'Charm' in '1d20+Charm' is not a stat on this sheet") in a Portuguese or
Russian campaign. Each refusal is said by its code from the reply catalogs, its English
template being the message id, so one translation serves the replies and the panel. A
text that is no refusal of the dice (another error's, a sentence a later version words
otherwise) is said as it came.

>>> from pbp.dice_errors import Refusal
>>> refusal_text(Refusal("dice.zero_sided", expression="1d0"), "pt")
"'1d0' pede um dado de 0 faces"
>>> refused_text("'1d0' asks for a 0-sided die", "ru")
"'1d0' требует кость с 0 гранями"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..dice_errors import TEMPLATES, Refusal, read, stored_refusal
from .i18n import say


def refusal_text(refusal: Refusal, lang: str) -> str:
    """*refusal* in *lang*, by its code and values."""
    return say(TEMPLATES[refusal.code], lang, refusal.params)


def refused_text(message: Any, lang: str) -> str:
    """A refusal, a problem stored with a declaration (by its code and values, or its
    English sentence), or that sentence alone, in *lang*; any other text unchanged."""
    if isinstance(message, Mapping):   # a problem as stored: its code and values, if kept
        found = stored_refusal(message)
        return str(message.get("message", "")) if found is None else refusal_text(found, lang)
    found = message if isinstance(message, Refusal) else read(str(message))
    return str(message) if found is None else refusal_text(found, lang)


def message_ids() -> list[str]:
    """The refusals' English templates (for :mod:`pbp.render.catalog`)."""
    return list(TEMPLATES.values())


__all__ = ["message_ids", "refusal_text", "refused_text"]

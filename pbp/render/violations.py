"""What the narrator's Violations list (the encounter page) says, in the campaign's language.

Why here: the list shows the engine's refusals (``action.rejected`` events, each with its
rule id) and the problems stored with a declaration (a roll tag the dice refused, a table
that does not exist, an initiative rolled for someone else's character). The engine says
each in English in the event's message and keeps its code and values in the params; a
Portuguese or Russian campaign read the English. Said here by code with the replies' own
translations (:func:`pbp.render.event_params`, :data:`pbp.render.NOTES`,
:mod:`pbp.render.dice_words`), so the list and the reply say a refusal in the same words;
a code with no translation keeps the English it came with.

>>> event_words("action.rejected", {"problem": "target.missing", "reason": "attack whom?"},
...             "pt", {"aria": "Aria"}, actor="aria")
'esta ação precisa de um alvo'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..rules import messages
from . import NOTES, event_params, event_sentence
from .dice_words import refused_text
from .i18n import say

#: the sentence of a refusal, "{actor}: {reason}": the list names the combatant itself
_ACTOR_AND_REASON = messages.EN["action.rejected"]


def event_words(code: str, params: Mapping[str, Any], lang: str, names: Mapping[str, str], *,
                actor: str | None = None, target: str | None = None, message: str = "") -> str:
    """An event of the list in *lang*: a refusal's reason alone, any other event as the
    reply says it (its English *message* when no template says it)."""
    if messages.template(code, params) == _ACTOR_AND_REASON:
        reason = event_params(code, params, lang, names, actor=actor, target=target).get("reason")
        if reason is not None:
            return str(reason)
    return event_sentence(code, params, lang, names, actor=actor, target=target, message=message)


def problem_words(problem: Any, lang: str) -> str:
    """A problem stored with a declaration, in *lang*: by its code where the reply says it
    by code; the parser's own words (already in the post's language) as they are."""
    if not isinstance(problem, Mapping):
        return str(problem)
    code = problem.get("code")
    if code == "roll.refused":
        return refused_text(problem, lang)
    if code == "table.unknown":
        return say(NOTES["table-unknown"], lang, {"name": problem.get("name", ""),
                                                  "known": problem.get("known") or "-"})
    if code == "initiative.not-yours":
        return say(NOTES["initiative-not-yours"], lang, {"name": problem.get("name", "")})
    return str(problem.get("message") or problem)


__all__ = ["event_words", "problem_words"]

"""What a ready (FD-14) or a full-round action (BEY-8) would carry out.

Why checked at planning: ``options.action`` is only carried out later (when the trigger
comes, or at the start of the next turn); an unreadable one must be refused with the
post, naming what is wrong, not fail the round when it comes due.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import UnreadableInput
from .context import Problem
from .model import Action, ActionKind


def effect_problems(action: Action, index: int, rule: str | None) -> list[Problem]:
    """The problem of *action*'s ``options.action``, if it is not an action."""
    inner = action.options.action
    if action.kind not in (ActionKind.READY, ActionKind.FULL_ROUND) \
            or not isinstance(inner, Mapping):
        return []
    try:
        Action.from_dict(inner)
    except UnreadableInput as exc:
        return [Problem("effect.unreadable", rule, exc.message, index)]
    return []

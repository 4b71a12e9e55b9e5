"""What a reply (and the panel) says about a narrator's override: one sentence per kind.

The one description table: the resolution reply marks each override with these lines,
the panel lists the overrides a stored reply does not hold yet with the same lines, in
the campaign's language (the sentences are message ids of the reply catalogs,
:mod:`pbp.render.catalog`). Kinds that only change *when* a reply goes out (hold,
approve) say nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..rules import messages
from .i18n import say

#: override kind (``action.*`` said as ``action``) -> its sentence
OVERRIDE_TEXTS: Mapping[str, str] = {
    "roll": "roll #{index} ({who}) set to {after} (rolled {rolled})",
    # DICE-5: the campaign keeps the value private, never the fact
    "roll.private": "roll #{index} ({who}): the narrator set this roll (the value is private)",
    "hp": "{who}: HP {before} -> {after}",
    "penalty.waive": "{who}: latency penalty waived",
    "penalty.apply": "{who}: latency penalty applied",
    "condition.add": "{who}: {condition} added",
    "condition.remove": "{who}: {condition} removed",
    "initiative": "initiative order changed",
    "deadline": "deadline moved",
    "round.reresolve": "round resolved again",
    "action": "{who}: declared action changed by the narrator",
    # issue 13 item 3: the player reads how the narrator read the post
    "action.add": "{who}: the narrator read the post as {action}",
    "action.correct": "{who}: the narrator read the post as {action}",
    "action.reject": "{who}: the narrator did not read {action} in the post",
}


def action_words(a: Mapping[str, Any] | None, lang: str, names: Mapping[str, str]) -> str:
    """A stored action said short: its kind in *lang*, its target's name, its weapon.

    >>> action_words({"kind": "attack", "target": "gob", "weapon": "sword"}, "en", {"gob": "Goblin"})
    'attack → Goblin (sword)'
    """
    if not a:
        return "?"
    kind = str(a.get("kind") or "?")
    text = say(kind, lang, context=messages.KIND_CONTEXT) if kind in messages.ACTION_KINDS else kind
    if a.get("target"):
        text += f" → {names.get(str(a['target']), str(a['target']))}"
    if a.get("weapon"):
        text += f" ({a['weapon']})"
    return text


#: DICE-5: what a reply says next to a roll the narrator set, with the value or without
ROLL_SET = "the narrator set this roll"
ROLL_SET_PRIVATE = "the narrator set this roll; the value is private"
#: the rounds layer's notation of a roll the narrator set: ``… = 19 -> 2 (narrator)``,
#: ``… = 19 -> ? (narrator)`` when the campaign keeps the value private
_SET = re.compile(r" -> (?P<set>-?\d+|\?) \(narrator\)")


def set_roll_text(total: int | None, *, private: bool) -> str:
    """The notation a reply view carries after a roll the narrator set (said by
    :func:`narrator_marks`): the value, or ``?`` when the campaign keeps it private.

    >>> set_roll_text(2, private=False), set_roll_text(2, private=True)
    (' -> 2 (narrator)', ' -> ? (narrator)')
    """
    return f" -> {'?' if private or total is None else int(total)} (narrator)"


def narrator_marks(text: str, lang: str) -> str:
    """*text* (a roll as a reply shows it) with the narrator's mark said in *lang*, next
    to the roll: ``1d20 (14) + 5 = 19 -> 2 (the narrator set this roll)``; a private
    value: ``1d20 (14) + 5 = 19 (the narrator set this roll; the value is private)``.

    >>> narrator_marks("1d20 (14) + 5 = 19 -> 2 (narrator)", "en")
    '1d20 (14) + 5 = 19 -> 2 (the narrator set this roll)'
    """
    def said(hit: re.Match[str]) -> str:
        if hit["set"] == "?":
            return f" ({say(ROLL_SET_PRIVATE, lang)})"
        return f" -> {hit['set']} ({say(ROLL_SET, lang)})"

    return _SET.sub(said, text)


def override_text(kind: str, payload: Mapping[str, Any] | None, target: str | None,
                  reason: str, lang: str, names: Mapping[str, str], *,
                  private: bool = False) -> str:
    """The line marking one override in *lang* ("" for a kind that is not said);
    *names*: combatant key -> name. *private*: the campaign keeps a roll's set value out
    of the replies (DICE-5): the line says the narrator set it, without the value."""
    p = payload or {}
    key = kind if kind in OVERRIDE_TEXTS else "action" if kind.startswith("action.") else kind
    if key == "roll" and private:
        key = "roll.private"
    if key not in OVERRIDE_TEXTS:
        return ""
    params = {"who": names.get(target or "", p.get("name") or target or ""),
              "index": p.get("roll_index"), "after": p.get("after"), "before": p.get("before"),
              "rolled": p.get("rolled"), "condition": p.get("condition")}
    if key in ("action.add", "action.correct", "action.reject"):
        shown = p.get("before") if key == "action.reject" else p.get("after")
        params["action"] = action_words(shown if isinstance(shown, Mapping) else None, lang, names)
    if key in ("roll", "roll.private"):
        params["who"] = names.get(p.get("actor") or "", p.get("actor") or "?")
    text = say(OVERRIDE_TEXTS[key], lang, params)
    return f"{text}: {reason}" if reason else text

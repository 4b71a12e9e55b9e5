"""Why the dice refuse an expression, by code: the English sentence of each refusal and
its values (:class:`Refusal`), the message of every :class:`~pbp.errors.DiceError` the dice
raise.

Why a table of codes: a refusal reaches players in two places, a reply ("not understood:
'Charm' in '1d20+Charm' is not a stat on this sheet") and the public dice check
(DICE-4: "roll #2 '1d20+Charm' cannot be rolled again: ..."), each an otherwise
translated sentence. The dice say the refusal in English (the terminal, the logs) and keep
its code and values; :mod:`pbp.render.dice_words` says it in the reader's language, the
English template being the reply catalogs' message id. Pure and at the top level, like
:mod:`pbp.problem`: :mod:`pbp.dice` imports it.

A declaration stores a refused roll tag with its English sentence and, from now on, the
refusal's code and values (:func:`refusal_keys`, ``{"refusal": code, "params": {...}}``);
:func:`read` finds the code and values back in the English of rows stored before.

>>> r = Refusal("dice.unknown_stat", word="Charm", expression="1d20+Charm")
>>> str(r), r.code
("'Charm' in '1d20+Charm' is not a stat on this sheet", 'dice.unknown_stat')
>>> read(str(r)).params == {"word": "Charm", "expression": "1d20+Charm"}
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from .errors import DiceError
from .problem import Problem

#: every refusal of the dice, by code: the English sentence (a message id of the catalogs)
TEMPLATES: Mapping[str, str] = {
    "dice.empty": "the dice expression is empty",
    "dice.too_long": "the dice expression is {length} characters long; at most {most} are "
                     "allowed",
    "dice.too_deep": "the dice expression nests {depth} parentheses deep; at most {most}",
    "dice.too_many_terms": "the dice expression has {terms} terms; at most {most}",
    "dice.zero_sided": "'{expression}' asks for a 0-sided die",
    "dice.too_many": "'{expression}' rolls more than {most} dice; nobody has that many",
    "dice.unknown_stat": "'{word}' in '{expression}' is not a stat on this sheet",
    # d20's own words (``detail``) stay as d20 wrote them: they name a column and a token
    "dice.syntax": "'{expression}' is not a dice expression I can read ({detail})",
    "dice.unrollable": "'{expression}' cannot be rolled: {detail}",
    "dice.recursion": "'{expression}' is too deeply nested to roll",
    "dice.chain_link": "the dice chain has {length} links; link {position} does not exist",
}


class Refusal(Problem):
    """A refusal of the dice: its English sentence (``str()``), template and values, and
    its ``code``."""

    code: str

    def __new__(cls, code: str, **params: Any) -> Refusal:
        self = super().__new__(cls, TEMPLATES[code], **params)
        self.code = code
        return self


def refuse(code: str, **params: Any) -> DiceError:
    """The :class:`DiceError` to raise for refusal *code*; its ``message`` is the
    :class:`Refusal`, so whoever catches it can say it in another language."""
    return DiceError(Refusal(code, **params))


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each template as a pattern of its sentence, a value being any text."""
    out = []
    for code, template in TEMPLATES.items():
        parts = re.split(r"{(\w+)}", template)
        pattern = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.*?)"
                          for i, p in enumerate(parts))
        out.append((code, re.compile(pattern, re.DOTALL)))
    return tuple(out)


def refusal_keys(error: DiceError) -> dict[str, Any]:
    """The keys a stored problem gets for *error*: its refusal's code and values (JSON
    types), or none for a message without a code."""
    message = error.message
    if not isinstance(message, Refusal):
        return {}
    return {"refusal": message.code,
            "params": {k: v if isinstance(v, (int, float)) else str(v)
                       for k, v in message.params.items()}}


def stored_refusal(problem: Mapping[str, Any]) -> Refusal | None:
    """The refusal of a problem as stored with a declaration: by its code and values when
    it has them, else read back from its English sentence (rows stored before)."""
    code, params = problem.get("refusal"), problem.get("params")
    if code in TEMPLATES and isinstance(params, Mapping):
        try:
            return Refusal(code, **params)
        except (TypeError, KeyError, ValueError):
            pass
    return read(str(problem.get("message", "")))


def read(message: str) -> Refusal | None:
    """The refusal whose English sentence *message* is (a stored ``str(DiceError)``), or
    None for any other text (another error's, a refusal a later version words otherwise)."""
    for code, pattern in _patterns():
        m = pattern.fullmatch(message)
        if m is not None:
            return Refusal(code, **m.groupdict())
    return None


__all__ = ["TEMPLATES", "Refusal", "read", "refusal_keys", "refuse", "stored_refusal"]

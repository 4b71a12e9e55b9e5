"""STALL-7 popcorn initiative: the acting character names who acts next.

``next: Bruna`` / ``.next Bruna`` (English), ``próximo: Bruna`` / ``.proximo Bruna``
(Portuguese), ``следующий: Бруна`` / ``.следующий Бруна`` (Russian). The words are data,
in the ``[popcorn]`` table of each lexicon (``pbp/parse/lexicon/<lang>.toml``): a word
needs a colon after it (so "the next goblin" in prose is no hand-off), a command does not.

The hand-off becomes a free action with ``options.command = "next"``; the name is kept as
written (``target_text``) and resolved against the roster when it can be. Whether the
name may act is the rules' call (:mod:`pbp.rules.turn_order`), not the parser's.

>>> from pbp.parse.lexicon import get
>>> [(h.name, h.start) for h in hand_offs("I swing.\\nnext: Bruna", get("en"))]
[('Bruna', 9)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import Lexicon

_NAME = r"(?P<name>[^\W\d_][^\n.,;!?()\[\]]{0,40}?)\s*(?=$|[\n.,;!?()\[\]])"


@dataclass(frozen=True)
class HandOff:
    """One ``next: NAME`` in a post: the name as written and where it stands."""

    name: str
    start: int
    end: int


@lru_cache(maxsize=8)
def _pattern(words: tuple[str, ...], commands: tuple[str, ...]) -> re.Pattern[str]:
    said = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    typed = "|".join(re.escape(c) for c in sorted(commands, key=len, reverse=True))
    heads = []
    if said:
        heads.append(rf"(?<!\w)(?:{said})\s*:\s*")
    if typed:
        heads.append(rf"(?m:^)[ \t]*(?:{typed})[ \t]+")
    return re.compile(rf"(?i)(?:{'|'.join(heads)}){_NAME}" if heads else r"(?!)")


def hand_offs(text: str, lex: Lexicon) -> list[HandOff]:
    """Every hand-off in *text*, in order (the rules use the last one)."""
    table = lex.data.get("popcorn", {})
    pattern = _pattern(tuple(table.get("words", ())), tuple(table.get("commands", ())))
    return [HandOff(m.group("name").strip(), m.start(), m.end())
            for m in pattern.finditer(text)]

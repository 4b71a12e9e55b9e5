"""The words of absences and standing orders (``lexicon/standing.toml``), loaded once.

Its own module because :mod:`.commands` needs the command words to blank a standing line
(so ``.default defend`` declares nothing this round) and :mod:`.standing` needs the post
parser to read an order's action: neither may import the other's importer.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

from .lexicon import LANGUAGES, fold


@cache
def words(lang: str) -> dict[str, Any]:
    """The language's table of ``standing.toml`` (English for an unknown language)."""
    raw = resources.files("pbp.parse.lexicon").joinpath("standing.toml").read_text("utf-8")
    data = tomllib.loads(raw)
    return dict(data.get(lang) or data["en"])


@cache
def command_words() -> dict[str, str]:
    """Folded command word (``away``, ``padrao``, ``если``...) -> command name
    (``standing.away``, ``standing.back``, ``standing.default``, ``standing.if``).

    >>> command_words()["padrao"], command_words()["если"]
    ('standing.default', 'standing.if')
    """
    out: dict[str, str] = {}
    for lang in LANGUAGES:
        w = words(lang)
        for group in ("away", "back", "default", "if"):
            for word in w[group]:
                out[fold(word)] = f"standing.{group}"
    return out

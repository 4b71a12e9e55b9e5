"""Gettext catalogs for replies (pt, ru, en), compiled from the committed ``.po`` at runtime.

Why runtime compilation: a fresh clone has only the ``.po`` files (the source of truth,
reviewed in diffs); Babel turns them into a :class:`gettext.GNUTranslations` in memory
on first use, so there is no build step to forget and no stale ``.mo`` to ship.

Event sentences use the engine's English templates (:mod:`pbp.rules.messages`) as
message ids with ``{name}`` placeholders, so a new engine event is said in English
until someone translates it, never dropped.

>>> tr = translations("pt")
>>> tr.gettext("Round {number}").format(number=2)
'Rodada 2'
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "replies"
LANGUAGES = ("en", "pt", "ru")


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of *lang* (English: the message ids themselves)."""
    po = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not po.exists():
        return gettext.NullTranslations()
    with po.open("rb") as fh:
        catalog = read_po(fh, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


class _Safe(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def say(template: str, lang: str, params: Mapping[str, Any] | None = None, *,
        context: str | None = None) -> str:
    """*template* (an English message id with ``{placeholders}``) in *lang*, filled in;
    *context*: the gettext context (``msgctxt``) of words said two ways."""
    tr = translations(lang)
    text = tr.pgettext(context, template) if context else tr.gettext(template)
    try:
        return text.format_map(_Safe(params or {}))
    except (ValueError, IndexError, AttributeError):
        return template.format_map(_Safe(params or {}))


def ngettext(singular: str, plural: str, n: int, lang: str, **params: Any) -> str:
    text = translations(lang).ngettext(singular, plural, n)
    return text.format_map(_Safe({"n": n, **params}))


class Plural(NamedTuple):
    """A sentence said by a count (``{count}``): its English singular and plural message
    ids; each language's catalog holds as many forms as its grammar has (Russian three).
    Why: one form for every count printed "missed 1 rounds", and Russian made do with
    "раунда(ов)"."""

    singular: str
    plural: str

    def say(self, lang: str, params: Mapping[str, Any]) -> str:
        """The form for ``params["count"]`` in *lang*, filled in."""
        return ngettext(self.singular, self.plural, int(params.get("count") or 0), lang, **params)

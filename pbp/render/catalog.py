"""Keep the reply catalogs complete: ``python -m pbp.render.catalog [--check]``.

Collects every message id the replies and ``pbp bench --lang`` can use (the templates'
``_()`` calls, the notes and override texts, the dice's refusals, and from :mod:`pbp.rules.messages` the
engine's English event sentences, refusal reasons, condition and other words, and the
action kinds, these with the context ``action kind``), then writes
``locale/<lang>/LC_MESSAGES/replies.po`` keeping the translations already there.
``--check`` only reports what is missing (the tests run it).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from jinja2.ext import babel_extract

from ..rules import messages
from . import CHANGES, LATENCY, NOTES, SPEECH, TABLE_DRAW, TEMPLATES, arithmetic, dice_words, hidden
from .i18n import DOMAIN, LANGUAGES, LOCALE_DIR, Plural
from .ladder import LADDER_TEXTS
from .overrides import OVERRIDE_TEXTS, ROLL_SET, ROLL_SET_PRIVATE
from .owes import WORDS as OWES_WORDS
from .standing import RESOURCES, ROLLED_BY_PBP, STANDING_NOTES
from .status import WORDS as STATUS_WORDS

#: a message id, (context, message id) for words said with a gettext context, or a
#: :class:`Plural` (its singular and plural ids) for a sentence said by a count
MessageId = str | tuple[str, str] | Plural


def message_ids() -> list[MessageId]:
    ids: list[MessageId] = []
    for path in sorted(TEMPLATES.rglob("*.j2")):
        with path.open("rb") as fh:
            for _line, _func, msg, _comments in babel_extract(fh, ("_",), [], {}):
                if isinstance(msg, tuple):   # keyword arguments come back as None
                    msg = msg[0]
                if isinstance(msg, str):
                    ids.append(msg)
    ids += list(NOTES.values()) + list(SPEECH.values()) + list(LATENCY.values())
    ids += list(CHANGES.values()) + [TABLE_DRAW] + list(hidden.TEXTS.values()) + list(STATUS_WORDS.values())
    ids += list(STANDING_NOTES.values()) + list(RESOURCES.values()) + list(LADDER_TEXTS.values())
    ids += list(OWES_WORDS.values()) + [ROLLED_BY_PBP]
    ids += list(OVERRIDE_TEXTS.values()) + [ROLL_SET, ROLL_SET_PRIVATE] + list(messages.EN.values())
    ids += list(messages.VARIANTS.values()) + arithmetic.message_ids() + dice_words.message_ids()
    ids += [r for reasons in messages.REASONS.values() for r in reasons]
    ids += list(messages.WORDS) + list(messages.NAMED_CONDITIONS.values())
    ids += [(messages.KIND_CONTEXT, k) for k in messages.ACTION_KINDS]
    seen: set[MessageId] = set()
    return [i for i in ids if not (i in seen or seen.add(i))]  # type: ignore[func-returns-value]


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def load(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, domain=DOMAIN, project="pbp")
    with path.open("rb") as fh:
        return read_po(fh, locale=lang, domain=DOMAIN)


def split(mid: MessageId) -> tuple[str | None, Any]:
    """(context or None, message id: the (singular, plural) pair of a :class:`Plural`)."""
    if isinstance(mid, Plural):
        return None, (mid.singular, mid.plural)
    return (mid[0], mid[1]) if isinstance(mid, tuple) else (None, mid)


def missing(lang: str) -> list[MessageId]:
    """Message ids with no translation in *lang* (English needs none)."""
    cat = load(lang)
    out = []
    for mid in message_ids():
        context, msgid = split(mid)
        msg = cat.get(msgid, context=context)
        forms = msg.string if msg is not None and isinstance(msg.string, tuple) else (
            msg.string if msg is not None else "",)
        if msg is None or (lang != "en" and not all(forms)) \
                or isinstance(mid, Plural) != isinstance(msg.id, tuple):
            out.append(mid)
    return out


def update() -> None:
    ids = message_ids()
    for lang in LANGUAGES:
        old = load(lang)
        cat = Catalog(locale=lang, domain=DOMAIN, project="pbp", fuzzy=False)
        for mid in ids:
            context, msgid = split(mid)
            prev = old.get(msgid, context=context)
            string: Any = prev.string if prev is not None else ""
            if isinstance(mid, Plural) and not isinstance(string, tuple):
                string = ("",) * cat.num_plurals
            elif not isinstance(mid, Plural) and isinstance(string, tuple):
                string = ""
            cat.add(msgid, string, context=context,
                    flags=("python-brace-format",) if "{" in str(msgid) else ())
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            write_po(fh, cat, width=100, omit_header=False, sort_output=False)


def main(argv: list[str]) -> int:
    if "--check" in argv:
        bad = {lang: missing(lang) for lang in LANGUAGES}
        for lang, ids in bad.items():
            for mid in ids:
                print(f"{lang}: untranslated: {mid}")
        return 1 if any(bad.values()) else 0
    update()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Keep the reply catalogs complete: ``python -m pbp.render.catalog [--check]``.

Collects every message id the replies can use (the templates' ``_()`` calls, the notes,
problems and override texts, and the engine's English event sentences), then writes
``locale/<lang>/LC_MESSAGES/replies.po`` keeping the translations already there.
``--check`` only reports what is missing (the tests run it).
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from . import LATENCY, NOTES, PROBLEMS, SPEECH, TEMPLATES, WORDS
from .i18n import DOMAIN, LANGUAGES, LOCALE_DIR


def message_ids() -> list[str]:
    from jinja2.ext import babel_extract

    from ..rounds.replies import OVERRIDE_TEXTS
    from ..rules import messages

    ids: list[str] = []
    for path in sorted(TEMPLATES.rglob("*.j2")):
        with path.open("rb") as fh:
            for _line, _func, msg, _comments in babel_extract(fh, ("_",), [], {}):
                if isinstance(msg, tuple):   # keyword arguments come back as None
                    msg = msg[0]
                if isinstance(msg, str):
                    ids.append(msg)
    ids += list(NOTES.values()) + list(PROBLEMS.values()) + list(SPEECH.values())
    ids += list(LATENCY.values()) + list(WORDS)
    ids += list(OVERRIDE_TEXTS.values()) + list(messages.EN.values())
    seen: set[str] = set()
    return [i for i in ids if not (i in seen or seen.add(i))]  # type: ignore[func-returns-value]


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def load(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, domain=DOMAIN, project="pbp")
    with path.open("rb") as fh:
        return read_po(fh, locale=lang, domain=DOMAIN)


def missing(lang: str) -> list[str]:
    """Message ids with no translation in *lang* (English needs none)."""
    cat = load(lang)
    out = []
    for msgid in message_ids():
        msg = cat.get(msgid)
        if msg is None or (lang != "en" and not msg.string):
            out.append(msgid)
    return out


def update() -> None:
    ids = message_ids()
    for lang in LANGUAGES:
        old = load(lang)
        cat = Catalog(locale=lang, domain=DOMAIN, project="pbp", fuzzy=False)
        for msgid in ids:
            prev = old.get(msgid)
            cat.add(msgid, prev.string if prev is not None else "",
                    flags=("python-brace-format",) if "{" in msgid else ())
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            write_po(fh, cat, width=100, omit_header=False, sort_output=False)


def main(argv: list[str]) -> int:
    if "--check" in argv:
        bad = {lang: missing(lang) for lang in LANGUAGES}
        for lang, ids in bad.items():
            for msgid in ids:
                print(f"{lang}: untranslated: {msgid}")
        return 1 if any(bad.values()) else 0
    update()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The panel's catalogs: every message extracted from the code is translated in pt and ru, and
the committed .mo files are the compiled .po files (a fresh clone works without a build step)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from pbp.panel.i18n import TRANSLATIONS

ROOT = Path(__file__).resolve().parents[2]


def _extracted() -> set[tuple[str | None, str]]:
    """(context, msgid) of every message the panel's code and templates say; ``_p`` is
    ``lazy_pgettext`` (the action kinds' words, :mod:`pbp.panel.kind_words`)."""
    ids: set[tuple[str | None, str]] = set()
    methods = [("pbp/panel/**.py", "python"), ("pbp/templates/panel/**.html", "jinja2")]
    keywords = {"_": None, "gettext": None, "_l": None, "lazy_gettext": None, "ngettext": (1, 2),
                "_p": ((1, "c"), 2), "pgettext": ((1, "c"), 2)}
    for _file, _line, message, _comments, ctx in extract_from_dir(str(ROOT), methods, keywords=keywords):
        ids.add((ctx, message if isinstance(message, str) else message[0]))
    return {i for i in ids if i[1]}


def _key(m: Any) -> tuple[str | None, str]:
    """(context, msgid) of a catalog entry; a plural's by its singular, as extracted."""
    return m.context, m.id if isinstance(m.id, str) else m.id[0]


def test_template_catalog_is_current() -> None:
    with (TRANSLATIONS / "messages.pot").open("rb") as f:
        pot = {_key(m) for m in read_po(f) if m.id}
    assert _extracted() <= pot, "run the pybabel extract in pbp/panel/babel.cfg, then update the .po files"


@pytest.mark.parametrize("lang", ["pt", "ru"])
def test_every_message_is_translated(lang: str) -> None:
    with (TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        po = read_po(f)
    # a plural needs every form of the language (Russian three)
    untranslated = [m.id for m in po if m.id and not (
        all(m.string) if isinstance(m.string, tuple) else m.string)]
    assert not untranslated
    assert _extracted() <= {_key(m) for m in po if m.id}


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_mo_matches_po(lang: str) -> None:
    folder = TRANSLATIONS / lang / "LC_MESSAGES"
    def said(m: Any) -> bool:   # a plural's forms (a tuple, a list from the .mo): all said
        return bool(all(m.string) if isinstance(m.string, (tuple, list)) else m.string)

    def forms(m: Any) -> Any:
        return tuple(m.string) if isinstance(m.string, (tuple, list)) else m.string

    with (folder / "messages.po").open("rb") as f:
        po = {_key(m): forms(m) for m in read_po(f) if m.id and said(m)}
    with (folder / "messages.mo").open("rb") as f:
        # Babel writes an untranslated plural into the .mo with its ids as its forms
        mo = {_key(m): forms(m) for m in read_mo(f) if m.id and said(m)
              and not (isinstance(m.id, (tuple, list)) and forms(m) == tuple(m.id))}
    assert po == mo, "compile: pybabel compile -d pbp/panel/translations"

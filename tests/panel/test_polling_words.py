"""SCALE-2 (issue 17 i18n leftover): why threads are read alone, on the campaign page's
polling table, in the narrator's language. The jobs give a reason code
(:class:`pbp.jobs.listings.ListingChoice`); the panel's catalogs say it."""

from __future__ import annotations

import html
from typing import Any

from sqlalchemy import select

from pbp.store.campaigns import Narrator, Thread
from pbp.store.db import make_engine, session_scope

#: an SMF 2.1 thread never read (its board is learned at its first read) and a machina
#: thread whose options turn its topic list off: the two reasons, per language
EXPECTED = {
    "en": ("preset 'smf21': its forum is learned at the thread's first read",
           "topic list turned off in the thread's options"),
    "pt": ("predefinição 'smf21': o fórum é descoberto na primeira leitura do tópico",
           "lista de tópicos desligada nas opções do tópico"),
    "ru": ("пресет 'smf21': форум узнаётся при первом чтении темы",
           "список тем отключён в настройках темы"),
}


def test_scale2_read_alone_reasons_in_the_narrators_language(alice: Any, ids: dict[str, Any],
                                                               db_url: str) -> None:
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        s.add(Thread(campaign_id=ids["campaign"], kind="forum", platform="bbcode",
                     url="http://127.0.0.1:8000/index.php?topic=2.0", options={"preset": "smf21"}))
        s.add(Thread(campaign_id=ids["campaign"], kind="forum", platform="bbcode",
                     url="http://127.0.0.1:8000/forum/adventures-2/topic/fight-9/",
                     options={"preset": "machina", "listing_url": ""}))
    for lang, reasons in EXPECTED.items():
        with session_scope(engine) as s:
            s.scalars(select(Narrator).where(Narrator.username == "alice")).one().language = lang
        page = html.unescape(alice.get(f"/campaigns/{ids['campaign']}").text)
        assert f'lang="{lang}"' in page
        for reason in reasons:
            assert reason in page, (lang, reason)
        if lang != "en":
            assert "topic list turned off" not in page and "is learned at" not in page
    engine.dispose()

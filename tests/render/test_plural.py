"""STALL-3's narrator notice counts the missed rounds in each language's own plural forms
(one form for every count printed "missed 1 rounds", and Russian made do with
"раунда(ов)"). Expected sentences are written here from each language's grammar: Russian
1/21 -> раунд, 2-4/22 -> раунда, 5-20/11 -> раундов; Portuguese 1 -> rodada seguida,
else rodadas seguidas."""

from __future__ import annotations

import pytest

from pbp.render.catalog import missing
from pbp.render.ladder import ladder_text


@pytest.mark.parametrize(("lang", "count", "said"), [
    ("en", 1, "Ana missed 1 round in a row"),
    ("en", 3, "Ana missed 3 rounds in a row"),
    ("pt", 1, "Ana perdeu 1 rodada seguida"),
    ("pt", 2, "Ana perdeu 2 rodadas seguidas"),
    ("ru", 1, "Ana пропустил(а) 1 раунд подряд"),
    ("ru", 3, "Ana пропустил(а) 3 раунда подряд"),
    ("ru", 5, "Ana пропустил(а) 5 раундов подряд"),
    ("ru", 11, "Ana пропустил(а) 11 раундов подряд"),
    ("ru", 21, "Ana пропустил(а) 21 раунд подряд"),
    ("ru", 22, "Ana пропустил(а) 22 раунда подряд"),
])
def test_stall_3_the_narrator_notice_counts_missed_rounds_in_the_languages_plural(
        lang: str, count: int, said: str) -> None:
    assert ladder_text("narrator-subject", lang, {"player": "Ana", "count": count}) == said


def test_stall_3_the_notice_body_is_plural_too_and_every_catalog_has_every_form() -> None:
    """The body agrees with the count as the subject does, and the catalogs hold every
    plural form of every language (the check the tests run on the reply catalogs)."""
    body = ladder_text("narrator-body", "ru", {"player": "Ana", "names": "Brienne", "count": 2,
                                               "encounter": "Засада", "number": 7, "link": "L"})
    assert body == ("Ana (Brienne) пропустил(а) 2 раунда подряд в Засада "
                    "(до раунда 7 включительно). Тема: L")
    assert ladder_text("narrator-body", "en", {"player": "Ana", "names": "Brienne", "count": 1,
                                               "encounter": "Ambush", "number": 7, "link": "L"}) \
        == "Ana (Brienne) has missed 1 round in a row in Ambush (up to round 7). Thread: L"
    assert missing("pt") == [] and missing("ru") == []

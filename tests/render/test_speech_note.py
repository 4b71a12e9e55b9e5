"""PBP-3's note on a post over the speech limit counts the speeches in each language's own
plural forms. One form for every count printed "1 speeches" / "1 falas", and Russian made do
with "реплик: 4". Expected sentences are written here from each language's grammar: Russian
1/21 -> реплика, 2-4/22 -> реплики, 5-20/11 -> реплик (the existing word, реплика, kept);
Portuguese 1 -> fala, else falas; English 1 -> speech, else speeches."""

from __future__ import annotations

import pytest

from pbp.render import note_text
from pbp.render.catalog import missing


def _note(lang: str, count: int, limit: int, policy: str = "drop") -> str:
    return note_text({"code": "speech-over-limit", "count": count, "limit": limit,
                      "over": max(count - limit, 0), "policy": policy}, lang, "UTC")


@pytest.mark.parametrize(("lang", "count", "said"), [
    ("en", 1, "1 speech, over the limit of 0: the extra speech is not part of the round (PBP-3)"),
    ("en", 4, "4 speeches, over the limit of 3: the extra speech is not part of the round (PBP-3)"),
    ("pt", 1, "1 fala, acima do limite de 0: a fala extra não faz parte da rodada (PBP-3)"),
    ("pt", 4, "4 falas, acima do limite de 3: as falas extras não fazem parte da rodada (PBP-3)"),
    ("ru", 4, "4 реплики, больше лимита 3: лишние реплики не входят в раунд (PBP-3)"),
    ("ru", 5, "5 реплик, больше лимита 3: лишние реплики не входят в раунд (PBP-3)"),
    ("ru", 11, "11 реплик, больше лимита 3: лишние реплики не входят в раунд (PBP-3)"),
    ("ru", 21, "21 реплика, больше лимита 3: лишние реплики не входят в раунд (PBP-3)"),
    ("ru", 22, "22 реплики, больше лимита 3: лишние реплики не входят в раунд (PBP-3)"),
])
def test_pbp_3_the_dropped_speech_note_counts_in_the_languages_plural(
        lang: str, count: int, said: str) -> None:
    limit = 0 if count == 1 else 3
    assert _note(lang, count, limit) == said


@pytest.mark.parametrize(("lang", "count", "said"), [
    ("en", 1, "1 speech, over the limit of 0 (kept: narrator's call) (PBP-3)"),
    ("en", 5, "5 speeches, over the limit of 3 (kept: narrator's call) (PBP-3)"),
    ("pt", 1, "1 fala, acima do limite de 0 (mantida: decisão do narrador) (PBP-3)"),
    ("pt", 5, "5 falas, acima do limite de 3 (mantidas: decisão do narrador) (PBP-3)"),
    ("ru", 21, "21 реплика, больше лимита 3 (оставлена: решение ведущего) (PBP-3)"),
    ("ru", 4, "4 реплики, больше лимита 3 (оставлены: решение ведущего) (PBP-3)"),
    ("ru", 5, "5 реплик, больше лимита 3 (оставлены: решение ведущего) (PBP-3)"),
])
def test_pbp_3_the_kept_speech_note_counts_in_the_languages_plural(
        lang: str, count: int, said: str) -> None:
    """The narrator's call to keep the extra speech (policy ``warn``) agrees with the count
    too, down to the Russian and Portuguese participle (оставлена / оставлены, mantida /
    mantidas)."""
    limit = 0 if count == 1 else 3
    assert _note(lang, count, limit, "warn") == said


def test_pbp_3_every_catalog_has_every_plural_form_of_the_speech_notes() -> None:
    assert missing("pt") == [] and missing("ru") == []

"""PBP-1: the resolved round says "No action this round." under a combatant that did
nothing (an NPC nobody declared for), in the campaign's language and in each platform's
markup. Before, its heading stood alone ("Orc — initiative 11 — HP 60/60" and nothing under
it), which a reader takes for a cut-off post (seen on a live machina thread). A combatant
that acted, or whose post missed the round (its penalty is said), gets no such line."""

from __future__ import annotations

import re

import pytest

from .world import at, make_world, post

SAID = {"en": "No action this round.", "pt": "Nenhuma ação nesta rodada.",
        "ru": "Без действий в этом раунде."}
MARKUP = {"bbcode": "[i]{}[/i]", "markdown": "_{}_", "text": "{}"}


@pytest.mark.parametrize("platform", sorted(MARKUP))
@pytest.mark.parametrize("lang", sorted(SAID))
def test_pbp1_an_npc_nobody_declared_for_is_said_to_do_nothing(engine, lang: str, platform: str) -> None:
    w = make_world(engine, language=lang, platform=platform)
    rid = w.open(at(0))
    # Aria and Bram attack Goblin Snag; Cyd does not post; the narrator declares nothing
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]", fmt=platform),
              post("p2", "bob", at(1, 5), "I attack Goblin Snag [roll]1d20+5[/roll]", fmt=platform)],
             now=at(2))
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    line = MARKUP[platform].format(SAID[lang])
    # the sections, each from its heading to the next: the goblins stand idle
    heads = [(m.start(), m.group(1)) for m in re.finditer(
        r"^(?:\[b\]|\*\*)?(Aria|Bram|Cyd|Goblin Snag|Goblin Rot)(?:\[/b\]|\*\*)?\b.*—", body, re.M)]
    sections = {name: body[start:(heads[i + 1][0] if i + 1 < len(heads) else len(body))]
                for i, (start, name) in enumerate(heads)}
    assert set(sections) == {"Aria", "Bram", "Cyd", "Goblin Snag", "Goblin Rot"}, body
    for name in ("Goblin Snag", "Goblin Rot"):   # no narrator post: neither did anything
        assert line in sections[name], sections[name]
    for name in ("Aria", "Bram", "Cyd"):   # they acted, or their miss is said (PBP-2)
        assert SAID[lang] not in sections[name], sections[name]

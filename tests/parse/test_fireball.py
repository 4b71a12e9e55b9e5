"""The real Discord combat of FIREBALL (../shared/fixtures/pbp/fireball): every command
line a player typed parses without an error, and every ``-t`` that names a combatant
is matched to exactly that combatant."""

from __future__ import annotations

import json
import re

import pytest

from pbp.parse import parse_post
from tests.conftest import shared_path


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# what each -t the players typed means, read from the fight's own combat state
EXPECTED = {"moz": "mozzie-urahaka", "sh1": "sh1", "sh": "sh1", "verity": "verity-silverdust",
            "nitar": "nitar", "barth": "bartholomew", "alek": "aleksandra", "keya": "keya"}


@pytest.fixture(scope="module")
def fight():
    path = shared_path("fixtures", "pbp", "fireball", "raw.jsonl")
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    roster: dict[str, dict] = {}
    for e in events:
        if e["event_type"] == "combat_state_update":
            for c in e["data"]["combatants"]:
                entry = roster.setdefault(_slug(c["name"]), {"key": _slug(c["name"]),
                                                             "name": c["name"], "aliases": []})
                monster = c.get("monster_name")
                if monster and monster not in entry["aliases"]:
                    entry["aliases"].append(monster)
    messages = [e for e in events if e["event_type"] in ("message", "command")
                and not e.get("author_bot") and e.get("content")]
    return list(roster.values()), messages


def test_every_command_line_parses_without_error(fight):
    roster, messages = fight
    commands = 0
    for e in messages:
        post = parse_post(e["content"], fmt="markdown", lang="en", roster=roster)
        assert not [x for x in post.errors if x.severity == "error"], (e["content"], post.errors)
        for line in e["content"].splitlines():
            if line.strip().startswith("!"):
                commands += 1
                assert any(c.text == line.strip() for c in post.commands) or \
                    any(r.syntax in ("!r", "!roll") for r in post.rolls), line
    assert commands >= 60


def test_every_target_is_matched(fight):
    roster, messages = fight
    keys = {c["key"] for c in roster}
    checked = 0
    for e in messages:
        for line in e["content"].splitlines():
            wanted = re.findall(r"-t\s+(\S+)", line)
            if not line.startswith("!") or not wanted:
                continue
            post = parse_post(line, fmt="markdown", lang="en", roster=roster)
            (action,) = [a for a in post.actions if a.options.source == "command"]
            got = [action.target, *action.options.targets[1:]]
            assert len(got) == len(wanted), (line, action)
            assert all(k in keys for k in got), (line, got)
            assert got == [EXPECTED[w.lower()] for w in wanted], (line, got)
            checked += len(wanted)
    assert checked >= 25


def test_narration_quotes_and_commands_are_separated(fight):
    _, messages = fight
    by_text = {e["content"]: e for e in messages}
    post = parse_post('"What did I say earlier? Moderate chance of violence?" *Verity reached to '
                      'her hip, drawing forth a slim side sword.*', fmt="markdown", lang="en")
    assert post.speech_count == 1
    assert [a.kind.value for a in post.actions] == ["quick"]
    narration = next(t for t in by_text if t.startswith("> *As the six lean"))
    quoted = parse_post(narration, fmt="markdown", lang="en")
    assert quoted.actions == () and quoted.speech == ()

"""``pbp parse``: stdin in, the documented JSON out."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pbp.cli import cli


def test_parse_prints_the_schema(tmp_path):
    roster = tmp_path / "roster.yaml"
    roster.write_text("- {key: gob, name: Goblin}\n- {key: ana, name: Ana, weapons: [Espada Longa]}\n",
                      encoding="utf-8")
    post = "Corro até o goblin e golpeio com a espada [roll]1d20+5[/roll] — Morra, criatura!\n((volto amanhã))"
    result = CliRunner().invoke(cli, ["parse", "--format", "bbcode", "--roster", str(roster),
                                      "--actor", "ana"], input=post.encode())
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["lang"] == "pt"
    assert set(data) >= {"rolls", "commands", "actions", "speech", "speech_count", "ooc", "errors"}
    assert [(r["expression"], r["syntax"], r["position"]) for r in data["rolls"]] == [("1d20+5", "[roll]", 42)]
    assert [(a["kind"], a["target"], a["weapon"], a["explicit"]) for a in data["actions"]] == [
        ("move", "gob", None, False), ("attack", "gob", "Espada Longa", False)]
    assert data["actions"][1]["roll_index"] == 0
    assert [u["text"] for u in data["speech"]] == ["Morra, criatura!"]
    assert [o["text"] for o in data["ooc"]] == ["volto amanhã"]


def test_errors_are_in_the_posts_language():
    result = CliRunner().invoke(cli, ["parse", "--lang", "ru", "--compact"], input="Бью [roll]1d20".encode())
    data = json.loads(result.output)
    assert data["errors"][0]["code"] == "tag.unclosed"
    assert "не закрыт" in data["errors"][0]["message"]


def test_bad_roster_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "r.json"
    bad.write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(cli, ["parse", "--roster", str(bad)], input=b"x")
    assert result.exit_code == 2
    assert "roster" in result.output

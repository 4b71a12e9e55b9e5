"""``pbp narrator``, the override service functions used without the panel, the importer and
the app factory's settings layers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from pbp.cli import cli
from pbp.errors import UnreadableInput
from pbp.panel import create_app, importer
from pbp.panel import overrides as ov
from pbp.panel.security import verify_password
from pbp.settings import load_settings
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Campaign, CampaignNarrator, Combatant, Narrator, Override


def test_narrator_add_with_password_stdin(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'n.sqlite'}"
    runner = CliRunner()
    r = runner.invoke(cli, ["narrator", "add", "carla", "--password-stdin", "--language", "pt",
                            "--database-url", url], input="s3cret-pass\n")
    assert r.exit_code == 0, r.output
    with session_scope(make_engine(url)) as s:
        row = s.scalars(select(Narrator).where(Narrator.username == "carla")).one()
        assert row.language == "pt" and row.password_hash.startswith("$argon2id$")
        assert verify_password(row.password_hash, "s3cret-pass") and "s3cret" not in row.password_hash
    r = runner.invoke(cli, ["narrator", "add", "carla", "--password-stdin", "--database-url", url], input="another-pass\n")
    assert r.exit_code == 2 and "already exists" in r.output
    r = runner.invoke(cli, ["narrator", "add", "dan", "--password-stdin", "--database-url", url], input="short\n")
    assert r.exit_code == 2 and "at least 8" in r.output
    r = runner.invoke(cli, ["narrator", "list", "--database-url", url])
    assert "carla" in r.output
    r = runner.invoke(cli, ["narrator", "passwd", "carla", "--password-stdin", "--database-url", url], input="brand-new-pass\n")
    assert r.exit_code == 0
    with session_scope(make_engine(url)) as s:
        s.add(Campaign(name="C", slug="c", ruleset="dnd5e"))
    r = runner.invoke(cli, ["narrator", "grant", "carla", "c", "--database-url", url])
    assert r.exit_code == 0, r.output
    with session_scope(make_engine(url)) as s:
        assert s.scalars(select(CampaignNarrator)).one().role == "co"


def test_narrator_add_prompts_twice(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'n.sqlite'}"
    r = CliRunner().invoke(cli, ["narrator", "add", "eve", "--database-url", url], input="password1\npassword1\n")
    assert r.exit_code == 0, r.output
    assert "password1" not in r.output


def test_override_functions_work_without_the_panel(db_url: str, ids: dict[str, Any]) -> None:
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        goblin = ids["combatants"]["goblin-2"]
        with pytest.raises(ov.OverrideError):
            ov.set_hp(s, goblin, 1, "  ", ids["alice"])
        before = s.get(Combatant, goblin).hp
        after = 1 if before != 1 else 3
        o = ov.set_hp(s, goblin, after, "cli fix", None)
        assert (o.kind, o.payload["before"], o.payload["after"]) == ("hp", before, after)
        assert s.get(Combatant, goblin).hp == after
        ov.add_condition(s, goblin, "Prone", 2, "knocked down", ids["alice"])
        cond = s.get(Combatant, goblin).conditions
        assert cond[0]["name"] == "prone" and cond[0]["rounds"] == 2
        with pytest.raises(ov.OverrideError):
            ov.add_condition(s, goblin, "prone", 0, "x", None)
        with pytest.raises(ov.OverrideError):
            ov.set_roll(s, 999999, 3, "x", None)
        # issue 11 item 7: the reason is private unless made public
        assert ov.reply_marks(s, ids["round"])[0] == f"Goblin 2: HP {before} -> {after}"
        entries = list(s.scalars(select(AuditEntry).where(AuditEntry.action.like("override.%"))))
        assert [e.actor for e in entries] == ["system", "alice"]
        assert s.scalar(select(Override).where(Override.kind == "hp")).narrator_id is None


def test_importer_rows() -> None:
    rows = importer.parse("g.yaml", b"combatants:\n  - {key: orc, name: Orc, count: 3, hp: 9, weapons: ['axe:1d12']}\n")
    assert [r["key"] for r in rows] == ["orc-1", "orc-2", "orc-3"]
    assert rows[0]["side"] == "enemies" and rows[0]["sheet"]["weapons"] == [{"name": "axe", "damage": "1d12"}]
    for bad, msg in [(b"key,name\nBad Key,X\n", "key"), (b"key,name\na,\n", "needs a name"),
                     (b"key,name\na,A\na,B\n", "twice"), (b"key,name,count\na,A,9999\n", "count"),
                     (b"- [1, 2]\n", "mapping")]:
        with pytest.raises(UnreadableInput, match=msg):
            importer.parse("x.yaml" if bad.startswith(b"-") else "x.csv", bad)


def test_settings_layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings(env={"PBP_DATA_DIR": str(tmp_path), "PBP_LANGUAGE": "ru", "PBP_APPROVAL_MODE": "true"})
    monkeypatch.setenv("PBP_PANEL_SESSION_COOKIE_SECURE", "false")
    monkeypatch.setenv("PBP_PANEL_LOGIN_MAX_FAILURES", "9")
    app = create_app({"TESTING": True}, settings=settings)
    assert app.config["BABEL_DEFAULT_LOCALE"] == "ru" and app.config["APPROVAL_MODE"] is True
    assert app.config["SESSION_COOKIE_SECURE"] is False and app.config["LOGIN_MAX_FAILURES"] == 9
    assert app.config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    assert len(app.config["SECRET_KEY"]) == 64 and (tmp_path / "secret_key").exists()
    assert {"auth", "dashboard", "campaigns", "encounters", "combatants"} <= set(app.blueprints)

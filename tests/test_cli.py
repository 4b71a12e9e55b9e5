"""The ``pbp`` command as a user meets it (issue 11, items 2 and 8).

One data directory, found from any working directory; every error one line with no
traceback; ``pbp encounter start|end`` on a real SQLite database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from pbp.cli import cli
from pbp.settings import default_data_dir, load_settings
from pbp.store.db import make_engine, session_scope, upgrade
from pbp.store.models import (
    AuditEntry,
    Campaign,
    Combatant,
    Encounter,
    Reply,
    Round,
    Thread,
)

ROOT = Path(__file__).resolve().parent.parent


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A user's environment: no PBP_* at all, the XDG data home in *tmp_path*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBP_")}
    env.update(XDG_DATA_HOME=str(tmp_path / "xdg-data"), XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
               PYTHONPATH=str(ROOT), **extra)
    return env


def _pbp(args: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pbp.cli", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


def test_default_data_dir_is_the_users_own(tmp_path: Path) -> None:
    s = load_settings(env={"XDG_DATA_HOME": str(tmp_path)})
    assert s.data_path == tmp_path / "pbp"
    assert s.database_url == f"sqlite:///{tmp_path / 'pbp' / 'pbp.sqlite'}"
    # without XDG_DATA_HOME: platformdirs' answer, an absolute path whatever the cwd
    assert default_data_dir({}).is_absolute() and default_data_dir({}).name == "pbp"


def test_relative_data_dir_is_fixed_where_it_is_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "site" / "pbp.toml"
    conf.parent.mkdir()
    conf.write_text('data_dir = "data"\nsecrets_file = "bots.toml"\n')
    monkeypatch.chdir(tmp_path)
    s = load_settings(env={"PBP_CONFIG": str(conf)})
    assert s.data_path == tmp_path / "site" / "data"      # beside the file, not the cwd
    assert s.secrets_file == str(tmp_path / "site" / "data" / "bots.toml")
    assert load_settings(env={"PBP_DATA_DIR": "here"}).data_path == tmp_path / "here"


def test_users_settings_file_is_read(tmp_path: Path) -> None:
    mine = tmp_path / "cfg" / "pbp" / "pbp.toml"
    mine.parent.mkdir(parents=True)
    mine.write_text(f'data_dir = "{tmp_path / "campaigns"}"\n')
    s = load_settings(env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    assert s.data_path == tmp_path / "campaigns"
    assert load_settings(env={"XDG_CONFIG_HOME": str(tmp_path / "cfg"),
                              "PBP_DATA_DIR": str(tmp_path / "env")}).data_path == tmp_path / "env"


def test_every_command_finds_the_same_data_from_any_directory(tmp_path: Path) -> None:
    env = _env(tmp_path)
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    data = tmp_path / "xdg-data" / "pbp"
    r = _pbp(["status"], one, env)        # nothing yet: said in one line, nothing created
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 and f"no database at {data / 'pbp.sqlite'}" in r.stderr
    assert not (one / "var").exists() and not (data / "pbp.sqlite").exists()
    r = _pbp(["narrator", "add", "carla", "--password-stdin"], one, env, "a-long-password\n")
    assert r.returncode == 0, r.stderr
    r = _pbp(["narrator", "list"], two, env)
    assert r.returncode == 0 and r.stdout.startswith("carla\t"), r.stderr
    r = _pbp(["status"], two, env)
    assert r.returncode == 0 and f"data directory {data}" in r.stdout
    assert not (one / "var").exists() and not (two / "var").exists()


@pytest.fixture(scope="module")
def user(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A user with a database holding one narrator (made once for the module)."""
    home = tmp_path_factory.mktemp("user")
    env = _env(home)
    assert _pbp(["narrator", "add", "carla", "--password-stdin"], home, env,
                "a-long-password\n").returncode == 0
    return home, env


@pytest.mark.parametrize("args", [
    ["verify", "--round", "999"],
    ["verify", "--encounter", "4"],
    ["encounter", "start", "999"],
    ["encounter", "end", "999"],
    ["narrator", "grant", "nobody", "nowhere"],
    ["narrator", "passwd", "nobody", "--password-stdin"],
    ["status", "--database-url", "postgresql+psycopg://nobody@127.0.0.1:1/none"],
    ["status", "--database-url", "nonsense://"],
    ["simulate", "/no/such/thread.yaml"],
    ["bench", "/no/such/scenario.yaml"],
])
def test_errors_are_one_line_without_a_traceback(user: tuple[Path, dict[str, str]],
                                                 args: list[str]) -> None:
    home, env = user
    r = _pbp(args, home, env, "another-long-password\n")
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.startswith("pbp: error: ")
    assert r.stderr.count("\n") == 1, r.stderr


def test_an_empty_database_is_said_not_migrated_silently(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    make_engine(f"sqlite:///{empty}").connect().close()   # a file with no tables
    r = CliRunner().invoke(cli, ["narrator", "list", "--database-url", f"sqlite:///{empty}"])
    assert r.exit_code == 2 and "has no pbp tables" in r.output


def test_bad_setting_is_one_line(tmp_path: Path) -> None:
    r = _pbp(["status"], tmp_path, _env(tmp_path, PBP_POLL_INTERVAL="often"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "poll_interval must be a whole number, not 'often'" in r.stderr


def _fight(url: str) -> int:
    """A campaign with a thread and an encounter not started (as the panel leaves it)."""
    upgrade(url)
    with session_scope(make_engine(url)) as s:
        camp = Campaign(name="Cave", slug="cave", ruleset="forum-d20", language="en",
                        timezone="UTC", round_hours=24)
        s.add(camp)
        s.flush()
        thread = Thread(campaign_id=camp.id, kind="forum", url="http://forum.invalid/t/1/",
                        title="Cave", platform="bbcode", options={})
        s.add(thread)
        s.flush()
        enc = Encounter(campaign_id=camp.id, thread_id=thread.id, name="Ambush",
                        ruleset="forum-d20", status="setup")
        s.add(enc)
        s.flush()
        stats = {"str": 2, "dex": 1, "con": 1, "ac": 14, "bab": 1}
        for key, name, player in [("ana", "Ana", "Ana"), ("orc", "Orc", None)]:
            s.add(Combatant(encounter_id=enc.id, key=key, name=name, player=player,
                            side="players" if player else "enemies", hp=10, max_hp=10,
                            sheet={"stats": stats}))
        return enc.id


def test_encounter_start_then_end(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    enc_id = _fight(url)
    runner = CliRunner()
    r = runner.invoke(cli, ["encounter", "start", str(enc_id), "--database-url", url])
    assert r.exit_code == 0, r.output
    assert f"encounter {enc_id} started: round 1 open until" in r.output
    engine = make_engine(url)
    with session_scope(engine) as s:
        rnd = s.scalars(select(Round).where(Round.encounter_id == enc_id)).one()
        assert (rnd.number, rnd.state) == (1, "open") and rnd.commitment in r.output
        assert sorted(rnd.order) == ["ana", "orc"]          # initiative rolled for both
        opening = s.scalars(select(Reply).where(Reply.round_id == rnd.id)).one()
        assert opening.kind == "opening" and rnd.commitment in opening.body
        assert s.get(Encounter, enc_id).status == "active"
    r = runner.invoke(cli, ["encounter", "start", str(enc_id), "--database-url", url])
    assert r.exit_code == 2 and "started already (round 1 is open)" in r.output
    r = runner.invoke(cli, ["encounter", "end", str(enc_id), "--database-url", url])
    assert r.exit_code == 0, r.output
    assert f"encounter {enc_id} ended; round 1 cancelled; closing reply queued" in r.output
    with session_scope(engine) as s:
        rnd = s.scalars(select(Round).where(Round.encounter_id == enc_id)).one()
        assert rnd.state == "cancelled" and rnd.seed_revealed
        closing = s.scalars(select(Reply).where(Reply.kind == "closing")).one()
        assert closing.state == "pending" and closing.round_id == rnd.id
        assert "The narrator has ended this encounter." in closing.body
        assert "Round 1 is closed without a result" in closing.body
        assert s.get(Encounter, enc_id).status == "finished"
        audit = s.scalars(select(AuditEntry).where(AuditEntry.action == "encounter.end")).one()
        assert audit.actor == "system" and audit.after["closed_round"] == 1
    for verb, said in [("end", "is over already"), ("start", "is over")]:
        r = runner.invoke(cli, ["encounter", verb, str(enc_id), "--database-url", url])
        assert r.exit_code == 2 and said in r.output


def test_encounter_without_combatants_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    enc_id = _fight(url)
    with session_scope(make_engine(url)) as s:
        for c in s.scalars(select(Combatant)):
            s.delete(c)
    r = CliRunner().invoke(cli, ["encounter", "start", str(enc_id), "--database-url", url])
    assert r.exit_code == 2 and "has no combatants" in r.output


def test_ending_before_any_round_posts_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    enc_id = _fight(url)
    r = CliRunner().invoke(cli, ["encounter", "end", str(enc_id), "--database-url", url])
    assert r.exit_code == 0 and "no round had opened: nothing to post" in r.output
    with session_scope(make_engine(url)) as s:
        assert s.scalars(select(Reply)).first() is None
        assert s.get(Encounter, enc_id).status == "finished"

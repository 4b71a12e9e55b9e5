"""Worker knobs are ordinary settings: pbp/config/pbp.toml -> PBP_CONFIG file -> PBP_* env."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbp.settings import Settings, load_settings, secrets_for


def test_worker_knob_from_file_overridden_by_environment(tmp_path: Path) -> None:
    assert load_settings(env={}).retry_max == Settings.retry_max == 8  # pbp/config/pbp.toml agrees
    conf = tmp_path / "pbp.toml"
    conf.write_text('retry_max = 3\nfinal_poll_grace = 45\nbroker_keyprefix = "site:"\n')
    from_file = load_settings(env={"PBP_CONFIG": str(conf)})
    assert (from_file.retry_max, from_file.final_poll_grace, from_file.broker_keyprefix) == (3, 45.0, "site:")
    env = {"PBP_CONFIG": str(conf), "PBP_RETRY_MAX": "30", "PBP_BROKER_KEYPREFIX": "run1:"}
    overridden = load_settings(env=env)
    assert (overridden.retry_max, overridden.final_poll_grace, overridden.broker_keyprefix) == (30, 45.0, "run1:")


def test_worker_knobs_reach_the_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kombu.transport.sqlalchemy as sqla_transport

    from workers.celery_app import make_celery
    from workers.runtime import runtime

    monkeypatch.setattr(sqla_transport.Transport, "polling_interval", sqla_transport.Transport.polling_interval)

    settings = load_settings(env={"PBP_DATA_DIR": str(tmp_path), "PBP_RETRY_BASE": "0.5",
                                  "PBP_RETRY_CAP": "4", "PBP_BROKER_POLLING_INTERVAL": "0.05"})
    make_celery(settings)
    assert sqla_transport.Transport.polling_interval == 0.05
    rt = runtime(settings)
    assert all(rt.backoff(n) <= 4 for n in range(10))
    assert rt.backoff(0) <= 0.5


def test_secrets_by_host_and_port_file_and_env(tmp_path: Path) -> None:
    """issue 12 item 6: ``["host:port"]`` / ``PBP_SECRET_<HOST>_<PORT>_*`` first, used whole
    (never one account's username with another's password), else the host's; within a
    level an env var wins over the file, field by field; a longer host's variables never
    leak into a shorter one's (``forum`` vs ``forum.example.org``)."""
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('["forum.lan:8080"]\nusername = "bot8080"\npassword = "p8080"\n'
                       '["forum.lan"]\nusername = "bothost"\npassword = "phost"\n')
    s = Settings(secrets_file=str(secrets))
    env = {"PBP_SECRET_FORUM_LAN_8080_PASSWORD": "env8080", "PBP_SECRET_FORUM_LAN_9090_USERNAME": "bot9090",
           "PBP_SECRET_FORUM_EXAMPLE_ORG_USERNAME": "other", "PBP_SECRET_MY_FORUM_ORG_API_KEY": "k"}
    assert secrets_for(s, "forum.lan", 8080, env) == {"username": "bot8080", "password": "env8080"}
    assert secrets_for(s, "forum.lan", 9090, env) == {"username": "bot9090"}   # no host password mixed in
    assert secrets_for(s, "forum.lan", 80, env) == {"username": "bothost", "password": "phost"}
    assert secrets_for(s, "FORUM.LAN.", None, env) == {"username": "bothost", "password": "phost"}
    assert secrets_for(Settings(), "forum", 80, {"PBP_SECRET_FORUM_EXAMPLE_ORG_USERNAME": "x"}) == {}
    assert secrets_for(Settings(), "my-forum.org", 443, env) == {"api_key": "k"}


def test_allow_private_hosts_takes_a_toml_list(tmp_path: Path) -> None:
    """issue 12 item 5: the operator's allow-list as text or a TOML list."""
    conf = tmp_path / "pbp.toml"
    conf.write_text('allow_private_hosts = ["127.0.0.1", "forum.lan:8080"]\n')
    assert load_settings(env={"PBP_CONFIG": str(conf)}).allow_private_hosts == "127.0.0.1,forum.lan:8080"
    assert load_settings(env={"PBP_ALLOW_PRIVATE_HOSTS": "10.0.0.5"}).allow_private_hosts == "10.0.0.5"


def test_pkg_1_missing_shipped_defaults_are_said_not_skipped(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """PKG-1: an install without its shipped ``pbp.toml`` fails at once with the file's
    path and what to do. It was skipped without a word, and pbp ran on the dataclass's
    defaults (another user agent, other intervals): how the unpackaged config went unseen."""
    import pbp.settings as settings_module
    from pbp.errors import ConfigError

    monkeypatch.setattr(settings_module, "CONFIG_DIR", tmp_path / "config")
    with pytest.raises(ConfigError) as refused:
        load_settings(env={})
    assert "reinstall pbp" in str(refused.value)
    assert str(tmp_path / "config" / "pbp.toml") in str(refused.value)

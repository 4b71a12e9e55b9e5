"""Issue 12 item 6: bot secrets by host *and port*. Two real machina forums on one host
(127.0.0.1) and two ports, each with its own bot account in ``PBP_SECRET_<HOST>_<PORT>_*``:
each forum sees its own username; the host-level secret is only the fallback. The
password appears in no error and no log line."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from pbp.settings import secret_env_name
from pbp.sources.base import SourceError
from pbp.sources.forum import ForumSource, forget_sessions
from pbp.sources.http import reset_host_intervals
from tests.harness.machina.helpers import PLAYER
from tests.sources.test_forum_machina import settings

#: the harness's accounts: the bot, and the player (standing in for a second bot)
ACCOUNTS = {"a": ("pbpbot", "botpass"), "b": (PLAYER["username"], PLAYER["password"])}


@pytest.fixture(autouse=True)
def _fresh_sessions() -> Iterator[None]:
    forget_sessions()
    reset_host_intervals()
    yield
    forget_sessions()


def _authors(url: str) -> dict[str, str]:
    src = ForumSource(url, "machina", settings=settings(), credentials={})
    return {p.platform_id: p.author for p in src.fetch(None).posts}


def test_two_forums_on_one_host_each_post_as_their_own_account(
        machina: Any, machina_etag: Any, new_topic: Any, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """issue 12 item 6: port A logs in as pbpbot, port B as player; the host-level secret
    (admin, a wrong password) would refuse both logins if it were used."""
    topics = {"a": new_topic(machina, "Port A", 1), "b": new_topic(machina_etag, "Port B", 1)}
    ports = {k: urlsplit(u).port for k, u in topics.items()}
    assert ports["a"] != ports["b"]
    monkeypatch.setenv(secret_env_name("127.0.0.1") + "_USERNAME", "admin")
    monkeypatch.setenv(secret_env_name("127.0.0.1") + "_PASSWORD", "not-the-admin-password")
    for k, (user, password) in ACCOUNTS.items():
        monkeypatch.setenv(f"{secret_env_name('127.0.0.1', ports[k])}_USERNAME", user)
        monkeypatch.setenv(f"{secret_env_name('127.0.0.1', ports[k])}_PASSWORD", password)
    caplog.set_level(logging.DEBUG)
    posted = {}
    for k, url in topics.items():
        src = ForumSource(url, "machina", settings=settings())
        assert src.bot_account() == ACCOUNTS[k][0]
        posted[k] = src.reply(f"Port {k} speaks [pbp:port-{k}]", f"[pbp:port-{k}]")
    assert _authors(topics["a"])[posted["a"]] == "pbpbot"
    assert _authors(topics["b"])[posted["b"]] == PLAYER["username"]
    for _user, password in ACCOUNTS.values():
        assert password not in caplog.text


def test_the_host_secret_is_the_fallback_and_no_password_is_said(
        machina: Any, new_topic: Any, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """issue 12 item 6: with no secret for its port, a forum uses the host's; a refused login
    names the account, never the password, in the error and in the log."""
    topic = new_topic(machina, "Host fallback", 1)
    port = urlsplit(topic).port
    monkeypatch.delenv(f"{secret_env_name('127.0.0.1', port)}_USERNAME", raising=False)
    monkeypatch.setenv(secret_env_name("127.0.0.1") + "_USERNAME", "pbpbot")
    monkeypatch.setenv(secret_env_name("127.0.0.1") + "_PASSWORD", "Wr0ng-Secret-Value")
    caplog.set_level(logging.DEBUG)
    src = ForumSource(topic, "machina", settings=settings())
    assert src.bot_account() == "pbpbot"
    with pytest.raises(SourceError) as err:
        src.reply("x [pbp:fallback]", "[pbp:fallback]")
    assert "login refused for bot account 'pbpbot'" in str(err.value)
    assert "Wr0ng-Secret-Value" not in str(err.value) and "Wr0ng-Secret-Value" not in caplog.text

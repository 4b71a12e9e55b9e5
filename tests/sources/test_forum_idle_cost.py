"""SCALE-3 (issue 17 item 3): what a forum source costs to open on every poll: its preset
and its bot's secrets are read once per process (again when they change), and its
connection to the forum is kept (one per host) instead of opened per poll."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from pbp.settings import load_settings
from pbp.sources import forum_preset, forum_session, outbound
from pbp.sources.factory import open_source
from pbp.sources.forum import ForumSource, forget_sessions
from pbp.sources.http import reset_host_intervals

URL = "http://127.0.0.1:8002/forum/forum/adventures-2/topic/the-goblin-cave-1/"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    forget_sessions()
    reset_host_intervals()


def settings(**env: str) -> Any:
    return load_settings(env={"PBP_MIN_HOST_INTERVAL": "0", "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1", **env})


def test_scale3_preset_parsed_once_per_process_until_its_file_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SCALE-3: 20 polls open 20 sources of one preset file: it is parsed once; an edited
    file (a new modification time) is parsed again."""
    path = tmp_path / "mine.toml"
    shutil.copy(forum_preset.PRESET_DIR / "machina.toml", path)
    parsed: list[Path] = []
    real = forum_preset._read_preset

    def counting(p: Path, overrides: Any) -> Any:
        parsed.append(p)
        return real(p, overrides)

    monkeypatch.setattr(forum_preset, "_read_preset", counting)
    s = settings()
    for _ in range(20):
        open_source("forum", URL, {"preset": str(path), "allowed_hosts": ["127.0.0.1"]}, s)
    assert parsed == [path]
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    src = open_source("forum", URL, {"preset": str(path), "allowed_hosts": ["127.0.0.1"]}, s)
    assert parsed == [path, path] and isinstance(src, ForumSource)


def test_scale3_secrets_read_once_per_process_until_they_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """SCALE-3: the environment scan (and secrets file) for a forum's bot runs once for 20
    sources; a changed ``PBP_SECRET_`` variable is seen at once."""
    monkeypatch.setenv("PBP_SECRET_127_0_0_1_8002_USERNAME", "pbpbot")
    monkeypatch.setenv("PBP_SECRET_127_0_0_1_8002_PASSWORD", "botpass")
    calls: list[tuple[str, Any]] = []
    real = forum_session.secrets_for

    def counting(s: Any, host: str, port: Any = None, env: Any = None) -> dict[str, str]:
        calls.append((host, port))
        return real(s, host, port, env)

    monkeypatch.setattr(forum_session, "secrets_for", counting)
    s = settings()
    names = {ForumSource(URL, "machina", settings=s).bot_account() for _ in range(20)}
    assert names == {"pbpbot"} and calls == [("127.0.0.1", 8002)]
    monkeypatch.setenv("PBP_SECRET_127_0_0_1_8002_USERNAME", "newbot")
    assert ForumSource(URL, "machina", settings=s).bot_account() == "newbot"
    assert len(calls) == 2


@pytest.mark.integration
def test_scale3_polls_reuse_one_connection_per_host(machina: Any, new_topic: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """SCALE-3: five polls, each through a source opened anew (as a worker does), go over
    one kept-alive connection to the forum: every new connection resolves and checks its
    address once (pbp.sources.outbound), so those checks count the connections opened."""
    topic = new_topic(machina, "Kept alive", 1)
    s = settings()
    opened: list[str] = []
    real = outbound.checked_addresses

    def counting(host: str, port: int, allow: Any) -> Any:
        opened.append(host)
        return real(host, port, allow)

    monkeypatch.setattr(outbound, "checked_addresses", counting)
    cursor = None
    for _ in range(5):
        src = open_source("forum", topic, {"preset": "machina", "allowed_hosts": ["127.0.0.1"]}, s)
        cursor = src.fetch(cursor).cursor
    assert opened == ["127.0.0.1"]


def test_scale3_a_ca_bundle_is_read_once_not_on_every_request(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SCALE-3: with ``REQUESTS_CA_BUNDLE`` set and no proxy, the forum session verifies
    with that bundle without ``trust_env`` (which made requests scan the environment and
    ``~/.netrc`` on every request); with a proxy set it keeps ``trust_env`` so ``NO_PROXY``
    is honoured per URL."""
    bundle = tmp_path / "ca.pem"
    bundle.write_text("")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    plain = forum_session.shared_session("http://forum-a.example", "bot")
    assert plain.trust_env is False and plain.verify == str(bundle)
    # what requests would have merged per request with trust_env: the same bundle
    merged = plain.merge_environment_settings("https://forum-a.example/", {}, None, None, None)
    assert merged["verify"] == str(bundle)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    proxied = forum_session.shared_session("http://forum-b.example", "bot")
    assert proxied.trust_env is True

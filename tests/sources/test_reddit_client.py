# ruff: noqa: F811  -- fixtures are imported from reddit_fixtures by name
"""The hardened praw client: pins the prawcore internals pbp swaps, and the bounds."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest
import requests
from prawcore.rate_limit import RateLimiter
from reddit_fixtures import bot, reddit_server  # noqa: F401  (fixtures)

from pbp.errors import ConfigError
from pbp.settings import Settings
from pbp.sources.reddit_client import (
    BoundedSession,
    DeferringRateLimiter,
    NoRetry,
    QuotaDeferred,
    RedditConfig,
    ResponseTooLarge,
    ResponseTooSlow,
    harden,
    make_reddit,
)


def test_every_core_is_hardened(bot: Any) -> None:
    for name in ("_core", "_authorized_core", "_read_only_core"):
        core = getattr(bot, name)
        assert isinstance(core._rate_limiter, DeferringRateLimiter)
        assert core._retry_strategy_class is NoRetry
    assert NoRetry().should_retry_on_failure() is False and NoRetry()._sleep_seconds() is None
    assert harden(bot) is bot                                  # idempotent


def test_limiter_reads_recorded_header_forms() -> None:
    limiter = DeferringRateLimiter(window_size=600, max_sleep=1.0)
    limiter.update(response_headers={"x-ratelimit-remaining": "598.0", "x-ratelimit-used": "2",
                                     "x-ratelimit-reset": "33"})        # oauth.reddit.com form
    assert (limiter.remaining, limiter.used) == (598, 2)
    limiter.update(response_headers={"x-ratelimit-remaining": "298", "x-ratelimit-used": "2",
                                     "x-ratelimit-reset": "244"})       # www.reddit.com form
    assert limiter.remaining == 298
    limiter.update(response_headers={})                                 # absent: one used
    assert (limiter.remaining, limiter.used) == (297, 3)
    limiter.update(response_headers={"x-ratelimit-remaining": "0.0", "x-ratelimit-used": "600",
                                     "x-ratelimit-reset": "51"})
    t0 = time.monotonic()
    with pytest.raises(QuotaDeferred) as info:
        limiter.delay()
    assert 49 < info.value.wait <= 51 and time.monotonic() - t0 < 0.1
    assert isinstance(limiter, RateLimiter)


def test_credentials_come_from_secrets_not_arguments(tmp_path: Any) -> None:
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('["reddit.com"]\nclient_id = "abc"\nclient_secret = "s3"\n'
                       'username = "pbp_bot"\npassword = "pw"\n')
    cfg = RedditConfig.from_settings(Settings(secrets_file=str(secrets), user_agent="pbp/test ua"),
                                     {"oauth_url": "http://127.0.0.1:1", "ignored": 1}, env={})
    assert (cfg.client_id, cfg.username, cfg.oauth_url, cfg.user_agent) == (
        "abc", "pbp_bot", "http://127.0.0.1:1", "pbp/test ua")
    with pytest.raises(ConfigError, match="client id"):
        RedditConfig.from_settings(Settings(), env={})


def test_reddit_s_address_is_a_setting_a_thread_may_override() -> None:
    """A submission added in the panel by its address has no options: the operator's
    ``reddit_oauth_url``/``reddit_url`` say where Reddit is (tests/journey: the local one)."""
    from pbp.settings import load_settings

    env = {"PBP_SECRET_REDDIT__COM_CLIENTID": "abc", "PBP_DATA_DIR": "/tmp/pbp-reddit-test"}
    default = RedditConfig.from_settings(load_settings(env=env), {}, env=env)
    assert (default.oauth_url, default.reddit_url) == ("https://oauth.reddit.com", "https://www.reddit.com")
    env.update(PBP_REDDIT_OAUTH_URL="http://127.0.0.1:9", PBP_REDDIT_URL="http://127.0.0.1:8")
    local = RedditConfig.from_settings(load_settings(env=env), {}, env=env)
    assert (local.oauth_url, local.reddit_url) == ("http://127.0.0.1:9", "http://127.0.0.1:8")
    own = RedditConfig.from_settings(load_settings(env=env), {"oauth_url": "http://127.0.0.1:7"}, env=env)
    assert (own.oauth_url, own.reddit_url) == ("http://127.0.0.1:7", "http://127.0.0.1:8")


def test_shared_clients_are_reused() -> None:
    cfg = RedditConfig(client_id="x", client_secret="y", user_agent="pbp/test ua",
                       oauth_url="http://127.0.0.1:9", reddit_url="http://127.0.0.1:9")
    assert make_reddit(cfg) is make_reddit(cfg)
    assert make_reddit(cfg, shared=False) is not make_reddit(cfg)


def _trickle_server(total: int, pause: float) -> tuple[socket.socket, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)

    def serve() -> None:
        conn, _ = sock.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        try:
            for _ in range(total):
                conn.sendall(b"1\r\n \r\n")
                time.sleep(pause)
            conn.sendall(b"0\r\n\r\n")
        except OSError:
            pass
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return sock, sock.getsockname()[1]


def test_bounded_session_cuts_slow_and_large_bodies() -> None:
    sock, port = _trickle_server(total=200, pause=0.02)
    try:
        with pytest.raises(ResponseTooSlow):
            BoundedSession(max_seconds=0.5).get(f"http://127.0.0.1:{port}/", timeout=5)
    finally:
        sock.close()
    sock, port = _trickle_server(total=3000, pause=0)
    try:
        with pytest.raises(ResponseTooLarge):
            BoundedSession(max_bytes=1000).get(f"http://127.0.0.1:{port}/", timeout=5)
    finally:
        sock.close()
    assert issubclass(ResponseTooLarge, requests.RequestException)


def test_requests_are_counted_per_thread(reddit_server: Any, bot: Any) -> None:
    http = bot._core.requestor._http
    assert isinstance(http, BoundedSession)
    before = http.count
    list(bot.subreddit("dnd").comments(limit=100))
    assert http.count - before == 2                             # token + listing
    seen: list[int] = []
    t = threading.Thread(target=lambda: seen.append(http.count))
    t.start()
    t.join()
    assert seen == [0]

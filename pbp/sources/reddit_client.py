"""The praw client pbp uses, with its edges made safe for a worker pool.

Why not a plain ``praw.Reddit``: out of the box prawcore (a) sleeps inside the call
when the ``x-ratelimit-*`` headers say the quota is nearly spent, (b) retries a request
whose connection dropped -- for a ``POST /api/comment`` that is a second reply -- and
(c) reads any response size with no overall deadline. A worker that sleeps holds every
other source behind it, a retried POST posts twice, and a hostile or broken server can
hand us gigabytes. So:

* :class:`BoundedSession` -- a ``requests.Session`` that streams every response and stops
  at ``max_bytes`` or ``max_seconds`` (:class:`ResponseTooLarge`, :class:`ResponseTooSlow`).
* :class:`DeferringRateLimiter` -- reads ``x-ratelimit-*`` (remaining may be ``"598.0"``,
  any header may be absent) and, instead of sleeping longer than ``max_sleep``, raises
  :class:`QuotaDeferred` before sending, so the caller reschedules that source only.
* :class:`NoRetry` -- prawcore's retry strategy with zero retries: the source decides what
  is retried (GETs next cycle; a reply only after :meth:`RedditSource.find_reply`).

:func:`make_reddit` builds the client from settings + secrets (never the database).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import praw
import requests
from prawcore.rate_limit import RateLimiter
from prawcore.sessions import FiniteRetryStrategy

from ..errors import ConfigError
from ..settings import Settings, secrets_for
from ..store.budget import BudgetDeferred, RateBudget, shared_budget
from .outbound import PrivateHosts, guard

#: Where Reddit credentials live in ``secrets_for()`` (secrets file or
#: ``PBP_SECRET_REDDIT__COM_CLIENTID`` ... env vars).
SECRETS_HOST = "reddit.com"
DEFAULT_MAX_BYTES = 8 * 1024 * 1024     # a 476-comment thread is 474 KB
DEFAULT_MAX_SECONDS = 30.0
DEFAULT_TIMEOUT = 10.0
#: calls a client may send at once after a quiet spell (its budget's burst, SCALE-1):
#: enough for a cycle's few subreddit listings, small beside the 100 a minute
BURST_CALLS = 10


class ResponseTooLarge(requests.RequestException):
    """The body went past the byte bound; nothing of it is used."""


class ResponseTooSlow(requests.RequestException):
    """The body took longer than the time bound (a trickling server)."""


class QuotaDeferred(Exception):
    """The rate-limit headers ask for a wait longer than we are willing to sleep."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"Reddit quota spent: next request allowed in {wait:.1f} s")
        self.wait = wait


class BoundedSession(requests.Session):
    """Every response is streamed and cut at ``max_bytes`` / ``max_seconds``.

    Also counts requests per thread (:attr:`count`), which sources report in
    ``FetchResult.requests``.
    """

    def __init__(self, *, max_bytes: int = DEFAULT_MAX_BYTES,
                 max_seconds: float = DEFAULT_MAX_SECONDS) -> None:
        super().__init__()
        self.max_bytes = max_bytes
        self.max_seconds = max_seconds
        self._local = threading.local()

    @property
    def count(self) -> int:
        return getattr(self._local, "count", 0)

    def request(self, method: str, url: str, *args: Any,  # type: ignore[override]
                **kwargs: Any) -> requests.Response:
        self._local.count = self.count + 1
        kwargs["stream"] = True
        started = time.monotonic()
        response = super().request(method, url, *args, **kwargs)
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            response.close()
            raise ResponseTooLarge(f"{method!s} {url!s}: {declared} bytes declared, "
                                   f"more than the {self.max_bytes} allowed")
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.iter_content(64 * 1024):
                size += len(chunk)
                if size > self.max_bytes:
                    raise ResponseTooLarge(f"{method!s} {url!s}: body passed the "
                                           f"{self.max_bytes} bytes allowed")
                if time.monotonic() - started > self.max_seconds:
                    raise ResponseTooSlow(f"{method!s} {url!s}: body still arriving after "
                                          f"{self.max_seconds:g} s")
                chunks.append(chunk)
        finally:
            response.close()
        response._content = b"".join(chunks)
        return response


class DeferringRateLimiter(RateLimiter):
    """prawcore's limiter, tolerant of header formats, that defers instead of stalling.

    With a *budget* (:mod:`pbp.store.budget`, SCALE-1) every request also takes a slot of
    the client's budget shared by every worker process: one call every
    ``60 / calls_per_minute`` s, or slower when the ``x-ratelimit-*`` headers say the
    quota left must stretch to its reset (learnt by :meth:`update`, written only when it
    moves by more than a tenth so an ordinary call costs one budget step, not two).
    """

    def __init__(self, *, window_size: int, max_sleep: float = 1.0,
                 budget: RateBudget | None = None, key: str = "reddit",
                 calls_per_minute: float = 100.0) -> None:
        super().__init__(window_size=window_size)
        self.max_sleep = max_sleep
        self.budget = budget
        self.key = key
        self.spacing = 60.0 / calls_per_minute if calls_per_minute > 0 else 0.0
        self._paced: float | None = None

    def delay(self) -> None:
        wait = 0.0
        if self.next_request_timestamp_ns is not None:
            wait = (self.next_request_timestamp_ns - time.monotonic_ns()) / 1e9
            if wait > self.max_sleep:
                raise QuotaDeferred(wait)
        if self.budget is not None and self.spacing > 0:
            try:
                wait = max(wait, self.budget.reserve(self.key, self.spacing,
                                                     max_wait=self.max_sleep,
                                                     burst=BURST_CALLS * self.spacing))
            except BudgetDeferred as exc:
                raise QuotaDeferred(exc.wait) from None
        if wait > 0:
            time.sleep(wait)

    def _share(self, remaining: float, reset: float) -> None:
        """Tell the other processes how fast the quota left may be spent."""
        if self.budget is None:
            return
        if remaining <= 0:
            self.budget.pace(self.key, self._paced,
                             hold_for=max(1.0, reset) + BURST_CALLS * self.spacing)
            return
        interval = reset / remaining if reset > 0 else None
        if interval is not None and interval <= self.spacing:
            interval = None     # the configured spacing is the slower one: nothing to learn
        old = self._paced
        if (interval is None) != (old is None) or (
                interval is not None and old is not None and abs(interval - old) > old / 10):
            self.budget.pace(self.key, interval)
            self._paced = interval

    def update(self, *, response_headers: Mapping[str, str]) -> None:
        try:
            remaining = float(response_headers["x-ratelimit-remaining"])
            used = float(response_headers.get("x-ratelimit-used", "0"))
            reset = float(response_headers.get("x-ratelimit-reset", "0"))
        except (KeyError, ValueError):
            if self.remaining is not None and self.used is not None:
                self.remaining -= 1
                self.used += 1
            return
        self.remaining, self.used = int(remaining), int(used)
        self._share(remaining, reset)
        now = time.monotonic_ns()
        if remaining <= 0:
            self.next_request_timestamp_ns = now + int(max(1.0, reset) * 1e9)
            return
        spread = reset - (self.window_size - self.window_size / (remaining + used) * used)
        self.next_request_timestamp_ns = now + int(min(reset, max(spread, 0), 10) * 1e9)


@dataclass(frozen=True)
class NoRetry(FiniteRetryStrategy):
    """Zero retries: a dropped POST must never be sent twice behind our back."""

    retries: int = 0

    def _sleep_seconds(self) -> float | None:
        return None


@dataclass(frozen=True)
class RedditConfig:
    """What :func:`make_reddit` needs; credentials come from secrets, not the database."""

    client_id: str
    client_secret: str | None
    username: str | None = None
    password: str | None = None
    user_agent: str = "pbp/0.1"
    oauth_url: str = "https://oauth.reddit.com"
    reddit_url: str = "https://www.reddit.com"
    timeout: float = DEFAULT_TIMEOUT
    max_bytes: int = DEFAULT_MAX_BYTES
    max_seconds: float = DEFAULT_MAX_SECONDS
    max_sleep: float = 1.0
    #: the operator's allow-list (``allow_private_hosts``): an ``oauth_url`` inside the
    #: network (a local test server) is reached only when its host is on it
    private_hosts: PrivateHosts = PrivateHosts()
    #: where the client's budget shared by every process lives (pbp.store.budget):
    #: the settings' database and ``rate_budget_url``; "" for this process alone
    budget_database_url: str = ""
    budget_url: str = ""
    budget_prefix: str = ""
    calls_per_minute: float = 100.0

    @property
    def budget_key(self) -> str:
        """One budget per OAuth client and endpoint: Reddit counts its quota per client."""
        return f"reddit:{self.client_id}@{self.oauth_url}"

    @classmethod
    def from_settings(cls, settings: Settings, options: Mapping[str, Any] | None = None,
                      env: Mapping[str, str] | None = None) -> RedditConfig:
        """Credentials from ``secrets_for(reddit.com)`` (``client_id`` or ``clientid``,
        ``client_secret``/``clientsecret``, ``username``, ``password``); URLs and bounds from
        *options* (a Thread's options: ``oauth_url``, ``reddit_url``, ``timeout``...)."""
        options = dict(options or {})
        creds = secrets_for(settings, SECRETS_HOST, env=env)

        def pick(*names: str) -> str | None:
            return next((creds[n] for n in names if creds.get(n)), None)

        client_id = pick("client_id", "clientid")
        if not client_id:
            raise ConfigError("no Reddit client id in the secrets (client_id under "
                              f"[{SECRETS_HOST!r}] or PBP_SECRET_REDDIT__COM_CLIENTID)",
                              where="secrets")
        known = {"oauth_url", "reddit_url", "timeout", "max_bytes", "max_seconds", "max_sleep"}
        # the settings' endpoints unless the thread names its own: a submission added in the
        # panel by its address has no options, and must reach the Reddit the operator set
        endpoints = {"oauth_url": settings.reddit_oauth_url, "reddit_url": settings.reddit_url}
        return cls(client_id=client_id, client_secret=pick("client_secret", "clientsecret"),
                   username=pick("username"), password=pick("password"),
                   user_agent=settings.user_agent,
                   private_hosts=PrivateHosts.parse(settings.allow_private_hosts),
                   budget_database_url=settings.database_url, budget_url=settings.rate_budget_url,
                   budget_prefix=settings.broker_keyprefix,
                   calls_per_minute=settings.reddit_calls_per_minute,
                   **{**endpoints, **{k: v for k, v in options.items() if k in known}})


_CLIENTS: dict[tuple[RedditConfig, int], praw.Reddit] = {}
_CLIENTS_LOCK = threading.Lock()


def make_reddit(config: RedditConfig, *, shared: bool = True) -> praw.Reddit:
    """A praw client with bounded responses, no hidden retries and no long sleeps.

    With *shared* (the default) one client per configuration, process and thread is
    reused (praw is not thread-safe): sources of one account share one token and one
    limiter, as Reddit's quota is per OAuth client.
    """
    if shared:
        key = (config, threading.get_ident())
        with _CLIENTS_LOCK:
            if key not in _CLIENTS:
                _CLIENTS[key] = make_reddit(config, shared=False)
            return _CLIENTS[key]
    session = guard(BoundedSession(max_bytes=config.max_bytes, max_seconds=config.max_seconds),
                    config.private_hosts)
    short = config.reddit_url.replace("www.", "") if "reddit.com" in config.reddit_url else config.reddit_url
    reddit = praw.Reddit(
        client_id=config.client_id, client_secret=config.client_secret,
        username=config.username, password=config.password, user_agent=config.user_agent,
        oauth_url=config.oauth_url, reddit_url=config.reddit_url, short_url=short,
        check_for_updates=False, check_for_async=False, ratelimit_seconds=0,
        requestor_kwargs={"session": session, "timeout": config.timeout},
    )
    harden(reddit, max_sleep=config.max_sleep,
           budget=shared_budget(config.budget_database_url, config.budget_url, config.budget_prefix),
           key=config.budget_key, calls_per_minute=config.calls_per_minute)
    return reddit


def harden(reddit: praw.Reddit, *, max_sleep: float = 1.0, budget: RateBudget | None = None,
           key: str = "reddit", calls_per_minute: float = 100.0) -> praw.Reddit:
    """Swap prawcore's limiter and retry strategy on every core of *reddit*.

    Touches prawcore internals (``Session._rate_limiter``, ``_retry_strategy_class``);
    ``tests/sources/test_reddit_client.py`` pins the behaviour so an upgrade that moves
    them fails loudly.
    """
    for name in ("_core", "_authorized_core", "_read_only_core"):
        core = getattr(reddit, name, None)
        if core is None:
            continue
        if not isinstance(core._rate_limiter, DeferringRateLimiter):
            core._rate_limiter = DeferringRateLimiter(
                window_size=core._rate_limiter.window_size, max_sleep=max_sleep,
                budget=budget, key=key, calls_per_minute=calls_per_minute)
        core._retry_strategy_class = NoRetry
    return reddit


def request_count(reddit: praw.Reddit) -> int:
    """Requests this thread has sent through *reddit* (0 if its session does not count)."""
    core = reddit._core
    http = getattr(core.requestor, "_http", None) if core is not None else None
    return http.count if isinstance(http, BoundedSession) else 0

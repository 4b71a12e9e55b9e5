"""A polite, bounded HTTP client for forum sources.

Why its own module: every forum request must be honest (our User-Agent), spaced
(a minimum interval per host, shared by every client in the process), bounded
(connect/read timeouts, a wall-clock deadline and a maximum body size) and
confined (only hosts the campaign configured, checked again on every redirect, and
never an address inside the operator's network unless the operator allowed that host:
:mod:`.outbound`, checked after DNS resolution on every connection). Conditional GET
validators are passed in and handed back, so the caller can keep them in its
cursor and a restart loses nothing.

>>> c = PoliteClient(user_agent="pbp-test", allowed_hosts={"forum.example.org"})
>>> c.check_url("http://169.254.169.254/latest/meta-data")
Traceback (most recent call last):
...
pbp.sources.base.SourceError: http://169.254.169.254/latest/meta-data: host '169.254.169.254' is not configured for this campaign
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

import requests
from urllib3.exceptions import ReadTimeoutError
from urllib3.util.retry import Retry

from ..settings import Settings
from ..store.budget import RateBudget, shared_budget
from .base import SourceError
from .outbound import GuardedAdapter, PrivateAddressError, PrivateHosts

_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)
#: WHATWG: pages labelled latin-1 are decoded as windows-1252 by every browser.
_CHARSET_ALIASES = {"iso-8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252",
                    "us-ascii": "cp1252", "ascii": "cp1252"}

_host_lock = threading.Lock()
_host_next: dict[str, float] = {}


def host_budget(settings: Settings) -> RateBudget | None:
    """The per-host budget the workers share (SCALE-1): none when requests are not spaced."""
    if settings.min_host_interval <= 0:
        return None
    return shared_budget(settings.database_url, settings.rate_budget_url,
                         settings.broker_keyprefix)


def reset_host_intervals() -> None:
    """Forget when each host was last asked (tests and benchmarks)."""
    with _host_lock:
        _host_next.clear()


def decode_html(content: bytes, header_charset: str | None = None) -> str:
    """Bytes to text: the HTTP charset, else a ``<meta>`` charset in the first 4 KB, else
    UTF-8, else windows-1252. ISO-8859-1 pages that declare it only in ``<meta>`` decode right.

    >>> decode_html(b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">caf\\xe9')[-4:]
    'café'
    """
    for label in (header_charset, _sniff(content)):
        if label:
            codec = _CHARSET_ALIASES.get(label.lower(), label)
            try:
                return content.decode(codec, errors="replace")
            except LookupError:
                continue
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return content.decode("cp1252", errors="replace")


def _sniff(content: bytes) -> str | None:
    if content.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    m = _META_CHARSET.search(content[:4096])
    return m.group(1).decode("ascii") if m else None


def _header_charset(content_type: str) -> str | None:
    m = re.search(r"charset\s*=\s*\"?([\w.:-]+)", content_type or "", re.IGNORECASE)
    return m.group(1) if m else None


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds (it may be a number or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


@dataclass
class Response:
    """What came back, read whole (within the size bound)."""

    url: str
    status: int
    headers: Mapping[str, str]
    content: bytes
    redirects: list[str] = field(default_factory=list)

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def etag(self) -> str | None:
        return self.headers.get("ETag")

    @property
    def last_modified(self) -> str | None:
        return self.headers.get("Last-Modified")

    @property
    def text(self) -> str:
        return decode_html(self.content, _header_charset(self.headers.get("Content-Type", "")))


class PoliteClient:
    """requests.Session with manners. One per source or shared by sources of one host.

    ``allowed_hosts`` are the host names this client may ask (the campaign's: a thread's
    own host, or its options' ``allowed_hosts``), None any name. That is a narrower
    confinement than, and never a way around, ``private_hosts``: the operator's
    allow-list (the ``allow_private_hosts`` setting) of hosts that may resolve to an
    address inside the network; every other host must resolve to global addresses only
    (:mod:`.outbound`, checked on every connection, redirects included);
    ``min_interval`` spaces requests to one host, across every client in this process
    and, through *budget* (:mod:`pbp.store.budget`: the database or Redis), across every
    worker process (SCALE-1).
    ``requests_made`` and ``bytes_read`` count what this client cost.
    """

    def __init__(self, *, user_agent: str, min_interval: float = 2.0,
                 allowed_hosts: Iterable[str] | None = None,
                 private_hosts: PrivateHosts | str | None = None,
                 connect_timeout: float = 5.0, read_timeout: float = 20.0,
                 deadline: float = 30.0, max_bytes: int = 4_000_000, max_redirects: int = 5,
                 retries: int = 2, session: requests.Session | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 budget: RateBudget | None = None) -> None:
        self.user_agent = user_agent
        self.budget = budget
        self.min_interval = min_interval
        self.allowed_hosts = ({h.lower() for h in allowed_hosts}
                              if allowed_hosts is not None else None)
        self.private_hosts = (private_hosts if isinstance(private_hosts, PrivateHosts)
                              else _parse_private(private_hosts))
        self.timeout = (connect_timeout, read_timeout)
        self.deadline = deadline
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.sleep = sleep
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = user_agent
        _guard(self.session, self.private_hosts, retries)
        self.requests_made = 0
        self.bytes_read = 0

    # -- confinement -------------------------------------------------------------------
    def check_url(self, url: str) -> str:
        """The URL if its scheme is http(s) and its host is configured; else SourceError."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if parts.scheme not in ("http", "https") or not host:
            raise SourceError("only http(s) URLs with a host are accepted", where=url)
        if self.allowed_hosts is not None and host not in self.allowed_hosts:
            raise SourceError(f"host {host!r} is not configured for this campaign", where=url)
        return url

    # -- requests --------------------------------------------------------------------
    def get(self, url: str, *, etag: str | None = None, last_modified: str | None = None,
            headers: Mapping[str, str] | None = None, follow: bool = True) -> Response:
        h = dict(headers or {})
        if etag:
            h["If-None-Match"] = etag
        if last_modified:
            h["If-Modified-Since"] = last_modified
        return self.request("GET", url, headers=h, follow=follow)

    def post(self, url: str, *, data: Mapping[str, str] | None = None,
             json: object = None, headers: Mapping[str, str] | None = None,
             follow: bool = True) -> Response:
        return self.request("POST", url, data=data, json=json, headers=headers, follow=follow)

    def request(self, method: str, url: str, *, follow: bool = True, **kwargs: object) -> Response:
        redirects: list[str] = []
        started = time.monotonic()
        while True:
            resp = self._once(method, url, started, **kwargs)
            if not (follow and resp.status in (301, 302, 303, 307, 308) and "Location" in resp.headers):
                resp.redirects = redirects
                return resp
            if len(redirects) >= self.max_redirects:
                raise SourceError(f"more than {self.max_redirects} redirects", where=url)
            redirects.append(url)
            url = urljoin(url, resp.headers["Location"])
            if resp.status in (301, 302, 303) and method == "POST":
                method, kwargs = "GET", {"headers": kwargs.get("headers")}

    def _once(self, method: str, url: str, started: float, **kwargs: object) -> Response:
        self.check_url(url)
        host = urlsplit(url).hostname or ""
        self._wait_turn(host)
        try:
            return self._exchange(method, url, started, **kwargs)
        finally:
            self._finished(host)

    def _exchange(self, method: str, url: str, started: float, **kwargs: object) -> Response:
        try:
            with self.session.request(method, url, timeout=self.timeout, stream=True,
                                      allow_redirects=False, **kwargs) as r:  # type: ignore[arg-type]
                retried = getattr(r.raw, "retries", None)
                self.requests_made += 1 + (len(retried.history) if retried is not None else 0)
                declared = r.headers.get("Content-Length")
                if declared and declared.isdigit() and int(declared) > self.max_bytes:
                    raise SourceError(f"response of {declared} bytes is over the "
                                      f"{self.max_bytes}-byte limit", where=url)
                chunks, size = [], 0
                for chunk in r.iter_content(65536):
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise SourceError(f"response is over the {self.max_bytes}-byte limit",
                                          where=url)
                    if time.monotonic() - started > self.deadline:
                        raise SourceError(f"response took longer than {self.deadline:g} s",
                                          where=url, retry_after=60)
                    chunks.append(chunk)
                self.bytes_read += size + _header_size(r)
                return Response(url=r.url, status=r.status_code, headers=r.headers,
                                content=b"".join(chunks))
        except PrivateAddressError as exc:
            raise exc.at(url) from None
        except requests.Timeout:
            raise SourceError(f"no answer within {self.timeout[1]:g} s", where=url,
                              retry_after=60) from None
        except requests.ConnectionError as exc:
            reason = getattr(exc.args[0], "reason", None) if exc.args else None
            if isinstance(reason, ReadTimeoutError):
                raise SourceError(f"no answer within {self.timeout[1]:g} s", where=url,
                                  retry_after=60) from None
            raise SourceError(f"cannot connect ({type(exc).__name__})", where=url,
                              retry_after=60) from None

    def _finished(self, host: str) -> None:
        """The interval runs from the end of an answer: a slow forum is asked less often."""
        if self.min_interval > 0:
            with _host_lock:
                _host_next[host] = max(_host_next.get(host, 0.0),
                                       time.monotonic() + self.min_interval)

    def _wait_turn(self, host: str) -> None:
        if self.min_interval <= 0:
            return
        with _host_lock:
            now = time.monotonic()
            at = max(now, _host_next.get(host, 0.0))
            _host_next[host] = at + self.min_interval
        wait = at - now
        if self.budget is not None:
            # the slot shared with other processes; the local one still holds the interval
            # from the end of this process's last answer
            wait = max(wait, self.budget.reserve(f"host:{host}", self.min_interval))
        if wait > 0:
            self.sleep(wait)


@functools.lru_cache(maxsize=32)
def _parse_private(text: str | None) -> PrivateHosts:
    """The operator's allow-list, parsed once per process per setting (a client is built
    on every poll: SCALE-3)."""
    return PrivateHosts.parse(text)


#: the (allow-list, retries) a session's guarded adapter was mounted with
_GUARD_ATTR = "_pbp_guard"


def _guard(session: requests.Session, allow: PrivateHosts, retries: int) -> None:
    """Mount the guarded adapter on *session*, once (SCALE-3): a session shared per host
    and account (:func:`pbp.sources.forum_session.shared_session`) keeps its adapter and
    with it its pool of open connections, so a poll reuses the last poll's connection
    instead of opening a new one. A client asking for another allow-list or retry count
    mounts a fresh adapter (the old pool is closed)."""
    want = (allow, retries)
    if getattr(session, _GUARD_ATTR, None) == want:
        return
    # Transient failures only (connection reset, 502-504) and only for GET; a 429 is
    # the forum asking us to slow down: it goes back to the caller with its delay.
    retry = Retry(total=retries, connect=retries, read=0, status=retries,
                  backoff_factor=0.5, status_forcelist=(502, 503, 504),
                  allowed_methods=frozenset({"GET", "HEAD"}), raise_on_status=False,
                  respect_retry_after_header=False, redirect=False)
    adapter = GuardedAdapter(allow, max_retries=retry)
    for prefix in ("http://", "https://"):
        old = session.adapters.get(prefix)
        session.mount(prefix, adapter)
        if old is not None and old is not adapter:
            old.close()
    setattr(session, _GUARD_ATTR, want)


def _header_size(r: requests.Response) -> int:
    return 12 + sum(len(k) + len(v) + 4 for k, v in r.headers.items())

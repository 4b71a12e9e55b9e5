"""What went wrong talking to Reddit, said for a narrator, and how long to stay away.

Why its own module: praw/prawcore raise a dozen exception types (some carry an HTML
page as their message); workers only want :class:`~pbp.sources.base.SourceError` with
``where`` (method and URL), ``retry_after`` and ``retryable``. :class:`Backoff` holds one
source's waiting state so a 429 delays that source and nothing else.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import prawcore
from praw.exceptions import RedditAPIException

from .base import SourceError
from .outbound import PrivateAddressError
from .reddit_client import QuotaDeferred, ResponseTooLarge, ResponseTooSlow

_TITLE = re.compile(r"<title>\s*([^<]{1,200}?)\s*</title>", re.IGNORECASE)
_RATELIMIT = re.compile(r"(\d+)\s+(millisecond|second|minute)", re.IGNORECASE)


def _body_summary(response: Any) -> str:
    """A short, safe description of a response body (HTML pages reduced to their title)."""
    ctype = response.headers.get("content-type", "") or ""
    text = response.text if response is not None else ""
    if "html" in ctype.lower() or text.lstrip().startswith("<"):
        m = _TITLE.search(text[:4096])
        title = html.unescape(m.group(1)) if m else "an HTML page"
        return f"an HTML page titled {title!r}"
    return repr(text[:120])


def _where(response: Any) -> str:
    request = getattr(response, "request", None)
    method = getattr(request, "method", None) or "GET"
    return f"{method} {getattr(response, 'url', '?')}"


def _seconds(value: Any) -> float | None:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if seconds >= 0 else None


def translate(exc: BaseException, where: str, *, posting: bool = False) -> SourceError:
    """One :class:`SourceError` for any praw / prawcore / transport failure: what Reddit
    answered (:func:`_answered`), that it could not be reached (:func:`_unreachable`), or
    what its API refused (:func:`_refused`)."""
    if isinstance(exc, SourceError):
        return exc
    if isinstance(exc, QuotaDeferred):
        return SourceError(str(exc), where=where, retry_after=exc.wait)
    if isinstance(exc, prawcore.OAuthException):
        return SourceError(f"Reddit login failed: {exc}", where=where)
    if isinstance(exc, prawcore.ResponseException):
        return _answered(exc)
    if isinstance(exc, prawcore.RequestException):
        return _unreachable(exc, where, posting)
    if isinstance(exc, RedditAPIException):
        return _refused(exc, where)
    return SourceError(f"unexpected {type(exc).__name__}: {exc}", where=where)


def _answered(exc: prawcore.ResponseException) -> SourceError:
    """An HTTP answer prawcore raised on, by status: the body is summarised, never dumped."""
    where = _where(exc.response)
    if isinstance(exc, prawcore.TooManyRequests):
        wait = _seconds(exc.retry_after)
        said = _body_summary(exc.response)
        return SourceError(
            f"Reddit answered 429 Too Many Requests with {said}"
            + (f"; retry after {wait:g} s" if wait is not None else "; no retry-after given"),
            where=where, retry_after=wait, retryable=True)
    if isinstance(exc, prawcore.NotFound):
        return SourceError("Reddit says this does not exist (404): a deleted submission or a "
                           "misspelt subreddit?", where=where)
    if isinstance(exc, prawcore.Forbidden):
        return SourceError("Reddit refused access (403): a private, quarantined or banned "
                           "subreddit, or the bot account lacks the right", where=where)
    if isinstance(exc, prawcore.ServerError):
        return SourceError(f"Reddit had a server error ({exc.response.status_code})",
                           where=where, retryable=True)
    if isinstance(exc, prawcore.BadJSON):
        return SourceError(f"Reddit answered something that is not JSON: "
                           f"{_body_summary(exc.response)}", where=where, retryable=True)
    if exc.response.status_code == 429:
        # a 429 prawcore did not classify (the token endpoint: JSON, no retry-after)
        wait = _seconds(exc.response.headers.get("retry-after"))
        return SourceError(f"Reddit answered 429 Too Many Requests with "
                           f"{_body_summary(exc.response)}", where=where,
                           retry_after=wait, retryable=True)
    return SourceError(f"Reddit answered HTTP {exc.response.status_code} with "
                       f"{_body_summary(exc.response)}", where=where,
                       retryable=exc.response.status_code >= 500)


def _unreachable(exc: prawcore.RequestException, where: str, posting: bool) -> SourceError:
    """No answer: too large, too slow, or the transport failed. A post whose answer was
    lost may have gone through, so it says to look for the marker before posting again."""
    original = exc.original_exception
    url = f"{exc.request_args[0]} {exc.request_args[1]}" if len(exc.request_args) >= 2 else where
    if isinstance(original, PrivateAddressError):   # nothing was sent: permanent, never "lost"
        return original.at(url)
    if isinstance(original, ResponseTooLarge):
        return SourceError(f"response too large: {original}", where=url)
    if isinstance(original, ResponseTooSlow):
        return SourceError(f"response too slow: {original}", where=url, retryable=True)
    if posting:
        lost = SourceError(f"the answer to a post was lost ({type(original).__name__}); it may "
                           "have been posted: check find_reply(marker) before posting again",
                           where=url, retryable=True)
        lost.answer_lost = True   # type: ignore[attr-defined]
        return lost
    return SourceError(f"could not reach Reddit ({type(original).__name__}: {original})",
                       where=url, retryable=True)


def _refused(exc: RedditAPIException, where: str) -> SourceError:
    """An API error in a 200 answer; RATELIMIT says how long to wait in words."""
    for item in exc.items:
        if item.error_type == "RATELIMIT":
            m = _RATELIMIT.search(item.message or "")
            wait = 60.0
            if m:
                n, unit = int(m.group(1)), m.group(2).lower()
                wait = {"millisecond": 1.0, "second": float(n), "minute": 60.0 * n}[unit]
            return SourceError(f"Reddit rate limit: {item.message}", where=where, retry_after=wait)
    return SourceError(f"Reddit refused: {exc}", where=where)


@dataclass
class Backoff:
    """When one source may call Reddit again. ``retry_after`` wins; else exponential.

    >>> b = Backoff("r/dnd", clock=lambda: 100.0)
    >>> b.failed(None), b.failed(None), b.failed(4.0)
    (30.0, 60.0, 4.0)
    >>> b.remaining()
    4.0
    """

    key: str
    base: float = 30.0
    cap: float = 900.0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    until: float = 0.0
    failures: int = 0
    last_error: SourceError | None = None

    def remaining(self) -> float:
        return max(0.0, self.until - self.clock())

    def check(self) -> None:
        """Raise (without touching the network) while this source must wait."""
        wait = self.remaining()
        if wait > 0:
            said = f" after: {self.last_error}" if self.last_error else ""
            raise SourceError(f"backing off for {wait:.1f} s more{said}", where=self.key,
                              retry_after=wait)

    def failed(self, retry_after: float | None) -> float:
        self.failures += 1
        wait = retry_after if retry_after is not None else min(self.cap, self.base * 2 ** (self.failures - 1))
        self.until = self.clock() + wait
        return wait

    def note(self, error: SourceError) -> SourceError:
        """Record *error* if it says to wait; return it for raising."""
        if error.retryable:
            self.failed(error.retry_after)
            self.last_error = error
        return error

    def succeeded(self) -> None:
        self.failures, self.until, self.last_error = 0, 0.0, None

"""The small protocol every source implements (forum, Reddit, scenario file).

Why a protocol and plain values: workers and tests drive any source the same way,
and a source's output can be stored as is. A source is a thin edge: it reads what
is new, edited or deleted since a cursor, and posts replies; it never parses
declarations and never calls the rules engine.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from ..errors import PbpError
from ..parse.normalise import normalise
from ..parse.regions import mask
from ..parse.regions import scan as scan_regions

Change = Literal["new", "edited", "deleted"]

#: every reply of ours ends with one (:func:`pbp.rounds.replies.marker_for`)
REPLY_MARKER = re.compile(r"pbp-reply:[\w:.-]+")


def revision_hash(body: str) -> str:
    """Content hash of a post body: equal bodies, equal hashes (edits are hash changes)."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _storable(text: str) -> str:
    """*text* with each lone surrogate as U+FFFD (a pair written as two code points joined)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


@dataclass(frozen=True)
class PostRecord:
    """One post as a source saw it.

    ``body`` is the platform's markup (HTML for forums, Markdown for Reddit);
    ``text`` is the same as plain text; ``fmt`` tells the parser which normaliser
    to use (``html``, ``bbcode``, ``markdown``, ``text``). ``posted_at`` is UTC.
    """

    platform_id: str
    author: str
    posted_at: datetime
    body: str
    text: str
    fmt: str = "html"
    change: Change = "new"
    revision: str = ""
    edited_at: datetime | None = None
    url: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: the source's own bot account wrote it (the source compared the author with the
    #: account it posts as; only the source knows that account)
    by_bot: bool = False

    def __post_init__(self) -> None:
        # a NUL character or a lone surrogate (a hostile or broken post; a JSON API's
        # "\ud83d" alone) becomes U+FFFD: neither can be stored (PostgreSQL's text holds
        # no NUL, UTF-8 no surrogate), and the whole batch failed at every poll, so the
        # round stalled. ASCII text (the usual) is known clean at once.
        for name in ("platform_id", "author", "body", "text", "url"):
            value = getattr(self, name)
            if value and not value.isascii():
                value = _storable(value)
            if value and "\x00" in value:
                value = value.replace("\x00", "\ufffd")
            if value is not getattr(self, name):
                object.__setattr__(self, name, value)
        if not self.revision:
            object.__setattr__(self, "revision", revision_hash(self.body))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PostRecord:
        """A record sent as JSON (a task argument): the same fields, times in ISO 8601."""
        d = dict(data)
        d["posted_at"] = datetime.fromisoformat(d["posted_at"])
        if d.get("edited_at"):
            d["edited_at"] = datetime.fromisoformat(d["edited_at"])
        return cls(**d)


@dataclass(frozen=True)
class FetchResult:
    """What one fetch found, and the cursor to pass next time.

    The cursor is opaque JSON-able data owned by the source (last post id, page,
    ETag, seen revisions...). A caller stores it only after the posts are stored,
    so a crash between the two re-reads instead of losing posts.
    """

    posts: Sequence[PostRecord]
    cursor: Mapping[str, Any]
    requests: int = 0           # HTTP requests this fetch cost (for benchmarks and status)
    bytes: int = 0
    not_modified: bool = False  # the platform said nothing changed (304, same listing)


class SourceError(PbpError):
    """A platform problem, said for a narrator: what failed, where, and whether to retry.

    ``retry_after`` is seconds to wait (429 retry-after, flood control), or None when
    retrying will not help (404 thread, login refused, layout changed).
    """

    def __init__(self, message: str, *, where: str | None = None,
                 retry_after: float | None = None, retryable: bool = False) -> None:
        super().__init__(message, where=where)
        self.retry_after = retry_after
        self.retryable = retryable or retry_after is not None


class LayoutError(SourceError):
    """A selector matched nothing on a page that should have posts: names selector and URL."""


class SentUnconfirmed(SourceError):
    """The platform accepted a reply, but pbp could not see it in the thread yet.

    Why its own class: posting again would double the reply. The outbox keeps such a
    reply ``sending`` and later attempts only look for its marker
    (:meth:`Source.find_reply`); they never post it again by themselves."""

    def __init__(self, message: str = "the reply was sent but does not show in the thread yet",
                 *, where: str | None = None, retry_after: float = 60.0) -> None:
        super().__init__(message, where=where, retry_after=retry_after)


def same_account(author: str | None, bot: str | None) -> bool:
    """Whether *author* is the bot's account: case-insensitive, a ``u/`` prefix ignored;
    never when the source does not know its account.

    >>> same_account("PBP_Bot", "u/pbp_bot"), same_account("pbp_bot", None)
    (True, False)
    """
    a, b = _account_name(author or ""), _account_name(bot or "")
    return bool(a and b) and a == b


def _account_name(name: str) -> str:
    name = name.strip().casefold()
    for prefix in ("/u/", "u/"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def own_words(record: PostRecord) -> str:
    """What the author wrote themselves: the post with every quote blanked out.

    Why: the forum's Quote button copies our reply, marker and all, into a player's
    post. A source that cut the quotes out of ``text`` says so with
    ``extra["quotes"]`` (forums: the preset's quote selector); otherwise the body is
    read in its own format and its quotes found the way the parser finds them (BBCode
    ``[quote]``, HTML ``<blockquote>``, Markdown and Reddit ``>`` lines).

    >>> own_words(PostRecord("1", "ana", datetime(2026, 1, 1), "> pbp-reply:1:x\\nok", "", "markdown")).strip()
    'ok'
    """
    if "quotes" in record.extra:
        text, fmt = record.text, "text"
    else:
        text, fmt = record.body, record.fmt
    normalised = normalise(text, fmt)
    return mask(normalised, [s for s in scan_regions(normalised, fmt).spans if s.kind == "quote"])


def carries_marker(record: PostRecord, marker: str | None = None) -> bool:
    """*marker* (any reply marker when None) in the post's own words, outside quotes."""
    words = own_words(record)
    return marker in words if marker else REPLY_MARKER.search(words) is not None


def is_bot_reply(record: PostRecord, bot: str | None, marker: str | None = None) -> bool:
    """Ours: written by the bot's account AND carrying the marker outside quotes. Never the
    marker alone (a player can type or quote it), never the author alone."""
    return same_account(record.author, bot) and carries_marker(record, marker)


def mark_bot_posts(posts: Sequence[PostRecord], bot: str | None) -> list[PostRecord]:
    """*posts* with ``by_bot`` set on those the bot's account wrote (for the ingest)."""
    return [dataclasses.replace(p, by_bot=True) if same_account(p.author, bot) else p
            for p in posts]


@runtime_checkable
class Source(Protocol):
    """A thread (or submission) pbp watches."""

    def fetch(self, cursor: Mapping[str, Any] | None) -> FetchResult:
        """New, edited and deleted posts since *cursor* (None: from the start)."""
        ...

    def reply(self, text: str, marker: str, *, in_reply_to: str | None = None) -> str:
        """Post *text* (which contains *marker*) and return the new post's platform id."""
        ...

    def find_reply(self, marker: str) -> str | None:
        """The platform id of an existing post of the bot's account holding *marker* in
        its own words (:func:`is_bot_reply`), or None.

        Checked before posting again, so a reply whose answer was lost is not doubled; a
        player's post quoting or typing the marker never counts.
        """
        ...

    def bot_account(self) -> str | None:
        """The name the platform shows on the bot's posts (None: not known)."""
        ...

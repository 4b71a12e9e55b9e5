"""Reddit comments -> :class:`~pbp.sources.base.PostRecord`, and the per-submission cursor.

Why apart from the fetching: the same diff (new / edited / deleted against what the
cursor has seen) serves the subreddit listing, a comment tree and ``/api/info``; it is
pure, so it is tested without a server.

The cursor (JSON-able, stored by the caller after the posts):

``{"v": 1, "through": 1696754768.0, "n": 12, "seen": {"k3yrfii": [created, edited, hash, state, author]}}``

* ``through``: every comment of the submission created at or before this time has been
  seen (listing or tree coverage); ``None`` until the first full read.
* ``n``: the submission's ``num_comments`` when last known (screens gap fills).
* ``rc``: when comments that left the listing window were last re-read for edits.
* ``seen``: bounded (:data:`MAX_SEEN`, newest kept); ``edited`` is Reddit's edited time or
  0, ``hash`` the first 16 hex of the body's SHA-256 (catches edits inside Reddit's
  grace period, which leave ``edited`` false), ``state`` ``live`` or ``deleted``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .base import PostRecord, revision_hash

CURSOR_VERSION = 1
MAX_SEEN = 5000
DELETED_BODIES = {"[deleted]": "deleted", "[removed]": "removed"}
_TAG = re.compile(r"<[^<>]{0,2000}>")


@dataclass
class Seen:
    created: float
    edited: float
    digest: str
    state: str
    author: str

    def dump(self) -> list[Any]:
        return [self.created, self.edited, self.digest, self.state, self.author]


@dataclass
class CursorState:
    through: float | None = None
    num_comments: int | None = None
    seen: dict[str, Seen] = field(default_factory=dict)
    rechecked: float | None = None

    @classmethod
    def load(cls, cursor: Mapping[str, Any] | None) -> CursorState:
        """Read a cursor without keeping a reference to the caller's mapping."""
        if not cursor:
            return cls()
        seen = {k: Seen(float(v[0]), float(v[1]), str(v[2]), str(v[3]), str(v[4]))
                for k, v in dict(cursor.get("seen", {})).items()}
        through = cursor.get("through")
        n, rc = cursor.get("n"), cursor.get("rc")
        return cls(None if through is None else float(through), None if n is None else int(n), seen,
                   None if rc is None else float(rc))

    def dump(self) -> dict[str, Any]:
        seen = self.seen
        if len(seen) > MAX_SEEN:
            keep = sorted(seen, key=lambda k: seen[k].created)[-MAX_SEEN:]
            seen = {k: seen[k] for k in keep}
        return {"v": CURSOR_VERSION, "through": self.through, "n": self.num_comments,
                "rc": self.rechecked, "seen": {k: v.dump() for k, v in seen.items()}}

    def advance(self, when: float | None) -> None:
        if when is not None and (self.through is None or when > self.through):
            self.through = when


def new_cursor(*, through: float | None = None, num_comments: int | None = None) -> dict[str, Any]:
    """A cursor for a submission watched from *through* on (e.g. its creation time, when
    the bot made it): nothing older is looked for, so no first-time tree read is needed.
    *num_comments* (0 for a fresh submission) lets a later gap be screened cheaply."""
    return CursorState(through=through, num_comments=num_comments).dump()


def _utc(ts: float) -> datetime:
    return datetime.fromtimestamp(float(ts), tz=UTC)


def html_to_text(body_html: str | None, fallback: str) -> str:
    if not body_html:
        return fallback
    text = re.sub(r"</(p|li|blockquote|h\d|pre|tr)>|<br\s*/?>", "\n", body_html)
    return html.unescape(_TAG.sub("", text)).strip()


def author_name(comment: Any) -> str:
    author = getattr(comment, "author", None)
    if author is None:
        return "[deleted]"
    return str(getattr(author, "name", author))


def edited_time(comment: Any) -> float:
    edited = getattr(comment, "edited", False)
    return float(edited) if edited not in (False, None, True) else (1.0 if edited is True else 0.0)


def to_record(comment: Any, change: str = "new") -> PostRecord:
    """A praw ``Comment`` as a post (``fmt="markdown"``)."""
    body = str(getattr(comment, "body", ""))
    edited = edited_time(comment)
    parent = str(getattr(comment, "parent_id", ""))
    permalink = getattr(comment, "permalink", None)
    return PostRecord(
        platform_id=str(comment.id), author=author_name(comment),
        posted_at=_utc(comment.created_utc), body=body,
        text=html_to_text(getattr(comment, "body_html", None), body), fmt="markdown",
        change=change,  # type: ignore[arg-type]
        edited_at=_utc(edited) if edited > 1.0 else None,
        url=f"https://www.reddit.com{permalink}" if permalink else None,
        extra={"parent_id": parent, "link_id": str(getattr(comment, "link_id", "")),
               "reply_to_submission": parent.startswith("t3_"),
               "deleted": DELETED_BODIES.get(body) if change == "deleted" else None},
    )


def vanished_record(cid: str, seen: Seen) -> PostRecord:
    """A seen comment that a complete read no longer shows: deleted without a trace."""
    return PostRecord(platform_id=cid, author=seen.author, posted_at=_utc(seen.created),
                      body="[deleted]", text="", fmt="markdown", change="deleted",
                      extra={"deleted": "vanished"})


def diff(state: CursorState, comments: Iterable[Any], *,
         complete_after: float | None = None, complete: bool = False) -> list[PostRecord]:
    """Posts that are new, edited or deleted in *comments* against *state* (updated).

    *complete*: *comments* hold every live comment of the submission, so a seen live one
    that is missing was deleted. *complete_after*: the same, but only for comments created
    after that time (a full listing window).
    """
    out: list[PostRecord] = []
    present: set[str] = set()
    for c in sorted(comments, key=lambda c: (c.created_utc, c.id)):
        cid = str(c.id)
        if cid in present:
            continue
        present.add(cid)
        body = str(getattr(c, "body", ""))
        gone = body in DELETED_BODIES
        digest = revision_hash(body)[:16]
        edited = edited_time(c)
        prev = state.seen.get(cid)
        if prev is None:
            state.seen[cid] = Seen(float(c.created_utc), edited, digest,
                                   "deleted" if gone else "live", author_name(c))
            if not gone:
                out.append(to_record(c, "new"))
            continue
        if prev.state == "deleted":
            continue
        if gone:
            prev.state, prev.digest = "deleted", digest
            out.append(to_record(c, "deleted"))
        elif digest != prev.digest or edited != prev.edited:
            prev.digest, prev.edited = digest, edited
            out.append(to_record(c, "edited"))
    if complete or complete_after is not None:
        for cid, seen in state.seen.items():
            if cid in present or seen.state != "live":
                continue
            if complete or seen.created > float(complete_after):  # type: ignore[arg-type]
                seen.state = "deleted"
                out.append(vanished_record(cid, seen))
    return out

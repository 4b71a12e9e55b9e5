"""One Reddit submission: its id in any URL form, its subreddit, its whole comment tree.

>>> parse_submission_id("https://www.reddit.com/r/dnd/comments/4b1tfm/my_fight/")
'4b1tfm'
>>> parse_submission_id("t3_4b1tfm"), parse_submission_id("https://redd.it/4b1tfm")
('4b1tfm', '4b1tfm')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import praw

from ..errors import ConfigError
from .reddit_errors import translate

_SUBMISSION = re.compile(
    r"^(?:t3_)?([a-z0-9]{1,12})$"
    r"|/comments/([a-z0-9]{1,12})(?:/|$)"
    r"|^https?://redd\.it/([a-z0-9]{1,12})/?$", re.IGNORECASE)


def parse_submission_id(target: str) -> str:
    """The base36 id in a submission URL, fullname or bare id."""
    m = _SUBMISSION.search(target.strip())
    if not m:
        raise ConfigError("not a Reddit submission URL or id", where=target)
    return next(g for g in m.groups() if g).lower()


_SUBREDDIT = re.compile(r"/r/([A-Za-z0-9_]{2,21})/comments/", re.IGNORECASE)


def subreddit_of(target: str, reddit: praw.Reddit | None = None) -> str:
    """The subreddit of a watched submission: from its URL, else one API call.

    >>> subreddit_of("https://old.reddit.com/r/DnD/comments/4b1tfm/x/")
    'DnD'
    """
    m = _SUBREDDIT.search(target)
    if m:
        return m.group(1)
    if reddit is None:
        raise ConfigError("the URL does not name its subreddit; a client is needed to ask", where=target)
    sid = parse_submission_id(target)
    try:
        return str(reddit.submission(id=sid).subreddit.display_name)
    except Exception as exc:
        raise translate(exc, f"GET /comments/{sid}/") from exc


@dataclass
class Tree:
    """A submission's comments as one read saw them."""

    comments: list[Any]
    complete: bool
    num_comments: int | None
    newest: float | None


def read_tree(reddit: praw.Reddit, submission_id: str, *, max_more: int | None = 32) -> Tree:
    """``GET /comments/ID/`` plus ``/api/morechildren`` for each ``MoreComments`` (up to
    *max_more* of them); praw puts the flat morechildren answers back into the tree."""
    submission = reddit.submission(id=submission_id)
    submission.comment_sort = "old"
    submission.comment_limit = 500
    forest = submission.comments
    skipped = forest.replace_more(limit=max_more)
    comments: list[Any] = forest.list()   # no MoreComments left after replace_more
    newest = max((c.created_utc for c in comments), default=None)
    return Tree(comments, not skipped, getattr(submission, "num_comments", None), newest)

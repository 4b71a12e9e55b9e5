"""Reddit submissions as sources: one listing per subreddit per cycle, trees only for gaps.

Why two classes: a watched combat thread is a Reddit *submission*; Reddit's quota is 100
calls a minute per client, and 1,000 watched submissions read one by one would need
1,000+ calls a cycle. :class:`SubredditPoller` reads ``/r/NAME/comments/?limit=100`` once
per cycle and hands each comment to its submission by ``link_id``; only when that window
does not reach back to where a submission's cursor stopped (a *gap*) does it read that
submission's comment tree (``MoreComments`` expanded, re-nested by praw). A gap is first
screened with one ``/api/info`` call per 100 submissions: a submission whose
``num_comments`` did not change needs no tree.

:class:`RedditSource` is the :class:`~pbp.sources.base.Source` for one submission: its
``fetch`` reads the whole tree (simple, complete, and the per-submission baseline the
benchmark compares against), ``reply`` posts under the submission or a comment, and
``find_reply`` finds a reply by its marker, so a reply whose answer was lost is not doubled.

Both share the cursor format of :mod:`pbp.sources.reddit_records`, so a thread can move
between them. Errors are :class:`~pbp.sources.base.SourceError`; a 429 (even with an HTML
body) sets only that poller's / source's :class:`~pbp.sources.reddit_errors.Backoff`, and
nothing sleeps.

A submission's id, subreddit and comment tree are read in :mod:`pbp.sources.reddit_tree`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import praw

from ..settings import Settings
from .base import FetchResult, PostRecord, SourceError, is_bot_reply, mark_bot_posts
from .reddit_client import RedditConfig, make_reddit, request_count
from .reddit_errors import Backoff, translate
from .reddit_markdown import MAX_COMMENT_CHARS
from .reddit_records import CursorState, diff, new_cursor, to_record
from .reddit_tree import parse_submission_id, read_tree, subreddit_of

__all__ = [
    "PollResult",
    "RedditSource",
    "SubredditPoller",
    "new_cursor",
    "parse_submission_id",
    "subreddit_of",
]

@dataclass
class PollResult:
    """One cycle of a subreddit: a result per watched submission that was read, an error
    per submission that could not be (its cursor must stay where it was)."""

    results: dict[str, FetchResult]
    errors: dict[str, SourceError] = field(default_factory=dict)
    requests: int = 0
    gaps: list[str] = field(default_factory=list)        # submissions that had a gap
    tree_reads: list[str] = field(default_factory=list)  # of those, read as a tree
    deferred: list[str] = field(default_factory=list)    # over max_tree_reads: next cycle


@dataclass(frozen=True)
class _Window:
    """One listing call: the subreddit's newest comments by submission; *full* when it
    returned as many as asked, so older comments may be missing from it."""

    full: bool
    oldest: float | None
    newest: float | None
    by_link: dict[str, list[Any]]

    def gaps(self, states: Mapping[str, CursorState]) -> list[str]:
        """Submissions the window may not reach back far enough for."""
        # >=: a comment made in the same second as `through`, after that read, may sit
        # just outside the window
        return [sid for sid, st in states.items()
                if self.full and (st.through is None or float(self.oldest) >= st.through)]  # type: ignore[arg-type]


class SubredditPoller:
    """All watched submissions of one subreddit, one listing call per cycle.

    ``poll(cursors)`` takes ``{submission_id: cursor or None}`` and returns a
    :class:`PollResult`; the caller stores each result's posts, then its cursor. Nothing
    the caller passed is mutated. Stateless between cycles apart from :attr:`backoff`.
    """

    def __init__(self, reddit: praw.Reddit, subreddit: str, *, limit: int = 100,
                 max_more: int | None = 32, recheck_window: float = 6 * 3600,
                 recheck_interval: float = 600.0, max_tree_reads: int = 50,
                 screen_gaps: bool = True, backoff: Backoff | None = None,
                 clock: Callable[[], float] = time.time,
                 on_error: Callable[[str, SourceError], None] | None = None) -> None:
        self.reddit = reddit
        self.subreddit = subreddit.removeprefix("r/")
        self.limit = limit
        self.max_more = max_more
        self.recheck_window = recheck_window
        self.recheck_interval = recheck_interval
        self.max_tree_reads = max_tree_reads
        self.screen_gaps = screen_gaps
        self.backoff = backoff or Backoff(f"reddit r/{self.subreddit}")
        self.clock = clock
        self.on_error = on_error

    @classmethod
    def from_settings(cls, subreddit: str, options: Mapping[str, Any], settings: Settings,
                      **kwargs: Any) -> SubredditPoller:
        """A poller on the process's shared client for these credentials (secrets) and
        *options* (``oauth_url``, ``reddit_url``, ``timeout``, ``max_bytes``...)."""
        return cls(make_reddit(RedditConfig.from_settings(settings, options)), subreddit, **kwargs)

    @property
    def where(self) -> str:
        return f"GET /r/{self.subreddit}/comments/"

    def poll(self, cursors: Mapping[str, Mapping[str, Any] | None]) -> PollResult:
        self.backoff.check()
        start = request_count(self.reddit)
        window = self._read_window()
        states = {sid: CursorState.load(cur) for sid, cur in cursors.items()}
        posts: dict[str, list[PostRecord]] = {sid: [] for sid in states}
        out = PollResult(results={}, gaps=window.gaps(states))
        self._take_window(window, states, posts, out.gaps)
        self._fill_gaps(window, states, posts, out)
        self._report(states, posts, out)
        out.requests = request_count(self.reddit) - start
        return out

    # -- the steps of a poll
    def _read_window(self) -> _Window:
        """The one listing call: the subreddit's newest comments, by submission."""
        try:
            listing = list(self.reddit.subreddit(self.subreddit).comments(limit=self.limit))
        except Exception as exc:
            raise self.backoff.note(translate(exc, self.where)) from exc
        by_link: dict[str, list[Any]] = defaultdict(list)
        for c in listing:
            by_link[str(c.link_id)[3:]].append(c)
        return _Window(full=len(listing) >= self.limit, by_link=by_link,
                       oldest=min((c.created_utc for c in listing), default=None),
                       newest=max((c.created_utc for c in listing), default=None))

    def _take_window(self, window: _Window, states: dict[str, CursorState],
                     posts: dict[str, list[PostRecord]], gaps: list[str]) -> None:
        """What the listing shows of each submission; a submission without a gap is then
        read through the window's newest comment."""
        full, oldest, newest = window.full, window.oldest, window.newest
        for sid, st in states.items():
            mine = window.by_link.get(sid, [])
            if sid in gaps:
                # what the window shows still counts; the tree (if read) adds the rest
                unseen = any(str(c.id) not in st.seen for c in mine)
                posts[sid] += diff(st, mine)
                if unseen:
                    st.num_comments = None    # something new: the count screen cannot help
                continue
            posts[sid] += diff(st, mine, complete=not full, complete_after=oldest if full else None)
            if mine:
                st.num_comments = getattr(mine[0], "num_comments", st.num_comments)
            elif not full:
                st.num_comments = 0    # the listing is the whole history and has none of it
            st.advance(newest if newest is not None else (st.through or 0.0))

    def _fill_gaps(self, window: _Window, states: dict[str, CursorState],
                   posts: dict[str, list[PostRecord]], out: PollResult) -> None:
        """Recent edits out of the window, then the gap submissions' trees (bounded)."""
        try:
            self._recheck(states, out.gaps, posts, window.oldest if window.full else None)
            trees = self._screen(states, out.gaps, window.newest)
            # bound one cycle's cost; the rest keep their cursor's `through`, so they are
            # still gaps next cycle (their listing comments are reported now all the same)
            out.tree_reads, out.deferred = trees[:self.max_tree_reads], trees[self.max_tree_reads:]
            for sid in out.deferred:
                states[sid].num_comments = None
            self._read_trees(states, posts, out, window.newest)
        except SourceError as err:   # recheck or screen failed: the listing results stand
            self.backoff.note(err)
            for sid in out.gaps:
                out.errors.setdefault(sid, err)

    def _read_trees(self, states: dict[str, CursorState], posts: dict[str, list[PostRecord]],
                    out: PollResult, newest: float | None) -> None:
        for n, sid in enumerate(out.tree_reads):
            try:
                self._fill(sid, states[sid], posts[sid], newest)
            except SourceError as err:
                out.errors[sid] = err
                if err.retry_after is not None:   # 429: no more gap fills this cycle
                    for rest in out.tree_reads[n + 1:]:
                        out.errors[rest] = err
                    break

    def _report(self, states: dict[str, CursorState], posts: dict[str, list[PostRecord]],
                out: PollResult) -> None:
        """A result per submission that had no error (errors go to ``on_error``); the
        backoff learns whether the cycle went well."""
        for sid, st in states.items():
            if sid in out.errors:
                if self.on_error:
                    self.on_error(sid, out.errors[sid])
                continue
            out.results[sid] = FetchResult(posts=mark_bot_posts(posts[sid], bot_name(self.reddit)),
                                           cursor=st.dump())
        if out.errors:
            if self.backoff.remaining() <= 0:
                self.backoff.note(next(iter(out.errors.values())))
        else:
            self.backoff.succeeded()

    # -- the parts
    def _recheck(self, states: dict[str, CursorState], gaps: list[str],
                 posts: dict[str, list[PostRecord]], window_start: float | None) -> None:
        """Edits and deletions of recent comments (younger than ``recheck_window``) that
        fell out of the listing window: ``/api/info``, 100 comments a call across all
        submissions, at most once per ``recheck_interval`` per submission."""
        if window_start is None or self.recheck_window <= 0:
            return
        now = self.clock()
        horizon = now - self.recheck_window
        owner: dict[str, str] = {}
        due = [sid for sid, st in states.items() if sid not in gaps
               and (st.rechecked is None or st.rechecked <= now - self.recheck_interval)]
        for sid in due:
            for cid, seen in states[sid].seen.items():
                if seen.state == "live" and horizon <= seen.created <= window_start:
                    owner[f"t1_{cid}"] = sid
        if owner:
            found: dict[str, list[Any]] = defaultdict(list)
            try:
                for thing in self.reddit.info(fullnames=list(owner)):
                    found[owner[thing.fullname]].append(thing)
            except Exception as exc:
                raise translate(exc, "GET /api/info") from exc
            for sid, things in found.items():
                posts[sid] += diff(states[sid], things)
        for sid in due:
            states[sid].rechecked = now

    def _screen(self, states: dict[str, CursorState], gaps: list[str],
                newest: float | None) -> list[str]:
        """Of the gap submissions, those that need a tree read: never read, or whose
        ``num_comments`` moved (one ``/api/info`` call per 100 submissions)."""
        if not self.screen_gaps:
            return list(gaps)
        known = [sid for sid in gaps if states[sid].through is not None and states[sid].num_comments is not None]
        counts: dict[str, int] = {}
        if known:
            try:
                for thing in self.reddit.info(fullnames=[f"t3_{sid}" for sid in known]):
                    counts[str(thing.id)] = int(thing.num_comments)
            except Exception as exc:
                raise translate(exc, "GET /api/info") from exc
        trees = []
        for sid in gaps:
            st = states[sid]
            if sid in counts and counts[sid] == st.num_comments:
                # nothing was added in the gap; what the listing shows still counts
                st.advance(newest)
                continue
            trees.append(sid)
        return trees

    def _fill(self, sid: str, st: CursorState, posts: list[PostRecord], newest: float | None) -> None:
        try:
            tree = read_tree(self.reddit, sid, max_more=self.max_more)
        except Exception as exc:
            raise translate(exc, f"GET /comments/{sid}/") from exc
        posts += diff(st, tree.comments, complete=tree.complete)
        if tree.num_comments is not None:
            st.num_comments = tree.num_comments
        if tree.complete:
            st.advance(max(x for x in (newest, tree.newest, 0.0) if x is not None))


class RedditSource:
    """One watched submission as a :class:`~pbp.sources.base.Source`.

    ``fetch`` reads the whole comment tree (use :class:`SubredditPoller` to watch many
    submissions cheaply; the cursors are the same). ``reply`` posts *text* under the
    submission, or under the comment ``in_reply_to``; ``find_reply`` looks for *marker* in
    the bot's comments of the submission.
    """

    def __init__(self, submission: str, *, reddit: praw.Reddit, max_more: int | None = 32,
                 backoff: Backoff | None = None, verify_lost: bool = True) -> None:
        self.submission_id = parse_submission_id(submission)
        self.reddit = reddit
        self.max_more = max_more
        self.backoff = backoff or Backoff(f"reddit t3_{self.submission_id}")
        self.verify_lost = verify_lost

    @classmethod
    def from_options(cls, target: str, options: Mapping[str, Any], settings: Settings) -> RedditSource:
        """For ``pbp.sources.open_source("reddit", url, options, settings)``: credentials from
        the secrets, ``oauth_url``/``reddit_url``/bounds from *options*."""
        reddit = make_reddit(RedditConfig.from_settings(settings, options))
        return cls(target, reddit=reddit, max_more=options.get("max_more", 32))

    def fetch(self, cursor: Mapping[str, Any] | None) -> FetchResult:
        self.backoff.check()
        start = request_count(self.reddit)
        state = CursorState.load(cursor)
        try:
            tree = read_tree(self.reddit, self.submission_id, max_more=self.max_more)
        except Exception as exc:
            raise self.backoff.note(translate(exc, f"GET /comments/{self.submission_id}/")) from exc
        self.backoff.succeeded()
        posts = diff(state, tree.comments, complete=tree.complete)
        state.num_comments = tree.num_comments
        if tree.complete:
            state.advance(tree.newest if tree.newest is not None else (state.through or 0.0))
        return FetchResult(posts=mark_bot_posts(posts, self.bot_account()), cursor=state.dump(),
                           requests=request_count(self.reddit) - start)

    def reply(self, text: str, marker: str, *, in_reply_to: str | None = None) -> str:
        where = f"POST /api/comment (t3_{self.submission_id})"
        if marker not in text:
            raise SourceError("reply text does not contain its marker", where=where)
        if len(text) > MAX_COMMENT_CHARS:
            raise SourceError(f"reply is {len(text)} characters; Reddit takes at most "
                              f"{MAX_COMMENT_CHARS}", where=where)
        self.backoff.check()
        target: Any
        if in_reply_to and not in_reply_to.startswith("t3_"):
            target = self.reddit.comment(id=in_reply_to.removeprefix("t1_"))
        else:
            target = self.reddit.submission(id=self.submission_id)
        try:
            comment = target.reply(text)
        except Exception as exc:
            error = translate(exc, where, posting=True)
            if getattr(error, "answer_lost", False):
                # the answer was lost, not refused: the POST may have landed. Look (once)
                # before anybody posts again; no backoff, the outbox checks right away.
                if self.verify_lost:
                    found = self.find_reply(marker)
                    if found:
                        return found
                raise error from exc
            raise self.backoff.note(error) from exc
        if comment is None:
            raise SourceError("Reddit accepted the reply but returned no comment", where=where)
        self.backoff.succeeded()
        return str(comment.id)

    def edit(self, platform_id: str, text: str, marker: str) -> None:
        """STALL-8: replace the text of the bot's comment *platform_id* (the tracker post)
        with *text* (``comment.edit``: ``POST /api/editusertext``). The same text twice is
        harmless, so a retry after a lost answer needs no check first."""
        where = f"POST /api/editusertext (t1_{platform_id})"
        if marker not in text:
            raise SourceError("edit text does not contain its marker", where=where)
        if len(text) > MAX_COMMENT_CHARS:
            raise SourceError(f"edit is {len(text)} characters; Reddit takes at most "
                              f"{MAX_COMMENT_CHARS}", where=where)
        self.backoff.check()
        try:
            self.reddit.comment(id=platform_id.removeprefix("t1_")).edit(text)
        except Exception as exc:
            raise self.backoff.note(translate(exc, where, posting=True)) from exc
        self.backoff.succeeded()

    def bot_account(self) -> str | None:
        """The authenticated user's name (None for a read-only client)."""
        return bot_name(self.reddit)

    def find_reply(self, marker: str) -> str | None:
        """The bot's comment holding *marker* outside quotes; a player's comment quoting or
        typing the marker never counts (:func:`~pbp.sources.base.is_bot_reply`)."""
        me = self.bot_account()
        if not me:
            return None
        self.backoff.check()
        try:
            tree = read_tree(self.reddit, self.submission_id, max_more=None)
        except Exception as exc:
            raise self.backoff.note(translate(exc, f"GET /comments/{self.submission_id}/")) from exc
        for c in tree.comments:
            if is_bot_reply(to_record(c), me, marker):
                return str(c.id)
        return None


def bot_name(reddit: praw.Reddit) -> str | None:
    """The account a praw client posts as: the configured user (a script app logs in as
    it), None when read-only."""
    return getattr(reddit.config, "username", None) or None

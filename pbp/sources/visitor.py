"""A thread read the way any visitor reads it, for checking the dice without pbp's data
(DICE-4, ``pbp verify THREAD_URL``).

Why a reader of its own: a player who doubts the dice has neither pbp's database nor its
bot account. Everything needed to check them travels in the bot's replies
(docs/verifiable-dice.md), so this reads every post of the thread, every page, as an
anonymous visitor (a forum: the preset ``pbp preset check`` would choose, no login; Reddit:
praw with the application's read-only credentials, never the bot's user), keeps no
cursor and writes nothing anywhere. The bot's replies are told apart the way the outbox
marks them: the ``pbp-reply:<key>`` marker in the post's own words (quotes left out), all
by one account (:func:`pbp.sources.base.is_bot_reply`): a player who types or quotes a
marker does not make a reply of it.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..errors import ConfigError, PbpError
from ..settings import Settings, load_settings
from .base import PostRecord, carries_marker, own_words, same_account
from .forum import ForumSource
from .forum_check import detect_presets, reading_engine
from .forum_preset import available_presets
from .reddit_client import RedditConfig, make_reddit
from .reddit_errors import translate
from .reddit_records import DELETED_BODIES, to_record
from .reddit_tree import parse_submission_id, read_tree

#: hosts whose addresses are Reddit submissions (the API endpoints come from the settings)
REDDIT_HOSTS = ("reddit.com", "redd.it")
#: a Markdown quote line (Reddit's ``>``, up to three spaces before it)
_QUOTE_LINE = re.compile(r"^ {0,3}>")


@dataclass(frozen=True)
class ThreadRead:
    """Every post of a thread as a visitor saw it, oldest first, and which are the bot's.

    *bot* is the account whose marked posts are pbp's replies (None when no post carries
    a marker); *replies* those posts, in thread order."""

    url: str
    platform: str               # forum | reddit
    posts: tuple[PostRecord, ...]
    bot: str | None
    replies: tuple[PostRecord, ...]

    def reply_texts(self) -> list[str]:
        """The bot's replies as text a proof reader reads, in thread order."""
        return [reply_text(p) for p in self.replies]


def reply_text(post: PostRecord) -> str:
    """A reply's own words with its line structure: a forum's plain text (the preset cut
    the quotes out), a Markdown body without its ``>`` quote lines (the proof block is a
    code block: its lines must reach the reader as written, not normalised)."""
    if post.fmt == "markdown":
        return "\n".join(line for line in post.body.splitlines() if not _QUOTE_LINE.match(line))
    if "quotes" in post.extra:
        return post.text
    return own_words(post)


def source_kind(url: str) -> str:
    """``reddit`` for a Reddit submission's address, ``forum`` for an address a forum
    preset's thread pattern fits; anything else is said in words.

    >>> source_kind("https://www.reddit.com/r/dnd/comments/4b1tfm/my_fight/")
    'reddit'
    >>> source_kind("http://127.0.0.1:8002/forum/forum/adventures-2/topic/the-goblin-cave-1/")
    'forum'
    """
    host = (urlsplit(url).hostname or "").lower()
    if any(host == h or host.endswith("." + h) for h in REDDIT_HOSTS):
        return "reddit"
    if detect_presets(url):
        return "forum"
    raise ConfigError(f"not a Reddit submission nor a thread address any forum preset knows "
                      f"({', '.join(available_presets())}); name the engine with --preset", where=url)


def read_thread(url: str, settings: Settings | None = None, *, preset: str | None = None,
                bot: str | None = None) -> ThreadRead:
    """Every post of the thread at *url*, read as a visitor, and the bot's replies among
    them. *preset* names the forum engine (default: the preset whose pattern fits the
    address; of several, the one that reads the first page, else the first); *bot* the account that posts pbp's replies (default: the one account
    whose posts carry the reply marker; several such accounts are an error naming them)."""
    # a visitor reads once, alone, and writes no file (DICE-4): its requests keep to this
    # process's spacing, not the workers' shared budget (a database row or file)
    settings = dataclasses.replace(settings or load_settings(), rate_budget_url="local")
    kind = "forum" if preset else source_kind(url)
    posts = _reddit_posts(url, settings) if kind == "reddit" else _forum_posts(url, settings, preset)
    marked = [p for p in posts if carries_marker(p)]
    if bot is None:
        authors = Counter(p.author for p in marked)
        if len(authors) > 1:
            raise PbpError("posts carrying pbp's reply marker come from several accounts ("
                           + ", ".join(f"{a}: {n}" for a, n in authors.most_common())
                           + "); name the bot's with --bot", where=url)
        bot = next(iter(authors), None)
    replies = tuple(bot_replies(posts, bot)) if bot is not None else ()
    return ThreadRead(url=url, platform=kind, posts=tuple(posts), bot=bot, replies=replies)


def _forum_posts(url: str, settings: Settings, preset: str | None) -> list[PostRecord]:
    """Every page, from the first: a source with no credentials and no cursor reads the
    whole thread as a visitor (the preset's thread.read_as does not matter without a
    login)."""
    names = [preset] if preset else detect_presets(url)
    if not names:
        raise ConfigError(f"no forum preset's thread pattern fits the address (known: "
                          f"{', '.join(available_presets())})", where=url)
    if len(names) > 1:   # engines sharing the address's shape: the forum says which
        names = [reading_engine(url, names, settings) or names[0]]
    source = ForumSource(url, names[0], settings=settings, credentials={})
    return [p for p in source.fetch(None).posts if p.change != "deleted"]


def _reddit_posts(url: str, settings: Settings) -> list[PostRecord]:
    """The submission's whole comment tree through praw with the application's
    credentials only: no username or password, so praw reads as a read-only client."""
    sid = parse_submission_id(url)
    config = dataclasses.replace(RedditConfig.from_settings(settings), username=None, password=None)
    reddit = make_reddit(config, shared=False)
    try:
        tree = read_tree(reddit, sid, max_more=None)
    except Exception as exc:
        raise translate(exc, f"GET /comments/{sid}/") from exc
    records = [to_record(c) for c in tree.comments if str(getattr(c, "body", "")) not in DELETED_BODIES]
    return sorted(records, key=lambda p: (p.posted_at, p.platform_id))


def bot_replies(posts: Sequence[PostRecord], bot: str) -> list[PostRecord]:
    """The posts of *posts* that are *bot*'s marked replies (thread order kept)."""
    return [p for p in posts if same_account(p.author, bot) and carries_marker(p)]

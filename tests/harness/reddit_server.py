"""A small in-memory Reddit that praw can talk to, shaped like the recorded one.

Why: pbp's Reddit code runs the real praw/prawcore client in tests; only the far end
is local. Every JSON object this server sends is a *template taken from the recorded
cassettes* in ``../shared/fixtures/reddit`` (real Reddit answers recorded by praw and
prawcore) with its fields filled in, so the key sets are exactly the real ones, per
endpoint (a listing t1 has the 2023 listing keys, a tree t1 the 2019 tree keys, a reply
the 2016 reply keys...). ``tests/sources/test_reddit_server.py`` checks that.

Endpoints: ``POST /api/v1/access_token``, ``GET /r/NAME/comments/``, ``GET
/comments/ID/`` (and ``/comments/ID/_/COMMENT``), ``POST /api/morechildren``,
``POST /api/comment``, ``POST /api/editusertext``, ``GET /api/info``, ``POST /api/del``.

Faults on demand: :meth:`RedditServer.fail` answers the next matching requests with a 429
(HTML body + ``retry-after``, as recorded; or, with ``retry_after=None``, the recorded JSON
429 without retry headers), 403 or 404; :meth:`RedditServer.drop_reply`
commits the next comment and closes the connection without answering (a lost answer).

>>> # server = RedditServer(cassettes_dir); server.start(); ... server.stop()
"""

from __future__ import annotations

import copy
import html
import itertools
import json
import re
import socket
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

# --------------------------------------------------------------------------- templates


def _interaction(root: Path, name: str, index: int) -> dict[str, Any]:
    data = json.loads((root / name).read_text())
    return data["interactions"][index]  # type: ignore[no-any-return]


def _body(root: Path, name: str, index: int) -> Any:
    return json.loads(_interaction(root, name, index)["response"]["body"]["string"])


@dataclass
class Templates:
    """One recorded object per endpoint shape, emptied of its children."""

    token: dict[str, Any]
    listing_envelope: dict[str, Any]      # /r/NAME/comments/ (2023)
    listing_t1: dict[str, Any]
    tree_envelope: dict[str, Any]         # /comments/ID/ (2019): [t3 listing, t1 listing]
    tree_t3: dict[str, Any]
    tree_t1: dict[str, Any]
    tree_more: dict[str, Any]
    info_envelope: dict[str, Any]         # /api/info (2019)
    info_t1: dict[str, Any]
    morechildren_envelope: dict[str, Any]  # /api/morechildren (2016)
    morechildren_t1: dict[str, Any]
    morechildren_more: dict[str, Any]
    reply_envelope: dict[str, Any]        # /api/comment (2016)
    reply_t1: dict[str, Any]
    edit_envelope: dict[str, Any]         # /api/editusertext (2016)
    edit_t1: dict[str, Any]
    forbidden_body: str                   # 403 (2025)
    not_found_body: str                   # 404 (2016)
    too_many_html: str                    # 429 text/html (2021)
    too_many_headers: dict[str, str]
    too_many_json: str                    # 429 JSON, no retry headers (token endpoint, 2021)
    api_error: dict[str, Any]             # an API error inside HTTP 200 (2016)

    @classmethod
    def load(cls, fixtures: Path) -> Templates:
        praw, core = fixtures / "praw", fixtures / "prawcore"
        token = _body(praw, "TestSubmission.test_comments.json", 0)
        listing = _body(praw, "TestSubredditStreams.test_comments__with_continue_after_id.json", 1)
        tree = _body(praw, "TestComment.test_refresh__with_reply_sort_and_limit.json", 2)
        info = _body(praw, "TestComment.test_refresh__with_reply_sort_and_limit.json", 1)
        more = _body(praw, "TestMore.test_comments.json", 1)
        old_tree = _body(praw, "TestMore.test_comments.json", 2)
        reply = _body(praw, "TestSubmission.test_reply.json", 1)
        edit = _body(praw, "TestComment.test_edit.json", 1)
        t429 = _interaction(core, "TestSession.test_request__too__many_requests__with_retry_headers.json", 1)

        def first(children: list[dict[str, Any]], kind: str) -> dict[str, Any]:
            return copy.deepcopy(next(c for c in children if c["kind"] == kind))

        def emptied(envelope: Any) -> Any:
            env = copy.deepcopy(envelope)
            for part in env if isinstance(env, list) else [env]:
                if "data" in part and "children" in part["data"]:
                    part["data"]["children"] = []
                if "json" in part:
                    part["json"]["data"]["things"] = []
            return env

        def more_in(node: Any) -> dict[str, Any] | None:
            if isinstance(node, dict):
                if node.get("kind") == "more":
                    return node
                return next((m for m in map(more_in, node.values()) if m), None)
            if isinstance(node, list):
                return next((m for m in map(more_in, node) if m), None)
            return None

        return cls(
            token=token,
            listing_envelope=emptied(listing), listing_t1=first(listing["data"]["children"], "t1"),
            tree_envelope=emptied(tree), tree_t3=first(tree[0]["data"]["children"], "t3"),
            tree_t1=first(tree[1]["data"]["children"], "t1"), tree_more=copy.deepcopy(more_in(tree)),
            info_envelope=emptied(info), info_t1=first(info["data"]["children"], "t1"),
            morechildren_envelope=emptied(more),
            morechildren_t1=first(more["json"]["data"]["things"], "t1"),
            morechildren_more=copy.deepcopy(more_in(old_tree)),
            reply_envelope=emptied(reply), reply_t1=first(reply["json"]["data"]["things"], "t1"),
            edit_envelope=emptied(edit), edit_t1=first(edit["json"]["data"]["things"], "t1"),
            forbidden_body=_interaction(praw, "TestInbox.test_message__unauthorized.json", 1)
            ["response"]["body"]["string"],
            not_found_body=_interaction(core, "TestSession.test_request__not_found.json", 1)
            ["response"]["body"]["string"],
            too_many_html=t429["response"]["body"]["string"],
            api_error=_body(praw, "TestObjector.test_raise_api_exception.json", 1),
            too_many_json=_interaction(
                core, "TestSession.test_request__too__many_requests__without_retry_headers.json", 0)
            ["response"]["body"]["string"],
            too_many_headers={k: v[0] for k, v in t429["response"]["headers"].items()
                              if k.lower() in {"retry-after", "content-type"}},
        )


def fill(template: dict[str, Any], **values: Any) -> dict[str, Any]:
    """A copy of *template* with the given ``data`` fields set; unknown fields are dropped
    so the key set stays exactly the recorded one."""
    obj = copy.deepcopy(template)
    data = obj["data"]
    for key, value in values.items():
        if key in data:
            data[key] = value
    return obj


# --------------------------------------------------------------------------- the model

_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def base36(n: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _B36[r] + out
        if not n:
            return out


@dataclass
class Comment:
    id: str
    link_id: str          # t3_...
    parent_id: str        # t3_... or t1_...
    author: str
    body: str
    created_utc: float
    edited: float | bool = False
    state: str = "live"   # live | deleted | removed
    children: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"t1_{self.id}"


@dataclass
class Submission:
    id: str
    subreddit: str
    title: str
    author: str
    created_utc: float
    comments: list[str] = field(default_factory=list)      # every comment id, oldest first
    top: list[str] = field(default_factory=list)           # top-level comment ids

    @property
    def name(self) -> str:
        return f"t3_{self.id}"


@dataclass
class Fault:
    pattern: re.Pattern[str]
    status: int
    times: int
    retry_after: float | None = 4
    api_error: tuple[str, str, str | None] | None = None


class RedditServer:
    """The in-memory Reddit plus its HTTP face. Thread-safe; ``calls`` records requests."""

    def __init__(self, fixtures_dir: Path, *, tree_budget: int = 200, max_depth: int = 10,
                 more_batch: int = 100, listing_hides_deleted: bool = False,
                 ratelimit_headers: bool = True, host: str = "127.0.0.1", port: int = 0) -> None:
        self.templates = Templates.load(Path(fixtures_dir))
        self.tree_budget = tree_budget
        self.max_depth = max_depth
        self.more_batch = more_batch
        self.listing_hides_deleted = listing_hides_deleted
        self.ratelimit_headers = ratelimit_headers
        self.lock = threading.RLock()
        self.submissions: dict[str, Submission] = {}
        self.comments: dict[str, Comment] = {}
        self.by_subreddit: dict[str, list[str]] = {}   # subreddit -> comment ids, oldest first
        self.tokens: dict[str, str] = {}
        self.calls: list[tuple[str, str]] = []
        self.errors: list[str] = []           # tracebacks of harness bugs (answered 500)
        self.faults: list[Fault] = []
        self.drop_replies = 0
        self.clock_offset = 0.0
        self._ids = itertools.count(int("k3v00000", 36))
        self._sub_ids = itertools.count(int("17a000", 36))
        self._token_ids = itertools.count(1)
        #: private messages sent through /api/compose (STALL-3), oldest first
        self.messages: list[dict[str, Any]] = []
        self._message_ids = itertools.count(int("1q0000", 36))
        self.used = 0
        self.httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle
    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> RedditServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> RedditServer:  # noqa: PYI034
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- clock: created_utc is whole seconds, as on Reddit; tests may move time on
    def now(self) -> float:
        return float(int(time.time() + self.clock_offset))

    def advance(self, seconds: float) -> None:
        self.clock_offset += seconds

    # -- state changes (the "players" side; praw can do the same over HTTP)
    def add_submission(self, subreddit: str, title: str = "Combat thread", author: str = "narrator",
                       *, created_utc: float | None = None) -> str:
        with self.lock:
            sid = base36(next(self._sub_ids))
            self.submissions[sid] = Submission(sid, subreddit, title, author,
                                               self.now() if created_utc is None else created_utc)
            self.by_subreddit.setdefault(subreddit.lower(), [])
            return sid

    def add_comment(self, parent: str, body: str, author: str = "player",
                    *, created_utc: float | None = None) -> str:
        """*parent* is ``t3_ID`` / ``t1_ID`` or a bare submission id."""
        with self.lock:
            if not parent.startswith(("t1_", "t3_")):
                parent = f"t3_{parent}"
            if parent.startswith("t3_"):
                sub = self.submissions[parent[3:]]
            else:
                sub = self.submissions[self.comments[parent[3:]].link_id[3:]]
            cid = base36(next(self._ids))
            c = Comment(cid, sub.name, parent, author, body,
                        self.now() if created_utc is None else created_utc)
            self.comments[cid] = c
            sub.comments.append(cid)
            if parent.startswith("t3_"):
                sub.top.append(cid)
            else:
                self.comments[parent[3:]].children.append(cid)
            self.by_subreddit[sub.subreddit.lower()].append(cid)
            return cid

    def edit_comment(self, cid: str, body: str) -> None:
        with self.lock:
            c = self.comments[cid]
            c.body, c.edited = body, self.now()

    def delete_comment(self, cid: str, *, removed: bool = False) -> None:
        with self.lock:
            self.comments[cid].state = "removed" if removed else "deleted"

    def fail(self, path_regex: str, status: int = 429, *, times: int = 1,
             retry_after: float | None = 4,
             api_error: tuple[str, str, str | None] | None = None) -> None:
        """Answer the next *times* requests whose path matches with *status*; with
        *api_error* (e.g. ``("RATELIMIT", "... Try again in 6 seconds.", "ratelimit")``),
        an HTTP 200 carrying it in ``json.errors``, shaped as recorded. Nothing is done."""
        with self.lock:
            self.faults.append(Fault(re.compile(path_regex), 200 if api_error else status, times,
                                     retry_after, api_error))

    def drop_reply(self, times: int = 1) -> None:
        """Commit the next *times* comments posted, then close without answering."""
        with self.lock:
            self.drop_replies += times

    def count(self, prefix: str = "") -> int:
        """API calls so far (the token endpoint not included) whose path starts with *prefix*."""
        with self.lock:
            return sum(1 for _, p in self.calls if p.startswith(prefix) and "access_token" not in p)

    def comments_by(self, author: str, containing: str = "") -> list[Comment]:
        with self.lock:
            return [c for c in self.comments.values() if c.author == author and containing in c.body]

    # -- rendering
    def _visible(self, c: Comment) -> tuple[str, str]:
        if c.state == "live":
            return c.author, c.body
        return "[deleted]", f"[{c.state}]"

    def _common(self, c: Comment) -> dict[str, Any]:
        sub = self.submissions[c.link_id[3:]]
        author, body = self._visible(c)
        return dict(  # noqa: C408 -- reads like the JSON it fills
            id=c.id, name=c.name, link_id=c.link_id, parent_id=c.parent_id, author=author,
            author_fullname=None if author == "[deleted]" else f"t2_{author.lower()[:8]}",
            body=body, body_html=f'<div class="md"><p>{html.escape(body)}</p>\n</div>',
            created_utc=c.created_utc, created=c.created_utc, edited=c.edited,
            subreddit=sub.subreddit, subreddit_id=f"t5_{base36(hash(sub.subreddit.lower()) % 10**8)}",
            subreddit_name_prefixed=f"r/{sub.subreddit}", replies="", score=1, ups=1, downs=0,
            permalink=f"/r/{sub.subreddit}/comments/{sub.id}/combat/{c.id}/",
            link_title=sub.title, link_author=sub.author, num_comments=len(sub.comments),
            link_permalink=f"https://www.reddit.com/r/{sub.subreddit}/comments/{sub.id}/combat/",
            link_url=f"https://www.reddit.com/r/{sub.subreddit}/comments/{sub.id}/combat/",
            is_submitter=author == sub.author, body_is_deleted=c.state != "live",
        )

    def _t3(self, sub: Submission) -> dict[str, Any]:
        return fill(self.templates.tree_t3, id=sub.id, name=sub.name, title=sub.title,
                    author=sub.author, subreddit=sub.subreddit, subreddit_name_prefixed=f"r/{sub.subreddit}",
                    created_utc=sub.created_utc, created=sub.created_utc, num_comments=len(sub.comments),
                    selftext="", selftext_html=None, is_self=True, edited=False, domain=f"self.{sub.subreddit}",
                    permalink=f"/r/{sub.subreddit}/comments/{sub.id}/combat/",
                    url=f"https://www.reddit.com/r/{sub.subreddit}/comments/{sub.id}/combat/")

    def _descendants(self, cid: str) -> int:
        c = self.comments[cid]
        return len(c.children) + sum(self._descendants(k) for k in c.children)

    def _more(self, template: dict[str, Any], parent: str, ids: list[str], depth: int) -> dict[str, Any]:
        if not ids:   # "continue this thread"
            return fill(template, count=0, name="t1__", id="_", parent_id=parent, depth=depth, children=[])
        return fill(template, count=len(ids) + sum(self._descendants(i) for i in ids), name=f"t1_{ids[0]}",
                    id=ids[0], parent_id=parent, depth=depth, children=list(ids))

    def _tree_level(self, ids: list[str], parent: str, depth: int, budget: list[int],
                    base_depth: int = 0) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        t = self.templates
        shown = [i for i in ids if self.comments[i].state == "live" or self.comments[i].children]
        for n, cid in enumerate(shown):
            if depth - base_depth > self.max_depth:
                out.append(self._more(t.tree_more, parent, [], depth))
                break
            if budget[0] <= 0:
                rest = shown[n:]
                for k in range(0, len(rest), self.more_batch):
                    out.append(self._more(t.tree_more, parent, rest[k:k + self.more_batch], depth))
                break
            budget[0] -= 1
            c = self.comments[cid]
            kids = self._tree_level(c.children, c.name, depth + 1, budget, base_depth)
            replies: Any = ""
            if kids:
                replies = copy.deepcopy(t.tree_envelope[1])
                replies["data"]["children"] = kids
            out.append(fill(t.tree_t1, **{**self._common(c), "depth": depth, "replies": replies}))
        return out

    # -- endpoint bodies (return status, headers, body)
    def token(self, form: dict[str, str]) -> Any:
        tok = dict(self.templates.token)
        name = form.get("username") or "app"
        tok["access_token"] = f"tok{next(self._token_ids)}-{name}"
        self.tokens[tok["access_token"]] = name
        return tok

    def subreddit_comments(self, name: str, q: dict[str, str]) -> Any:
        limit = max(1, min(int(q.get("limit", 25)), 100))
        ids = list(reversed(self.by_subreddit.get(name.lower(), [])))
        if self.listing_hides_deleted:
            ids = [i for i in ids if self.comments[i].state == "live"]
        if q.get("after"):
            ids = ids[ids.index(q["after"][3:]) + 1:] if q["after"][3:] in ids else []
        if q.get("before"):
            ids = ids[:ids.index(q["before"][3:])] if q["before"][3:] in ids else []
            ids = ids[-limit:]
        page, rest = ids[:limit], ids[limit:]
        env = copy.deepcopy(self.templates.listing_envelope)
        env["data"].update(children=[fill(self.templates.listing_t1, **self._common(self.comments[i]))
                                     for i in page],
                           dist=len(page), after=f"t1_{page[-1]}" if rest else None, before=None)
        return env

    def comment_tree(self, sid: str, q: dict[str, str], focus: str | None = None) -> Any:
        sub = self.submissions.get(sid)
        if sub is None:
            raise _Status(404)
        limit = int(q.get("limit", 200))
        budget = [max(1, min(limit, self.tree_budget))]
        env = copy.deepcopy(self.templates.tree_envelope)
        env[0]["data"]["children"] = [self._t3(sub)]
        env[0]["data"]["dist"] = 1
        if focus:
            c = self.comments.get(focus)
            if c is None or c.link_id != sub.name:
                raise _Status(404)
            depth = self._depth(c)
            kids = self._tree_level(c.children, c.name, depth + 1, budget, base_depth=depth)
            replies: Any = ""
            if kids:
                replies = copy.deepcopy(self.templates.tree_envelope[1])
                replies["data"]["children"] = kids
            top = [fill(self.templates.tree_t1, **{**self._common(c), "depth": depth, "replies": replies})]
        else:
            top = self._tree_level(sub.top, sub.name, 0, budget)
        env[1]["data"]["children"] = top
        env[1]["data"]["dist"] = None
        return env

    def _depth(self, c: Comment) -> int:
        d = 0
        while c.parent_id.startswith("t1_"):
            c, d = self.comments[c.parent_id[3:]], d + 1
        return d

    def morechildren(self, form: dict[str, str]) -> Any:
        sub = self.submissions.get(form.get("link_id", "")[3:])
        if sub is None:
            raise _Status(404)
        wanted = [i for i in form.get("children", "").split(",") if i in self.comments]
        things: list[dict[str, Any]] = []
        budget = self.tree_budget

        def walk(cid: str) -> None:
            nonlocal budget
            c = self.comments[cid]
            if c.state != "live" and not c.children:
                return
            if budget <= 0:
                things.append(self._more(self.templates.morechildren_more, c.parent_id, [cid], 0))
                return
            budget -= 1
            things.append(fill(self.templates.morechildren_t1, **self._common(c)))
            for k in c.children:
                walk(k)

        for cid in wanted:
            walk(cid)
        env = copy.deepcopy(self.templates.morechildren_envelope)
        env["json"]["data"]["things"] = things
        return env

    def info(self, q: dict[str, str]) -> Any:
        env = copy.deepcopy(self.templates.info_envelope)
        children = []
        for name in q.get("id", "").split(",")[:100]:
            if name.startswith("t1_") and name[3:] in self.comments:
                children.append(fill(self.templates.info_t1, **self._common(self.comments[name[3:]])))
            elif name.startswith("t3_") and name[3:] in self.submissions:
                children.append(self._t3(self.submissions[name[3:]]))
        env["data"].update(children=children, dist=len(children))
        return env

    def post_comment(self, form: dict[str, str], user: str) -> Any:
        parent = form.get("thing_id", "")
        known = (parent.startswith("t3_") and parent[3:] in self.submissions) or \
                (parent.startswith("t1_") and parent[3:] in self.comments)
        if not known:
            raise _Status(404)
        cid = self.add_comment(parent, form.get("text", ""), author=user)
        env = copy.deepcopy(self.templates.reply_envelope)
        env["json"]["data"]["things"] = [fill(self.templates.reply_t1, **self._common(self.comments[cid]))]
        return env

    def edit(self, form: dict[str, str], user: str) -> Any:
        cid = form.get("thing_id", "")[3:]
        c = self.comments.get(cid)
        if c is None:
            raise _Status(404)
        if c.author != user:
            raise _Status(403)
        self.edit_comment(cid, form.get("text", ""))
        env = copy.deepcopy(self.templates.edit_envelope)
        env["json"]["data"]["things"] = [fill(self.templates.edit_t1, **self._common(c))]
        return env

    def delete(self, form: dict[str, str], user: str) -> Any:
        c = self.comments.get(form.get("id", "")[3:])
        if c is not None and c.author == user:
            self.delete_comment(c.id)
        return {}


    # -- private messages (STALL-3): shaped like Reddit's /api/compose and t4 listings
    def compose(self, form: dict[str, str], user: str) -> Any:
        """``POST /api/compose`` (subject, text, to): Reddit answers ``{"json": {"errors":
        []}}``; an unknown user or an empty field is an API error, as on Reddit."""
        to = form.get("to", "").removeprefix("u/").removeprefix("/u/")
        missing = [k for k in ("subject", "text", "to") if not form.get(k)]
        if not user:
            raise _Status(403)
        if missing:
            return {"json": {"errors": [["NO_TEXT", "we need something here", missing[0]]]}}
        mid = base36(next(self._message_ids))
        self.messages.append({"id": mid, "name": f"t4_{mid}", "author": user, "dest": to,
                              "subject": form["subject"], "body": form["text"],
                              "body_html": form["text"], "created_utc": self.now(),
                              "created": self.now(), "new": True, "was_comment": False,
                              "first_message": None, "first_message_name": None,
                              "parent_id": None, "replies": "", "context": "", "subreddit": None,
                              "distinguished": None, "num_comments": None})
        return {"json": {"errors": []}}

    def mailbox(self, user: str, *, sent: bool) -> Any:
        """``GET /message/inbox/`` (or ``/message/sent/``): the user's messages, newest
        first, as a Listing of t4 things."""
        if not user:
            raise _Status(403)
        mine = [msg for msg in reversed(self.messages)
                if (msg["author"] if sent else msg["dest"]).casefold() == user.casefold()]
        return {"kind": "Listing", "data": {"after": None, "before": None, "dist": len(mine),
                                            "modhash": None, "geo_filter": "",
                                            "children": [{"kind": "t4", "data": dict(msg)} for msg in mine]}}


class _Status(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


class _DropConnection(Exception):
    pass


_ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    ("POST", re.compile(r"^/api/v1/access_token/?$"), "token"),
    ("GET", re.compile(r"^/r/([^/]+)/comments/?$"), "listing"),
    ("GET", re.compile(r"^/comments/([a-z0-9]+)(?:/[^/]*)?/?$"), "tree"),
    ("GET", re.compile(r"^/comments/([a-z0-9]+)/_/([a-z0-9]+)/?$"), "focus"),
    ("POST", re.compile(r"^/api/morechildren/?$"), "morechildren"),
    ("POST", re.compile(r"^/api/comment/?$"), "comment"),
    ("POST", re.compile(r"^/api/editusertext/?$"), "edit"),
    ("GET", re.compile(r"^/api/info/?$"), "info"),
    ("POST", re.compile(r"^/api/del/?$"), "delete"),
    ("POST", re.compile(r"^/api/compose/?$"), "compose"),
    ("GET", re.compile(r"^/message/inbox/?$"), "inbox"),
    ("GET", re.compile(r"^/message/sent/?$"), "sent"),
]


def _handler_for(server: RedditServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def _send(self, status: int, body: str, headers: dict[str, str]) -> None:
            raw = body.encode("utf-8")
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(raw)))
            if self.close_connection:   # prawcore's token POST asks "Connection: close"
                self.send_header("Connection", "close")
            # headers and body in one write: two small writes meet Nagle + delayed ACK
            # (40 ms a request), which would swamp every timing this harness is used for
            self._headers_buffer.append(b"\r\n" + raw)
            self.flush_headers()

        def _ratelimit(self) -> dict[str, str]:
            if not server.ratelimit_headers:
                return {}
            server.used += 1
            return {"x-ratelimit-remaining": f"{max(0, 600 - server.used):.1f}",
                    "x-ratelimit-used": str(server.used), "x-ratelimit-reset": "300"}

        def _serve(self, method: str) -> None:
            try:
                self._serve_one(method)
            except (BrokenPipeError, ConnectionResetError):
                pass
            except Exception:  # noqa: BLE001 -- a harness bug must show, not look like a dropped connection
                server.errors.append(traceback.format_exc())
                self._send(500, json.dumps({"message": "harness error", "error": 500}),
                           {"Content-Type": "application/json; charset=UTF-8"})

        def _serve_one(self, method: str) -> None:
            parts = urlsplit(self.path)
            path = parts.path
            q = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[-1] for k, v in parse_qs(self.rfile.read(length).decode()).items()} if length else {}
            json_headers = {"Content-Type": "application/json; charset=UTF-8"}
            auth = self.headers.get("Authorization", "")
            user = server.tokens.get(auth.split(" ", 1)[-1], "")
            with server.lock:
                server.calls.append((method, path))
                for fault in server.faults:
                    if fault.times > 0 and fault.pattern.search(path):
                        fault.times -= 1
                        break
                else:
                    fault = None
            if fault is not None:
                if fault.api_error is not None:
                    body = copy.deepcopy(server.templates.api_error)
                    body["json"]["errors"] = [list(fault.api_error)]
                    return self._send(200, json.dumps(body), {**json_headers, **self._ratelimit()})
                if fault.status == 429:
                    if fault.retry_after is None:   # as recorded on the token endpoint
                        return self._send(429, server.templates.too_many_json, json_headers)
                    headers = dict(server.templates.too_many_headers)
                    headers["retry-after"] = f"{fault.retry_after:g}"
                    return self._send(429, server.templates.too_many_html, headers)
                body = {403: server.templates.forbidden_body, 404: server.templates.not_found_body}.get(
                    fault.status, json.dumps({"message": "error", "error": fault.status}))
                return self._send(fault.status, body, {**json_headers, **self._ratelimit()})
            for verb, pattern, name in _ROUTES:  # noqa: B007 (name is the route found: used after the break)
                m = pattern.match(path)
                if verb == method and m:
                    break
            else:
                return self._send(404, server.templates.not_found_body, json_headers)
            try:
                with server.lock:
                    if name == "token":
                        return self._send(200, json.dumps(server.token(form)), json_headers)
                    if name == "listing":
                        out = server.subreddit_comments(m.group(1), q)
                    elif name == "tree":
                        out = server.comment_tree(m.group(1), q)
                    elif name == "focus":
                        out = server.comment_tree(m.group(1), q, focus=m.group(2))
                    elif name == "morechildren":
                        out = server.morechildren(form)
                    elif name == "comment":
                        out = server.post_comment(form, user or "anonymous")
                        if server.drop_replies > 0:
                            server.drop_replies -= 1
                            raise _DropConnection
                    elif name == "edit":
                        out = server.edit(form, user)
                    elif name == "info":
                        out = server.info(q)
                    elif name == "compose":
                        out = server.compose(form, user)
                    elif name in ("inbox", "sent"):
                        out = server.mailbox(user, sent=name == "sent")
                    else:
                        out = server.delete(form, user)
            except _DropConnection:
                self.close_connection = True
                try:
                    self.connection.shutdown(2)
                except OSError:
                    pass
                return None
            except _Status as exc:
                body = server.templates.forbidden_body if exc.status == 403 else server.templates.not_found_body
                return self._send(exc.status, body, {**json_headers, **self._ratelimit()})
            return self._send(200, json.dumps(out), {**json_headers, **self._ratelimit()})

    return Handler

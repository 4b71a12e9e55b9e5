"""A local file of posts that people append to, read like a thread (the demo, tests).

Why: a newcomer sees the whole loop (posts in, round resolved, reply out) without a
forum account, and worker tests get "a local source" with the same :class:`Source`
contract as the forum and Reddit. The file is a YAML stream, one document per post,
appended at the end::

    ---
    author: Brienne
    body: I attack the goblin with my longsword [roll]1d20+5[/roll]
    ---
    id: p7              # optional: default is the document's position (1, 2, ...)
    author: Tomas
    at: 2026-11-30T10:02:00Z   # optional: default is when pbp first read it
    body: |
      I cast *Magic Missile* at the goblin.

A document may be edited in place (its ``body`` changes: an ``edited`` record) or
removed (``deleted: true``). An unfinished document at the end (someone is still
typing, the YAML does not parse yet) is left for the next fetch. Replies go to a sibling
file ``<name>.replies.yaml`` in the same format, never into the posts file, so pbp
never reads its own replies as declarations.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()); f = d / "thread.yaml"
>>> _ = f.write_text("---\\nauthor: Ana\\nbody: I attack\\n")
>>> src = FileSource(f)
>>> r = src.fetch(None); [(p.platform_id, p.author, p.change) for p in r.posts]
[('1', 'Ana', 'new')]
>>> src.fetch(r.cursor).not_modified
True
>>> rid = src.reply("Round 1 resolved <!-- pbp:r1 -->", "pbp:r1")
>>> src.find_reply("pbp:r1") == rid, src.find_reply("pbp:r2")
(True, None)
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from ..errors import UnreadableInput
from .base import (
    Change,
    FetchResult,
    PostRecord,
    SourceError,
    is_bot_reply,
    mark_bot_posts,
    revision_hash,
)

#: the author the file source writes its replies as, unless told another (``bot``)
BOT = "pbp"


def _utc(value: Any, default: datetime) -> datetime:
    if value is None or value == "":
        return default
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise UnreadableInput(f"'at' is not an ISO time: {value!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _split_documents(text: str) -> list[str]:
    """Documents of a YAML stream, split on ``---`` lines (cheap, and tolerant of a
    half-written last document, which ``yaml.safe_load_all`` is not)."""
    docs: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.rstrip() == "---" or line.startswith("--- "):
            docs.append([line[4:]] if line.startswith("--- ") else [])
        else:
            docs[-1].append(line)
    return ["\n".join(d) for d in docs if "\n".join(d).strip()]


@contextmanager
def _locked(path: Path, mode: str) -> Iterator[Any]:
    with open(path, mode, encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX if "a" in mode or "w" in mode else fcntl.LOCK_SH)
        try:
            yield fh
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class FileSource:
    """A :class:`~pbp.sources.base.Source` over a local YAML stream of posts."""

    kind = "file"

    def __init__(self, path: str | os.PathLike[str], *, replies_path: str | os.PathLike[str] | None = None,
                 fmt: str = "text", clock: Any = None, bot: str = BOT) -> None:
        self.path = Path(path)
        self.bot = bot
        self.replies_path = Path(replies_path) if replies_path else self.path.with_name(
            f"{self.path.stem}.replies{self.path.suffix or '.yaml'}")
        self.fmt = fmt
        self._clock = clock or (lambda: datetime.now(UTC))

    def __repr__(self) -> str:
        return f"FileSource({str(self.path)!r})"

    # -- reading -----------------------------------------------------------------------
    def _read(self) -> tuple[list[dict[str, Any]], bool]:
        """Parsed documents, and whether the last one was left unfinished."""
        if not self.path.exists():
            raise SourceError("scenario file not found", where=str(self.path))
        with _locked(self.path, "r") as fh:
            text = fh.read()
        raw = _split_documents(text)
        docs: list[dict[str, Any]] = []
        i = 0
        for n, chunk in enumerate(raw, start=1):
            try:
                doc = yaml.safe_load(chunk)
            except yaml.YAMLError as exc:
                if n == len(raw):  # still being written: try again next time
                    return docs, True
                raise UnreadableInput(f"post {i + 1} is not valid YAML ({exc.__class__.__name__})",
                                      where=str(self.path)) from None
            if doc is None:  # only comments
                continue
            i += 1
            if isinstance(doc, str):
                doc = {"body": doc}
            if not isinstance(doc, dict) or ("body" not in doc and not doc.get("deleted")):
                raise UnreadableInput(f"post {i} needs a 'body'", where=str(self.path))
            doc.setdefault("id", str(i))
            docs.append(doc)
        return docs, False

    def fetch(self, cursor: Mapping[str, Any] | None) -> FetchResult:
        cursor = dict(cursor or {})
        try:
            st = self.path.stat()
        except FileNotFoundError:
            raise SourceError("scenario file not found", where=str(self.path)) from None
        stamp = [st.st_size, st.st_mtime_ns]
        if cursor.get("stamp") == stamp:
            return FetchResult(posts=[], cursor=cursor, requests=1, bytes=0, not_modified=True)
        docs, partial = self._read()
        seen: dict[str, str] = dict(cursor.get("seen", {}))
        first_seen: dict[str, str] = dict(cursor.get("first_seen", {}))
        now = self._clock()
        out: list[PostRecord] = []
        present: set[str] = set()
        for doc in docs:
            pid = str(doc["id"])
            present.add(pid)
            author = str(doc.get("author") or "anonymous")
            if doc.get("deleted"):
                if pid in seen and seen[pid] != "deleted":
                    out.append(PostRecord(platform_id=pid, author=author,
                                          posted_at=_utc(doc.get("at"), now), body="", text="",
                                          fmt=self.fmt, change="deleted", revision="deleted"))
                seen[pid] = "deleted"
                continue
            body = str(doc["body"]).rstrip("\n")
            rev = revision_hash(body)
            if seen.get(pid) == rev:
                continue
            first = first_seen.setdefault(pid, now.isoformat())
            change: Change = "new" if pid not in seen else "edited"
            out.append(PostRecord(
                platform_id=pid, author=author, posted_at=_utc(doc.get("at"), datetime.fromisoformat(first)),
                body=body, text=body, fmt=str(doc.get("format", self.fmt)), change=change,
                revision=rev, edited_at=now if change == "edited" else None,
                url=f"file://{self.path.resolve()}#{pid}",
            ))
            seen[pid] = rev
        for pid in list(seen):  # documents removed from the file count as deleted
            if pid not in present and seen[pid] != "deleted":
                out.append(PostRecord(platform_id=pid, author="", posted_at=now, body="", text="",
                                      fmt=self.fmt, change="deleted", revision="deleted"))
                seen[pid] = "deleted"
        new_cursor = {"seen": seen, "first_seen": first_seen,
                      "stamp": None if partial else stamp}
        return FetchResult(posts=mark_bot_posts(out, self.bot), cursor=new_cursor, requests=1,
                           bytes=st.st_size)

    # -- writing -----------------------------------------------------------------------
    def _replies(self) -> list[dict[str, Any]]:
        if not self.replies_path.exists():
            return []
        with _locked(self.replies_path, "r") as fh:
            text = fh.read()
        out = []
        for chunk in _split_documents(text):
            try:
                doc = yaml.safe_load(chunk)
            except yaml.YAMLError:
                continue
            if isinstance(doc, dict):
                out.append(doc)
        return out

    def reply(self, text: str, marker: str, *, in_reply_to: str | None = None) -> str:
        if marker not in text:
            text = f"{text}\n{marker}"
        self.replies_path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(self.replies_path, "a") as fh:
            fh.seek(0, os.SEEK_END)
            # count existing documents under the lock, so ids stay unique across processes
            with open(self.replies_path, encoding="utf-8") as rd:
                n = len(_split_documents(rd.read()))
            rid = f"r{n + 1}"
            doc = {"id": rid, "author": self.bot, "at": self._clock().isoformat(),
                   "marker": marker, "in_reply_to": in_reply_to, "body": text}
            fh.write("---\n" + yaml.safe_dump(doc, allow_unicode=True, sort_keys=False))
            fh.flush()
            os.fsync(fh.fileno())
        return rid

    def bot_account(self) -> str | None:
        return self.bot

    def find_reply(self, marker: str) -> str | None:
        """A reply the bot wrote holding *marker* outside quotes (never the marker alone)."""
        for doc in self._replies():
            record = PostRecord(platform_id=str(doc.get("id")), author=str(doc.get("author") or ""),
                                posted_at=self._clock(), body=str(doc.get("body", "")), text="",
                                fmt=self.fmt)
            if is_bot_reply(record, self.bot, marker):
                return record.platform_id
        return None

    def replies(self) -> list[dict[str, Any]]:
        """Every reply written so far (for tests and the demo)."""
        return self._replies()


def append_post(path: str | os.PathLike[str], author: str, body: str, **extra: Any) -> None:
    """Append one post document to a scenario file (what a player does by hand)."""
    doc = {"author": author, **extra, "body": body}
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with _locked(p, "a") as fh:
        fh.write("---\n" + yaml.safe_dump(doc, allow_unicode=True, sort_keys=False))
        fh.flush()
        os.fsync(fh.fileno())

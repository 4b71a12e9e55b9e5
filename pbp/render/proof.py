"""The published dice proof (DICE-1, /work/briefs/PROOF.md, docs/verifiable-dice.md): one
machine-readable, language-neutral block at the end of a reply, and its grammar.

Why a block apart from the sentences: the sentences are in the campaign's language and
the platform's markup; a visitor's checker (``pbp verify URL``, a third party's script)
must read the same facts from any thread, in any language, after a forum's HTML-to-text
has had its way with it. So the block says each fact once, one per line, in fixed ASCII:

    pbp-dice v1 encounter chain=<hex64> hidden=<hex64>
    pbp-dice v1 round=<n> commit=<hex64>
    pbp-dice v1 round=<n> seed=<hex64>
    #<i> <expression> = <total> [<face>,<face>,...]
    #<i> hidden <c hex64>
    #<i> revealed <h hex64> <expression> = <total> [faces]
    pbp-dice v1 hidden-key=<hex64>
    pbp-dice end

Lines are :class:`ProofLine` values. Whoever builds a reply lists them; hidden rolls
(DICE-2) are just lines of kind ``hidden`` and ``revealed``, so another module can put
them in the list without this one changing. :func:`parse_line` is the inverse of
:meth:`ProofLine.text`, tolerant of what a visitor's copy adds (nbsp, doubled spaces,
zero-width spaces, Markdown backslashes, code indentation).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

#: the version every block line carries; a checker refuses versions it does not know
VERSION = "v1"
ZWSP = "\u200b"

KINDS = ("encounter", "commit", "seed", "roll", "hidden", "revealed", "hidden-key", "end")


@dataclass(frozen=True)
class ProofLine:
    """One fact of the proof. Which fields a kind uses:

    * ``encounter``: ``digest`` = the chain (s_0), ``hidden`` = sha256 of the hidden key;
    * ``commit`` / ``seed``: ``round``, ``digest`` = the commitment / the revealed seed;
    * ``roll``: ``index``, ``expression``, ``total``, ``faces``;
    * ``hidden``: ``index``, ``digest`` = c (sha256 of ``"<h>:<expression>"``);
    * ``revealed``: ``index``, ``digest`` = h, ``expression``, ``total``, ``faces``;
    * ``hidden-key``: ``digest`` = K; ``end`` closes a block.

    Roll lines belong to the round of the nearest ``seed`` line above them.
    """

    kind: str
    round: int | None = None
    index: int | None = None
    digest: str = ""
    hidden: str = ""
    expression: str = ""
    total: int | None = None
    faces: tuple[int, ...] = ()

    @staticmethod
    def encounter(chain: str, hidden: str) -> ProofLine:
        return ProofLine("encounter", digest=chain, hidden=hidden)

    @staticmethod
    def commit(number: int, commitment: str) -> ProofLine:
        return ProofLine("commit", round=number, digest=commitment)

    @staticmethod
    def seed(number: int, seed: str) -> ProofLine:
        return ProofLine("seed", round=number, digest=seed)

    @staticmethod
    def roll(index: int, expression: str, total: int, faces: Sequence[int]) -> ProofLine:
        return ProofLine("roll", index=index, expression=expression, total=int(total),
                         faces=tuple(int(f) for f in faces))

    @staticmethod
    def hidden_roll(index: int, c: str) -> ProofLine:
        return ProofLine("hidden", index=index, digest=c)

    @staticmethod
    def revealed(index: int, h: str, expression: str, total: int, faces: Sequence[int]) -> ProofLine:
        return ProofLine("revealed", index=index, digest=h, expression=expression,
                         total=int(total), faces=tuple(int(f) for f in faces))

    @staticmethod
    def hidden_key(key: str) -> ProofLine:
        return ProofLine("hidden-key", digest=key)

    def text(self) -> str:
        """The line as published (single spaces, ASCII but for the expression)."""
        head = f"pbp-dice {VERSION}"
        if self.kind == "encounter":
            return f"{head} encounter chain={self.digest} hidden={self.hidden}"
        if self.kind == "commit":
            return f"{head} round={self.round} commit={self.digest}"
        if self.kind == "seed":
            return f"{head} round={self.round} seed={self.digest}"
        if self.kind == "hidden-key":
            return f"{head} hidden-key={self.digest}"
        if self.kind == "end":
            return "pbp-dice end"
        faces = "[" + ",".join(str(f) for f in self.faces) + "]"
        expression = " ".join(self.expression.split())
        if self.kind == "roll":
            return f"#{self.index} {expression} = {self.total} {faces}"
        if self.kind == "hidden":
            return f"#{self.index} hidden {self.digest}"
        if self.kind == "revealed":
            return f"#{self.index} revealed {self.digest} {expression} = {self.total} {faces}"
        raise ValueError(f"unknown proof line kind {self.kind!r}")


END = ProofLine("end")

_HEX = r"[0-9a-fA-F]{64}"
_HEAD = re.compile(r"^pbp-dice\s+(?P<version>v\d+)\s+(?P<rest>.*)$")
_ENCOUNTER = re.compile(rf"^encounter\s+chain=(?P<chain>{_HEX})\s+hidden=(?P<hidden>{_HEX})$")
_ROUND = re.compile(rf"^round=(?P<n>\d+)\s+(?P<what>commit|seed)=(?P<value>{_HEX})$")
_KEY = re.compile(rf"^hidden-key=(?P<key>{_HEX})$")
_ROLL = re.compile(r"^#(?P<i>\d+)\s+(?:(?P<hidden>hidden)\s+(?P<c>" + _HEX + r")|"
                   r"(?:(?P<revealed>revealed)\s+(?P<h>" + _HEX + r")\s+)?"
                   r"(?P<expr>\S.*?)\s+=\s+(?P<total>-?\d+)\s+\[(?P<faces>[-\d,\s]*)\])$")
_END = re.compile(r"^pbp-dice\s+end$")
#: what a visitor's copy of a line may carry around it: a Markdown code indent, the
#: renderer's zero-width spaces, nbsp, BBCode code tags left by a text extractor
_NOISE = re.compile(r"\[/?code\]|```|" + ZWSP + "|\ufeff", re.IGNORECASE)


def clean(line: str) -> str:
    """*line* as a checker reads it: noise gone, whitespace runs single spaces, trimmed."""
    text = _NOISE.sub("", line).replace("\u00a0", " ").replace("\\", "")
    return " ".join(text.split())


class UnknownVersion(ValueError):
    """A block line of a version this checker does not read."""


def parse_line(line: str) -> ProofLine | None:
    """The :class:`ProofLine` *line* says, or None when it is no block line (a sentence).
    Raises :class:`UnknownVersion` for a ``pbp-dice vN`` line of another version."""
    text = clean(line)
    if not text:
        return None
    if _END.match(text):
        return END
    head = _HEAD.match(text)
    if head:
        if head["version"] != VERSION:
            raise UnknownVersion(head["version"])
        rest = head["rest"]
        if m := _ENCOUNTER.match(rest):
            return ProofLine.encounter(m["chain"].lower(), m["hidden"].lower())
        if m := _ROUND.match(rest):
            make = ProofLine.commit if m["what"] == "commit" else ProofLine.seed
            return make(int(m["n"]), m["value"].lower())
        if m := _KEY.match(rest):
            return ProofLine.hidden_key(m["key"].lower())
        return None
    m = _ROLL.match(text)
    if m is None:
        return None
    index = int(m["i"])
    if m["hidden"]:
        return ProofLine.hidden_roll(index, m["c"].lower())
    faces = tuple(int(f) for f in m["faces"].replace(" ", "").split(",") if f)
    if m["revealed"]:
        return ProofLine.revealed(index, m["h"].lower(), m["expr"], int(m["total"]), faces)
    return ProofLine.roll(index, m["expr"], int(m["total"]), faces)


def block_lines(lines: Sequence[ProofLine]) -> list[str]:
    """The block's lines, ``pbp-dice end`` last (added when missing)."""
    out = [line.text() for line in lines if line.kind != "end"]
    return [*out, END.text()] if out else []


def render_block(lines: Sequence[ProofLine], platform: str) -> str:
    """The block said literally for *platform*: BBCode inside ``[code]``, Markdown as an
    indented code block, plain text as plain lines. Empty when there is nothing to say.

    A ``[`` inside an expression (a d20 annotation) gets a zero-width space in BBCode so
    it can never close the code tag; checkers drop it (:func:`clean`)."""
    text = block_lines(lines)
    if not text:
        return ""
    if platform == "bbcode":
        safe = [dataclasses.replace(x, expression=x.expression.replace("[", "[" + ZWSP))
                for x in lines]
        return "[code]" + "\n".join(block_lines(safe)) + "[/code]"
    if platform == "markdown":
        # a thematic break first: an indented block right after a list would be read as
        # that list item's continuation (machina's Markdown, Reddit) and its lines lost
        return "___\n\n" + "\n".join("    " + t for t in text)
    return "\n".join(text)


__all__ = ["END", "KINDS", "VERSION", "ProofLine", "UnknownVersion", "block_lines", "clean",
           "parse_line", "render_block"]

"""Check the published dice proof of an encounter from its replies alone (DICE-1, DICE-4).

Why no database: a player, or ``pbp verify URL`` run from an empty data directory, has
only what the thread shows. :func:`read_blocks` takes the bot's replies as a visitor reads
them (in thread order; HTML turned to text, with whatever spaces and nbsp that leaves)
and finds the blocks of :mod:`pbp.render.proof`; :func:`check` recomputes everything a
block claims and names each problem in words:

* the chain: the first round's commitment is the chain published when the encounter
  opened, each later round's commitment is the previous round's seed, and each revealed
  seed hashes to the link before it (a round re-rolled with a fresh seed cannot);
* every roll line, recomputed from its round's seed and index (total and faces), and
  no index missing (a roll made and not shown);
* hidden rolls (DICE-2): a revealed roll matches its commitment and its faces, and once
  the hidden key is published every hidden seed is the one the key gives;
* every dice breakdown the reply's sentences show (``1d20 (19) + 5 = 24``) is one the
  seed gives for that round: a total changed in the human text is found too.

docs/verifiable-dice.md says the same in enough detail to re-implement it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .dice import DiceBox, Roll
from .errors import PbpError
from .problem import Problem
from .render.hidden import check_hidden, hidden_from_lines
from .render.proof import ProofLine, UnknownVersion, clean, parse_line

#: how far back a seed may be hashed to meet a known link when replies are missing
MAX_GAP = 10_000


@dataclass
class ProofBlock:
    """The proof lines of one reply, with the reply's own sentences (``text``, the block
    lines taken out) and its place in the list read (``source``, 0-based)."""

    lines: list[ProofLine]
    text: str = ""
    source: int = 0

    @property
    def round(self) -> int | None:
        """The round the reply is about: the first round its block names (an opening
        commits to round 1; a resolution reveals round n and commits to n+1)."""
        return next((x.round for x in self.lines if x.round is not None), None)


@dataclass
class ProofReport:
    """What :func:`check` found. ``ok`` when no problem; ``notes`` say what could not be
    checked yet (a seed still secret) or how (an older encounter without a chain)."""

    chain: str | None = None
    rounds: list[int] = field(default_factory=list)
    rolls: int = 0
    shown: int = 0      # breakdowns in the sentences, each matched to the seed
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        head = ("dice chain " + self.chain if self.chain else "no chain (older encounter)")
        rounds = ", ".join(str(n) for n in self.rounds) or "none"
        summary = (f"{head}: rounds {rounds}; {self.rolls} rolls recomputed, {self.shown} "
                   f"shown rolls matched; " + ("every check passes" if self.ok
                                                else f"{len(self.problems)} problem(s)"))
        return [summary, *(f"  FAIL {p}" for p in self.problems), *(f"  note {n}" for n in self.notes)]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def read_blocks(texts: Iterable[str]) -> list[ProofBlock]:
    """The proof blocks in *texts* (the bot's replies, in thread order), read line by line
    across them: a reply cut into parts may cut its block too, and the parts before the
    block carry its sentences. Each block gets the sentences read since the previous block
    closed, so the breakdowns they show are checked against its round."""
    blocks: list[ProofBlock] = []
    current: list[ProofLine] | None = None
    prose: list[str] = []
    source = 0
    for source, text in enumerate(texts):
        for raw in text.splitlines():
            try:
                line = parse_line(raw)
            except UnknownVersion as exc:
                prose.append(f"[unknown proof version {exc}]")
                continue
            if line is None or (current is None and line.index is not None):
                prose.append(raw)     # a "#i ..." line counts only inside a block
            elif line.kind == "end":
                if current:
                    blocks.append(ProofBlock(lines=current, text="\n".join(prose), source=source))
                    prose = []
                current = None
            else:
                current = [*(current or []), line]
        prose.append("")      # a reply's last line never runs into the next one's first
    if current:       # a block never closed (cut off): keep what it says
        blocks.append(ProofBlock(lines=current, text="\n".join(prose), source=source))
    return blocks


def split_replies(text: str) -> list[str]:
    """One text holding several replies (a saved page, ``pbp verify --published``) cut
    after each reply's marker line (``pbp-reply:<key>``), so each reply's sentences are
    checked with its own block."""
    out: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        current.append(line)
        if "pbp-reply:" in line:
            out.append("\n".join(current))
            current = []
    if any(x.strip() for x in current):
        out.append("\n".join(current))
    return out


# --- the sentences' breakdowns --------------------------------------------------------

#: a breakdown as pbp.dice prints it: dice with their faces in parentheses, numbers,
#: operators, ``= total``; it starts at a dice term not glued to a word or a bracket
_TERM = r"(?:\d*d(?:\d+|%)[a-z0-9<>]*\s*\([^()]*\)|\d+|\(-?\d+\))"
BREAKDOWN = re.compile(rf"(?<![\w(#])(\d*d(?:\d+|%)[a-z0-9<>]*\s*\([^()]*\)"
                       rf"(?:\s*[-+*/]\s*{_TERM})*)\s+=\s+(-?\d+)", re.IGNORECASE)


#: a line quoting a player's own words (speech): BBCode's quote tag, Markdown's ``>``
QUOTE = re.compile(r"^(?:\[quote[^\]]*\]|>)", re.IGNORECASE)


def shown_breakdowns(text: str) -> list[str]:
    """Each dice breakdown the sentences of *text* show, as ``<parts> = <total>``; lines
    quoting a player's speech are the player's words, not the bot's, and are skipped."""
    out = []
    for raw in text.splitlines():
        line = clean(raw)
        if QUOTE.match(line):
            continue
        out += [f"{' '.join(m[1].split())} = {m[2]}" for m in BREAKDOWN.finditer(line)]
    return out


# --- the check --------------------------------------------------------------------------

@dataclass
class _Round:
    number: int
    commits: list[str] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)
    rolls: dict[int, list[ProofLine]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    given: list[Roll] = field(default_factory=list)   # what the seed gives, roll by roll

    @property
    def seed(self) -> str | None:
        return self.seeds[0] if self.seeds else None


def _collect(blocks: Sequence[ProofBlock], report: ProofReport
             ) -> tuple[dict[int, _Round], list[str]]:
    rounds: dict[int, _Round] = {}
    chains: list[str] = []

    def get(n: int) -> _Round:
        return rounds.setdefault(n, _Round(n))

    for b in blocks:
        seed_round: int | None = None
        for line in b.lines:
            if line.kind == "encounter":
                chains.append(line.digest)
            elif line.kind == "hidden-key":
                pass                    # the secret rolls' checker reads it (_check_hidden)
            elif line.kind == "commit" and line.round is not None:
                get(line.round).commits.append(line.digest)
            elif line.kind == "seed" and line.round is not None:
                get(line.round).seeds.append(line.digest)
                seed_round = line.round
            elif line.index is not None:
                if seed_round is None:
                    report.problems.append(Problem("reply {reply}: roll #{i} is listed under no "
                                                   "round's seed", reply=b.source + 1, i=line.index))
                    continue
                get(seed_round).rolls.setdefault(line.index, []).append(line)
        if b.round is not None and b.text:
            get(b.round).texts.append(b.text)
    return rounds, chains


def check(blocks: Sequence[ProofBlock]) -> ProofReport:
    """Check every claim of *blocks* (see the module's docstring); never raises on a bad
    reply: each problem is a sentence in :attr:`ProofReport.problems`."""
    report = ProofReport()
    rounds, chains = _collect(blocks, report)
    if len(set(chains)) > 1:
        report.problems.append(Problem("two different dice chains were published for the "
                                       "encounter: {values}", values=", ".join(sorted(set(chains)))))
    report.chain = chains[0] if chains else None
    if report.chain is None and rounds:
        report.notes.append(Problem("no chain (older encounter): each round is checked against "
                                    "its own commitment only"))
    report.rounds = sorted(rounds)
    _check_links(rounds, report)
    for n in report.rounds:
        _check_rolls(rounds[n], report)
    _check_hidden(blocks, report)
    for n in report.rounds:
        _check_text(rounds[n], report)
    return report


#: a round published with two values (a reply edited after the fact, or two bots)
TWO_COMMITMENTS = "round {n}: two different commitments were published: {values}"
TWO_SEEDS = "round {n}: two different seeds were published: {values}"


def _hashes_to(seed: str, target: str, most: int) -> int | None:
    """How many hashes of *seed* reach *target* (1..most), or None."""
    link = seed
    for k in range(1, most + 1):
        link = sha256(link)
        if link == target:
            return k
    return None


def _check_links(rounds: dict[int, _Round], report: ProofReport) -> None:
    """Commitments and seeds, round by round, along the chain. Round numbers that follow
    each other are links that follow each other; the first round read may be link n or
    n+1 (an encounter with a surprise round 0 rolls it with link 1)."""
    previous: tuple[int, str] | None = None     # (round, its seed): the last link known
    for n in sorted(rounds):
        r = rounds[n]
        for twice, values in ((TWO_COMMITMENTS, r.commits), (TWO_SEEDS, r.seeds)):
            if len(set(values)) > 1:
                report.problems.append(Problem(twice, n=n, values=", ".join(sorted(set(values)))))
        before = Problem("round {n}'s seed", n=previous[0]) if previous else Problem("the chain")
        known = previous[1] if previous else report.chain
        gap = n - previous[0] if previous else n + 1
        chained = report.chain is not None and known is not None
        if chained:
            assert known is not None
            for c in sorted(set(r.commits)):
                if c != known and _hashes_to(c, known, min(gap - 1, MAX_GAP)) is None:
                    report.problems.append(Problem(
                        "round {n}: its commitment {c} is not {before}: the round was "
                        "announced with a seed outside the chain", n=n, c=c, before=before))
        seed = r.seed
        if seed is None:
            if r.commits:
                report.notes.append(Problem("round {n}: not resolved yet, its seed is still secret", n=n))
                if chained:
                    previous = (n - 1, r.commits[0])   # the commitment is the link before
            continue
        for c in sorted(set(r.commits)):
            if sha256(seed) != c:
                report.problems.append(Problem("round {n}: the seed revealed does not hash to the "
                                               "commitment published ({c})", n=n, c=c))
        if chained:
            assert known is not None
            reached = _hashes_to(seed, known, max(1, min(gap, MAX_GAP)))
            if reached is None:
                report.problems.append(Problem("round {n}: the seed does not hash to {before}: the round "
                                               "was rolled with a seed outside the chain",
                                               n=n, before=before))
            elif reached > 1 and previous is not None:
                report.notes.append(Problem("round {n}: {k} link(s) before it not read; its seed still "
                                            "hashes to the chain", n=n, k=reached - 1))
        elif not r.commits:
            report.problems.append(Problem("round {n}: its seed was never committed to", n=n))
        previous = (n, seed)


def _check_rolls(r: _Round, report: ProofReport) -> None:
    """Every roll line recomputed from the round's seed; no index missing."""
    if not r.rolls:
        return
    if r.seed is None:
        report.problems.append(Problem("round {n}: rolls are listed but its seed is not", n=r.number))
        return
    for i in range(max(r.rolls) + 1):
        lines = r.rolls.get(i)
        if not lines:
            report.problems.append(Problem("round {n}: roll #{i} is missing: a roll was made and "
                                           "not shown", n=r.number, i=i))
            continue
        for kind in ("roll", "hidden", "revealed"):
            if len({x.text() for x in lines if x.kind == kind}) > 1:
                report.problems.append(Problem("round {n}: roll #{i} is listed twice, differently",
                                               n=r.number, i=i))
        line = next((x for x in lines if x.kind == "revealed"), lines[0])
        if line.kind == "hidden":
            continue      # still secret: its commitment is checked once revealed
        seed = line.digest if line.kind == "revealed" else r.seed
        index = 0 if line.kind == "revealed" else i
        try:
            again = DiceBox(seed=seed).replay(line.expression, index)
        except PbpError as exc:
            # the dice's refusal itself (pbp.dice_errors): the public page says it by its code
            report.problems.append(Problem("round {n}: roll #{i} '{expression}' cannot be rolled "
                                           "again: {error}", n=r.number, i=i,
                                           expression=line.expression, error=exc.message))
            continue
        report.rolls += 1
        r.given.append(again)
        if again.total != line.total or tuple(again.faces) != line.faces:
            report.problems.append(Problem(
                "round {n}: roll #{i} '{expression}': the reply shows {shown}, the seed gives "
                "{given}", n=r.number, i=i, expression=line.expression,
                shown=f"{line.total} {list(line.faces)}", given=f"{again.total} {list(again.faces)}"))


def _check_hidden(blocks: Sequence[ProofBlock], report: ProofReport) -> None:
    """DICE-2, by the one checker of secret rolls (:func:`pbp.render.hidden.check_hidden`):
    a revealed roll opens its seal and replays, the hidden key gives every seed."""
    found = check_hidden(hidden_from_lines(x for b in blocks for x in b.lines))
    report.problems += found.problems
    report.notes += found.notes


def _check_text(r: _Round, report: ProofReport) -> None:
    """Each breakdown the sentences show must be (the end of) one the seed gives."""
    if r.seed is None or not r.texts:
        return
    given = [g.breakdown for g in r.given]
    for text in r.texts:
        for shown in shown_breakdowns(text):
            if any(g == shown or g.endswith(" " + shown) for g in given):
                report.shown += 1
            else:
                report.problems.append(Problem("round {n}: the reply says '{shown}', which is not "
                                               "what any roll of the round gives under its seed",
                                               n=r.number, shown=shown))


__all__ = ["BREAKDOWN", "ProofBlock", "ProofReport", "check", "read_blocks", "sha256",
           "shown_breakdowns", "split_replies"]

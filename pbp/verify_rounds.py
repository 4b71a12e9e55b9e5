"""The dice check of an encounter, round by round (DICE-4): what ``pbp verify URL`` prints
and the public verification page shows.

Why a layer over :mod:`pbp.verify_proof`: its report says every problem of the
encounter at once, each sentence naming its round; a player asks "was round 3 fair?".
:func:`summarise` sorts the report's problems and notes under their rounds (the rest are
the encounter's: two chains, a wrong hidden key), next to what the blocks published for
each round (its commitment, its seed, how many rolls), so both faces say the same.

>>> from pbp.verify_proof import check, read_blocks
>>> s = summarise(read_blocks(["pbp-dice v1 round=1 commit=" + "0" * 64]), None)
>>> s.rounds[0].number, s.rounds[0].resolved, s.ok
(1, False, True)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .verify_proof import ProofBlock, ProofReport, check

_ROUND_OF = re.compile(r"^round (\d+):")


@dataclass(frozen=True)
class RoundCheck:
    """One round as its replies published it, and what the check found of it."""

    number: int
    commitment: str | None
    seed: str | None
    rolls: int
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def resolved(self) -> bool:
        """Its seed is public, so its rolls could be checked."""
        return self.seed is not None

    @property
    def shown_notes(self) -> tuple[str, ...]:
        """The notes worth showing: for a round not resolved yet, "its seed is still secret"
        is what its line says already."""
        return self.notes if self.resolved else tuple(n for n in self.notes if "still secret" not in n)


@dataclass(frozen=True)
class EncounterCheck:
    """Every round's check, and the problems that belong to no one round."""

    chain: str | None
    rounds: tuple[RoundCheck, ...]
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    blocks: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and all(r.ok for r in self.rounds)

    def lines(self) -> list[str]:
        """The check in words, for a terminal: one line a round, each problem under it."""
        out = [f"dice chain: {self.chain}" if self.chain else
               "dice chain: none published (an older encounter: rounds checked on their own)"]
        for r in self.rounds:
            if not r.ok:
                state = "FAIL"
            elif r.resolved:
                state = f"OK ({r.rolls} roll(s) recomputed from seed {r.seed})"
            else:
                state = "OK so far (not resolved: its seed is still secret)"
            out.append(f"round {r.number}: {state}")
            out += [f"  - {p}" for p in r.problems] + [f"  note: {n}" for n in r.shown_notes]
        if self.problems:
            out.append("encounter: FAIL")
            out += [f"  - {p}" for p in self.problems]
        out += [f"note: {n}" for n in self.notes]
        return out


def _by_round(texts: Sequence[str]) -> tuple[dict[int, list[str]], list[str]]:
    rounds: dict[int, list[str]] = {}
    rest: list[str] = []
    for t in texts:
        m = _ROUND_OF.match(t)
        if m:
            rounds.setdefault(int(m.group(1)), []).append(t)
        else:
            rest.append(t)
    return rounds, rest


def by_encounter(blocks: Sequence[ProofBlock]) -> list[list[ProofBlock]]:
    """*blocks* (a thread's, in thread order) cut where an encounter's opening publishes a
    chain: a thread that hosted several fights holds several chains, each checked on its
    own. Blocks before the first chain (an older encounter) are a group of their own.

    >>> from pbp.verify_proof import read_blocks
    >>> one, two = ("pbp-dice v1 encounter chain=%s hidden=%s" % (c * 64, c * 64) for c in "ab")
    >>> [len(g) for g in by_encounter(read_blocks([one, "pbp-dice v1 round=1 seed=" + "c" * 64, two]))]
    [2, 1]
    """
    groups: list[list[ProofBlock]] = []
    for b in blocks:
        if not groups or any(line.kind == "encounter" for line in b.lines):
            groups.append([])
        groups[-1].append(b)
    return groups


def summarise(blocks: Sequence[ProofBlock], report: ProofReport | None = None) -> EncounterCheck:
    """The check of *blocks* (run here when *report* is None), round by round."""
    report = report if report is not None else check(blocks)
    commits: dict[int, str] = {}
    seeds: dict[int, str] = {}
    rolls: dict[int, set[int]] = {}
    for b in blocks:
        under: int | None = None
        for line in b.lines:
            if line.kind == "commit" and line.round is not None:
                commits.setdefault(line.round, line.digest)
            elif line.kind == "seed" and line.round is not None:
                seeds.setdefault(line.round, line.digest)
                under = line.round
            elif line.index is not None and under is not None:
                rolls.setdefault(under, set()).add(line.index)
    problems, loose = _by_round(report.problems)
    notes, loose_notes = _by_round(report.notes)
    numbers = sorted(set(report.rounds) | set(commits) | set(seeds) | set(problems))
    rounds = tuple(RoundCheck(number=n, commitment=commits.get(n), seed=seeds.get(n),
                              rolls=len(rolls.get(n, ())), problems=tuple(problems.get(n, ())),
                              notes=tuple(notes.get(n, ())))
                   for n in numbers)
    return EncounterCheck(chain=report.chain, rounds=rounds, problems=tuple(loose),
                          notes=tuple(loose_notes), blocks=len(blocks))

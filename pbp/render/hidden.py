"""Secret rolls (DICE-2) as the thread reads them, and the check anyone can run on that text.

Why the public reply says so little: a hidden roll's value, expression and faces, and
anything the engine derived from them, would let the table work it out; so the reply says
only who rolled in secret and shows the roll's seal ``c = sha256("h:expression")``, where
``h = sha256("K:n:i")`` is the roll's own seed under the encounter's hidden key ``K``
(published as ``sha256(K)`` in the encounter's opening reply). A reveal publishes ``h``,
the expression and the result; the encounter's end publishes ``K``. Anyone can then check,
with this text alone (no database):

* ``sha256(h:expression) == c``: the revealed roll is the one that was sealed;
* the faces and total are roll 0 of ``DiceBox(seed=h)``: nobody changed the value;
* ``sha256(K) ==`` the published commitment, and every ``h == sha256("K:n:i")``: the
  narrator could not pick a seed for a roll after the fact, and every sealed roll of
  the encounter was revealed.

The machine-readable lines follow the shared proof format (docs/verifiable-dice.md,
PROOF.md): ``#<i> hidden <c>``, ``#<i> revealed <h> <expression> = <total> [faces]``,
``pbp-dice v1 hidden-key=<K>``; :func:`proof_lines` makes the first two.

>>> from pbp.dice import DiceBox, hidden_seed, seal
>>> h = hidden_seed("k" * 64, 1, 2); r = DiceBox(seed=h).roll("1d20+5")
>>> sealed = HiddenRoll(2, 1, "Lyra", seal(h, "1d20+5"))
>>> shown = HiddenRoll(2, 1, "Lyra", sealed.seal, seed=h, expression="1d20+5",
...                    total=r.total, faces=r.faces)
>>> texts = [f"pbp-dice v1 round=1\\n{proof_lines([sealed])[0]}\\npbp-dice end",
...          f"pbp-dice v1 round=1\\n{proof_lines([shown])[0]}\\npbp-dice end"]
>>> check_hidden(read_hidden(texts)).ok
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..dice import DiceBox, hidden_seed, seal
from ..errors import PbpError
from ..problem import Problem
from .i18n import say
from .proof import ProofLine, UnknownVersion, parse_line

#: every sentence of this module, by name (the catalogs translate them)
TEXTS: Mapping[str, str] = {
    "sealed": "{who} rolled in secret (sealed {seal}…)",
    "revealed": "{who}'s secret roll #{index} of round {round}, revealed: {expression} = {total} "
                "(dice: {faces})",
    "revealed.label": "{who}'s secret roll #{index} of round {round} ({label}), revealed: "
                      "{expression} = {total} (dice: {faces})",
    "narrator": "The narrator",
}


@dataclass(frozen=True)
class HiddenRoll:
    """A secret roll as a reply shows it: sealed (``seed`` None) or revealed."""

    index: int
    round_number: int
    who: str                      # a name, or "" for the narrator's own roll
    seal: str
    seed: str | None = None       # h, once revealed
    expression: str = ""
    total: int | None = None
    faces: tuple[int, ...] = ()
    label: str | None = None

    @property
    def revealed(self) -> bool:
        return self.seed is not None


def _who(r: HiddenRoll, lang: str) -> str:
    return r.who or say(TEXTS["narrator"], lang)


def sentence(r: HiddenRoll, lang: str) -> str:
    """The sentence a player reads: sealed, or the revealed value."""
    if not r.revealed:
        return say(TEXTS["sealed"], lang, {"who": _who(r, lang), "seal": r.seal[:6]})
    key = "revealed.label" if r.label else "revealed"
    return say(TEXTS[key], lang, {"who": _who(r, lang), "index": r.index, "round": r.round_number,
                                   "label": r.label, "expression": r.expression,
                                   "total": r.total, "faces": ", ".join(map(str, r.faces))})

# --- the check, from the text alone ---------------------------------------------------------

@dataclass
class Revealed:
    seed: str
    expression: str
    total: int
    faces: tuple[int, ...]


@dataclass
class HiddenProof:
    """What the thread published about secret rolls, read back from its text."""

    commitment: str | None = None
    key: str | None = None
    sealed: dict[tuple[int, int], str] = field(default_factory=dict)        # (round, i) -> c
    revealed: dict[tuple[int, int], Revealed] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)


@dataclass
class HiddenReport:
    sealed: int = 0
    revealed: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def read_hidden(texts: Iterable[str]) -> HiddenProof:
    """The secret-roll lines of replies *texts*, in thread order, read with the proof
    block's own line reader (:func:`pbp.render.proof.parse_line`: code tags, non-breaking
    spaces and a visitor's copy are all one to it); see :func:`hidden_from_lines`."""
    def lines() -> Iterable[ProofLine]:
        for text in texts:
            for raw in text.splitlines():
                try:
                    line = parse_line(raw)
                except UnknownVersion:
                    continue
                if line is not None:
                    yield line
    return hidden_from_lines(lines())


def hidden_from_lines(lines: Iterable[ProofLine]) -> HiddenProof:
    """What parsed proof lines say about secret rolls. A line keeps the round of the last
    ``round=<n> seed=`` head before it; the same roll published twice with two values is a
    conflict, named. ``pbp verify`` hands its blocks' lines here, so the thread's secret
    rolls have one checker whatever read them."""
    proof = HiddenProof()
    current: int | None = None
    for line in lines:
        if line.kind in ("seed", "commit"):
            current = line.round
        elif line.kind == "encounter":
            if proof.commitment is None:
                proof.commitment = line.hidden
        elif line.kind == "hidden-key":
            proof.key = line.digest
        elif line.kind == "end":
            current = None
        elif current is not None and line.index is not None and line.kind == "hidden":
            at = (current, line.index)
            if proof.sealed.setdefault(at, line.digest) != line.digest:
                proof.conflicts.append(Problem("round {n}: hidden roll #{i} was sealed twice, under "
                                               "{a}… and {b}…", n=at[0], i=at[1],
                                               a=proof.sealed[at][:12], b=line.digest[:12]))
        elif current is not None and line.index is not None and line.kind == "revealed":
            at = (current, line.index)
            shown = Revealed(line.digest, line.expression, int(line.total or 0), line.faces)
            if proof.revealed.setdefault(at, shown) != shown:
                proof.conflicts.append(Problem("round {n}: hidden roll #{i} was revealed twice with "
                                               "different values", n=at[0], i=at[1]))
    return proof


def check_hidden(proof: HiddenProof) -> HiddenReport:
    """Every problem with the thread's secret rolls, each named (see the module docstring);
    ``notes`` say which rolls are still sealed while the encounter runs."""
    report = HiddenReport(sealed=len(proof.sealed), revealed=len(proof.revealed),
                          problems=list(proof.conflicts))
    problems = report.problems
    if proof.key is not None:
        if proof.commitment is None:
            problems.append(Problem("the hidden key was published, but no commitment to it was"))
        elif hashlib.sha256(proof.key.encode()).hexdigest() != proof.commitment:
            problems.append(Problem("the hidden key published at the end does not hash to the one "
                                    "committed when the encounter opened"))
    for (n, i), r in sorted(proof.revealed.items()):
        where = Problem("round {n}: hidden roll #{i}", n=n, i=i)
        c = proof.sealed.get((n, i))
        # a roll revealed before its round's result never had its seal published: only
        # the key, at the end, vouches for its seed (check 3)
        if c is not None and seal(r.seed, r.expression) != c:
            problems.append(Problem("{where} was revealed with a different value than the one "
                                    "committed: its seed and expression '{expression}' do not "
                                    "hash to the seal {seal}… published with the roll (a forged "
                                    "reveal)", where=where, expression=r.expression, seal=c[:12]))
        try:
            again = DiceBox(seed=r.seed).replay(r.expression, 0)
        except PbpError as exc:
            # the dice's refusal itself (pbp.dice_errors): the public page says it by its code
            problems.append(Problem("{where}: '{expression}' cannot be replayed: {error}", where=where,
                                    expression=r.expression, error=exc.message))
            continue
        if again.total != r.total or again.faces != r.faces:
            problems.append(Problem("{where} was revealed as {shown}, but its seed gives {given}: "
                                    "the value was changed", where=where,
                                    shown=f"{r.total} {list(r.faces)}",
                                    given=f"{again.total} {list(again.faces)}"))
        if proof.key is not None and hidden_seed(proof.key, n, i) != r.seed:
            problems.append(Problem("{where} was not rolled with the seed the hidden key gives "
                                    "(sha256(K:n:i)): a seed chosen after the fact", where=where))
    for (n, i) in sorted(set(proof.sealed) - set(proof.revealed)):
        if proof.key is not None:
            problems.append(Problem("round {n}: hidden roll #{i} is sealed, and was never revealed "
                                    "although the encounter is over", n=n, i=i))
        else:
            report.notes.append(Problem("round {n}: hidden roll #{i} not revealed", n=n, i=i))
    return report

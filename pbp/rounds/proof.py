"""The dice proof of a reply, from the store (DICE-1): which :class:`ProofLine` values the
opening, a resolution and the closing reply carry (their rendering is
:mod:`pbp.render.proof`, their check :mod:`pbp.verify_proof`).

Why every roll of the round by index, not only the ones the sentences show: a roll made
and not used (a re-roll someone hoped nobody would notice) must still be listed, and a
missing index is exactly what a checker looks for. Hidden rolls (DICE-2) plug in through
:func:`roll_line`: a roll the encounter keeps hidden becomes a ``hidden`` line, a
revealed one a ``revealed`` line; everything else here stays the same.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..dice import commitment, hidden_seed
from ..render.proof import ProofLine
from ..store import hidden as hidden_store
from ..store import models as m
from ..store import queries


def roll_line(rec: m.RollRecord, rnd: m.Round, revealed: bool = False) -> ProofLine:
    """A stored roll as its proof line: the expression rolled, the seed's total and faces
    (a narrator's override is a separate, marked record, never in here). A secret roll
    (DICE-2) is its seal while sealed; once revealed, its own seed, expression and value."""
    if rec.hidden:
        key = rnd.encounter.hidden_key
        if revealed and key is not None:
            return ProofLine.revealed(rec.roll_index, hidden_seed(key, rnd.number, rec.roll_index),
                                      rec.expression, rec.total, list(rec.faces or []))
        return ProofLine.hidden_roll(rec.roll_index, rec.seal or "0" * 64)
    return ProofLine.roll(rec.roll_index, rec.expression, rec.total, list(rec.faces or []))


def roll_lines(session: Session, rnd: m.Round) -> list[ProofLine]:
    """Every roll of *rnd*, by index, secret ones as their seal or their reveal."""
    shown = {s.roll.id for s in hidden_store.round_secrets(session, rnd.id) if s.reveal is not None}
    return [roll_line(r, rnd, r.id in shown)
            for r in sorted(queries.round_rolls(session, rnd.id), key=lambda r: r.roll_index)]


def encounter_line(enc: m.Encounter) -> list[ProofLine]:
    """The chain and the hidden key's hash, or nothing for an encounter made before the
    chain (its checker then says "no chain (older encounter)")."""
    if enc.dice_chain is None:
        return []
    hidden = enc.hidden_commitment or (commitment(enc.hidden_key) if enc.hidden_key else "0" * 64)
    return [ProofLine.encounter(enc.dice_chain, hidden)]


def opening_lines(rnd: m.Round) -> list[ProofLine]:
    """The opening reply: the encounter's chain and the first round's commitment."""
    return [*encounter_line(rnd.encounter), ProofLine.commit(rnd.number, rnd.commitment)]


def reveal_lines(session: Session, enc: m.Encounter, roll_ids: set[int] | None = None, *,
                 besides: int | None = None, unrevealed: bool = False) -> list[ProofLine]:
    """Secret rolls revealed (DICE-2) of rounds whose seed is out, under each round's seed
    line: *roll_ids* (a reveal reply), or every revealed one (the encounter's end), round
    *besides* left out (its own lines already list them). A round still open says its
    revealed rolls in its own result, where its seed is. *unrevealed*: the ones not
    revealed yet too (the preview of a resolution that ends the fight, which reveals them
    all: nothing is recorded for it)."""
    out: list[ProofLine] = []
    by_round: dict[int, list[hidden_store.SecretRoll]] = {}
    for s in hidden_store.encounter_secrets(session, enc.id):
        if (unrevealed or s.reveal is not None) and (roll_ids is None or s.roll.id in roll_ids):
            by_round.setdefault(s.roll.round_id, []).append(s)
    for round_id, secrets in sorted(by_round.items()):
        rnd = session.get(m.Round, round_id)
        if rnd is None or round_id == besides or not rnd.seed_revealed:
            continue
        out.append(ProofLine.seed(rnd.number, rnd.seed))
        out += [roll_line(s.roll, rnd, True) for s in sorted(secrets, key=lambda x: x.roll.roll_index)]
    return out


def end_lines(session: Session, enc: m.Encounter, besides: int | None = None) -> list[ProofLine]:
    """The encounter's end reveals every secret roll and publishes its hidden key (DICE-2:
    every hidden roll checkable)."""
    key = [ProofLine.hidden_key(enc.hidden_key)] if enc.hidden_key else []
    return [*reveal_lines(session, enc, besides=besides), *key]


def resolution_lines(session: Session, rnd: m.Round, nxt: m.Round | None, *,
                     ended: bool) -> list[ProofLine]:
    """A resolution: the seed revealed, every roll of the round, the next round's
    commitment when one opened, the hidden key when the fight is over."""
    out = [ProofLine.seed(rnd.number, rnd.seed), *roll_lines(session, rnd)]
    if nxt is not None:
        out.append(ProofLine.commit(nxt.number, nxt.commitment))
    if ended:
        out.extend(end_lines(session, rnd.encounter, besides=rnd.id))
    return out


def correction_lines(session: Session, rnd: m.Round) -> list[ProofLine]:
    """A correction after the result was posted: the round's seed again and every roll,
    a roll the correction made (the next index under the same seed) included, so no roll
    goes unlisted and the correction's sentences are checked with its own round."""
    if not rnd.seed_revealed:
        return []
    return [ProofLine.seed(rnd.number, rnd.seed), *roll_lines(session, rnd)]


def closing_lines(session: Session, last: m.Round, closed: int | None) -> list[ProofLine]:
    """The closing reply: the seed and rolls of the round closed without a result (its
    initiative may have been rolled), and the hidden key."""
    out: list[ProofLine] = []
    if closed is not None and last.seed_revealed:
        out += [ProofLine.commit(last.number, last.commitment),
                ProofLine.seed(last.number, last.seed), *roll_lines(session, last)]
    return out + end_lines(session, last.encounter, besides=last.id if out else None)

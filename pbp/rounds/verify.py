"""``pbp verify``: recompute every roll of a round from its revealed seed.

What is public after a round: the commitment (SHA-256 of the seed, in the opening
reply or the previous round's reply), the seed (in the resolution reply), and each
roll's expression and result (in the replies). A roll is number *i* under the seed:
:meth:`pbp.dice.DiceBox.replay` recomputes it. Verification fails, naming the roll,
when a stored roll differs from what the seed gives, when an index is missing (a roll
made and thrown away), when the seed does not match the commitment, or when a roll is
not shown in the replies as stored. Narrator overrides are listed, never hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..dice import DiceBox, commitment, hidden_seed, seal
from ..errors import PbpError
from ..store import models as m
from ..store import queries
from ..verify_proof import ProofReport, check, read_blocks, split_replies


@dataclass
class VerifyReport:
    round_id: int
    number: int
    rolls: int = 0
    problems: list[str] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        head = (f"round {self.number} (id {self.round_id}): {self.rolls} rolls, "
                + ("all match the seed" if self.ok else f"{len(self.problems)} problem(s)"))
        return [head, *(f"  FAIL {p}" for p in self.problems),
                *(f"  override {o}" for o in self.overrides)]


def _who(r: m.RollRecord, posts: dict[int, tuple[str, str]] | None = None) -> str:
    """The roll named so a narrator finds it: its index, actor, tag and post; with the
    post's platform id and author kept beside the roll (DICE-3), deleted posts included."""
    where = f"tag {r.tag_index} of post {r.post_id}" if r.post_id is not None else r.kind
    if posts and r.id in posts:
        platform_id, author = posts[r.id]
        where = f"tag {r.tag_index} of post {platform_id} by {author}"
    return f"roll #{r.roll_index} ({r.actor or '-'}, {where}, '{r.expression}')"


def _check_chain(session: Session, rnd: m.Round, report: VerifyReport) -> None:
    """DICE-1: the round's commitment is the link before it (the chain for the first
    round, the previous round's seed after), so a round re-rolled with a fresh seed,
    even by someone who rewrote its commitment in the database, is named."""
    enc = rnd.encounter
    if enc.dice_chain is None:
        return      # an encounter made before the chain: per-round seeds, checked above
    before = queries.previous_round(session, rnd)
    link, name = (before.seed, f"round {before.number}'s seed") if before is not None \
        else (enc.dice_chain, "the encounter's dice chain")
    if commitment(rnd.seed) != link:
        report.problems.append(f"the seed does not hash to {name}: the round was rolled "
                               "with a seed outside the chain")
def _check_hidden(rnd: m.Round, r: m.RollRecord, published: str, report: VerifyReport) -> None:
    """A secret roll (DICE-2): replayed from its own seed ``sha256("K:n:i")``, its seal
    recomputed; the reply shows the seal, never the breakdown."""
    key = rnd.encounter.hidden_key
    if key is None:
        report.problems.append(f"{_who(r)}: a secret roll, but the encounter has no hidden key")
        return
    own = hidden_seed(key, rnd.number, r.roll_index)
    again = DiceBox(seed=own).replay(r.expression, 0)
    if again.total != r.total or list(again.faces) != list(r.faces or []):
        report.problems.append(f"{_who(r)} (secret): stored {r.total} {list(r.faces or [])}, "
                               f"its seed gives {again.total} {list(again.faces)}")
    if r.seal != seal(own, r.expression):
        report.problems.append(f"{_who(r)} (secret): the stored seal is not sha256(h:expression)")
    elif r.seal not in published:
        report.problems.append(f"{_who(r)} (secret): its seal is not in the published replies")


def verify_round(session: Session, round_id: int, *, published: str | None = None) -> VerifyReport:
    """Check round *round_id*; *published* is the text of its replies as posted (defaults
    to the replies stored in the outbox)."""
    rnd = session.get(m.Round, round_id)
    if rnd is None:
        raise LookupError(f"no round {round_id}")
    report = VerifyReport(round_id=rnd.id, number=rnd.number)
    if not rnd.seed_revealed:
        raise PbpError(f"round {rnd.number} is not resolved: its seed is still secret")
    if commitment(rnd.seed) != rnd.commitment:
        report.problems.append(f"the seed's SHA-256 is {commitment(rnd.seed)}, "
                               f"but the commitment published was {rnd.commitment}")
    _check_chain(session, rnd, report)
    if published is None:
        published = "\n".join(session.scalars(select(m.Reply.body).where(m.Reply.round_id == rnd.id)))
        opened_by = queries.current_round(session, rnd.encounter_id, rnd.number - 1)
        if opened_by is not None:
            published += "\n" + "\n".join(session.scalars(
                select(m.Reply.body).where(m.Reply.round_id == opened_by.id)))
    if rnd.commitment not in published:
        report.problems.append("the commitment does not appear in the published replies")
    if rnd.seed not in published:
        report.problems.append("the seed does not appear in the published replies")
    rolls = queries.round_rolls(session, rnd.id)
    report.rolls = len(rolls)
    posts = queries.roll_posts(session, rnd.id)
    expected = 0
    for r in rolls:
        if r.roll_index != expected:
            gap = ", ".join(f"#{i}" for i in range(expected, r.roll_index))
            report.problems.append(f"roll {gap} missing: a roll was made and not kept")
        expected = r.roll_index + 1
        if r.hidden:
            _check_hidden(rnd, r, published, report)
            continue
        try:
            again = DiceBox(seed=rnd.seed).replay(r.expression, r.roll_index)
        except PbpError as exc:
            report.problems.append(f"{_who(r, posts)} cannot be replayed: {exc}")
            continue
        if again.total != r.total or list(again.faces) != list(r.faces or []):
            report.problems.append(f"{_who(r, posts)} does not match the seed: stored {r.total} "
                                   f"{list(r.faces or [])}, the seed gives {again.total} "
                                   f"{list(again.faces)}")
        elif again.breakdown != r.breakdown:
            report.problems.append(f"{_who(r, posts)}: stored '{r.breakdown}', "
                                   f"the seed gives '{again.breakdown}'")
        elif r.breakdown not in published:
            report.problems.append(f"{_who(r, posts)}: '{r.breakdown}' is not in the published replies")
    for o in queries.round_overrides(session, rnd.id, "roll"):
        p = o.payload or {}
        report.overrides.append(f"roll #{p.get('roll_index')} set to {p.get('after')} by the "
                                f"narrator (rolled {p.get('rolled')}): {o.reason}")
    return report


def verify_replies(session: Session, encounter_id: int, *, published: str | None = None
                   ) -> ProofReport:
    """The proof check a visitor runs (:mod:`pbp.verify_proof`), over the encounter's
    stored replies (or *published*, the replies as posted): what the thread shows must
    check out without the database, and here it is run with it at hand."""
    texts = split_replies(published) if published is not None \
        else queries.encounter_replies(session, encounter_id)
    return check(read_blocks(texts))

"""The roll ledger of an encounter (DICE-3): every roll, by player, post, tag and round.

Not the economy and not the outbox (those are :mod:`pbp.store.ledger`, which holds the
replies, overrides and audit tables): this is the narrator's list of every roll the dice
made, including what a reply no longer shows (rolls of deleted posts, of superseded
revisions, of tags an edit removed), with what the narrator must look at flagged:

* ``deleted``: the roll's post was deleted (or its row is gone: the post's platform id
  and author were kept beside the roll, :class:`~pbp.store.models.RollPost`);
* ``superseded``: made from a revision a later edit replaced; ``tag-removed``: the edit
  removed the rolled tag itself (the roll is kept, PBP-4);
* ``given-back``: a deleted post's roll handed to the tag that re-posted it;
  ``reposted``: a re-post that could not be matched to its deleted post's roll;
* ``fishing``: several rolls for one declared action (a second attack roll added in an
  edit, the same action posted twice): the rule stays as it is (PBP-4 binds a roll to
  its tag; the latest post counts), the ledger names the roll the round uses;
* ``narrator``: the narrator set the roll's result (DICE-5; the stored roll unchanged);
* ``tampered``: the stored total or faces are not what the round's seed gives at the
  roll's index: a row changed behind the ORM (DICE-3's tampering check; ``pbp verify``
  names the same roll).

Reads only, a fixed number of queries whatever the encounter's size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..dice import DiceBox, hidden_seed
from ..errors import PbpError
from .models import (
    Combatant,
    Declaration,
    Encounter,
    EventRecord,
    Override,
    Post,
    PostRevision,
    RollPost,
    RollRecord,
    RollReuse,
    Round,
)
from .queries import choose_declarations

#: every flag, in the order the page and the exports list them
FLAGS = ("tampered", "fishing", "reposted", "given-back", "deleted", "superseded",
         "tag-removed", "narrator")


@dataclass
class LedgerRow:
    """One roll as the ledger shows it (plain values: the page, CSV and JSON alike)."""

    roll_id: int
    round_number: int
    roll_index: int
    kind: str                         # tag | initiative | engine
    actor: str | None
    actor_name: str | None
    player: str | None                # the post's author, else the combatant's player
    post: str | None                  # the post's platform id
    post_url: str | None
    tag_index: int | None
    label: str | None
    written: str
    expression: str
    total: int
    faces: list[Any]
    breakdown: str
    revision: int | None = None       # the post's revision it was rolled from
    set_total: int | None = None      # the narrator's total (DICE-5)
    set_reason: str = ""
    seed_total: int | None = None     # what the seed gives, when it differs
    used: bool = False                # in the round's result (or the declaration that counts)
    given_to: str | None = None       # the post a re-post gave this roll back to
    fishing_with: list[int] = field(default_factory=list)   # the other rolls of the action
    flags: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _norm(written: str | None, label: str | None) -> tuple[str, str]:
    return ("".join((written or "").split()).casefold(), (label or "").strip().casefold())


def _in(q: Any, encounter_id: int, round_number: int | None) -> Any:
    """*q* (joined to rounds) for the encounter, or one round of it."""
    q = q.where(Round.encounter_id == encounter_id)
    return q if round_number is None else q.where(Round.number == round_number)


def _rows(session: Session, encounter_id: int, round_number: int | None
          ) -> list[tuple[RollRecord, int, RollPost | None, Post | None]]:
    q = _in(select(RollRecord, Round.number, RollPost, Post)
            .join(Round, Round.id == RollRecord.round_id)
            .outerjoin(RollPost, RollPost.roll_id == RollRecord.id)
            .outerjoin(Post, Post.id == RollRecord.post_id), encounter_id, round_number) \
        .order_by(Round.number, RollRecord.roll_index)
    return [(r, n, rp, p) for r, n, rp, p in session.execute(q)]


def _seed_check(rec: RollRecord, seeds: dict[int, str], numbers: dict[int, int],
                hidden_key: str | None) -> int | None:
    """What the seed gives at *rec*'s index when it is not what is stored, else None. A
    secret roll (DICE-2) is roll 0 of its own seed ``sha256("K:n:i")`` under the
    encounter's hidden key, not the round seed's roll *i*: replayed from the round seed,
    every secret roll was flagged "tampered" on the narrator's own page."""
    try:
        if rec.hidden:
            if hidden_key is None:   # no key, nothing to check it against: not a finding
                return None
            own = hidden_seed(hidden_key, numbers[rec.round_id], rec.roll_index)
            again = DiceBox(seed=own).replay(rec.expression, 0)
        else:
            again = DiceBox(seed=seeds[rec.round_id]).replay(rec.expression, rec.roll_index)
    except (PbpError, KeyError, ValueError):
        return -1
    if again.total != rec.total or list(again.faces) != list(rec.faces or []):
        return int(again.total)
    return None


def _groups(decls: Sequence[Declaration], tag_rolls: dict[tuple[int, str], list[RollRecord]],
            key_of: dict[int, str]) -> dict[tuple[Any, ...], set[int]]:
    """(round, actor, action or tag) -> the roll indexes made for it, across the actor's
    posts of the round (deleted and superseded ones included)."""
    groups: dict[tuple[Any, ...], set[int]] = defaultdict(set)
    for d in decls:
        actor = key_of.get(d.combatant_id)
        if actor is None or d.post_id is None:
            continue
        seen: dict[tuple[Any, ...], int] = defaultdict(int)
        attached: dict[tuple[str, str], tuple[Any, ...]] = {}
        indexes = set()
        for a in d.actions or []:
            rolled = a.get("rolled") or {}
            if rolled.get("index") is None:
                continue
            base = (d.round_id, actor, a.get("kind"), a.get("target"), a.get("weapon"))
            key = (*base, seen[base])
            seen[base] += 1
            groups[key].add(int(rolled["index"]))
            indexes.add(int(rolled["index"]))
            attached.setdefault(_norm(rolled.get("expression"), rolled.get("label")), key)
        for rec in tag_rolls.get((d.post_id, actor), []):
            if rec.roll_index in indexes:
                continue
            tag = _norm(rec.expression, rec.label)
            groups[attached.get(tag, (d.round_id, actor, "tag", *tag))].add(rec.roll_index)
    return groups


def encounter_ledger(session: Session, encounter_id: int, *, player: str | None = None,
                     round_number: int | None = None) -> list[LedgerRow]:
    """Every roll of the encounter, by round and index, flagged (see the module); only
    *player*'s (post author or combatant's player, any case) or *round_number*'s when
    given. Every flag is a matter of one round (a roll is given back, fished for, within
    its round), so a round's ledger is read with that round's rows only."""
    rows = _rows(session, encounter_id, round_number)
    rounds = list(session.execute(_in(select(Round.id, Round.number, Round.seed, Round.state),
                                      encounter_id, round_number)))
    seeds = {rid: seed for rid, _n, seed, _s in rounds}
    numbers = {rid: n for rid, n, _seed, _s in rounds}
    hidden_key = session.scalar(select(Encounter.hidden_key).where(Encounter.id == encounter_id))
    combatants = list(session.execute(select(Combatant.id, Combatant.key, Combatant.name,
                                             Combatant.player)
                                      .where(Combatant.encounter_id == encounter_id)))
    key_of = {cid: key for cid, key, _n, _p in combatants}
    name_of = {key: name for _c, key, name, _p in combatants}
    player_of = {key: p for _c, key, _n, p in combatants}
    decls = list(session.scalars(_in(select(Declaration).join(Round, Round.id == Declaration.round_id),
                                     encounter_id, round_number).order_by(Declaration.id)))
    overrides = {(int(o.round_id or 0), int(o.payload["roll_index"])): o for o in session.scalars(
        select(Override).where(Override.encounter_id == encounter_id, Override.kind == "roll")
        .order_by(Override.id)) if "roll_index" in (o.payload or {})}
    roll_ids = [r.id for r, *_ in rows]
    reuses = {roll_id: (post_id, tag) for roll_id, post_id, tag in session.execute(
        select(RollReuse.roll_id, RollReuse.post_id, RollReuse.tag_index)
        .where(RollReuse.roll_id.in_(roll_ids)))} if roll_ids else {}
    post_ids = {r.post_id for r, *_ in rows if r.post_id is not None} | {p for p, _t in reuses.values()}
    platform_of = dict(session.execute(select(Post.id, Post.platform_id)
                                       .where(Post.id.in_(post_ids))).all()) if post_ids else {}
    edited = dict(session.execute(select(PostRevision.post_id, func.max(PostRevision.number))
                                  .where(PostRevision.post_id.in_(post_ids),
                                         PostRevision.change == "edited")
                                  .group_by(PostRevision.post_id)).all()) if post_ids else {}
    resolved = [rid for rid, _n, _seed, state in rounds if state == "resolved"]
    used: set[tuple[int, int]] = set()
    for rid, indexes in session.execute(select(EventRecord.round_id, EventRecord.roll_indexes)
                                        .where(EventRecord.round_id.in_(resolved))) if resolved else []:
        used.update((rid, int(i)) for i in indexes or [])
    # the rolls of each (post, actor), the given-back ones under the post they went to
    tag_rolls: dict[tuple[int, str], list[RollRecord]] = defaultdict(list)
    for r, *_ in rows:
        if r.kind == "tag" and r.post_id is not None and r.actor:
            tag_rolls[(r.post_id, r.actor)].append(r)
            if r.id in reuses:
                tag_rolls[(reuses[r.id][0], r.actor)].append(r)
    for rid in (rid for rid, _n, _seed, state in rounds if state == "open"):
        # an open round: the rolls the declarations that would count now carry
        for d in choose_declarations(session, rid).counted:
            used.update((rid, int((a.get("rolled") or {})["index"]))
                        for a in d.actions or [] if (a.get("rolled") or {}).get("index") is not None)
    fishing: dict[tuple[int, int], list[int]] = {}
    for key, group in _groups(decls, tag_rolls, key_of).items():
        if len(group) > 1:
            for i in group:
                fishing[(key[0], i)] = sorted(group - {i})
    reposted: set[tuple[int, str]] = set()
    removed: set[tuple[int, str, int]] = set()
    for d in decls:
        actor = key_of.get(d.combatant_id)
        for n in d.notes or []:
            if d.post_id is None or actor is None:
                continue
            if n.get("code") == "reposted-after-roll":
                reposted.add((d.post_id, actor))
            elif n.get("code") == "rolled-tag-removed":
                removed.update((d.post_id, actor, int(t)) for t in n.get("tags") or [])
    out = []
    for r, number, rp, post in rows:
        row = LedgerRow(
            roll_id=r.id, round_number=number, roll_index=r.roll_index, kind=r.kind,
            actor=r.actor, actor_name=name_of.get(r.actor or ""),
            player=(rp.author if rp is not None else post.author if post is not None
                    else player_of.get(r.actor or "")),
            post=rp.platform_id if rp is not None else post.platform_id if post else None,
            post_url=post.url if post is not None else None, tag_index=r.tag_index,
            label=r.label, written=r.written, expression=r.expression, total=r.total,
            faces=list(r.faces or []), breakdown=r.breakdown,
            revision=rp.revision if rp is not None else None,
            used=(r.round_id, r.roll_index) in used)
        _flag(row, r, rp, post, edited, removed, reposted, reuses, platform_of, fishing,
              overrides, _seed_check(r, seeds, numbers, hidden_key))
        out.append(row)
    return [x for x in out if player is None or (x.player or "").casefold() == player.casefold()]


def _flag(row: LedgerRow, r: RollRecord, rp: RollPost | None, post: Post | None,
          edited: dict[int, int], removed: set[tuple[int, str, int]],
          reposted: set[tuple[int, str]], reuses: dict[int, tuple[int, int]],
          platform_of: dict[int, str], fishing: dict[tuple[int, int], list[int]],
          overrides: dict[tuple[int, int], Override], seed_total: int | None) -> None:
    """Set *row*'s flags (in :data:`FLAGS` order)."""
    flags: set[str] = set()
    if seed_total is not None:
        flags.add("tampered")
        row.seed_total = seed_total
    if (r.round_id, r.roll_index) in fishing:
        flags.add("fishing")
        row.fishing_with = fishing[(r.round_id, r.roll_index)]
    if r.post_id is not None and r.actor and (r.post_id, r.actor) in reposted and r.kind == "tag":
        flags.add("reposted")
    if r.id in reuses:
        flags.add("given-back")
        row.given_to = platform_of.get(reuses[r.id][0])
    if (post is not None and post.deleted_at is not None) or (post is None and rp is not None):
        flags.add("deleted")
    if r.post_id is not None and rp is not None and edited.get(r.post_id, 0) > rp.revision:
        flags.add("superseded")
    if r.post_id is not None and r.tag_index is not None and (r.post_id, r.actor or "", r.tag_index) in removed:
        flags.add("tag-removed")
    ov = overrides.get((r.round_id, r.roll_index))
    if ov is not None:
        flags.add("narrator")
        row.set_total = int(ov.payload["after"])
        row.set_reason = ov.reason
    row.flags = [f for f in FLAGS if f in flags]


#: flags a narrator must look at on the encounter page (the others are facts the ledger keeps)
WATCH = ("tampered", "fishing", "reposted", "given-back")


def watched(rows: Iterable[LedgerRow]) -> list[LedgerRow]:
    """The rows the encounter page flags (:data:`WATCH`)."""
    return [r for r in rows if set(r.flags) & set(WATCH)]


def players(rows: Iterable[LedgerRow]) -> list[str]:
    """The players the ledger names, for the page's filter."""
    return sorted({r.player for r in rows if r.player}, key=str.casefold)

"""A round with fifty combatants can say more than Reddit takes in one comment (10,000
characters): the reply goes out in parts, in order, threaded, each with its marker.
(The thread's ``max_reply_chars`` makes the limit small here so a round needs parts.)"""

from __future__ import annotations

from pbp.render.split import LIMITS
from pbp.rounds import service
from pbp.rules.model import Combatant, Weapon
from pbp.store import models as m
from pbp.store.db import session_scope
from pbp.store.queries import reply_parts

from .test_idempotency import FakeSource
from .world import at, make_world, post


def _fifty() -> list[Combatant]:
    return [Combatant(key=f"{'h' if i < 25 else 'o'}{i}", name=f"{'Hero' if i < 25 else 'Orc'} {i}",
                      side="heroes" if i < 25 else "orcs", player=f"user{i}" if i < 25 else None,
                      hp=500, max_hp=500, weapons=(Weapon("sword", "1d8"),),
                      stats={"luta": 4, "fortitude": 2, "str_mod": 1, "initiative": i % 5})
            for i in range(50)]


def test_a_long_reddit_reply_is_posted_in_parts_in_order(engine):
    w = make_world(engine, platform="markdown", combatants=_fifty())
    with session_scope(engine) as s:
        thread = s.get(m.Thread, w.thread_id)
        thread.kind, thread.options = "reddit", {**thread.options, "max_reply_chars": 3000}
    rid = w.open(at(0))
    w.ingest([post(f"p{i}", f"user{i}", at(1), f"I attack Orc {25 + i} with my sword "
                   f"[roll]1d20+4[/roll] \"For the {i}th time!\"", fmt="markdown")
              for i in range(25)], now=at(2))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        parts = reply_parts(s, rid, "resolution")
        assert len(parts) >= 2
        assert all(len(p.body) <= 3000 and p.marker in p.body for p in parts)
        assert LIMITS["markdown"] == 10_000 and parts[0].platform == "markdown"
        assert [p.idempotency_key for p in parts][:2] == [f"{rid}:resolution", f"{rid}:resolution:p2"]
        assert parts[0].body.rstrip().endswith(f"(1/{len(parts)})\n\n^(pbp-reply:{rid}:resolution)")
        assert service.verify_round(s, rid).ok
        ids = [p.id for p in parts]
    src = FakeSource()
    with session_scope(engine) as s:              # part 2 waits for part 1
        assert service.deliver_reply(s, ids[1], src) is None
    for rid_ in service_pending(engine):
        with session_scope(engine) as s:
            service.deliver_reply(s, rid_, src)
    with session_scope(engine) as s:
        sent = [s.get(m.Reply, i) for i in ids]
        assert all(r.state == "sent" for r in sent)
        assert [r.in_reply_to for r in sent[1:]] == [r.platform_id for r in sent[:-1]]
    texts = [t for _pid, t in src.posts if f"pbp-reply:{rid}:resolution" in t]
    assert all(f"({i}/{len(ids)})" in t for i, t in enumerate(texts, 1))


def service_pending(engine):  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        return service.pending_replies(s)

"""Issue 12 item 1 in the rounds layer: a post is ours only when the source says the bot's
account wrote it AND it carries a marker outside quotes. A player quoting the bot's opening
reply, or typing a marker, is still that player's declaration."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from sqlalchemy import select

from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post


def _post(engine, pid: str) -> m.Post:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        p = s.scalar(select(m.Post).where(m.Post.platform_id == pid))
        s.expunge(p)
        return p


def test_a_player_quoting_the_opening_reply_still_declares(engine):
    """issue 12 item 1: the quoted marker is the bot's words, not the player's; the
    player's attack counts and the result does not call them late or absent."""
    w = make_world(engine)
    rid = w.open(at(0))
    opening = w.reply(f"{rid}:opening").body
    assert f"pbp-reply:{rid}:opening" in opening
    quoting = f"[quote=pbp]{opening}[/quote]\nI attack Goblin Snag with my sword [roll]1d20+5[/roll]"
    ours = dataclasses.replace(post("r1", "pbp", at(0, 1), opening), by_bot=True)
    w.ingest([ours, post("p1", "alice", at(1), quoting),
              post("p2", "bob", at(1), f"#defend pbp-reply:{rid}:resolution")], now=at(1))
    assert _post(engine, "r1").is_ours
    assert not _post(engine, "p1").is_ours and not _post(engine, "p2").is_ours
    decls = w.declarations(rid)
    assert [a["kind"] for a in decls["aria"][-1].actions] == ["attack"]
    assert "bram" in decls
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert "Aria posted late or not at all" not in body
    assert "Bram posted late or not at all" not in body
    assert "Cyd posted late or not at all" in body               # the one who did not post


def test_the_bots_account_without_a_marker_is_read_like_anyone(engine):
    """issue 12 item 1: author and marker together; the bot's account alone is not enough,
    nor is a marker the bot only quoted."""
    w = make_world(engine)
    rid = w.open(at(0))
    quoted = dataclasses.replace(
        post("r2", "pbp", at(0, 2), f"[quote]pbp-reply:{rid}:opening[/quote] hello"), by_bot=True)
    plain = dataclasses.replace(post("r3", "pbp", at(0, 3), "hello"), by_bot=True)
    w.ingest([quoted, plain], now=at(0, 5))
    assert not _post(engine, "r2").is_ours and not _post(engine, "r3").is_ours


def test_a_post_printed_to_the_minute_the_round_opened_counts_for_it(engine):
    """A forum prints the player's answer as 10:57 although the round opened at 10:57:42
    (machina prints minutes): the post is read for that round, on time (PBP-2: lateness is
    judged on the printed time)."""
    w = make_world(engine)
    opened = at(0).replace(second=42)
    rid = w.open(opened)
    printed = opened.replace(second=0)
    w.ingest([post("p1", "alice", printed, "I attack Goblin Snag with my sword")],
             now=opened.replace(second=55))
    decls = w.declarations(rid)
    assert [a["kind"] for a in decls["aria"][-1].actions] == ["attack"]
    assert not decls["aria"][-1].late


def test_a_post_printed_a_minute_before_the_round_is_not_read_for_it(engine):
    """The benefit of the doubt covers the printed minute only: a post shown one minute
    before the opening minute stays outside the round."""
    w = make_world(engine)
    opened = at(0).replace(second=42)
    rid = w.open(opened)
    w.ingest([post("p1", "alice", opened.replace(second=0) - timedelta(minutes=1),
                   "I attack Goblin Snag with my sword")], now=opened.replace(second=55))
    assert "aria" not in w.declarations(rid)

"""SCALE-2 (issue 17 item 2): the campaign page's polling table shows each forum's
*measured* cycle (from what the workers left: a topic list's read times, how long a
thread polled alone has waited) and why threads are polled alone."""

from __future__ import annotations

import time
from datetime import timedelta

from pbp.jobs import listings
from pbp.jobs.resources import utcnow
from pbp.panel.polling import forum_polling
from pbp.store.db import session_scope
from pbp.store.models import Thread
from tests.jobs.conftest import Res
from tests.rounds.world import World

MACHINA = "http://127.0.0.1:8002/forum/forum/adventures-2/topic/the-goblin-cave-{}/"
SMF = "http://127.0.0.1:8002/index.php?topic=7.0"


def test_scale2_polling_table_shows_measured_cycle_and_reasons(res: Res, world: World) -> None:
    """Two machina threads on one derived list read 61 s and 59 s apart (median gap 60 s),
    one SMF thread alone last read 95 s ago: the host's measured cycle is the longer,
    95 s; the estimate is max(30 s poll interval, (1 list + 1 alone) x 2 s); the reason is
    the preset's (SMF's board is learned at the thread's first read, not read yet)."""
    now = utcnow()
    with session_scope(res.engine) as s:
        s.add_all([Thread(campaign_id=world.campaign_id, kind="forum", url=MACHINA.format(n),
                          options={"preset": "machina"}) for n in (1, 2)])
        s.add(Thread(campaign_id=world.campaign_id, kind="forum", url=SMF, options={"preset": "smf21"},
                     last_poll=now - timedelta(seconds=95)))
    listing = "http://127.0.0.1:8002/forum/forum/adventures-2/"
    listings.ensure_table(res.engine)
    t = time.time()
    with res.engine.begin() as conn:
        listings.save_state(conn, listing, state={"last_posts": {}, "checks": [t - 120, t - 59, t]},
                            next_check=t + 60)
    with session_scope(res.engine) as s:
        rows = forum_polling(s, res.settings, [MACHINA.format(1), SMF])
    assert len(rows) == 1
    row = rows[0]
    assert (row.host, row.threads, row.listings, row.alone) == ("127.0.0.1", 3, 1, 1)
    assert row.cycle_seconds == 30.0     # the fixture's poll_interval is 30 s
    assert row.measured_seconds is not None and 94 <= row.measured_seconds <= 100
    assert row.alone_reasons == (("not-learned", "smf21"),)


def test_scale2_measured_cycle_of_a_list_alone(res: Res, world: World) -> None:
    """With every thread on the list, the measured cycle is the list's median read gap."""
    with session_scope(res.engine) as s:
        s.add(Thread(campaign_id=world.campaign_id, kind="forum", url=MACHINA.format(3),
                     options={"preset": "machina"}))
    listings.ensure_table(res.engine)
    with res.engine.begin() as conn:
        listings.save_state(conn, "http://127.0.0.1:8002/forum/forum/adventures-2/",
                            state={"checks": [1000.0, 1070.0, 1130.0, 1200.0]}, next_check=0)
    with session_scope(res.engine) as s:
        (row,) = forum_polling(s, res.settings, [MACHINA.format(3)])
    assert row.measured_seconds == 70.0 and row.alone_reasons == ()


def test_scale2_a_learned_forum_in_the_cursor_puts_the_thread_on_its_list(res: Res, world: World) -> None:
    """SCALE-2: an SMF 2.1 thread whose read learned its board (cursor ``forum`` = "1") is
    watched through ``index.php?board=1.0`` and counted on that list, on SQLite and
    PostgreSQL (the cursor's ``forum`` read alone, not the whole cursor); another thread
    of the same host not read yet stays alone, with its reason."""
    with session_scope(res.engine) as s:
        s.add(Thread(campaign_id=world.campaign_id, kind="forum", url=SMF, options={"preset": "smf21"},
                     cursor={"v": 1, "page": 4, "forum": "1", "seen": [["18", "abc"]]}))
        s.add(Thread(campaign_id=world.campaign_id, kind="forum", options={"preset": "smf21"},
                     url="http://127.0.0.1:8002/index.php?topic=9.0"))
    with session_scope(res.engine) as s:
        assert listings.active_listings(s) == {"http://127.0.0.1:8002/index.php?board=1.0": {"preset": "smf21"}}
        (row,) = forum_polling(s, res.settings, [SMF])
    assert (row.threads, row.listings, row.alone) == (2, 1, 1)
    assert row.alone_reasons == (("not-learned", "smf21"),)

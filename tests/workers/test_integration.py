"""The service as it runs: real worker and beat processes, a real broker and database.

Each test seeds a campaign whose thread is a local scenario file, appends posts to it like
players would, and reads the replies pbp writes beside it. Parametrised tests run on
Redis + PostgreSQL and on the embedded default (SQLite data, SQLite broker).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from sqlalchemy import select

from tests.conftest import ROOT

from .conftest import Stack, redis_up, start_redis, utc_now, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ATTACK = "I attack the goblin with my longsword [roll]1d20+5[/roll]"
SHOOT = "I shoot the goblin with my crossbow [roll]1d20+3[/roll]"


def _models():
    from pbp.store import models

    return models


def _sent(stack: Stack, kind: str) -> list:
    m = _models()
    return [r for r in stack.rows(m.Reply, kind=kind) if r.state == "sent"]


def _declared(stack: Stack) -> set[str]:
    m = _models()
    with stack.session() as s:
        return set(s.scalars(select(m.Combatant.key).join(m.Declaration, m.Declaration.combatant_id == m.Combatant.id)
                             .where(m.Declaration.deleted.is_(False))))


def _markers(stack: Stack) -> Counter:
    return Counter(str(r.get("marker")) for r in stack.replies())


def _assert_each_reply_once(stack: Stack) -> None:
    markers = _markers(stack)
    doubles = {k: v for k, v in markers.items() if v > 1}
    assert not doubles, f"replies posted more than once: {doubles}"
    m = _models()
    sent = [r for r in stack.rows(m.Reply) if r.state == "sent"]
    assert len(sent) == len(markers), (len(sent), markers)


def _assert_posts_once(stack: Stack) -> None:
    m = _models()
    ids = [p.platform_id for p in stack.rows(m.Post)]
    assert len(ids) == len(set(ids))


# --- the main path ---------------------------------------------------------------------------

def test_posts_in_reminder_and_resolution_out_on_time(stack: Stack) -> None:
    """Posts become declarations; the reminder and the resolution go out once, on time."""
    m = _models()
    stack.seed(round_seconds=16, reminder_seconds=[8], posts=[("Brienne", ATTACK)])
    rnd = stack.rows(m.Round)[0]
    stack.start_worker()
    stack.start_beat()
    try:
        wait_for(lambda: "brienne" in _declared(stack), 20, "Brienne's declaration")
        wait_for(lambda: _sent(stack, "opening"), 20, "the opening reply")
        reminder = wait_for(lambda: _sent(stack, "reminder"), 25, "the reminder")[0]
        due = rnd.deadline - timedelta(seconds=8)
        lateness = (reminder.sent_at - due).total_seconds()
        assert -0.5 <= lateness <= 8, f"reminder {lateness:.1f}s after it was due"
        assert "Tomas" in reminder.body  # names who has not posted
        stack.post("Tomas", SHOOT)
        wait_for(lambda: "tomas" in _declared(stack), 15, "Tomas's declaration")
        resolution = wait_for(lambda: _sent(stack, "resolution"), 30, "the resolution")[0]
        lateness = (resolution.sent_at - rnd.deadline).total_seconds()
        assert 0 <= lateness <= 10, f"resolution {lateness:.1f}s after the deadline"
        time.sleep(3)  # a sweep or two more: nothing is sent twice
        _assert_each_reply_once(stack)
        _assert_posts_once(stack)
        assert stack.rows(m.Round, id=rnd.id)[0].state == "resolved"
    except BaseException:
        print(stack.logs())
        raise


def test_deadline_passed_while_everything_was_stopped(stack: Stack) -> None:
    """Due times are data: a round whose deadline passed during a stop resolves at start."""
    m = _models()
    stack.seed(round_seconds=10, posts=[("Brienne", ATTACK), ("Tomas", SHOOT)])
    stack.start_worker()
    stack.start_beat()
    try:
        wait_for(lambda: _declared(stack) >= {"brienne", "tomas"}, 20, "both declarations")
        stack.stop_all()
        rnd = stack.rows(m.Round)[0]
        time.sleep(max(0.0, (rnd.deadline - utc_now()).total_seconds()) + 2)
        assert stack.rows(m.Round, id=rnd.id)[0].state == "open"
        assert not _sent(stack, "resolution")
        started = utc_now()
        stack.start_worker()
        stack.start_beat()
        resolution = wait_for(lambda: _sent(stack, "resolution"), 30, "the resolution after restart")[0]
        assert (resolution.sent_at - started).total_seconds() <= 20
        _assert_each_reply_once(stack)
    except BaseException:
        print(stack.logs())
        raise


# --- faults ------------------------------------------------------------------------------------

def test_kill_9_mid_resolution(redis_pg_stack: Stack, tmp_path: Path) -> None:
    """A worker killed while resolving: another resolves it, exactly one reply, no
    declaration lost."""
    st = redis_pg_stack
    m = _models()
    st.seed(round_seconds=8, posts=[("Brienne", ATTACK), ("Tomas", SHOOT)])
    mark = tmp_path / "resolving"
    w1 = st.start_worker("w1", app="tests.workers.fault_app",
                         extra_env={"PBP_FAULT_SLOW_RESOLVE": "60", "PBP_FAULT_MARK": str(mark)})
    st.start_beat()
    try:
        wait_for(lambda: _declared(st) >= {"brienne", "tomas"}, 20, "both declarations")
        declarations = {d.id for d in st.rows(m.Declaration)}
        wait_for(mark.exists, 40, "the worker to be in the middle of resolving")
        w1.kill()  # SIGKILL
        w1.wait(10)
        rnd = st.rows(m.Round)[0]
        assert rnd.state == "open", "the killed resolution must not have committed"
        assert not _sent(st, "resolution")
        st.start_worker("w2")
        wait_for(lambda: _sent(st, "resolution"), 40, "the resolution by the second worker")
        time.sleep(5)  # more sweeps: still one
        assert len([r for r in st.rows(m.Reply) if r.kind == "resolution"]) == 1
        _assert_each_reply_once(st)
        assert declarations <= {d.id for d in st.rows(m.Declaration)}
        assert st.rows(m.Round, id=rnd.id)[0].state == "resolved"
    except BaseException:
        print(st.logs())
        raise


def test_redis_stopped_for_30s_mid_run(redis_pg_stack: Stack) -> None:
    """Redis (broker and locks) goes away for 30 s across a deadline: nothing lost or doubled."""
    st = redis_pg_stack
    m = _models()
    st.seed(round_seconds=18, posts=[("Brienne", ATTACK)])
    st.start_worker()
    st.start_beat()
    try:
        wait_for(lambda: "brienne" in _declared(st), 20, "Brienne's declaration")
        wait_for(lambda: _sent(st, "opening"), 20, "the opening reply")
        subprocess.run(["redis-cli", "-h", "127.0.0.1", "shutdown", "nosave"], capture_output=True)
        try:
            wait_for(lambda: not redis_up(), 10, "Redis to stop")
            written = utc_now()
            assert written < st.rows(m.Round)[0].deadline
            st.post("Tomas", SHOOT, at=written)  # on time, while Redis is down
            time.sleep(30)
        finally:
            start_redis()
        resolution = wait_for(lambda: _sent(st, "resolution"), 60, "the resolution after the outage")[0]
        assert "tomas" in _declared(st), "the post written during the outage"
        with st.session() as s:
            late = s.scalars(select(m.Declaration.late).join(m.Combatant, m.Declaration.combatant_id == m.Combatant.id)
                             .where(m.Combatant.key == "tomas")).all()
        assert late == [False], "read before the resolution, so it counts on time"
        assert resolution.sent_at is not None
        time.sleep(4)
        _assert_each_reply_once(st)
        _assert_posts_once(st)
        assert len(st.rows(m.Post)) == 2
    except BaseException:
        print(st.logs())
        raise
    finally:
        start_redis()


def test_forum_500_and_timeouts_then_back(redis_pg_stack: Stack, tmp_path: Path) -> None:
    """The platform fails for a while (500, then timeouts): retries with backoff, the
    cause is visible, and the reply arrives once the platform is back."""
    from pbp.cli.status import collect

    st = redis_pg_stack
    m = _models()
    fault = tmp_path / "fault"
    st.seed(round_seconds=6, posts=[("Brienne", ATTACK), ("Tomas", SHOOT)])
    st.start_worker(app="tests.workers.fault_app", extra_env={"PBP_FAULT_FILE": str(fault)})
    st.start_beat()
    try:
        wait_for(lambda: _sent(st, "opening"), 20, "the opening reply")
        fault.write_text("500")
        wait_for(lambda: [r for r in st.rows(m.Reply, kind="resolution") if r.attempts >= 2],
                 40, "two failed delivery attempts")
        with st.session() as s:
            status = collect(s)
        causes = " ".join(str(r["last_error"]) for r in status["outbox"]["retrying"])
        assert "500" in causes, status["outbox"]
        fault.write_text("timeout")
        before = st.rows(m.Reply, kind="resolution")[0].attempts
        wait_for(lambda: st.rows(m.Reply, kind="resolution")[0].attempts > before, 30, "a timed-out attempt")
        assert "timeout" in (st.rows(m.Reply, kind="resolution")[0].last_error or "")
        assert not _sent(st, "resolution")
        fault.write_text("")
        wait_for(lambda: _sent(st, "resolution"), 30, "the resolution once the forum is back")
        time.sleep(3)
        _assert_each_reply_once(st)
    except BaseException:
        print(st.logs())
        raise


# --- the embedded default, as a newcomer runs it -----------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    """``pbp serve --demo`` running in a directory of its own (one per module: it is slow)."""

    root: Path
    base: str
    started: float
    log: Path
    replies: Path

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-6000:]

    def resolutions(self) -> dict[int, str]:
        """Round number -> its resolution reply, as a player reads the replies file."""
        if not self.replies.exists():
            return {}
        out = {}
        for doc in yaml.safe_load_all(self.replies.read_text()):
            if doc and str(doc.get("marker", "")).endswith(":resolution"):
                number = re.search(r"— Round (\d+)", doc["body"])
                if number:
                    out[int(number.group(1))] = doc["body"]
        return out


@pytest.fixture(scope="module")
def demo_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp_path = tmp_path_factory.mktemp("serve-demo")
    port = _free_port()
    env = dict(os.environ, PBP_DATA_DIR=str(tmp_path / "var"), PYTHONPATH=str(ROOT),
               PBP_BROKER_POLLING_INTERVAL="0.1",
               # plain http on localhost: requests (unlike a browser) drops Secure cookies there
               PBP_PANEL_SESSION_COOKIE_SECURE="false", PBP_PANEL_REMEMBER_COOKIE_SECURE="false")
    for k in ("PBP_DATABASE_URL", "PBP_BROKER_URL", "PBP_CONFIG"):
        env.pop(k, None)
    started = time.monotonic()
    with open(tmp_path / "serve.log", "wb") as log:     # the child keeps its own copy
        proc = subprocess.Popen([sys.executable, "-c", "from pbp.cli import main; main()", "serve",
                                 "--demo", "--port", str(port)], env=env, cwd=tmp_path, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield Served(tmp_path, f"http://127.0.0.1:{port}", started, tmp_path / "serve.log",
                     tmp_path / "var" / "demo" / "thread.replies.yaml")
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)


def test_pbp_serve_demo_resolves_a_round_within_a_minute(demo_served: Served) -> None:
    replies = demo_served.replies
    try:
        def resolved() -> bool:
            return replies.exists() and ":resolution" in replies.read_text()

        wait_for(resolved, 60, "the demo round's resolution")
        assert time.monotonic() - demo_served.started <= 60  # "within a minute" of `pbp serve --demo`
        _panel_shows_the_round(demo_served.base)
    except BaseException:
        print(demo_served.tail())
        raise


#: an NPC's attack in a reply (FD-3), as the narrator's post declared it
NPC_ACTS = re.compile(r"^\* (Goblin|Skrag) (?:rolls a natural \d+ and )?(?:hits|misses) (Tomas|Brienne)", re.M)


def test_pbp_serve_demo_plays_three_rounds(demo_served: Served) -> None:
    """The demo shows the game: the NPCs act, a late player is penalised (PBP-2, FD-2's
    default), the narrator's correction is applied and marked, and start-up says where
    the replies are."""
    try:
        wait_for(lambda: {1, 2, 3} <= set(demo_served.resolutions()), 240, "three resolved rounds")
        said = demo_served.log.read_text(errors="replace")
        assert f"pbp: replies are written to {demo_served.replies.resolve()}" in said
        rounds = demo_served.resolutions()
        # each NPC acts in round 1, unless a player's higher initiative downed it first
        # (the dice are the round's own: a critical hit can kill the goblin before its turn)
        acted = {npc for npc, _ in NPC_ACTS.findall(rounds[1])}
        downed = set(re.findall(r"^\* (Goblin|Skrag) cannot act: down", rounds[1], re.M))
        assert {"Goblin", "Skrag"} <= acted | downed and acted, rounds[1]
        # late (read after the deadline) or, if the sweep beat the post, missing: PBP-2 either way
        assert "Tomas posted late or not at all" in rounds[2]
        assert "main action is lost and Tomas takes total defense" in rounds[2]
        fixed = re.search(r"\(Brienne\) set to (\d+) \(rolled (\d+)\)", rounds[3])
        assert fixed, rounds[3]
        assert int(fixed.group(2)) - int(fixed.group(1)) == 45      # "+50" read as "+5"
        # the reply shows the roll as rolled and as the narrator set it
        assert f"= {fixed.group(2)} -> {fixed.group(1)} (the narrator set this roll)" in rounds[3], rounds[3]
        # the engine took the corrected total (FD-3), unless a natural 1 or 20 decided (FD-8),
        # or the round's own dice downed her target before her turn (nothing left to hit)
        assert re.search(rf"^\* Brienne(?: (?:hits|misses) \w+: {fixed.group(1)} against"
                         r"| rolls a natural (?:1|20) and|: \w+ is already down \(FD-3\))",
                         rounds[3], re.M), rounds[3]
    except BaseException:
        print(demo_served.tail())
        raise


def _panel_shows_the_round(base: str) -> None:
    """Log in as the demo narrator; the encounter page shows the players' posts."""
    import requests
    from bs4 import BeautifulSoup

    with requests.Session() as web:   # closed: a socket left to the collector warns (an error here)
        form = BeautifulSoup(web.get(base + "/login", timeout=10).text, "lxml")
        token = form.select_one("input[name=csrf_token]")
        data = {"name": "demo", "password": "demo", "next": ""}
        if token is not None:
            data["csrf_token"] = token["value"]
        web.post(base + "/login", data=data, timeout=30)
        # Round 1 by number: the demo opens round 2 right after resolving round 1.
        page = web.get(base + "/encounters/1?round=1", timeout=30)
        assert page.status_code == 200 and "/login" not in page.url, page.url
        assert "Brienne" in page.text and "Tomas" in page.text
        live = web.get(base + "/encounters/1/live?round=1", headers={"Accept": "application/json"}, timeout=30).json()
    assert {p["author"] for p in live.get("posts", [])} >= {"Brienne", "Tomas"}, live.keys()

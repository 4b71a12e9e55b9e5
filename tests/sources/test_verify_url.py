"""DICE-4: ``pbp verify THREAD_URL`` as a player runs it, a subprocess from an empty data
directory, against a live django-machina topic and the local Reddit server: the dice
proof in the bot's replies checks out (exit 0) and, once someone rewrites a reply on the
platform, the altered roll is named (exit 1); no database file is created anywhere.

The bot's replies here are written by the test with the published grammar
(pbp.render.proof, PROOF.md) and dice recomputed with pbp.dice, the way the outbox writes
them; tests/journey runs the same command on replies the running service posted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pbp.dice import DiceBox, chain_link
from pbp.render.proof import ProofLine, render_block
from pbp.verify_proof import sha256
from tests.conftest import ROOT
from tests.harness.machina.helpers import edit_post, player_posts
from tests.sources.reddit_fixtures import fixtures_dir, load_server_module

pytestmark = pytest.mark.integration

ANCHOR = "5eed" * 16
LENGTH = 5
#: pbp's settings a player's shell must not lend the command
CLEARED = ("PBP_DATA_DIR", "PBP_DATABASE_URL", "PBP_BROKER_URL", "PBP_CONFIG", "PBP_SECRETS_FILE")


def replies(platform: str, marker_key: str = "1", anchor: str = ANCHOR) -> tuple[str, str, dict[str, Any]]:
    """The opening and the result of round 1 as pbp publishes them: the chain and round
    1's commitment (= the chain, PROOF.md), then its seed s_1, its two rolls and round 2's
    commitment (= s_1). Returns both texts and what they contain."""
    chain, s1 = chain_link(anchor, LENGTH, 0), chain_link(anchor, LENGTH, 1)
    assert sha256(s1) == chain                     # the link the opening committed to
    attack, damage = DiceBox(seed=s1).replay("1d20+5", 0), DiceBox(seed=s1).replay("1d8+3", 1)
    opening = ("Walk fight — Round 1\n\nPost your declarations.\n\n"
               + render_block([ProofLine.encounter(chain, sha256("hidden key")), ProofLine.commit(1, chain)],
                              platform)
               + f"\n\npbp-reply:{marker_key}:opening")
    result = (f"Walk fight — Round 1\n\nBrienne attacks the Orc: {attack.breakdown}, and hits for "
              f"{damage.breakdown}.\n\n"
              + render_block([ProofLine.seed(1, s1),
                              ProofLine.roll(0, "1d20+5", attack.total, attack.faces),
                              ProofLine.roll(1, "1d8+3", damage.total, damage.faces),
                              ProofLine.commit(2, s1)], platform)
              + f"\n\npbp-reply:{marker_key}:resolution")
    return opening, result, {"attack": attack, "damage": damage, "seed": s1, "chain": chain}


def verify(url: str, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``pbp verify URL`` in a fresh user's empty data and config directories."""
    for d in ("data", "config", "cwd"):
        (home / d).mkdir(parents=True, exist_ok=True)
    full = {k: v for k, v in os.environ.items() if k not in CLEARED and not k.startswith("PBP_SECRET_")}
    full.update({"XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
                 "PYTHONPATH": str(ROOT), "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1", **(env or {})})
    return subprocess.run([sys.executable, "-m", "pbp.cli", "verify", url], env=full, cwd=home / "cwd",
                          capture_output=True, text=True, timeout=120, check=False)


def nothing_written(home: Path) -> list[str]:
    return [str(p.relative_to(home)) for p in home.rglob("*") if p.is_file()]


def test_dice_4_verify_a_forum_thread_then_an_edited_reply(machina: Any, new_topic: Any, tmp_path: Path) -> None:
    """A machina topic with the bot's opening and result (Markdown code blocks, as machina
    renders them) and a player's post between them: exit 0, round 1 OK. The forum's
    administrator then rewrites the result's sentence to a better total through machina's
    edit form: exit 1, and the sentence's number is named as one the seed does not give."""
    topic = new_topic(machina, "Verify fight", 1)
    opening, result, got = replies("markdown")
    player_posts(machina.base, topic, opening, "pbpbot", "botpass")
    player_posts(machina.base, topic, "> " + opening.splitlines()[0] + "\n\nI attack [roll]1d20+5[/roll]")
    result_id = player_posts(machina.base, topic, result, "pbpbot", "botpass")
    done = verify(topic, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 posts" not in done.stdout and "4 posts read as a visitor; 2 replies by pbpbot, 2 with a dice proof" in done.stdout
    assert f"dice chain: {got['chain']}" in done.stdout
    assert f"round 1: OK (2 roll(s) recomputed from seed {got['seed']})" in done.stdout
    assert "round 2: OK so far (not resolved" in done.stdout
    assert nothing_written(tmp_path) == []

    attack = got["attack"]
    better = attack.breakdown.rsplit("=", 1)[0] + f"= {attack.total + 10}"
    edit_post(topic, result_id, result.replace(attack.breakdown, better))
    done = verify(topic, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "round 1: FAIL" in done.stdout
    assert f"round 1: the reply says '{better}', which is not what any roll of the round gives" in done.stdout
    assert nothing_written(tmp_path) == []


@pytest.fixture
def reddit() -> Any:
    module = load_server_module()
    with module.RedditServer(fixtures_dir()) as server:
        yield server


def test_dice_4_verify_a_reddit_submission_then_an_edited_roll(reddit: Any, tmp_path: Path) -> None:
    """The same on a Reddit submission (Markdown code block, the marker in superscript):
    exit 0; the bot's result comment is then edited on the server to show a higher attack
    total in its proof line: exit 1, roll #0 named with what the reply shows and what the
    seed gives. With the application's credentials only: no user logs in."""
    sid = reddit.add_submission("journey", author="gm_nara")
    opening, result, got = replies("markdown")
    reddit.add_comment(sid, opening.replace("pbp-reply:1:opening", "^(pbp-reply:1:opening)"),
                       author="pbp_bot", created_utc=100)
    reddit.add_comment(sid, "I attack [roll]1d20+5[/roll]", author="brakka", created_utc=101)
    cid = reddit.add_comment(sid, result.replace("pbp-reply:1:resolution", "^(pbp-reply:1:resolution)"),
                             author="pbp_bot", created_utc=102)
    url = f"https://www.reddit.com/r/journey/comments/{sid}/walk_fight/"
    env = {"PBP_REDDIT_OAUTH_URL": reddit.url, "PBP_REDDIT_URL": reddit.url,
           "PBP_SECRET_REDDIT__COM_CLIENTID": "visitor-app", "PBP_SECRET_REDDIT__COM_CLIENTSECRET": "s"}
    done = verify(url, tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 posts read as a visitor; 2 replies by pbp_bot, 2 with a dice proof" in done.stdout
    assert f"round 1: OK (2 roll(s) recomputed from seed {got['seed']})" in done.stdout

    attack = got["attack"]
    line = ProofLine.roll(0, "1d20+5", attack.total, attack.faces).text()
    forged = ProofLine.roll(0, "1d20+5", attack.total + 7, attack.faces).text()
    assert line in result
    reddit.edit_comment(cid, reddit.comments[cid].body.replace(line, forged))
    done = verify(url, tmp_path, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (f"round 1: roll #0 '1d20+5': the reply shows {attack.total + 7} {list(attack.faces)}, "
            f"the seed gives {attack.total} {list(attack.faces)}") in done.stdout
    assert set(reddit.tokens.values()) == {"app"}
    assert nothing_written(tmp_path) == []


def test_dice_4_verify_says_when_a_thread_has_nothing_to_check(reddit: Any, tmp_path: Path) -> None:
    """A submission with no reply of pbp's: exit 2 and a sentence, not a pass."""
    sid = reddit.add_submission("journey")
    reddit.add_comment(sid, "I attack [roll]1d20[/roll]", author="brakka")
    env = {"PBP_REDDIT_OAUTH_URL": reddit.url, "PBP_REDDIT_URL": reddit.url,
           "PBP_SECRET_REDDIT__COM_CLIENTID": "visitor-app"}
    done = verify(f"https://www.reddit.com/r/journey/comments/{sid}/x/", tmp_path, env)
    assert done.returncode == 2
    assert "no post of the thread carries pbp's reply marker: nothing to check" in done.stderr


def test_dice_4_a_thread_that_hosted_two_fights_checks_each_on_its_own(reddit: Any, tmp_path: Path) -> None:
    """Two encounters in one submission, each with its own chain: each is checked against
    its own (two chains in one thread are no problem), both pass; then a roll of the second
    fight's result is forged and only that fight fails, the first still OK."""
    sid = reddit.add_submission("journey")
    first = replies("markdown", "1")
    second = replies("markdown", "9", anchor="beef" * 16)
    ids = []
    for t, (opening, result, _) in enumerate((first, second)):
        reddit.add_comment(sid, opening, author="pbp_bot", created_utc=100 + 10 * t)
        ids.append(reddit.add_comment(sid, result, author="pbp_bot", created_utc=101 + 10 * t))
    url = f"https://www.reddit.com/r/journey/comments/{sid}/two_fights/"
    env = {"PBP_REDDIT_OAUTH_URL": reddit.url, "PBP_REDDIT_URL": reddit.url,
           "PBP_SECRET_REDDIT__COM_CLIENTID": "visitor-app"}
    done = verify(url, tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "encounter 1 of 2 in the thread:" in done.stdout and "encounter 2 of 2 in the thread:" in done.stdout
    assert f"  dice chain: {first[2]['chain']}" in done.stdout and f"  dice chain: {second[2]['chain']}" in done.stdout
    assert "two different dice chains" not in done.stdout

    attack = second[2]["attack"]
    line = ProofLine.roll(0, "1d20+5", attack.total, attack.faces).text()
    forged = ProofLine.roll(0, "1d20+5", attack.total - 1, attack.faces).text()
    reddit.edit_comment(ids[1], reddit.comments[ids[1]].body.replace(line, forged))
    done = verify(url, tmp_path, env)
    assert done.returncode == 1, done.stdout + done.stderr
    one, two = done.stdout.split("encounter 2 of 2 in the thread:")
    assert "  round 1: OK (2 roll(s)" in one and "FAIL" not in one
    assert "  round 1: FAIL" in two and f"the reply shows {attack.total - 1}" in two

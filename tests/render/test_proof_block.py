"""The proof block's grammar (PROOF.md, DICE-1/DICE-2): each platform's rendering reads
back to the same lines, and the two hidden-roll line kinds another helper fills in render,
parse and check as PROOF.md defines them (h = sha256("K:n:i"), c = sha256("h:expression"))."""

from __future__ import annotations

import hashlib

import pytest

from pbp.dice import DiceBox, chain_link
from pbp.render.proof import ProofLine, parse_line, render_block
from pbp.verify_proof import check, read_blocks, shown_breakdowns


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


K = sha("hidden key")
ANCHOR = sha("anchor")


def _round_one(reveal_as: str | None = None) -> list[ProofLine]:
    """Round 1 of a 10-link chain: roll #0 public, roll #1 hidden (then revealed)."""
    seed = chain_link(ANCHOR, 10, 1)
    public = DiceBox(seed=seed).replay("1d20+5", 0)
    h = sha(f"{K}:1:1")
    hidden = DiceBox(seed=h).replay("1d20+2", 0)
    lines = [ProofLine.encounter(chain_link(ANCHOR, 10, 0), sha(K)),
             ProofLine.commit(1, chain_link(ANCHOR, 10, 0)),
             ProofLine.seed(1, seed),
             ProofLine.roll(0, "1d20+5", public.total, public.faces),
             ProofLine.hidden_roll(1, sha(f"{h}:1d20+2"))]
    if reveal_as is not None:
        again = DiceBox(seed=h).replay(reveal_as, 0)
        lines.append(ProofLine.revealed(1, h, reveal_as, again.total, again.faces))
    else:
        lines.append(ProofLine.revealed(1, h, "1d20+2", hidden.total, hidden.faces))
    return [*lines, ProofLine.hidden_key(K)]


@pytest.mark.parametrize("platform", ["bbcode", "markdown", "text"])
def test_dice1_each_platforms_block_reads_back_to_its_lines(platform):
    lines = _round_one()
    text = "Some sentence.\n\n" + render_block(lines, platform) + "\n\npbp-reply:1:resolution\n"
    if platform == "bbcode":
        assert text.count("[code]") == 1 and "[/code]" in text
    if platform == "markdown":   # a thematic break, then an indented code block: after a
        # list, an indented block alone would continue the list item (machina's markdown2)
        first, blank, *block_text = render_block(lines, platform).splitlines()
        assert (first, blank) == ("___", "")
        assert all(x.startswith("    ") for x in block_text)
    (block,) = read_blocks([text])
    assert block.lines == lines
    assert [parse_line(x.text()) for x in lines] == lines


def test_dice2_a_revealed_hidden_roll_checks_and_a_different_value_is_named():
    """DICE-2 lines: revealed as committed, with the key at the end: no problem; revealed
    as another expression (another value): named."""
    good = check(read_blocks([render_block(_round_one(), "text")]))
    assert good.ok, good.lines()
    bad = check(read_blocks([render_block(_round_one(reveal_as="1d20+9"), "text")]))
    assert any(p.startswith("round 1: hidden roll #1 was revealed with a different value than "
                            "the one committed") for p in bad.problems), bad.problems


def test_dice1_a_bracket_in_an_expression_cannot_close_the_bbcode_block():
    """An expression carrying ``[/code]`` (a d20 annotation) is broken with a zero-width
    space inside the BBCode block, and reads back as written."""
    line = ProofLine.roll(0, "1d20 [/code]", 7, [7])
    text = render_block([ProofLine.seed(1, "a" * 64), line], "bbcode")
    assert text.count("[/code]") == 1 and text.endswith("[/code]")
    assert read_blocks([text])[0].lines[1].expression == "1d20 [/code]"


def test_dice1_a_breakdown_a_player_quotes_in_speech_is_not_taken_for_the_bots():
    """A player's speech quoted in the reply ("I rolled 1d20 (20) + 5 = 25!") is theirs:
    the sentence check skips quote lines (BBCode and Markdown) and still reads the rest."""
    text = ("Aria hits: 1d20 (9) + 5 = 14\n[quote]I rolled 1d20 (20) + 5 = 25![/quote]\n"
            "> I rolled 1d20 (20) + 5 = 25!\n")
    assert shown_breakdowns(text) == ["1d20 (9) + 5 = 14"]

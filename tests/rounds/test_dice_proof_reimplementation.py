"""DICE-1 / DICE-4: docs/verifiable-dice.md is enough to check an encounter's dice.

``Checker`` below is written from that page alone: hashlib, regular expressions and its
own face drawing for ``NdM+K`` expressions; no pbp code (pbp is imported only to play the
encounter whose replies it reads, and to compare verdicts). It must agree with
``pbp.verify_proof`` on a real resolved encounter, clean and tampered.
"""

from __future__ import annotations

import hashlib
import re
import struct

from pbp.store import queries
from pbp.store.db import session_scope
from pbp.verify_proof import check, read_blocks

from .test_dice_chain import two_rounds

HEX = r"[0-9a-fA-F]{64}"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def clean(line: str) -> str:
    """docs section 1: drop code tags, zero-width spaces, backslashes; single spaces."""
    for noise in ("[code]", "[/code]", "```", "\u200b", "\ufeff", "\\"):
        line = line.replace(noise, "")
    return " ".join(line.replace("\u00a0", " ").split())


def faces(seed: str, index: int, sides: int, count: int) -> list[int]:
    """docs section 3: SHA-256("<seed>:<i>:<k>") blocks, eight big-endian words each,
    words at or above 2^32 - (2^32 mod n) skipped, face = w mod n + 1."""
    out: list[int] = []
    limit = 2**32 - 2**32 % sides
    block = 0
    while len(out) < count:
        for w in struct.unpack(">8I", hashlib.sha256(f"{seed}:{index}:{block}".encode()).digest()):
            if w < limit and len(out) < count:
                out.append(w % sides + 1)
        block += 1
    return out


ROLL = re.compile(r"^(\d*)d(\d+)(?:([+-])(\d+))?$")


def roll(seed: str, index: int, expression: str) -> tuple[int, list[int], str]:
    """(total, faces, breakdown) of an ``NdM+K`` roll (docs sections 3 and 4)."""
    m = ROLL.match(expression.replace(" ", ""))
    assert m, f"this checker only knows NdM+K, not {expression!r}"
    n, sides = int(m[1] or 1), int(m[2])
    got = faces(seed, index, sides, n)
    k = int(m[4] or 0) * (-1 if m[3] == "-" else 1)
    shown = f"{n}d{sides} ({', '.join(map(str, got))})" + (f" {m[3]} {m[4]}" if m[3] else "")
    return sum(got) + k, got, f"{shown} = {sum(got) + k}"


BREAKDOWN = re.compile(r"(?<![\w(#])(\d*d\d+ \([\d, ]*\)(?: [-+] \d+)*) = (-?\d+)")


def verdict(replies: list[str]) -> dict:
    """The whole check of docs section 6: problems as (round, what) pairs."""
    chain = None
    commits: dict[int, set[str]] = {}
    seeds: dict[int, str] = {}
    rolls: dict[int, dict[int, tuple[str, int, list[int]]]] = {}
    texts: dict[int, list[str]] = {}
    prose: list[str] = []
    inside, seed_round, first = False, None, None
    for reply in replies:
        for raw in reply.splitlines():
            line = clean(raw)
            if m := re.fullmatch(rf"pbp-dice v1 encounter chain=({HEX}) hidden=({HEX})", line):
                chain, inside = m[1].lower(), True
            elif m := re.fullmatch(rf"pbp-dice v1 round=(\d+) (commit|seed)=({HEX})", line):
                n = int(m[1])
                first = n if first is None else first
                inside = True
                if m[2] == "commit":
                    commits.setdefault(n, set()).add(m[3].lower())
                else:
                    seeds[n], seed_round = m[3].lower(), n
            elif inside and (m := re.fullmatch(r"#(\d+) (.+?) = (-?\d+) \[([\d,]*)\]", line)):
                rolls.setdefault(seed_round, {})[int(m[1])] = (m[2], int(m[3]),
                                                               [int(f) for f in m[4].split(",") if f])
            elif line == "pbp-dice end":
                if first is not None:
                    texts.setdefault(first, []).append("\n".join(prose))
                prose, inside, seed_round, first = [], False, None, None
            elif re.fullmatch(rf"pbp-dice v1 hidden-key=({HEX})", line):
                inside = True
            elif not line.startswith(("[quote", ">")):      # speech is the player's (section 4)
                prose.append(line)
    problems: set[tuple[int, str]] = set()
    link = chain
    for n in sorted(set(commits) | set(seeds)):
        if chain is not None and any(c != link for c in commits.get(n, ())):
            problems.add((n, "commitment outside the chain"))
        if n not in seeds:
            link = next(iter(commits[n])) if commits.get(n) else link
            continue
        s = seeds[n]
        if any(sha(s) != c for c in commits.get(n, ())) or (chain is not None and sha(s) != link):
            problems.add((n, "seed outside the chain"))
        link = s
        shown = set()
        for i in range(max(rolls.get(n, {0: None})) + 1):
            if i not in rolls.get(n, {}):
                problems.add((n, f"roll #{i} missing"))
                continue
            expression, total, listed = rolls[n][i]
            again, got, breakdown = roll(s, i, expression)
            shown.add(breakdown)
            if (again, got) != (total, listed):
                problems.add((n, f"roll #{i} differs"))
        for text in texts.get(n, []):
            for b in BREAKDOWN.finditer(text):
                said = f"{b[1]} = {b[2]}"
                if not any(x == said or x.endswith(" " + said) for x in shown):
                    problems.add((n, f"sentence says {said}"))
    return {"chain": chain, "rounds": sorted(seeds), "problems": problems,
            "rolls": sum(len(r) for n, r in rolls.items() if n in seeds)}


def test_dice4_a_checker_written_from_the_doc_agrees_with_pbp(engine):
    """DICE-1/DICE-4: on a real two-round encounter the doc's checker and pbp's find the
    same chain, rounds and roll count and no problem; on the same replies with one total
    changed in a sentence, one in the block and round 2's seed replaced, both find a
    problem in exactly the rounds tampered with (and round 3, whose commitment no longer
    follows the forged seed)."""
    w, (r1, _r2) = two_rounds(engine)
    with session_scope(engine) as s:
        texts = queries.encounter_replies(s, w.encounter_id)
        tag = next(r for r in queries.round_rolls(s, r1) if r.kind == "tag")
        r2_seed = queries.current_round(s, w.encounter_id, 2).seed
    ours, theirs = verdict(texts), check(read_blocks(texts))
    assert theirs.ok and ours["problems"] == set()
    assert ours["chain"] == theirs.chain and ours["rounds"] == [1, 2]
    assert ours["rolls"] == theirs.rolls > 10

    faces_listed = ",".join(map(str, tag.faces))
    line = f"#{tag.roll_index} {tag.expression} = {tag.total} [{faces_listed}]"
    forged = [t.replace(tag.breakdown, tag.breakdown.replace(f"= {tag.total}", f"= {tag.total + 2}"), 1)
              .replace(line, f"#{tag.roll_index} {tag.expression} = {tag.total + 2} [{faces_listed}]")
              .replace(f"round=2 seed={r2_seed}", f"round=2 seed={sha('fresh')}") for t in texts]
    assert sum(line in t for t in texts) == 1
    ours, theirs = verdict(forged), check(read_blocks(forged))
    # round 3's commitment (the real round 2 seed) no longer follows the forged seed either
    assert {n for n, _ in ours["problems"]} == {1, 2, 3}
    assert (1, f"sentence says {tag.breakdown.replace(f'= {tag.total}', f'= {tag.total + 2}')}") in ours["problems"]
    assert (1, f"roll #{tag.roll_index} differs") in ours["problems"]
    assert (2, "seed outside the chain") in ours["problems"]
    assert {p.split(":")[0] for p in theirs.problems} == {"round 1", "round 2", "round 3"}
    assert any(p.startswith(f"round 1: roll #{tag.roll_index} ") for p in theirs.problems)

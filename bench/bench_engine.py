"""Benchmark: one round of 50 combatants, each declaring an attack, through the engine.

Prints the cost per resolved declaration and its ratio to **plain ``d20.roll``** on the
very same roll expressions (the baseline, measured in the same run: issue 17 item 7; goal
at most 3x), and, to show where the rest goes, the same expressions through pbp's own
DiceBox (seeded per roll, recorded): engine / DiceBox and DiceBox / plain d20. Plain d20
rolls with the ``random`` module itself, as it does in a process without pbp (importing
pbp.dice routes d20 through a proxy; the baseline is timed without it). The load
average is printed: the machine is shared.

Each repetition times the engine, the DiceBox and plain d20 back to back, on the process's
CPU clock (``time.process_time``: time the scheduler gives to other processes on a
shared machine is not counted, on either side of the ratio); the ratio is given from the
medians and from the fastest runs (the least disturbed).

    python bench/bench_engine.py [--reps 30]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import d20
import d20.expression as d20_expression

from pbp.dice import DiceBox
from pbp.rules.engine import resolve
from pbp.rules.model import Action, ActionKind, Combatant, Declaration, Encounter, Weapon

N = 50
CLOCK = time.process_time


#: every ruleset the bench can run; the goal (issue 17 item 6) names the first two
RULESETS = ("forum-d20", "beyonders", "dnd5e", "resistance", "two-action")


def encounter(ruleset: str) -> tuple[Encounter, list[Declaration]]:
    """50 combatants in two sides, each attacking the next with a sword. The last two
    rulesets read the forum-d20 sheet (their own stats default): resistance ends the
    conflict at the first taken out (RES-9), so most of its turns are skipped."""
    forum = {"luta": 5, "fortitude": 3, "reflexos": 2, "armor": 2, "level": 4,
             "str_mod": 2, "dex_mod": 1, "initiative": 2}
    stats = {"forum-d20": forum,
             "beyonders": {"str": 3, "dex": 2, "luta": 3, "armor": 1, "dodge": 2},
             "dnd5e": {"str": 14, "dex": 12, "proficiency": 2, "ac": 14},
             "resistance": forum, "two-action": forum}[ruleset]
    people = []
    for i in range(N):
        side = "a" if i % 2 == 0 else "b"
        people.append(Combatant(key=f"c{i}", name=f"C{i}", side=side, player=f"p{i}",
                                stats=stats, hp=10_000, max_hp=10_000,
                                weapons=(Weapon("sword", "1d8", threat=19),)))
    decls = [Declaration(actor=f"c{i}", actions=(Action(ActionKind.ATTACK,
                                                        target=f"c{(i + 1) % N}"),))
             for i in range(N)]
    return Encounter(ruleset=ruleset, combatants=tuple(people)), decls


def measure(ruleset: str, reps: int) -> dict[str, float]:
    enc, decls = encounter(ruleset)
    engine_times, bare_times, raw_times, rolls, d20s = [], [], [], 0, 0
    for rep in range(reps):
        box = DiceBox(f"bench-{rep}")
        t0 = CLOCK()
        res = resolve(enc, decls, box)
        engine_times.append(CLOCK() - t0)
        assert res.events
        expressions = [r.expression for r in box.rolls]
        rolls = len(expressions)
        d20s = sum(1 for r in box.rolls if r.natural is not None)
        bare = DiceBox(f"bench-{rep}")
        t0 = CLOCK()
        for expr in expressions:
            bare.roll(expr)
        bare_times.append(CLOCK() - t0)
        random.seed(rep)  # plain d20 library, global random: the floor no service can use
        proxy, d20_expression.random = d20_expression.random, random  # not even pbp's proxy
        try:
            t0 = CLOCK()
            for expr in expressions:
                d20.roll(expr)
            raw_times.append(CLOCK() - t0)
        finally:
            d20_expression.random = proxy
    engine = statistics.median(engine_times)
    bare_t = statistics.median(bare_times)
    raw_t = statistics.median(raw_times)
    return {"engine_round_ms": engine * 1e3, "per_declaration_us": engine / N * 1e6,
            "bare_rolls_ms": bare_t * 1e3, "rolls": rolls, "d20_rolls": d20s,
            "per_roll_us": bare_t / max(1, rolls) * 1e6, "ratio": engine / bare_t,
            "raw_ms": raw_t * 1e3, "raw_ratio": engine / raw_t,
            "best_ratio": min(engine_times) / min(raw_times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--rulesets", default=",".join(RULESETS),
                        help="comma-separated, of " + ", ".join(RULESETS))
    args = parser.parse_args()
    chosen = [r for r in args.rulesets.split(",") if r]
    for rid in chosen:
        measure(rid, 3)  # warm the d20 parser cache, the compiled dice and imports
    print(f"one round, {N} combatants, one attack each; median of {args.reps} runs; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for rid in chosen:
        m = measure(rid, args.reps)
        print(f"{rid:10s} engine {m['engine_round_ms']:7.2f} ms/round "
              f"= {m['per_declaration_us']:6.0f} us/declaration | "
              f"plain d20.roll {m['raw_ms']:6.2f} ms for {m['rolls']} rolls ({m['d20_rolls']} d20) | "
              f"ratio {m['raw_ratio']:.2f}x, fastest runs {m['best_ratio']:.2f}x"
              + (" (goal <= 3x)" if rid in RULESETS[:2] else ""))
        print(f"{'':10s} where it goes: DiceBox {m['bare_rolls_ms']:.2f} ms ({m['per_roll_us']:.1f} us a roll, "
              f"{m['bare_rolls_ms'] / m['raw_ms']:.2f}x plain d20); engine / DiceBox {m['ratio']:.2f}x")


if __name__ == "__main__":
    main()

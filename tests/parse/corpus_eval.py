"""Score the parser on the corpus (tests/parse/corpus/*.yaml); shared by the test and the bench."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pbp.parse import parse_post

CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclass
class Post:
    id: str
    lang: str
    fmt: str
    text: str
    actor: str | None
    roster: list[dict[str, Any]]
    expect: dict[str, Any]
    long: bool = False                 # long third-person narrative (issue 13 item 5)


def load(folder: Path = CORPUS) -> list[Post]:
    posts = []
    for path in sorted(folder.glob("*.yaml")):
        posts.extend(load_file(path))
    return posts


def load_file(path: Path) -> list[Post]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [Post(p["id"], p.get("lang", data["lang"]), p.get("fmt", "text"), p["text"], p.get("actor"),
                 data["roster"], p["expect"], bool(p.get("long", False))) for p in data["posts"]]


@dataclass
class Score:
    posts: int = 0
    rolls_exact: int = 0
    speech_exact: int = 0
    commands_exact: int = 0
    errors_found: int = 0
    expected_actions: int = 0
    got_actions: int = 0
    kind_tp: int = 0
    target_tp: int = 0
    weapon_expected: int = 0
    weapon_tp: int = 0
    inferred_got: int = 0
    inferred_tp: int = 0
    failures: list[str] = field(default_factory=list)

    def ratio(self, a: int, b: int) -> float:
        return a / b if b else 1.0

    @property
    def precision(self) -> float:
        return self.ratio(self.kind_tp, self.got_actions)

    @property
    def recall(self) -> float:
        return self.ratio(self.kind_tp, self.expected_actions)

    @property
    def inferred_precision(self) -> float:
        return self.ratio(self.inferred_tp, self.inferred_got)

    def summary(self) -> str:
        return (f"{self.posts} posts: rolls exact {self.rolls_exact}/{self.posts}, speech count exact "
                f"{self.speech_exact}/{self.posts}, commands exact {self.commands_exact}/{self.posts}, "
                f"expected errors found {self.errors_found}/{self.posts}; actions (kind) precision "
                f"{self.precision:.3f} recall {self.recall:.3f}; inferred-kind precision "
                f"{self.inferred_precision:.3f} ({self.inferred_tp}/{self.inferred_got}); kind+target "
                f"precision {self.ratio(self.target_tp, self.got_actions):.3f} recall "
                f"{self.ratio(self.target_tp, self.expected_actions):.3f}; weapons "
                f"{self.weapon_tp}/{self.weapon_expected}")


def score(posts: list[Post]) -> Score:
    s = Score()
    for p in posts:
        s.posts += 1
        post = parse_post(p.text, fmt=p.fmt, lang=p.lang, roster=p.roster, actor=p.actor)
        e = p.expect
        rolls = [[r.expression, r.label, r.syntax] for r in post.rolls if not r.in_quote]
        want_rolls = [[str(x[0]), None if x[1] is None else str(x[1]), x[2]] for x in e.get("rolls", [])]
        if rolls == want_rolls:
            s.rolls_exact += 1
        else:
            s.failures.append(f"{p.id} rolls {rolls} != {want_rolls}")
        if post.speech_count == e.get("speech", 0):
            s.speech_exact += 1
        else:
            s.failures.append(f"{p.id} speech {[u.text for u in post.speech]} != {e.get('speech', 0)}")
        cmds = [c.name for c in post.commands]
        if cmds == e.get("commands", []):
            s.commands_exact += 1
        else:
            s.failures.append(f"{p.id} commands {cmds} != {e.get('commands', [])}")
        codes = {x.code for x in post.errors}
        want_codes = set(e.get("errors", []))
        if want_codes <= codes and (want_codes or not [x for x in post.errors if x.severity == "error"]):
            s.errors_found += 1
        else:
            s.failures.append(f"{p.id} errors {sorted(codes)} != {sorted(want_codes)}")
        want = [tuple(a) + (None,) * (3 - len(a)) for a in e.get("actions", [])]
        got = [(a.kind.value, a.target, a.weapon, a.explicit) for a in post.actions]
        s.expected_actions += len(want)
        s.got_actions += len(got)
        kinds_want = Counter(w[0] for w in want)
        kinds_got = Counter(g[0] for g in got)
        tp = sum((kinds_want & kinds_got).values())
        s.kind_tp += tp
        s.target_tp += sum((Counter((w[0], w[1]) for w in want) & Counter((g[0], g[1]) for g in got)).values())
        for w in want:
            if w[2] is not None:
                s.weapon_expected += 1
                if any(g[0] == w[0] and g[2] == w[2] for g in got):
                    s.weapon_tp += 1
        explicit_got = Counter(g[0] for g in got if g[3])
        left = kinds_want - explicit_got
        inferred = Counter(g[0] for g in got if not g[3])
        s.inferred_got += sum(inferred.values())
        s.inferred_tp += sum((left & inferred).values())
        if kinds_want != kinds_got or Counter((w[0], w[1]) for w in want) != Counter((g[0], g[1]) for g in got):
            s.failures.append(f"{p.id} actions {[g[:3] for g in got]} != {want}")
    return s


def breakdown(posts: list[Post]) -> dict[str, Score]:
    """Scores per language and for the long narrative posts (issue 13 item 5): ``all``,
    ``en``, ``pt``, ``ru``, ``long``, ``short``."""
    groups: dict[str, list[Post]] = {"all": posts}
    for p in posts:
        groups.setdefault(p.lang, []).append(p)
        groups.setdefault("long" if p.long else "short", []).append(p)
    return {name: score(group) for name, group in groups.items()}


def table(scores: dict[str, Score]) -> str:
    """One line per group: posts, action-kind precision and recall, kind+target ones."""
    lines = []
    for name in ("all", "en", "pt", "ru", "long", "short"):
        s = scores.get(name)
        if s is None:
            continue
        lines.append(f"{name:>5}: {s.posts:2d} posts  kind P {s.precision:.2f} R {s.recall:.2f}  "
                     f"kind+target P {s.ratio(s.target_tp, s.got_actions):.2f} "
                     f"R {s.ratio(s.target_tp, s.expected_actions):.2f}  "
                     f"rolls exact {s.rolls_exact}/{s.posts}")
    return "\n".join(lines)

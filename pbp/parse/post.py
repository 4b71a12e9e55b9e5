"""parse_post: one post in, one :class:`~pbp.parse.model.ParsedPost` out, never an exception.

The steps, each reading the text the previous one left (excluded parts blanked to
spaces, so positions never move):

1. normalise the input form (:mod:`.normalise`);
2. find quotes, spoilers, code and OOC (:mod:`.regions`) and blank them;
3. read table requests (:mod:`.tabletags`, DICE-6), then roll tags (:mod:`.tags`), and
   blank them;
4. read command lines (:mod:`.commands`) and blank them;
5. read speech (:mod:`.speech`) and blank it;
6. read explicit ``#`` actions and infer actions from what prose remains (:mod:`.actions`);
7. attach each roll to the action it belongs to (same line, else the nearest before).
"""

from __future__ import annotations

import re
from bisect import bisect_left, insort
from operator import attrgetter
from typing import Any, Protocol

from ..rules.model import Action, ActionKind
from .actions import ActionScan, infer, mentions_in
from .commands import EMPTY as NO_COMMANDS
from .commands import scan as scan_commands
from .explicit import explicit, labelled
from .language import choose as choose_language
from .lexicon import Lexicon, detect, get
from .model import IssueList, ParsedPost, ParseIssue, RollTag, declared, with_rolls
from .normalise import FORMATS, normalise
from .popcorn import hand_offs
from .regions import EMPTY as NO_REGIONS
from .regions import Lines, mask_pairs
from .regions import scan as scan_regions
from .rolltags import number_rolls, quoted_rolls
from .roster import Roster
from .scans import CommandScan
from .speech import EMPTY as NO_SPEECH
from .speech import SpeechScan
from .speech import scan as scan_speech
from .tabletags import EMPTY as NO_TABLES
from .tabletags import scan as scan_tables
from .tags import EMPTY as NO_TAGS
from .tags import TagScan
from .tags import scan as scan_tags

#: At most this many problems are listed; one more item says how many were left out.
MAX_ISSUES = 100

_BLANK_LINE = re.compile(r"\n(?=[ \t]{0,40}\n)")

_ROLL_PURPOSE_KINDS: dict[str, tuple[ActionKind, ...]] = {
    "attack": (ActionKind.ATTACK, ActionKind.CAST, ActionKind.MANEUVER, ActionKind.REACTION,
               ActionKind.FULL_ROUND),
    "damage": (ActionKind.ATTACK, ActionKind.CAST, ActionKind.MANEUVER, ActionKind.REACTION,
               ActionKind.FULL_ROUND),
}
_ARMED_KINDS = _ROLL_PURPOSE_KINDS["attack"]


def parse_post(text: str, *, fmt: str = "text", lang: str | None = "en", roster: Any = None,
               actor: str | None = None, own_language: bool = False) -> ParsedPost:
    """Read one post. *lang* None or ``"auto"`` guesses it from the script and common words.
    With *own_language*, *lang* (the campaign's) is only the first guess: a post plainly
    written in another of en/pt/ru is read in that one (:func:`.language.choose`, on the
    text outside quotes and asides; issue 13 item 2). ``ParsedPost.lang`` says which.

    *roster* is a sequence of :class:`pbp.rules.model.Combatant` (or a :class:`Roster`,
    or dicts ``{"key", "name", "aliases", "weapons"}``); *actor*, when known, is the
    poster's combatant key: it is never their own target and its sheet's weapons win.

    >>> p = parse_post("Corro até o goblin e golpeio com a espada [roll]1d20+5[/roll]"
    ...                " — Morra, criatura!", lang="pt", roster=[{"key": "gob", "name": "Goblin"}])
    >>> [(a.kind.value, a.target, a.weapon) for a in p.actions], p.rolls[0].expression
    ([('move', 'gob', None), ('attack', 'gob', 'espada')], '1d20+5')
    >>> p.speech_count, p.actions[1].options.roll_index
    (1, 0)
    """
    if not isinstance(text, str):
        text = str(text or "")
    guess: str | None = None
    if lang in (None, "", "auto"):
        lang, guess = "en", "auto"
    elif own_language:
        guess = lang
    lex = get(lang)
    if lex.lang != lang:
        lang = lex.lang
    issues: list[tuple[str, int, dict[str, Any]]] = []
    if fmt not in FORMATS:
        issues.append(("format.unknown", 0, {"text": fmt}))
        fmt = "text"
    try:
        return _parse(text, fmt, lang, lex,
                      roster if roster is None or type(roster) is Roster else Roster.of(roster),
                      actor, issues, guess)
    except RecursionError:  # pragma: no cover - deeply nested HTML in BeautifulSoup
        issues.append(("parse.internal", 0, {"detail": "nesting too deep"}))
    except Exception as exc:  # noqa: BLE001  # pragma: no cover - a bug: report it, never raise
        issues.append(("parse.internal", 0, {"detail": f"{type(exc).__name__}: {exc}"}))
    return ParsedPost(text=text, lang=lang, fmt=fmt, errors=_issues(issues, lex))


_Issues = list[tuple[str, int, dict[str, Any]]]


class _Scan(Protocol):
    issues: IssueList
    spans: list[tuple[int, int]]


def _parse(raw: str, fmt: str, lang: str, lex: Lexicon, roster: Roster | None,
           actor: str | None, issues: _Issues, guess: str | None = None) -> ParsedPost:
    # Each scanner returns a shared empty result when its marker characters are absent,
    # and a stage with nothing to blank leaves the text as it is: a plain post costs a
    # few C-level searches before inference.
    text = normalise(raw, fmt)
    reg = scan_regions(text, fmt)
    masked = text
    if reg is not NO_REGIONS:
        issues.extend(reg.issues)
        if reg.spans:
            masked = mask_pairs(text, [(s.start, s.end) for s in reg.spans])
    if guess is not None:    # the language of what the poster wrote, asides and quotes left out
        lang = detect(masked) if guess == "auto" else choose_language(masked, guess)
        lex = get(lang)
    tables = scan_tables(masked)
    masked = _blank(masked, tables, tables is not NO_TABLES, issues)
    masked, handed = _hand_off(masked, lex, roster)
    found, cmds, said, masked = _scan(text, masked, lang, lex, roster, issues)
    actions, scans = _actions(masked, cmds, lex, roster, actor, issues)
    if handed is not None:
        actions.append(handed)
    rolls = number_rolls(found.rolls + cmds.rolls + tables.rolls, lex)
    if rolls:
        rolls, actions = _attach(text, rolls, actions, lex, roster, actor)
    if reg.spans and "[" in text:
        rolls.extend(quoted_rolls(text, reg, len(rolls), lex))
    dropped = 0                   # a scanner only drops problems past its cap of 200 kept
    if len(issues) >= IssueList.cap:
        dropped = (reg.issues.dropped + tables.issues.dropped + found.issues.dropped
                   + cmds.issues.dropped
                   + said.issues.dropped + sum(s.issues.dropped for s in scans))
    return ParsedPost(text, lang, fmt, tuple(rolls), tuple(cmds.commands), tuple(actions),
                      tuple(said.utterances), tuple(reg.ooc),
                      _issues(issues, lex, dropped) if issues or dropped else (),
                      tuple(reg.spans))


def _scan(text: str, masked: str, lang: str, lex: Lexicon, roster: Roster | None,
          issues: _Issues) -> tuple[TagScan, CommandScan, SpeechScan, str]:
    """Steps 3-5 on the text with its regions blanked: roll tags, command lines and
    speech, each blanked once read; returns the three scans and the text left for actions."""
    found = scan_tags(masked, lex)
    masked = _blank(masked, found, found is not NO_TAGS, issues)
    cmds = scan_commands(masked, lex, roster)
    masked = _blank(masked, cmds, cmds is not NO_COMMANDS, issues)
    said = scan_speech(masked, text, lang)
    masked = _blank(masked, said, said is not NO_SPEECH, issues)
    return found, cmds, said, masked


def _hand_off(masked: str, lex: Lexicon, roster: Roster | None) -> tuple[str, Action | None]:
    """STALL-7: the post's last ``next: NAME`` as a free action, blanked from the text so
    the name is not read as a target of the prose."""
    found = hand_offs(masked, lex)
    if not found:
        return masked, None
    last = found[-1]
    keys = roster.resolve(last.name, lex) if roster is not None else []
    action = Action(ActionKind.FREE, target=keys[0] if len(keys) == 1 else None,
                    text=masked[last.start:last.end].strip(), position=last.start,
                    options={"command": "next", "target_text": last.name, "source": "command"})
    return mask_pairs(masked, [(h.start, h.end) for h in found]), action


def _blank(masked: str, scan: _Scan, found: bool, issues: _Issues) -> str:
    if not found:
        return masked
    issues.extend(scan.issues)
    return mask_pairs(masked, scan.spans) if scan.spans else masked


def _actions(masked: str, cmds: CommandScan, lex: Lexicon, roster: Roster | None,
             actor: str | None, issues: _Issues) -> tuple[list[Action], tuple[ActionScan, ...]]:
    """Step 6: the declared actions (commands, ``#`` lines, label lines), then those inferred
    from prose, of kinds not declared explicitly; in position order."""
    acts = None
    if cmds.explicit or cmds.labelled:
        acts = ActionScan(list(cmds.actions))
        if cmds.explicit:
            explicit(cmds.explicit, lex, roster, actor, acts)
        if cmds.labelled:
            labelled(cmds.labelled, lex, roster, actor, acts)
    prose = ActionScan()
    infer(masked, lex, roster, actor, prose)
    actions = acts.actions if acts is not None else list(cmds.actions)
    if actions:
        kinds = {a.kind for a in actions}
        actions.extend(a for a in prose.actions if a.kind not in kinds)
    else:
        actions = prose.actions
    if acts is not None and acts.issues:
        issues.extend(acts.issues)
    if prose.issues:
        issues.extend(prose.issues)
    if len(actions) > 1:
        actions.sort(key=_position)
    return actions, (prose,) if acts is None else (acts, prose)


def _attach(text: str, rolls: list[RollTag], actions: list[Action], lex: Lexicon,
            roster: Roster | None, actor: str | None) -> tuple[list[RollTag], list[Action]]:
    """Give each roll to an action (*actions* in position order): same line, else same
    paragraph, else the nearest before.

    A roll labelled as an attack (``[roll=Ataque]``) with no attack to belong to becomes
    an inferred attack of its own (confidence 0.6), its target read from the label.
    Actions are indexed by line and paragraph, so this stays linear in the post.
    A secret roll (DICE-2) belongs to no action: the narrator uses it, so no event the
    engine says can show its value.
    """
    if not actions and all(r.purpose != "attack" or r.hidden for r in rolls):
        return rolls, actions           # nothing to give a roll to, and nothing to create
    layout = _Layout(text, actions)
    owner: dict[int, list[int]] = {}
    created: list[Action] = []
    for r in rolls:
        if r.purpose in ("initiative", "check", "defense", "table") or r.hidden:
            continue
        choice = layout.owner(r, actions)
        if choice is None and r.purpose == "attack":
            choice = _label_action(r, lex, roster, actor)
            created.append(choice)
            layout.add(choice)
        if choice is not None:
            owner.setdefault(id(choice), []).append(r.index)
    final = sorted(actions + created, key=_position) if created else actions
    return _give(rolls, final, owner), final


class _Layout:
    """The post's actions indexed by line and by paragraph (and the armed ones in order)."""

    def __init__(self, text: str, actions: list[Action]) -> None:
        if len(text) < 4000:  # a short post: find the line start directly (bounded by the post)
            rfind = text.rfind

            def line_start(pos: int) -> int:
                return rfind("\n", 0, pos) + 1
            self.line_start = line_start
        else:
            self.line_start = Lines(text).line_start
        self.blank_pos = [m.start() + 1 for m in _BLANK_LINE.finditer(text)] \
            if "\n\n" in text or "\n " in text or "\n\t" in text else []
        self.by_line: dict[int, list[Action]] = {}
        self.by_para: dict[int, list[Action]] = {}
        self.armed: list[Action] = []          # attacks, casts, maneuvers, in position order
        for a in actions:               # already in position order: appending keeps it
            pos = a.position or 0           # the parser's actions always have one
            self.by_line.setdefault(self.line_start(pos), []).append(a)
            self.by_para.setdefault(self.para(pos), []).append(a)
            if a.kind in _ARMED_KINDS:
                self.armed.append(a)

    def para(self, pos: int) -> int:
        return bisect_left(self.blank_pos, pos + 1) if self.blank_pos else 0

    def add(self, a: Action) -> None:
        pos = a.position or 0
        insort(self.by_line.setdefault(self.line_start(pos), []), a, key=_position)
        insort(self.by_para.setdefault(self.para(pos), []), a, key=_position)
        if a.kind in _ARMED_KINDS:
            insort(self.armed, a, key=_position)

    def owner(self, r: RollTag, actions: list[Action]) -> Action | None:
        """The action roll *r* belongs to, None for an attack roll that has none."""
        pos, purpose = r.position, r.purpose
        on_line = self.by_line.get(self.line_start(pos), ())
        in_para = self.by_para.get(self.para(pos), ())
        want = _ROLL_PURPOSE_KINDS.get(purpose or "", ())
        choice = _nearest(on_line, pos, want) or _nearest(in_para, pos, want)
        if choice is None and want and self.armed:
            k = bisect_left(self.armed, pos, key=_position) - 1
            choice = self.armed[k] if k >= 0 else None
        if choice is None and purpose != "attack":
            choice = _nearest(on_line, pos, ()) or _nearest(in_para, pos, ())
            if choice is None and actions:
                choice = _nearest_any(actions, pos)
        return choice


def _give(rolls: list[RollTag], final: list[Action], owner: dict[int, list[int]]
          ) -> list[RollTag]:
    """Each owning action (in *final*, replaced in place) gets its roll indices, and each
    roll the index of its action."""
    action_of: dict[int, int] = {}
    for n, a in enumerate(final):
        idx = owner.get(id(a))
        if idx:
            final[n] = with_rolls(a, idx)
            for ri in idx:
                action_of[ri] = n
    if action_of:
        for r in rolls:
            if r.index in action_of:
                # still private to this call: set the field rather than copy the frozen
                # value (RollTag keeps its fields in __dict__: see model._quick_init)
                r.__dict__["action_index"] = action_of[r.index]
    return rolls


_position = attrgetter("position")


def _nearest_any(actions: list[Action], pos: int) -> Action:
    k = bisect_left(actions, pos + 1, key=_position) - 1
    return actions[k] if k >= 0 else actions[0]


def _nearest(pool: Any, pos: int, want: tuple[ActionKind, ...]) -> Action | None:
    """The action of *pool* (sorted by position) nearest before *pos*, else the first after;
    with *want*, only one of those kinds. Looks at most 64 actions each way."""
    if not pool:
        return None
    k = bisect_left(pool, pos + 1, key=_position) - 1
    if want:
        for j in range(k, max(-1, k - 64), -1):
            if pool[j].kind in want:
                return pool[j]
        for j in range(k + 1, min(len(pool), k + 65)):
            if pool[j].kind in want:
                return pool[j]
        return None
    return pool[k] if k >= 0 else pool[0]


def _label_action(r: RollTag, lex: Lexicon, roster: Roster | None,
                  actor: str | None) -> Action:
    target = target_text = None
    candidates: tuple[str, ...] = ()
    if roster is not None and r.label:
        found = mentions_in(r.label, r.position, lex, roster, actor)
        if found:
            target_text = found[0].text
            if len(found[0].keys) == 1:
                target = found[0].keys[0]
            else:
                candidates = found[0].keys
    return declared(kind=ActionKind.ATTACK, position=r.position, text=r.label or "",
                        target=target, target_text=target_text, candidates=candidates,
                        explicit=False, confidence=0.6, source="label", verb=r.label)


def _issues(raw: list[tuple[str, int, dict[str, Any]]], lex: Lexicon,
            dropped: int = 0) -> tuple[ParseIssue, ...]:
    if not raw and not dropped:
        return ()
    out: list[ParseIssue] = []
    seen: set[tuple[str, int]] = set()
    for code, pos, params in sorted(raw, key=lambda t: t[1]):
        if (code, pos) in seen:
            continue
        seen.add((code, pos))
        if len(out) >= MAX_ISSUES:
            more = len(raw) - len(out) + dropped
            out.append(ParseIssue("errors.truncated", lex.message("errors.truncated", count=more),
                                  pos, "warning", {"count": more}))
            break
        severity = "warning" if code in _WARNINGS else "error"
        message = lex.message(code, position=pos, **{k: v for k, v in params.items()
                                                     if k != "position"})
        out.append(ParseIssue(code, message, pos, severity,
                              {k: v for k, v in params.items() if v is not None}))
    else:
        if dropped:
            pos = out[-1].position if out else 0
            out.append(ParseIssue("errors.truncated", lex.message("errors.truncated", count=dropped),
                                  pos, "warning", {"count": dropped}))
    return tuple(out)


_WARNINGS = frozenset(("speech.unclosed", "region.stray_close", "command.unknown",
                       "action.unknown", "ooc.unclosed"))

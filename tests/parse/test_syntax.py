"""Every form the issue lists, one assertion each: roll tags, dice-bot and Avrae commands,
explicit actions, speech, what is excluded, and the input formats."""

from __future__ import annotations

import pytest

from pbp.parse import parse_post
from pbp.parse.tags import read_expression
from pbp.rules.model import Action, ActionKind

ROSTER = [{"key": "goblin-1", "name": "Goblin 1", "aliases": ["goblin"]},
          {"key": "goblin-2", "name": "Goblin 2", "aliases": ["goblin"]},
          {"key": "sh1", "name": "SH1", "aliases": ["sea hag"]},
          {"key": "ana", "name": "Ana Clara", "weapons": ["Longsword", "Espada Curta"]},
          {"key": "boris", "name": "Boris"}]


def rolls(text: str, **kw) -> list[tuple]:
    return [(r.expression, r.label, r.syntax) for r in parse_post(text, **kw).rolls]


@pytest.mark.parametrize("text, expected", [
    ("[roll]1d20+5[/roll]", ("1d20+5", None, "[roll]")),
    ("[roll=Ataque]1d20+5[/roll]", ("1d20+5", "Ataque", "[roll=]")),
    ("[roll]{Fire} 1d20[/roll]", ("1d20", "Fire", "[roll]")),
    ("[dice]2d6+1[/dice]", ("2d6+1", None, "[dice]")),
    ("[DICE=Title]1d8[/DICE]", ("1d8", "Title", "[dice=]")),
    ('[dice=label="Attack Roll"]1d20+3[/dice]', ("1d20+3", "Attack Roll", "[dice=]")),
    ("[roll 2d6]", ("2d6", None, "[roll ]")),
    ("[dice 10d6>=3]", ("10d6>=3", None, "[dice ]")),
    ("[[1d20+5]]", ("1d20+5", None, "[[]]")),
    ("[roll]1d20+Dex[/roll]", ("1d20+Dex", None, "[roll]")),
    ("[roll]1d20+Luta ataque[/roll]", ("1d20+Luta", "ataque", "[roll]")),
    ("[roll]1к20+3[/roll]", ("1d20+3", None, "[roll]")),
    ("[Roll=Dano]2d6 + 1d4[/rOLL]", ("2d6 + 1d4", "Dano", "[roll=]")),
])
def test_roll_tags(text, expected):
    assert rolls("Texto antes. " + text + " depois", fmt="bbcode") == [expected]


def test_inline_advantage():
    post = parse_post("[[1d20+5 adv]] [[dis 1d20]] [[1d20 vantagem]]", lang="pt")
    assert [(r.expression, r.advantage) for r in post.rolls] == [("1d20+5", 1), ("1d20", -1), ("1d20", 1)]
    assert post.rolls[0].dice_expression() == "2d20kh1+5"
    assert post.rolls[1].dice_expression() == "2d20kl1"


@pytest.mark.parametrize("line, expected", [
    (".r 1d20+5 ataque", ("1d20+5", "ataque", ".r")),
    (".rh 1d20 stealth", ("1d20", "stealth", ".rh")),
    ("/roll 1d20+3", ("1d20+3", None, "/roll")),
    ("!roll 4d6kh3 STR", ("4d6kh3", "STR", "!roll")),
    ("!r 1d20+5 Attack", ("1d20+5", "Attack", "!r")),
    (".r 1d20+Dex # init", ("1d20+Dex", "init", ".r")),
])
def test_roll_lines(line, expected):
    assert rolls("Some prose.\n" + line + "\nMore prose.") == [expected]
    post = parse_post(line)
    assert post.rolls[0].hidden is (line.startswith(".rh"))


@pytest.mark.parametrize("line, entries", [
    (".ri", [(None, "1d20", None, 0)]),
    (".ri+3", [(None, "1d20+3", None, 0)]),
    (".ri +Dex", [(None, "1d20+Dex", None, 0)]),
    (".ri 12 Boris", [("boris", None, 12.0, 0)]),
    (".ri =1d10+3 Boris", [("boris", "1d10+3", None, 0)]),
    (".ri Ana Clara, +2 Boris", [("ana", "1d20", None, 0), ("boris", "1d20+2", None, 0)]),
    (".ri adv Boris", [("boris", "1d20", None, 1)]),
    (".ri dis", [(None, "1d20", None, -1)]),
])
def test_initiative_rolls(line, entries):
    (cmd,) = parse_post(line, roster=ROSTER).commands
    assert cmd.name == "initiative.roll"
    assert [(e.key, e.expression, e.value, e.advantage) for e in cmd.entries] == entries


@pytest.mark.parametrize("line, name", [
    (".init", "initiative.show"), (".init clr", "initiative.clear"), (".init ed", "initiative.next"),
    (".init end", "initiative.next"), (".init set Boris 1d20+2", "initiative.set"),
    (".init del Boris", "initiative.delete"), ("!i join", "initiative.join"),
    ("!i next", "initiative.next"), ("!i n", "initiative.next"), ("!init begin", "initiative.begin"),
    ("!i end", "initiative.end"), ('!i madd "sea hag"', "initiative.add"),
])
def test_initiative_commands(line, name):
    (cmd,) = parse_post(line, roster=ROSTER).commands
    assert cmd.name == name
    if name == "initiative.set":
        assert (cmd.entries[0].key, cmd.entries[0].expression) == ("boris", "1d20+2")
    if name == "initiative.delete":
        assert cmd.entries[0].key == "boris"


@pytest.mark.parametrize("line, kind, target, weapon, option", [
    ("!a longsword -t goblin 1", ActionKind.ATTACK, None, "Longsword", None),
    ("!a longsword -t sh1", ActionKind.ATTACK, "sh1", "Longsword", None),
    ("!i a bite -t sh1 adv", ActionKind.ATTACK, "sh1", "bite", ("advantage", 1)),
    ('!cast "fire bolt" -t sh', ActionKind.CAST, "sh1", None, ("spell", "fire bolt")),
    ("!c acrobatics", ActionKind.OTHER, None, None, ("check", "acrobatics")),
    ("!s wis", ActionKind.OTHER, None, None, ("save", "wis")),
    ("!cast Magic Missile -l 2 -t SH1", ActionKind.CAST, "sh1", None, ("flags", {"l": "2"})),
])
def test_avrae_commands(line, kind, target, weapon, option):
    post = parse_post(line, fmt="markdown", roster=ROSTER, actor="ana")
    (action,) = post.actions
    assert (action.kind, action.target, action.weapon, action.explicit) == (kind, target, weapon, True)
    if option:
        assert action.options.named(option[0]) == option[1]


def test_avrae_ambiguous_target_is_reported_not_guessed():
    post = parse_post("!a longsword -t goblin", roster=ROSTER)
    assert post.actions[0].target is None
    assert post.actions[0].options.candidates == ("goblin-1", "goblin-2")
    assert [e.code for e in post.errors] == ["target.ambiguous"]


@pytest.mark.parametrize("line, lang, kind, target, weapon", [
    ("#attack Goblin 2 with longsword", "en", ActionKind.ATTACK, "goblin-2", "Longsword"),
    ("#ataque goblin 1 com espada curta", "pt", ActionKind.ATTACK, "goblin-1", "Espada Curta"),
    ("#атака гоблин 2 мечом", "ru", ActionKind.ATTACK, "goblin-2", "меч"),
    ("#cast Fireball at Boris", "en", ActionKind.CAST, "boris", None),
    ("#move", "en", ActionKind.MOVE, None, None),
    ("#delay", "en", ActionKind.DELAY, None, None),
    ("#defesa", "pt", ActionKind.DEFEND, None, None),
    ("#манёвр Борис", "ru", ActionKind.MANEUVER, None, None),
])
def test_explicit_actions(line, lang, kind, target, weapon):
    roster = ROSTER + [{"key": "boris-ru", "name": "Борис"}] if lang == "ru" else ROSTER
    post = parse_post(line, lang=lang, roster=roster, actor="ana")
    (action,) = post.actions
    assert (action.kind, action.explicit, action.confidence) == (kind, True, 1.0)
    if target or kind is not ActionKind.MANEUVER:
        assert action.target == target
    assert action.weapon == weapon


@pytest.mark.parametrize("text, lang, kinds", [
    ("Corro até o goblin 1 e golpeio com a espada curta.", "pt", ["move", "attack"]),
    ("Atiro no goblin 2. Disparo de novo! Me movo para trás.", "pt", ["attack", "attack", "move"]),
    ("Saco a espada curta, conjuro um escudo e defendo Boris. Espero.", "pt",
     ["quick", "cast", "defend", "delay"]),
    ("Атакую гоблина 1, бью мечом. Стреляю в Бориса!", "ru", ["attack", "attack"]),
    ("Бегу к гоблину 2. Двигаюсь дальше. Достаю меч. Колдую. Защищаюсь. Жду.", "ru",
     ["move", "move", "quick", "cast", "defend", "delay"]),
    ("I attack goblin 1. I shoot Boris. I run, then draw my sword, cast a spell, defend.", "en",
     ["attack", "attack", "move", "quick", "cast", "defend"]),
    ("I ready my crossbow. I delay.", "en", ["ready", "delay"]),
])
def test_inferred_actions(text, lang, kinds):
    post = parse_post(text, lang=lang, roster=ROSTER, actor="ana")
    assert [a.kind.value for a in post.actions] == kinds
    assert all(not a.explicit and 0 < a.confidence < 1 for a in post.actions)


def test_russian_inflection_finds_the_roster_name():
    post = parse_post("Бью гоблина 2 мечом", lang="ru", roster=ROSTER)
    assert (post.actions[0].target, post.actions[0].weapon) == ("goblin-2", "меч")
    post = parse_post("Бью гоблина", lang="ru", roster=ROSTER)
    assert post.actions[0].target is None and post.actions[0].options.candidates == ("goblin-1", "goblin-2")
    assert post.errors[0].code == "target.ambiguous" and "уточните" in post.errors[0].message


def test_accents_and_case():
    roster = [{"key": "joao", "name": "João"}, {"key": "orc", "name": "Orc"}]
    post = parse_post("Ataco o joao e depois o ORC", lang="pt", roster=roster)
    assert [a.target for a in post.actions] == ["joao"]


@pytest.mark.parametrize("text, lang, said", [
    ('"Die!" she yells.', "en", ["Die!"]),
    ("“Morra!” ele grita. «Agora!»", "pt", ["Morra!", "Agora!"]),
    ("„Держись“, — шепчет он.", "ru", ["Держись"]),
    ("«Назад, „тварь“!» — кричу я.", "ru", ["Назад, „тварь“!"]),
    ("— Стой! — кричу я. — Ни шагу!\n— Слышишь?", "ru", ["Стой! Ни шагу!", "Слышишь?"]),
    ("golpeio [roll]1d20[/roll] — Morra, criatura!", "pt", ["Morra, criatura!"]),
    ("- Vamos! - grita Ana.", "pt", ["Vamos!"]),
    ('She casts "Fire Bolt" at it.', "en", []),
])
def test_speech(text, lang, said):
    post = parse_post(text, lang=lang, fmt="bbcode")
    assert [u.text for u in post.speech] == said
    assert post.speech_count == len(said)


@pytest.mark.parametrize("text, fmt", [
    ("[quote=Ana]I attack! [roll]1d20[/roll] \"Die!\"[/quote]", "bbcode"),
    ("[quote][quote]x[/quote] I attack [roll]1d20[/roll][/quote]", "bbcode"),
    ("[spoiler]I attack [roll]1d20[/roll][/spoiler]", "bbcode"),
    ("[code][roll]1d20[/roll][/code]", "bbcode"),
    ("((I attack [roll]1d20[/roll] \"x\"))", "text"),
    ("OOC: I attack [[1d20]]", "text"),
    ("[ooc]I attack [roll]1d20[/roll][/ooc]", "bbcode"),
    ("<blockquote>I attack [roll]1d20[/roll]</blockquote>", "html"),
    ("<div class=\"spoiler\">I attack [roll]1d20[/roll]</div>", "html"),
    ("<pre>.r 1d20</pre>", "html"),
    ("> I attack [[1d20]]", "markdown"),
    ("```\n.r 1d20\n!a sword\n```", "markdown"),
    ("`[[1d20]]` and >!I attack [[1d20]]!< ||[[1d6]]||", "markdown"),
])
def test_excluded_parts_declare_nothing(text, fmt):
    post = parse_post(text, fmt=fmt, roster=ROSTER)
    own = tuple(r for r in post.rolls if not r.in_quote)
    assert (own, post.actions, post.speech, post.commands) == ((), (), (), ())
    # issue 13 item 4: a roll inside a quote comes back marked, one elsewhere not at all
    quoted = "quote" in text or text.startswith(">")
    assert [r.expression for r in post.rolls if r.in_quote] == (["1d20"] if quoted else [])
    assert all(r.action_index is None for r in post.rolls)


def test_ooc_is_kept_for_the_narrator():
    post = parse_post("((back tomorrow))\nOFF: sem tempo\n[ooc]hi[/ooc]", fmt="bbcode", lang="pt")
    assert [o.text for o in post.ooc] == ["back tomorrow", "OFF: sem tempo", "hi"]


def test_same_parse_for_every_input_form():
    plain = parse_post("I attack goblin 1 [roll]1d20+5[/roll]", roster=ROSTER)
    html = parse_post("<p>I <b>attack</b> goblin 1 [roll]1d20+5[/roll]</p>", fmt="html", roster=ROSTER)
    md = parse_post("I **attack** goblin 1 [roll]1d20+5[/roll]", fmt="markdown", roster=ROSTER)
    for post in (plain, html, md):
        assert [(a.kind, a.target, a.options.roll_index) for a in post.actions] == [(ActionKind.ATTACK, "goblin-1", 0)]
        assert [r.expression for r in post.rolls] == ["1d20+5"]


def test_rolls_attach_to_their_action():
    text = ("Corro até o goblin 1. [roll=Iniciativa]1d20[/roll]\n"
            "Ataco o goblin 2 com a espada curta.\n[roll=Ataque]1d20+5[/roll] [roll=Dano]1d6+2[/roll]")
    post = parse_post(text, lang="pt", roster=ROSTER, actor="ana")
    move, attack = post.actions
    assert move.options.roll_index is None                      # an initiative roll belongs to no action
    assert (attack.options.roll_index, attack.options.roll_indices) == (1, (1, 2))
    assert [r.action_index for r in post.rolls] == [None, 1, 1]
    assert [r.purpose for r in post.rolls] == ["initiative", "attack", "damage"]


def test_to_actions_gives_engine_actions():
    post = parse_post("#attack Goblin 1 with longsword [roll]1d20+5[/roll]", roster=ROSTER, actor="ana")
    (action,) = post.to_actions()
    assert isinstance(action, Action)
    assert (action.kind, action.target, action.weapon, action.explicit) == (
        ActionKind.ATTACK, "goblin-1", "Longsword", True)
    assert action.options.roll_index == 0 and action.rolled is None
    assert post.to_declaration_actions() == post.to_actions()


def test_accepts_engine_combatants():
    from pbp.rules.model import Combatant, Weapon

    roster = [Combatant(key="g1", name="Goblin"), Combatant(key="kara", name="Kara",
                                                             weapons=(Weapon("Rapier", aliases=("espadim",)),))]
    post = parse_post("Ataco o goblin com o espadim.", lang="pt", roster=roster, actor="kara")
    assert (post.actions[0].target, post.actions[0].weapon) == ("g1", "Rapier")


def test_language_is_guessed_when_absent():
    assert parse_post("Бью гоблина", lang=None).lang == "ru"
    assert parse_post("Ataco o goblin com a espada", lang=None).lang == "pt"
    assert parse_post("I attack the goblin", lang="auto").lang == "en"


@pytest.mark.parametrize("text, code", [
    ("[roll]1d20", "tag.unclosed"), ("[roll]1d20[/dice]", "tag.mismatch"),
    ("x [/roll]", "tag.stray_close"), ("[roll]abc[/roll]", "dice.syntax"),
    ("[roll]1d20+[/roll]", "dice.syntax"), ("[roll]9999d6[/roll]", "dice.too_many"),
    ("[roll]1d0[/roll]", "dice.zero_sided"), ("[roll][/roll]", "tag.empty"),
    ("[roll]" + "(1+" * 25 + "1" + ")" * 25 + "[/roll]", "dice.too_deep"),
    ("[roll 1d20", "tag.malformed"), ("[quote]x", "region.unclosed"), ('"Hi', "speech.unclosed"),
    ("!frobnicate", "command.unknown"), (".init bogus", "command.syntax"),
    ("#attak goblin 1", "action.unknown"), ("!a sword -t nobody", "target.unknown"),
])
def test_every_problem_is_reported(text, code):
    post = parse_post(text, fmt="bbcode", roster=ROSTER)
    assert code in [e.code for e in post.errors], post.errors


@pytest.mark.parametrize("text, lang, expected", [
    ("[b]Action:[/b] attack goblin 2 [roll=Attack]1d20+6[/roll]\n[b]Move:[/b] none", "en",
     [("attack", "goblin-2", True)]),
    (("**Ação:** ataque ao goblin 1 com a espada curta\n**Movimento:** até a porta\n"
      "**Ação livre:** nenhuma"), "pt", [("attack", "goblin-1", True), ("move", None, True)]),
    ("Действие: атака гоблин 2\nПеремещение: нет", "ru", [("attack", "goblin-2", True)]),
    ("Bonus action: Misty Step\nReaction: none", "en", [("bonus", None, True)]),
])
def test_structured_label_lines(text, lang, expected):
    post = parse_post(text, lang=lang, fmt="bbcode", roster=ROSTER, actor="ana")
    assert [(a.kind.value, a.target, a.explicit) for a in post.actions] == expected


def test_reddit_escaped_brackets():
    post = parse_post(r"I attack goblin 1 \[roll=Attack\]1d20+5\[/roll\] \[\[1d6\]\]", fmt="markdown",
                      roster=ROSTER)
    assert [(r.expression, r.label, r.syntax) for r in post.rolls] == [
        ("1d20+5", "Attack", "[roll=]"), ("1d6", None, "[[]]")]
    assert post.actions[0].options.roll_indices == (0, 1)


def test_roll_keys_survive_an_edit():
    before = parse_post("Ataco. [roll=Ataque]1d20+5[/roll] [roll=Dano]1d8[/roll]", lang="pt")
    after = parse_post("Corro [roll]1d20[/roll] e ataco. [roll=Ataque]1d20+5[/roll] [roll=Dano]1d8[/roll]"
                       " [roll=Ataque]1d20+5[/roll]", lang="pt")
    assert [r.key for r in before.rolls] == ["[roll=]|1d20+5|Ataque|0", "[roll=]|1d8|Dano|0"]
    assert {r.key for r in before.rolls} <= {r.key for r in after.rolls}
    assert after.rolls[3].key == "[roll=]|1d20+5|Ataque|1"


def test_to_declaration():
    post = parse_post("Ataco o goblin 1. — Morra!", lang="pt", roster=ROSTER)
    decl = post.to_declaration("ana", post_id="t1-p9")
    assert (decl.actor, decl.post_id, decl.speech_count) == ("ana", "t1-p9", 1)
    assert [a.kind for a in decl.actions] == [ActionKind.ATTACK]


@pytest.mark.parametrize("text, expression, rest, problem", [
    ("(1d20+5)*2 fogo", "(1d20+5)*2", "fogo", None),
    ("1d20+Luta ataque", "1d20+Luta", "ataque", None),
    ("1к20 + 3", "1d20 + 3", "", None),
    ("1d20+5) x", "1d20+5", ") x", None),
    ("10d6>=3", "10d6>=3", "", None),
    ("4dF", None, "4dF", "dice.syntax"),          # d20 cannot roll fudge dice
    ("Dex", None, "Dex", "dice.syntax"),          # a stat alone is no roll
    ("1d0", None, "", "dice.zero_sided"),
])
def test_expressions_are_read_with_d20s_grammar(text, expression, rest, problem):
    """Issue 10: one dice grammar, d20's (pbp.dice.expression_end), no second one."""
    got = read_expression(text)
    assert (got.expression, got.rest, got.problem) == (expression, rest, problem)

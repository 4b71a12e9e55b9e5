"""Every engine preset against the real saved thread pages in ../shared/fixtures/forums/.

The oracle: post count, ids, authors, UTC times for every post, and each body's text
(exactly for quoted samples, by SHA-256 of the whole text for every post; the samples
were read off the pages by hand). Time zones: the pages that say so ("All times are
UTC", "GMT +1" on the vBulletin page in April = Europe/London); the others are read in
the preset's zone (UTC; Lisbon for the Portuguese Forumotion forum).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from pbp.errors import ConfigError
from pbp.sources.base import LayoutError
from pbp.sources.forum_page import parse_discourse_json, parse_html_page
from pbp.sources.forum_preset import PRESET_DIR, available_presets, load_preset, preset_from_dict
from pbp.sources.http import decode_html
from tests.conftest import shared_path
from tests.sources.test_forum_current_engines import COVERED as CURRENT_ENGINE_PAGES

# file -> (preset, the thread URL it was saved from, preset overrides)
PAGES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "phpbb2/ptforum_freemancruiser_viewtopic_t805.html":
        ("phpbb2", "http://www.freemancruisers.co.uk/forum/viewtopic.php?t=805", {}),
    "phpbb3/ptforum_raspberrypi_viewtopic_t28017.html":
        ("phpbb3", "http://www.raspberrypi.org/phpBB3/viewtopic.php?t=28017", {}),
    "smf/ptforum_contribs_smf20rc3_topic38573.html":
        ("smf", "http://forums.contribs.org/index.php?topic=38573.0", {}),
    "vbulletin3/ocuk_mobile_overclockersuk_vb373_showthread.html":
        ("vbulletin", "http://forums.overclockers.co.uk/showthread.php?t=18269941",
         {"dates": {"timezone": "Europe/London"}}),
    "vbulletin-derived/pyawful_somethingawful_showthread.html":
        ("vbulletin-sa", "https://forums.somethingawful.com/showthread.php?threadid=4076894&pagenumber=3", {}),
    "forumotion/sm-portugal_t6971-mugen-o-jogo-mais-legal.html":
        ("forumotion", "https://sm-portugal.forumeiros.com/t6971-mugen-o-jogo-mais-legal-para-sailor-moon", {}),
    "forumotion/sm-portugal_t3794p800-unidos-pelo-destino.html":
        ("forumotion", "https://sm-portugal.forumeiros.com/t3794p800-unidos-pelo-destino-unidos-por-todos", {}),
    "forumotion/sm-portugal_t6989-qual-a-vossa-sailor-favorita.html":
        ("forumotion", "https://sm-portugal.forumeiros.com/t6989-qual-a-vossa-sailor-favorita", {}),
    "discourse/onebox_meta_discourse_topic_12483.html":
        ("discourse", "https://meta.discourse.org/t/discourse-in-github-octoverse/12483", {}),
}
# Discourse JSON: file -> preset overrides (/posts.json lists posts under "latest_posts")
JSON_PAGES = {"discourse/discourse_api_topic.json": {},
              "discourse/meta_discourse_t12483.derived_from_onebox_preloaded.json": {},
              "discourse/discourse_api_posts_latest.json": {"json": {"posts": "latest_posts"}}}
LAST_PAGE = {"smf/ptforum_contribs_smf20rc3_topic38573.html": 2,
             "vbulletin3/ocuk_mobile_overclockersuk_vb373_showthread.html": 3,
             "vbulletin-derived/pyawful_somethingawful_showthread.html": 4,
             "forumotion/sm-portugal_t3794p800-unidos-pelo-destino.html": 17}

EXPECTED: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    'phpbb2/ptforum_freemancruiser_viewtopic_t805.html': (
        ('4513', 'prestbury2', '2010-06-02 23:01:00', 'e7791ab1c807'),
        ('4514', 'Deano', '2010-06-03 19:27:00', 'becffdcc770e'),
        ('4537', 'prestbury2', '2010-06-07 12:42:00', '83bbf6a7deb4'),
    ),
    'phpbb3/ptforum_raspberrypi_viewtopic_t28017.html': (
        ('248820', 'madman_xxx', '2013-01-02 19:14:00', '42133f2ed6a9'),
        ('248867', 'KenT', '2013-01-02 19:59:00', '457e723a7b0e'),
        ('248948', 'Max', '2013-01-02 21:22:00', '5fbe8bb37767'),
        ('248964', 'KenT', '2013-01-02 21:37:00', '0733f54ba93a'),
        ('249760', 'Max', '2013-01-03 18:50:00', '9f5449010c5d'),
    ),
    'smf/ptforum_contribs_smf20rc3_topic38573.html': (
        ('174916', 'gregswallow', '2007-09-19 13:08:14', '9a3c4631125d'),
        ('174924', 'imcintyre', '2007-09-19 14:16:51', '3dd2144bfc47'),
        ('174925', 'mmccarn', '2007-09-19 14:37:35', 'ff4ab98d538f'),
        ('174927', 'gregswallow', '2007-09-19 14:57:03', '1736d67dc7b2'),
        ('174983', 'mmccarn', '2007-09-20 09:46:50', '196307499577'),
        ('175024', 'slords', '2007-09-20 21:22:02', '8d53dfaabb99'),
        ('176020', 'Normando', '2007-10-06 19:09:23', '57e8d9de6889'),
        ('176031', 'cactus', '2007-10-07 00:30:38', 'a48e21e24b0b'),
        ('176040', 'byte', '2007-10-07 04:35:38', '769f2a884e08'),
        ('176166', 'cactus', '2007-10-08 09:55:36', '5f07d207ee51'),
        ('176168', 'Normando', '2007-10-08 10:28:43', 'd1f64645b438'),
        ('176172', 'byte', '2007-10-08 10:57:27', '5dd820146115'),
        ('176173', 'byte', '2007-10-08 11:01:59', '03be3ce799a5'),
        ('176175', 'cactus', '2007-10-08 11:11:01', '4da0a201b2dd'),
        ('176181', 'Normando', '2007-10-08 12:00:16', '0a32ffea9a48'),
    ),
    'vbulletin3/ocuk_mobile_overclockersuk_vb373_showthread.html': (
        ('19023594', 'ash_scotland88', '2011-04-30 16:10:00', '1c8e7a782a3e'),
        ('19023600', 'Biohazard', '2011-04-30 16:10:00', 'c9250a12eb64'),
        ('19023631', 'ash_scotland88', '2011-04-30 16:13:00', '5b6f7eb6f697'),
        ('19023661', 'DM', '2011-04-30 16:19:00', '0bfde31f64c4'),
        ('19023665', 'ash_scotland88', '2011-04-30 16:20:00', '626b1205e789'),
        ('19023682', 'LiamC', '2011-04-30 16:22:00', '70df13ac5bdc'),
        ('19023712', 'DM', '2011-04-30 16:27:00', 'ab18a6599149'),
        ('19023733', 'ash_scotland88', '2011-04-30 16:30:00', '6a3e8c90ca30'),
        ('19023742', '[TW]Fox', '2011-04-30 16:32:00', 'd2f1e4a010a1'),
        ('19023744', 'peterattheboro', '2011-04-30 16:32:00', '801b283e1add'),
        ('19023748', 'Kenai', '2011-04-30 16:32:00', '0a5ad3d66f57'),
        ('19023902', 'DM', '2011-04-30 16:52:00', '3bb1fe639778'),
        ('19023905', 'Joshy', '2011-04-30 16:53:00', '064309923086'),
        ('19023985', 'DM', '2011-04-30 17:04:00', '0dd1298823a1'),
        ('19024037', 'R420LA6X2/4MNA', '2011-04-30 17:13:00', 'f42ba7f61976'),
        ('19024206', 'Joshy', '2011-04-30 17:30:00', 'd0cf3511f559'),
        ('19024224', '[TW]Fox', '2011-04-30 17:32:00', '8bafde30f9e6'),
        ('19024238', 'Lashout_UK', '2011-04-30 17:33:00', '5148ff10ec96'),
        ('19024243', 'Kenai', '2011-04-30 17:33:00', '9cceb9711c78'),
        ('19024247', 'Joshy', '2011-04-30 17:34:00', '1250e3921fc9'),
        ('19024259', 'DM', '2011-04-30 17:36:00', 'ec88889a1023'),
        ('19024265', '[TW]Fox', '2011-04-30 17:36:00', '8d8f27051700'),
        ('19024287', 'Rizo-UK', '2011-04-30 17:39:00', 'e3b0c44298fc'),
        ('19024312', 'LeJosh', '2011-04-30 17:43:00', '1e621a19075b'),
        ('19024325', 'sigma', '2011-04-30 17:45:00', '9514a920917f'),
        ('19024332', 'Joshy', '2011-04-30 17:46:00', '42a1ae4b6c6f'),
        ('19024354', 'sigma', '2011-04-30 17:50:00', '65770e96daee'),
        ('19024356', 'Joshy', '2011-04-30 17:50:00', '2ee2cbacbbeb'),
        ('19024360', 'DM', '2011-04-30 17:51:00', 'dd9d1463e74a'),
        ('19024371', 'sigma', '2011-04-30 17:52:00', '91de87e75e03'),
    ),
    'vbulletin-derived/pyawful_somethingawful_showthread.html': (
        ('543571595', 'AEMINAL', '2024-12-05 21:45:00', '2974d078a177'),
        ('543571612', 'emSparkly', '2024-12-05 21:46:00', 'c9b3a3dae432'),
        ('543571689', 'AEMINAL', '2024-12-05 21:50:00', 'a7773266397f'),
        ('543571885', 'emSparkly', '2024-12-05 22:00:00', 'c0c75dd766aa'),
        ('543572395', 'nullandvoid', '2024-12-05 22:23:00', 'cae7faff0498'),
        ('543572475', 'redshirt', '2024-12-05 22:27:00', 'c50564ed5b72'),
        ('543572962', 'signalnoise', '2024-12-05 22:52:00', 'a6b96d73cdd2'),
        ('543573510', 'Justin Godscock', '2024-12-05 23:20:00', '7786a9e67fc4'),
        ('543575715', 'Haptical Sales Slut', '2024-12-06 04:02:00', '2b02cd4ac7a5'),
        ('543575778', 'The Hello Machine', '2024-12-06 04:18:00', '14ef50f02921'),
        ('543576256', 'A Fancy Hat', '2024-12-06 05:45:00', '244eae8c65cb'),
        ('543576333', 'Professor Shark', '2024-12-06 06:00:00', 'c6e3e52a219c'),
        ('543576346', 'Zybourne Clock', '2024-12-06 06:04:00', 'daa68808d43b'),
        ('543576904', 'A Fancy Hat', '2024-12-06 07:40:00', 'f4e432990075'),
        ('543577085', 'Strategic Tea', '2024-12-06 07:58:00', '9f783f06a3aa'),
        ('543577089', 'Caesar Saladin', '2024-12-06 07:59:00', '65ae4b0e2391'),
        ('543577427', 'TheMostFrench', '2024-12-06 08:31:00', '6d71e3465416'),
        ('543577625', 'A Fancy Hat', '2024-12-06 08:48:00', 'ef5ab07e37ed'),
        ('543577818', 'peanut', '2024-12-06 09:05:00', 'acafe804aee3'),
        ('543577994', 'Escape From Noise', '2024-12-06 09:18:00', '91fa0e1f0bdc'),
        ('543578050', 'Smugworth', '2024-12-06 09:23:00', 'c284d820d80e'),
        ('543578105', 'big nipples big life', '2024-12-06 09:27:00', '1cf6689cc08e'),
        ('543578195', 'Escape From Noise', '2024-12-06 09:31:00', '33a91620e070'),
        ('543578315', 'Bonzo', '2024-12-06 09:41:00', '2c437f00865d'),
        ('543579114', 'Shamewave', '2024-12-06 10:28:00', 'e3b0c44298fc'),
        ('543579163', 'Escape From Noise', '2024-12-06 10:32:00', 'e3b0c44298fc'),
        ('543579341', 'TheMostFrench', '2024-12-06 10:42:00', '85451f62ab7d'),
        ('543579421', 'big nipples big life', '2024-12-06 10:46:00', 'fc8b5c8dd7c5'),
        ('543579430', 'redshirt', '2024-12-06 10:47:00', '4cb4d57b5ca6'),
        ('543579486', 'A Fancy Hat', '2024-12-06 10:50:00', '56e0f600a350'),
        ('543579623', 'flubber nuts', '2024-12-06 10:56:00', 'be1cc45b607f'),
        ('543579643', 'Escape From Noise', '2024-12-06 10:57:00', 'c4590083d5c5'),
        ('543579704', 'Hihohe', '2024-12-06 11:00:00', 'dc027e147d44'),
        ('543580752', 'The Bramble', '2024-12-06 11:53:00', '0876bbb3c9e6'),
        ('543581595', 'Extra Large Marge', '2024-12-06 12:35:00', '2e82ac7a6a2b'),
        ('543581987', 'Escape From Noise', '2024-12-06 12:54:00', '006b13d9e91d'),
        ('543582032', 'Rags to Liches', '2024-12-06 12:56:00', '5072a6ac7567'),
        ('543582620', 'Peanut Butter', '2024-12-06 13:25:00', '7eab5dbadf98'),
        ('543582765', 'Haptical Sales Slut', '2024-12-06 13:33:00', 'e762e2eb26b4'),
        ('543583392', 'redshirt', '2024-12-06 14:05:00', '097405647cb0'),
    ),
    'forumotion/sm-portugal_t6971-mugen-o-jogo-mais-legal.html': (
        ('377407', 'Guardião da Lua Crescente', '2014-04-14 20:51:00', 'a76f0e8f6e92'),
        ('377408', 'SofiaFlower', '2014-04-14 21:26:00', '4a3c153adadf'),
        ('377410', 'Guardião da Lua Crescente', '2014-04-14 21:58:00', 'c7c5af2037ca'),
        ('377415', 'hunter literatures', '2014-04-15 23:23:00', 'e2bfd6fa903d'),
        ('377417', 'SofiaFlower', '2014-04-15 23:56:00', '2de1f5ac5816'),
        ('377420', 'Guardião da Lua Crescente', '2014-04-16 15:19:00', '0ebee23f8ce5'),
        ('377423', 'hunter literatures', '2014-04-16 18:33:00', '793c0519e220'),
        ('377426', 'Guardião da Lua Crescente', '2014-04-16 20:32:00', '4e6bd2e37ea3'),
        ('377427', 'hunter literatures', '2014-04-16 21:36:00', 'a4e0a3cab3ae'),
        ('377451', 'SofiaFlower', '2014-04-22 16:50:00', '009d706d0302'),
        ('377476', 'hunter literatures', '2014-04-27 19:52:00', '8dd7ad6d95a3'),
        ('377483', 'SofiaFlower', '2014-04-27 21:47:00', '78dabc0abaf4'),
        ('377496', 'hunter literatures', '2014-04-28 16:58:00', '82be86bdcde9'),
        ('377501', 'Guardião da Lua Crescente', '2014-04-28 20:16:00', '9f037d0897b1'),
        ('377503', 'Guardião da Lua Crescente', '2014-04-28 20:31:00', '666dc3a7e20a'),
    ),
    'forumotion/sm-portugal_t3794p800-unidos-pelo-destino.html': (
        ('315051', 'lulumoon', '2009-06-25 19:29:00', '8ccd8b994876'),
        ('315332', 'lulumoon', '2009-06-26 23:02:00', '1dd542449547'),
        ('315426', 'Obinha', '2009-06-27 18:05:00', '048bddfa411a'),
        ('315549', 'lulumoon', '2009-06-28 20:55:00', 'eef01acd4588'),
        ('315565', 'J@n!nh@', '2009-06-28 23:55:00', 'afbe71fd7a21'),
        ('315630', 'lulumoon', '2009-06-29 18:08:00', '2fe5edee7eaf'),
        ('315770', 'lulumoon', '2009-06-30 22:20:00', '45508ac04e16'),
        ('315771', 'lulumoon', '2009-06-30 22:21:00', 'c8019152f61d'),
        ('315779', 'J@n!nh@', '2009-06-30 23:05:00', 'a6c0e9091adc'),
        ('315936', 'lulumoon', '2009-07-01 13:49:00', '756988ea6278'),
        ('316348', 'AnA_Sant0s', '2009-07-02 22:49:00', '1ae1def2ac0b'),
        ('316360', 'lulumoon', '2009-07-02 23:38:00', '8f1d783f1428'),
        ('316362', 'AnA_Sant0s', '2009-07-02 23:54:00', '68da61d3fd51'),
        ('316891', 'Joaninha', '2009-07-05 15:19:00', '95bd75c2efe8'),
        ('376787', 'annelise lobo', '2014-01-27 17:13:00', 'db372c3c4154'),
    ),
    'forumotion/sm-portugal_t6989-qual-a-vossa-sailor-favorita.html': (
        ('377611', 'Maria Stuquino', '2014-07-09 10:17:00', '7006eecc2295'),
    ),
    'discourse/onebox_meta_discourse_topic_12483.html': (
        ('1', 'techAPJ', '2014-02-06 04:55:19', '527b9df2e4d9'),
        ('2', 'codinghorror', '2014-02-06 05:27:06', '0f8f6517c81b'),
    ),
    'discourse/discourse_api_topic.json': (
        ('83', 'samsaffron', '2013-02-04 20:26:26', '66f8a815be1f'),
        ('84', 'samsaffron', '2013-02-04 20:26:32', 'f9c6719cdc02'),
        ('86', 'stienman', '2013-02-04 20:29:00', 'e3b0c44298fc'),
        ('226', 'splattne', '2013-02-05 17:14:17', '663664ce9ee2'),
    ),
    'discourse/meta_discourse_t12483.derived_from_onebox_preloaded.json': (
        ('39739', 'techAPJ', '2014-02-06 04:55:19', '527b9df2e4d9'),
        ('39741', 'codinghorror', '2014-02-06 05:27:06', '0f8f6517c81b'),
    ),
    'discourse/discourse_api_posts_latest.json': (
        ('15', 'johndoe', '2020-01-25 02:10:07', 'c0ebe4298661'),
        ('14', 'johndoe', '2020-01-25 00:58:35', '08b5ea11ac3a'),
        ('10', 'system', '2020-01-24 23:26:09', '98cb692ba92e'),
        ('2', 'system', '2020-01-24 23:26:05', '0e5c09061ecc'),
    ),
}


# Bodies read off the pages by hand: (file, post id) -> exact plain text (quotes left out).
BODIES = {
    ("phpbb2/ptforum_freemancruiser_viewtopic_t805.html", "4514"):
        "Best of luck, all the hard work will be worth it. Enjoy the good weather while you can.",
    ("phpbb3/ptforum_raspberrypi_viewtopic_t28017.html", "248964"):
        "Whoops sorry, must read the exam question thoroughly",
    ("phpbb3/ptforum_raspberrypi_viewtopic_t28017.html", "248820"):
        "Hello,\n\nAlthough omxplayer does not allow accepting data directly from standard input, "
        "I read elsewhere that a named pipe can be created, which does the same thing. Tried it:"
        "\n\nCode: Select all\n\nmkfifo omxpipe\ncat video.mp4 >omxpipe &\nomxplayer omxpipe\n\n"
        "Unfortunately, this doesn't work at all or works partially (for example after few seconds "
        "some format data is displayed, chopped sound can be heard).\nPlease, could anyone provide "
        "me with a solution to make this work?",
    ("smf/ptforum_contribs_smf20rc3_topic38573.html", "176172"): "It's newly implemented.",
    ("vbulletin3/ocuk_mobile_overclockersuk_vb373_showthread.html", "19024325"):
        "Don't really need to say any more than this.",
    ("vbulletin3/ocuk_mobile_overclockersuk_vb373_showthread.html", "19023594"):
        "What happened to the thread? Guessing something got out of hand?\n\nIf it's not allowed "
        "to be spoken about on the forum...then....uhm..email in trust?\n\nAnd mods, if this "
        "thread isn't allowed then please delete.",
    ("vbulletin-derived/pyawful_somethingawful_showthread.html", "543571595"):
        "Hotfox sounds cool I'm going to Download it Thank you\n\n*secretly wishes this awakens "
        "something inside of his dead soul*",
    ("forumotion/sm-portugal_t6971-mugen-o-jogo-mais-legal.html", "377410"):
        "Obrigado Por mim avisar, Sofia Flower, desculpe se causei problemas",
    ("forumotion/sm-portugal_t3794p800-unidos-pelo-destino.html", "376787"):
        "Amo! Está muito fixe. escreves super bem lulumoon!\nAdoro o casal Annelise e Darien!",
    ("forumotion/sm-portugal_t6989-qual-a-vossa-sailor-favorita.html", "377611"):
        "Depois de dizer diga a razão.",
    ("discourse/discourse_api_topic.json", "226"): "What? So I have to post this every day?",
}
# Quotes of other posts are kept apart from the post's own text: (file, id) -> quoted author
#: the quoted post's author, out of the quote's header by the preset's quote_author_pattern
QUOTES = {
    ("phpbb3/ptforum_raspberrypi_viewtopic_t28017.html", "248964"): ["Max"],
    ("vbulletin3/ocuk_mobile_overclockersuk_vb373_showthread.html", "19024325"): ["Lashout_UK"],
    ("vbulletin-derived/pyawful_somethingawful_showthread.html", "543571595"): ["Songbearer"],
    ("forumotion/sm-portugal_t6971-mugen-o-jogo-mais-legal.html", "377410"): ["SofiaFlower"],
}


def _parse(name: str) -> list[Any]:
    path = shared_path("fixtures", "forums", name)
    if name in JSON_PAGES:
        preset = load_preset("discourse", JSON_PAGES[name])
        return list(parse_discourse_json(path.read_text(encoding="utf-8"), preset,
                                         "https://try.discourse.org/t/1.json").posts)
    preset, url, overrides = PAGES[name]
    page = parse_html_page(decode_html(path.read_bytes()), load_preset(preset, overrides), url)
    assert page.last_page == LAST_PAGE.get(name, 1)
    return list(page.posts)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_reads_every_post_of_the_real_page(name: str) -> None:
    posts = _parse(name)
    got = [(p.platform_id, p.author, p.posted_at.strftime("%Y-%m-%d %H:%M:%S"),
            hashlib.sha256(p.text.encode()).hexdigest()[:12]) for p in posts]
    assert got == list(EXPECTED[name])
    assert all(p.posted_at.utcoffset().total_seconds() == 0 for p in posts)
    assert all(p.change == "new" and p.fmt == "html" and p.revision for p in posts)


@pytest.mark.parametrize("key", sorted(BODIES))
def test_bodies_exact(key: tuple[str, str]) -> None:
    post = {p.platform_id: p for p in _parse(key[0])}[key[1]]
    assert post.text == BODIES[key]


@pytest.mark.parametrize("key", sorted(QUOTES))
def test_quotes_are_apart_from_the_post_text(key: tuple[str, str]) -> None:
    post = {p.platform_id: p for p in _parse(key[0])}[key[1]]
    assert [q["author"] for q in post.extra["quotes"]] == QUOTES[key]
    assert all(q["text"] and q["text"] not in post.text for q in post.extra["quotes"])


def test_every_fixture_page_is_covered() -> None:
    root = shared_path("fixtures", "forums")
    on_disk = {str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".html", ".json")}
    assert on_disk == set(EXPECTED) | CURRENT_ENGINE_PAGES


def test_discourse_stream_lists_every_post_id() -> None:
    path = shared_path("fixtures", "forums", "discourse", "discourse_api_topic.json")
    page = parse_discourse_json(path.read_text(), load_preset("discourse"), "https://x/t/1.json")
    assert page.stream == ["83", "84", "86", "226"]
    assert page.posts[0].edited_at is not None and page.posts[0].extra["post_number"] == 1


def test_charset_declared_only_in_meta_decodes() -> None:
    """ISO-8859-1 pages (declared in <meta> only) decode as browsers do (windows-1252)."""
    raw = shared_path("fixtures", "forums", "vbulletin3",
                      "ocuk_mobile_overclockersuk_vb373_showthread.html").read_bytes()
    text = decode_html(raw)
    assert "21 November 1954 – 31 March" in text and "© Overclockers" in text
    phpbb2 = decode_html(shared_path("fixtures", "forums", "phpbb2",
                                     "ptforum_freemancruiser_viewtopic_t805.html").read_bytes())
    assert "<!—- base" in phpbb2 and "\ufffd" not in phpbb2


def test_forumotion_skips_the_stats_widgets() -> None:
    posts = _parse("forumotion/sm-portugal_t6989-qual-a-vossa-sailor-favorita.html")
    assert [p.platform_id for p in posts] == ["377611"]
    assert posts[0].url == "https://sm-portugal.forumeiros.com/t6989-qual-a-vossa-sailor-favorita#377611"


def test_smf_reads_the_edit_time() -> None:
    posts = {p.platform_id: p for p in _parse("smf/ptforum_contribs_smf20rc3_topic38573.html")}
    assert posts["174916"].edited_at.isoformat() == "2007-09-24T12:57:14+00:00"
    assert posts["174924"].edited_at is None


def test_broken_layout_names_selector_and_url() -> None:
    path = shared_path("fixtures", "forums", "phpbb3", "ptforum_raspberrypi_viewtopic_t28017.html")
    url = "http://www.raspberrypi.org/phpBB3/viewtopic.php?t=28017"
    with pytest.raises(LayoutError) as err:
        parse_html_page(decode_html(path.read_bytes()), load_preset("smf"), url)
    assert "div.inner[id^=msg_]" in str(err.value) and url in str(err.value)
    broken = load_preset("phpbb3", {"post": {"author": ".author em.nobody"}})
    with pytest.raises(LayoutError) as err:
        parse_html_page(decode_html(path.read_bytes()), broken, url)
    assert ".author em.nobody" in str(err.value) and "post 248820" in str(err.value)


def test_a_date_in_another_format_is_a_layout_error() -> None:
    path = shared_path("fixtures", "forums", "phpbb3", "ptforum_raspberrypi_viewtopic_t28017.html")
    preset = load_preset("phpbb3", {"dates": {"formats": ["%Y-%m-%d %H:%M"]}})
    with pytest.raises(LayoutError, match="Wed Jan 02, 2013 7:14 pm"):
        parse_html_page(decode_html(path.read_bytes()), preset,
                        "http://www.raspberrypi.org/phpBB3/viewtopic.php?t=28017")


@pytest.mark.parametrize("name", ["phpbb2", "phpbb3", "smf", "vbulletin", "vbulletin-sa",
                                  "discourse", "forumotion", "machina"])
def test_every_preset_loads_and_documents_itself(name: str) -> None:
    preset = load_preset(name)
    assert name in available_presets()
    assert preset.engine and preset.description and preset.reply is not None
    assert "tid" in preset.thread.pattern.groupindex


def test_preset_problems_are_reported_all_at_once() -> None:
    with pytest.raises(ConfigError) as err:
        preset_from_dict({"engine": "x", "colour": "red",
                          "thread": {"pattern": "(no tid group)", "page_url": "{root}", "pages": 3},
                          "post": {"container": "div[", "id": "@id", "author": "a", "time": "t"},
                          "dates": {"formats": ["%d"], "timezone": "Mars/Olympus"}})
    msg = str(err.value)
    for part in ("unknown key 'colour'", "unknown key 'thread.pages'", "post.container",
                 "missing key 'post.body'", "Mars/Olympus"):
        assert part in msg, part


def test_unknown_preset_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="machina"):
        load_preset("xenforo")


def test_a_preset_is_read_once_per_process_until_its_file_changes(tmp_path: Path) -> None:
    """issue 17 item 3: a worker builds a source on every poll; the preset file is parsed
    once per (file, modification time, overrides), and an edited file is read again."""
    path = tmp_path / "mine.toml"
    path.write_text((PRESET_DIR / "machina.toml").read_text(encoding="utf-8"), encoding="utf-8")
    first = load_preset(path)
    assert load_preset(path) is first
    assert load_preset(path, {"dates": {"timezone": "Europe/Lisbon"}}) is not first
    edited = path.read_text(encoding="utf-8").replace('name = "machina"', 'name = "mine"', 1)
    assert edited != path.read_text(encoding="utf-8")
    path.write_text(edited, encoding="utf-8")
    os.utime(path, ns=(first_stamp := path.stat().st_mtime_ns + 10**9, first_stamp))
    again = load_preset(path)
    assert again is not first and again.name == "mine"

"""The baseline of ``bench_panel.py``: a bare Flask + Jinja app reading the same rows.

    PBP_BARE_DB=/path/to.sqlite gunicorn -w 2 'bench.bare_panel:app'

``/page/<encounter>``: the open round's posts with their declarations and rolls, and the
encounter's combatants, read with plain SQL and rendered by one Jinja template (escaped, no
login, no forms, no compression). ``/rows/<encounter>``: the 50 combatants alone (the "bare
50-row page" the live refresh is compared with). What a page of the same rows costs when
nothing else is done: the floor the panel is measured against (issue 17 item 5).
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

from flask import Flask, g

app = Flask(__name__)

PAGE = """<!doctype html><html><head><title>{{ name }}</title></head><body>
<h1>{{ name }}</h1>
<table>{% for c in combatants %}<tr><td>{{ c.name }}</td><td>{{ c.key }}</td><td>{{ c.hp }}/{{ c.max_hp }}</td><td>{{ c.conditions }}</td></tr>{% endfor %}</table>
{% for p in posts %}<article id="post-{{ p.id }}"><header><strong>{{ p.author }}</strong> {{ p.posted_at }}</header>
<div>{{ p.text }}</div>
{% for d in decls.get(p.id, []) %}<h3>{{ d.name }}</h3><ul>{% for a in d.actions %}<li>{{ a.kind }} {{ a.target or "" }}</li>{% endfor %}</ul>{% endfor %}
{% for r in rolls.get(p.id, []) %}<div>{{ r.expression }}: {{ r.breakdown }}</div>{% endfor %}
</article>{% endfor %}</body></html>"""

ROWS = """<!doctype html><html><head><title>{{ name }}</title></head><body><h1>{{ name }}</h1>
<table>{% for c in combatants %}<tr><td>{{ c.name }}</td><td>{{ c.key }}</td><td>{{ c.hp }}/{{ c.max_hp }}</td><td>{{ c.conditions }}</td></tr>{% endfor %}</table></body></html>"""


#: compiled once, as Flask's render_template would keep a file's template
PAGE_T = app.jinja_env.from_string(PAGE)
ROWS_T = app.jinja_env.from_string(ROWS)


def db() -> sqlite3.Connection:
    if "db" not in g:
        g.db = sqlite3.connect(os.environ["PBP_BARE_DB"])
        g.db.row_factory = sqlite3.Row
    return g.db


@app.teardown_appcontext
def close(_exc: BaseException | None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


def _combatants(eid: int) -> tuple[str, list[Any]]:
    c = db()
    name = c.execute("SELECT name FROM encounters WHERE id = ?", (eid,)).fetchone()[0]
    rows = c.execute("SELECT id, name, key, hp, max_hp, conditions FROM combatants WHERE encounter_id = ? "
                     "ORDER BY id", (eid,)).fetchall()
    return name, rows


@app.route("/rows/<int:eid>")
def rows(eid: int) -> str:
    name, combatants = _combatants(eid)
    return ROWS_T.render(name=name, combatants=combatants)


@app.route("/page/<int:eid>")
def page(eid: int) -> str:
    name, combatants = _combatants(eid)
    c = db()
    rid = c.execute("SELECT id FROM rounds WHERE encounter_id = ? ORDER BY number DESC LIMIT 1", (eid,)).fetchone()[0]
    posts = c.execute("SELECT id, author, posted_at, text FROM posts WHERE round_id = ? AND is_ours = 0 "
                      "ORDER BY posted_at, id", (rid,)).fetchall()
    names = {r["id"]: r["name"] for r in combatants}
    decls: dict[int, list[dict[str, Any]]] = {}
    for d in c.execute("SELECT post_id, combatant_id, actions FROM declarations WHERE round_id = ? AND superseded = 0 "
                       "ORDER BY id", (rid,)):
        decls.setdefault(d["post_id"], []).append({"name": names.get(d["combatant_id"]),
                                                   "actions": json.loads(d["actions"] or "[]")})
    rolls: dict[int, list[Any]] = {}
    for r in c.execute("SELECT post_id, expression, breakdown FROM rolls WHERE round_id = ? ORDER BY id", (rid,)):
        rolls.setdefault(r["post_id"], []).append(r)
    return PAGE_T.render(name=name, combatants=combatants, posts=posts, decls=decls, rolls=rolls)

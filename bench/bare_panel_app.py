"""The ceiling of ``bench_panel_workers.py`` (SCALE-4): a bare Flask + Jinja app that reads
the encounter's combatants and posts with plain sqlite3 and renders them, nothing else.
Kept in a module of its own that imports only Flask, so its workers boot as fast as a
bare app does (``BENCH_DB``: the SQLite file, ``BENCH_ENCOUNTER``: the encounter's id).

    gunicorn -w 2 'bare_panel_app:create_app()'
"""

from __future__ import annotations

import os
import sqlite3

from flask import Flask, render_template_string

PAGE = ("<!doctype html><title>bare</title><table>{% for c in combatants %}<tr><td>{{ c[0] }}"
        "</td><td>{{ c[1] }}/{{ c[2] }}</td></tr>{% endfor %}</table>{% for p in posts %}"
        "<article><h3>{{ p[0] }}</h3><p>{{ p[1] }}</p></article>{% endfor %}")


def create_app() -> Flask:
    app = Flask("bare")
    db = os.environ["BENCH_DB"]
    eid = int(os.environ["BENCH_ENCOUNTER"])

    @app.get("/")
    def index() -> str:
        con = sqlite3.connect(db)
        try:
            combatants = con.execute("SELECT name, hp, max_hp FROM combatants WHERE encounter_id=?",
                                     (eid,)).fetchall()
            posts = con.execute("SELECT p.author, p.text FROM posts p JOIN rounds r ON r.id=p.round_id "
                                "WHERE r.encounter_id=? ORDER BY p.id", (eid,)).fetchall()
        finally:
            con.close()
        return render_template_string(PAGE, combatants=combatants, posts=posts)

    return app

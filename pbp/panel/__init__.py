"""The narrator panel: a Flask app built by :func:`create_app`, one blueprint per area.

Why a factory (Flask's tutorial): tests build apps side by side with their own
database and settings; ``pbp serve`` and any WSGI server (``gunicorn
'pbp.panel:create_app()'``) build the same app from the layered settings.

Configuration layers, last wins: :data:`pbp.panel.config.DEFAULTS` -> the pbp
settings (``pbp/config/pbp.toml`` -> ``PBP_CONFIG`` file -> ``PBP_*`` variables) ->
``PBP_PANEL_*`` variables for Flask keys (``PBP_PANEL_SESSION_COOKIE_SECURE=false``)
-> *test_config*.

The panel never holds a rule of the game: views read the store, call the service
layer (:mod:`pbp.rounds.service`, :mod:`pbp.panel.overrides`) and render.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask

from .. import heap
from ..settings import TEMPLATES_DIR, Settings, load_settings
from . import (
    access,
    account,
    auth,
    campaigns,
    clocks,
    code_words,
    combatants,
    compression,
    dashboard,
    db,
    encounters,
    health,
    i18n,
    initiative_modes,
    kind_words,
    ladder,
    narrators,
    owes,
    polling,
    roll_ledger,
    secret_rolls,
    security,
    sources,
    standing,
    tables,
    verification,
)
from . import config as _config


def create_app(test_config: Mapping[str, Any] | None = None, *, settings: Settings | None = None) -> Flask:
    """Build the panel. *test_config* overrides everything (tests, embedding)."""
    settings = settings or load_settings()
    app = Flask(__name__, template_folder=str(TEMPLATES_DIR), static_folder="static")
    app.config.from_mapping(_config.DEFAULTS)
    app.config.from_mapping(_config.from_settings(settings))
    app.config.from_prefixed_env(prefix="PBP_PANEL")
    if test_config:
        app.config.from_mapping(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _config.secret_key(settings)
    app.config["PBP_SETTINGS"] = settings
    app.url_map.converters["int"] = access.IdConverter   # before any route is added

    db.init_app(app)
    security.init_app(app)
    i18n.init_app(app)
    kind_words.init_app(app)
    code_words.init_app(app)
    auth.init_app(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(account.bp)
    app.register_blueprint(dashboard.bp)
    app.register_blueprint(campaigns.bp)
    app.register_blueprint(tables.bp)
    app.register_blueprint(narrators.bp)
    sources.init_app(app)
    polling.init_app(app)
    clocks.init_app(app)
    app.register_blueprint(encounters.bp)
    app.register_blueprint(initiative_modes.bp)
    app.register_blueprint(roll_ledger.bp)
    app.register_blueprint(secret_rolls.bp)
    app.register_blueprint(clocks.bp)
    app.register_blueprint(combatants.bp)
    app.register_blueprint(verification.bp)
    app.register_blueprint(standing.bp)
    app.register_blueprint(ladder.bp)
    app.register_blueprint(owes.bp)
    health.init_app(app)
    compression.init_app(app)
    _freeze_long_lived(app)
    return app


def _freeze_long_lived(app: Flask) -> None:
    """Move what lives as long as the process (modules, the app, SQLAlchemy's mappers, then
    what the first request compiles: templates, catalogs, statement caches) out of the
    collector's sight, so a full collection no longer walks it. A page of 200 posts
    allocates enough to trigger one every few requests: 13 ms a page on average, 6 ms
    with the first freeze only, 1 ms with both (``gc.freeze``, Python's own advice for
    long-running servers; :mod:`pbp.heap`)."""
    heap.freeze()
    first = [True]

    @app.teardown_request
    def _after_first_request(_exc: BaseException | None) -> None:
        if first[0]:
            first[0] = False
            heap.freeze()

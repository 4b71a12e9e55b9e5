"""Packaging (PKG-1): a wheel built from the checkout carries the Jinja templates (panel
pages and replies), the panel's static files and the shipped config (default settings,
forum presets, houserules, random tables) and the demo of ``pbp serve --demo``, and the
package installed from it renders the panel's login page, loads every reply template, every
forum preset, every ruleset's random tables and houserules, reads the packaged default
settings and seeds the demo, away from the checkout.

Why: ``templates/``, ``config/`` and ``examples/demo/`` once sat at the repository root,
outside the ``pbp`` package. A non-editable install (``pip install .``, which builds a
wheel) shipped none of them, so on a user's machine the panel failed (no templates), pbp
knew no forum engine, no table and no default setting, and ``pbp serve --demo`` stopped
at once (no such file: .../site-packages/examples/demo/campaign.yaml, seen walking the
installed package), while every test run from the checkout passed. Only a wheel
really built and installed shows this: the checks here never import ``pbp`` from the
checkout.

Slow (several seconds: a wheel build, a virtualenv, an install, a fresh interpreter that
imports Flask). The wheel is built with ``--no-build-isolation`` so it works offline: the
build backend (setuptools, and ``wheel`` for setuptools before 70.1) comes from this
environment, which the ``test`` extra provides.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from pbp.rules.registry import registered
from pbp.settings import CONFIG_DIR, Settings
from tests.conftest import ROOT

pytestmark = pytest.mark.slow

#: the folders inside the package whose every file the installed package needs
PACKAGED_DIRS = ("pbp/templates", "pbp/panel/static", "pbp/config", "pbp/demo")
#: top-level entries of the checkout that the build never reads (and some are large:
#: the test forums' virtualenvs under tests/harness)
NOT_BUILT = {".git", ".ci", "build", "dist", "tests", "bench", "docs", "test-output", "var", ".venv"}

#: run by the venv's interpreter from a folder outside the checkout: where pbp comes from,
#: the login page through the Flask test client, a static file, every reply template, and
#: what the shipped config gives (presets, tables, houserules, default settings)
INSTALLED_CHECK = """
import json, sys
import pbp
from pbp import houserule_files
from pbp.panel import create_app
from pbp.render import PLATFORMS, environment
from pbp.rules.registry import registered
from pbp.settings import CONFIG_DIR, TEMPLATES_DIR, load_settings
from pbp.sources.forum_preset import available_presets, load_preset
from pbp.store.db import upgrade
from pbp.table_files import ruleset_tables

settings = load_settings()
upgrade(settings.database_url)
app = create_app({"TESTING": True, "SECRET_KEY": "pkg-1"}, settings=settings)
client = app.test_client()
login = client.get("/login")
css = client.get("/static/panel.css")
replies = {}
for platform in PLATFORMS:
    env = environment(platform)
    names = [n for n in env.list_templates() if n.startswith(platform + "/")]
    for name in names:
        env.get_template(name)  # compiled from the installed file
    replies[platform] = len(names)
machina = load_preset("machina")
from sqlalchemy import select
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Campaign
from workers.demo import demo_thread_path, seed_demo
demo_id = seed_demo(settings)  # what `pbp serve --demo` seeds, from the installed files
with session_scope(make_engine(settings.database_url)) as s:
    demo = s.scalar(select(Campaign.name).where(Campaign.id == demo_id))
print(json.dumps({"demo": demo, "demo_thread": demo_thread_path(settings).read_text(),
                  "pbp": pbp.__file__, "templates": str(TEMPLATES_DIR),
                  "database": settings.database_url, "status": login.status_code,
                  "html": login.get_data(as_text=True), "css": css.status_code,
                  "replies": replies, "config": str(CONFIG_DIR),
                  "presets": {n: load_preset(n).engine for n in available_presets()},
                  "machina": [machina.name, machina.engine, machina.post.container],
                  "tables": {r: [t.key for t in ruleset_tables(r)] for r in sorted(registered())},
                  "houserules": {r: houserule_files.read_file(r) for r in sorted(registered())},
                  "user_agent": settings.user_agent, "retry_max": settings.retry_max}))
"""


def _env_without_checkout() -> dict[str, str]:
    """The environment less PYTHONPATH and pbp's own settings, so nothing points back at
    the checkout (the test run's XDG folders, set by tests/conftest.py, stay)."""
    return {k: v for k, v in os.environ.items()
            if k != "PYTHONPATH" and not k.startswith("PBP_")}


def _run(argv: list[str], env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run *argv*; its output is the failure message when it fails."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)
    assert done.returncode == 0, f"{argv[:4]} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the checkout, built from a copy of it: building in place would leave
    ``build/`` and ``*.egg-info`` in the checkout (``build/`` also holds the browser
    tests' axe-core)."""
    src = tmp_path_factory.mktemp("pkg-src") / "pbp"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.sqlite", "*.pyc")
    for entry in ROOT.iterdir():
        if entry.name in NOT_BUILT:
            continue
        if entry.is_dir():
            shutil.copytree(entry, src / entry.name, ignore=ignore)
        else:
            shutil.copy2(entry, src / entry.name)
    out = tmp_path_factory.mktemp("pkg-wheel")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "--no-cache-dir", "-q", "-w", str(out), str(src)], env=_env_without_checkout())
    wheels = list(out.glob("pbp-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _source_files(folder: str) -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def test_pkg_1_wheel_holds_every_template_static_and_config_file(wheel: Path) -> None:
    """PKG-1: every file under pbp/templates, pbp/panel/static, pbp/config and pbp/demo is in the
    wheel, and no top-level templates/ or config/ (either would install as a stray
    site-packages/templates or site-packages/config)."""
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in PACKAGED_DIRS:
        expected = _source_files(folder)
        assert expected, f"{folder} is missing from the checkout"
        assert not expected - names, f"not in the wheel: {sorted(expected - names)}"
    assert "pbp/templates/panel/login.html" in names
    assert "pbp/templates/replies/bbcode/opening.j2" in names
    assert {"pbp/config/pbp.toml", "pbp/config/forums/machina.toml",
            "pbp/config/rulesets/forum-d20.toml", "pbp/config/tables/forum-d20/crit.toml"} <= names
    assert "pbp/demo/script.yaml" in names
    assert not [n for n in names if n.startswith(("templates/", "config/", "examples/"))]


def _source_config() -> dict[str, Any]:
    """What the checkout's own config folder holds, read as plain TOML (not through pbp, so
    a loader bug cannot agree with itself): the expected side of the installed check."""
    def toml(path: Path) -> dict[str, Any]:
        with path.open("rb") as fh:
            return tomllib.load(fh)

    forums = {p.stem: toml(p) for p in sorted((CONFIG_DIR / "forums").glob("*.toml"))}
    rulesets = sorted(registered())
    return {
        "presets": {name: data["engine"] for name, data in forums.items()},
        "machina": [forums["machina"]["name"], forums["machina"]["engine"],
                    forums["machina"]["post"]["container"]],
        "tables": {r: [t["key"] for p in sorted((CONFIG_DIR / "tables" / r).glob("*.toml"))
                       for t in toml(p)["tables"]] for r in rulesets},
        "houserules": {r: toml(CONFIG_DIR / "rulesets" / f"{r}.toml") for r in rulesets},
        "defaults": toml(CONFIG_DIR / "pbp.toml"),
    }


def test_pkg_1_installed_wheel_renders_the_login_page(wheel: Path, tmp_path: Path) -> None:
    """PKG-1: installed into a fresh virtualenv and run from outside the checkout, pbp is
    imported from the venv and the panel answers /login with its form (templates found),
    serves its CSS, and loads every reply template of every platform; its config folder is
    the installed one, and it knows the same forum presets (name -> engine) as the source
    tree, loads the django-machina one, every ruleset's random tables and houserule file,
    and reads its default settings from the packaged pbp.toml; it seeds the demo campaign
    of ``pbp serve --demo`` from its packaged files."""
    venv = tmp_path / "venv"
    # --system-site-packages: Flask and the rest come from this environment (offline);
    # the venv's own site-packages comes first, so its pbp wins over an editable install
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    env = _env_without_checkout()
    _run([str(python), "-m", "pip", "install", "--no-deps", "--force-reinstall", "--no-index",
          "-q", str(wheel)], env=env, cwd=tmp_path)
    away = tmp_path / "elsewhere"
    away.mkdir()
    env["PBP_DATA_DIR"] = str(tmp_path / "data")
    done = _run([str(python), "-c", INSTALLED_CHECK], env=env, cwd=away)
    seen = json.loads(done.stdout.strip().splitlines()[-1])

    installed = Path(seen["pbp"]).resolve()
    assert installed.is_relative_to(venv.resolve()), seen["pbp"]
    assert not installed.is_relative_to(ROOT), seen["pbp"]
    assert Path(seen["templates"]).resolve().is_relative_to(venv.resolve()), seen["templates"]
    assert str(tmp_path / "data") in seen["database"]
    assert seen["status"] == 200, seen["html"][:2000]
    html = seen["html"]
    assert '<form method="post" action="/login"' in html
    assert 'name="csrf_token"' in html and 'name="password"' in html
    assert seen["css"] == 200
    source_replies = {d.name: len(list(d.glob("*.j2")))
                      for d in (ROOT / "pbp" / "templates" / "replies").iterdir() if d.is_dir()}
    assert seen["replies"] == source_replies

    source = _source_config()
    assert Path(seen["config"]).resolve().is_relative_to(venv.resolve()), seen["config"]
    assert source["presets"] and "machina" in source["presets"]
    assert seen["presets"] == source["presets"]
    assert seen["machina"] == source["machina"]
    assert source["tables"]["forum-d20"], "the checkout ships forum-d20 tables"
    assert seen["tables"] == source["tables"]
    assert seen["houserules"] == source["houserules"]
    # user_agent: the file's value differs from the dataclass default, so only a settings
    # load that read the packaged pbp.toml gives it
    assert source["defaults"]["user_agent"] != Settings.user_agent
    assert seen["user_agent"] == source["defaults"]["user_agent"]
    assert seen["retry_max"] == source["defaults"]["retry_max"]
    # `pbp serve --demo` from the installed package: the demo's campaign and thread come
    # from the packaged pbp/demo (they sat in examples/demo, outside the package)
    demo = ROOT / "pbp" / "demo"
    with (demo / "campaign.yaml").open() as fh:
        assert seen["demo"] == yaml.safe_load(fh)["campaign"]["name"]
    assert seen["demo_thread"] == (demo / "thread.yaml").read_text()

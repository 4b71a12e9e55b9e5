"""Settings, layered: defaults (``pbp/config/pbp.toml``) -> the user's settings file
(``$XDG_CONFIG_HOME/pbp/pbp.toml``, else ``~/.config/pbp/pbp.toml``, when it exists) -> the
file named by ``PBP_CONFIG`` -> ``PBP_<NAME>`` environment variables.

Why a per-user data directory: every command (``pbp serve``, ``pbp status``, ``pbp
narrator``...) must find the same database wherever it is run. With no ``data_dir`` set,
the data lives in the user's data directory (``platformdirs``: ``$XDG_DATA_HOME/pbp``, else
``~/.local/share/pbp`` on Linux); a relative ``data_dir`` is taken from the folder of the
file that sets it (from the current directory for ``PBP_DATA_DIR``), and is stored absolute
so child processes agree. A relative ``secrets_file`` is inside the data directory.

Why one frozen object: workers, the panel and the CLI must agree on the database and
broker; passing a :class:`Settings` around (instead of reading the environment
everywhere) keeps tests able to run several configurations side by side.

>>> s = load_settings(env={"PBP_DATA_DIR": "/tmp/x", "PBP_POLL_INTERVAL": "30"})
>>> s.database_url, s.poll_interval
('sqlite:////tmp/x/pbp.sqlite', 30)

Worker knobs are settings like any other (``PBP_RETRY_MAX`` -> ``retry_max``):

>>> s = load_settings(env={"PBP_RETRY_MAX": "3", "PBP_BROKER_KEYPREFIX": "run1:"})
>>> s.retry_max, s.broker_keyprefix, s.final_poll_grace
(3, 'run1:', 600.0)
"""

from __future__ import annotations

import dataclasses
import os
import re
import secrets
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from .errors import ConfigError

PACKAGE_ROOT = Path(__file__).resolve().parent
#: The shipped data every module reads from one place: default settings (``pbp.toml``),
#: forum presets (``forums/``), houserules (``rulesets/``) and random tables (``tables/``).
#: Inside the package, so a built wheel ships it: at the repository root an installed pbp
#: found no presets, tables or defaults (PKG-1). A user's own settings go in their settings
#: file or ``PBP_CONFIG``, never here (an upgrade replaces this folder).
CONFIG_DIR = PACKAGE_ROOT / "config"
#: Jinja templates (panel pages, replies): inside the package, so a built wheel ships them.
TEMPLATES_DIR = PACKAGE_ROOT / "templates"


@dataclass(frozen=True)
class Settings:
    data_dir: str = ""
    database_url: str = ""
    broker_url: str = ""
    result_backend: str = ""
    secret_key: str = ""
    secrets_file: str = ""
    timezone: str = "UTC"
    language: str = "en"
    user_agent: str = "pbp/0.1"
    min_host_interval: float = 2.0
    #: where the request budgets every worker process shares live (pbp.store.budget):
    #: empty for the database, a ``redis://`` URL for Redis, ``local`` for each process alone,
    #: ``none`` for no shared budget
    rate_budget_url: str = ""
    #: hosts (``host`` or ``host:port``, comma-separated) the workers may fetch although they
    #: resolve inside the network (loopback, private, link-local): pbp.sources.outbound
    allow_private_hosts: str = ""
    poll_interval: int = 60
    #: hours between full re-reads of a forum thread (edits on earlier pages); 0: never
    full_reread_hours: float = 6.0
    deadline_sweep_interval: int = 60
    approval_mode: bool = False
    panel_host: str = "127.0.0.1"
    panel_port: int = 5000
    panel_trust_proxy: bool = False
    # Reddit's endpoints (a thread's options may set its own): a proxy, or a local server in tests
    reddit_oauth_url: str = "https://oauth.reddit.com"
    reddit_url: str = "https://www.reddit.com"
    #: Reddit's API budget per OAuth client (100 a minute): the subreddit cycles of one
    #: endpoint share it, so first reads and gap fills are spread over cycles (pbp.jobs.subreddits)
    reddit_calls_per_minute: float = 100.0
    panel_session_idle_hours: float = 12.0
    panel_session_max_days: float = 7.0
    # workers (workers/celery_app.py, workers/runtime.py, workers/tasks.py)
    broker_polling_interval: float = 0.1
    broker_keyprefix: str = ""
    lock_url: str = ""
    poll_lease_ttl: float = 120.0
    final_poll_grace: float = 600.0
    retry_max: int = 8
    retry_base: float = 2.0
    retry_cap: float = 600.0
    # health (pbp/jobs/health.py) and supervision by ``pbp serve`` (workers/supervisor.py)
    heartbeat_interval: float = 15.0
    heartbeat_stale: float = 60.0
    restart_max: int = 5
    restart_window: float = 300.0
    restart_backoff: float = 1.0
    serve_worker_command: str = ""
    serve_beat_command: str = ""

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser()

    def with_overrides(self, **changes: Any) -> Settings:
        return _finish(dataclasses.replace(self, **changes))


_KIND_WORDS = {int: "a whole number", float: "a number", str: "text"}


def _coerce(name: str, raw: Any, kind: type) -> Any:
    if kind is str and isinstance(raw, list):   # a TOML list for a comma-separated setting
        return ",".join(str(item) for item in raw)
    if kind is bool and isinstance(raw, str):
        if raw.lower() in {"1", "true", "yes", "on"}:
            return True
        if raw.lower() in {"0", "false", "no", "off", ""}:
            return False
        raise ConfigError(f"{name} must be true or false, not {raw!r}")
    try:
        return kind(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be {_KIND_WORDS.get(kind, kind.__name__)}, not {raw!r}") from None


def _apply(base: dict[str, Any], layer: Mapping[str, Any], where: str,
           relative_to: Path | None = None) -> None:
    """Lay *layer* over *base*; a relative ``data_dir`` is taken from *relative_to* (the
    folder of the file that sets it, or the current directory)."""
    kinds = {f.name: type(f.default) for f in dataclasses.fields(Settings)}
    for key, value in layer.items():
        if key not in kinds:
            raise ConfigError(f"unknown setting {key!r}", where=where)
        base[key] = _coerce(key, value, kinds[key])
        if key == "data_dir" and base[key]:
            path = Path(base[key]).expanduser()
            base[key] = str(path if path.is_absolute() else (relative_to or Path.cwd()).absolute() / path)


def default_data_dir(env: Mapping[str, str]) -> Path:
    """The user's data directory for pbp: ``$XDG_DATA_HOME/pbp`` when *env* names one (the
    XDG rule, read from *env* so tests can point it elsewhere), else platformdirs'."""
    xdg = env.get("XDG_DATA_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "pbp"
    return Path(platformdirs.user_data_dir("pbp", appauthor=False))


def user_config_file(env: Mapping[str, str]) -> Path:
    """The user's settings file: ``$XDG_CONFIG_HOME/pbp/pbp.toml``, else platformdirs'."""
    xdg = env.get("XDG_CONFIG_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path(
        platformdirs.user_config_dir("pbp", appauthor=False)).parent
    return base / "pbp" / "pbp.toml"


def _read_file(values: dict[str, Any], path: Path) -> None:
    try:
        layer = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML ({exc})", where=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the settings file ({exc.strerror})", where=str(path)) from None
    _apply(values, layer, str(path), relative_to=path.parent)


def _finish(s: Settings) -> Settings:
    data = s.data_path
    changes: dict[str, Any] = {}
    if s.secrets_file and not Path(s.secrets_file).expanduser().is_absolute():
        changes["secrets_file"] = str(data / s.secrets_file)
    if not s.database_url:
        changes["database_url"] = f"sqlite:///{data / 'pbp.sqlite'}"
    if not s.broker_url:
        changes["broker_url"] = f"sqla+sqlite:///{data / 'broker.sqlite'}"
    return dataclasses.replace(s, **changes) if changes else s


def load_settings(env: Mapping[str, str] | None = None, file: str | os.PathLike[str] | None = None) -> Settings:
    """Build the settings from the three layers. *env* defaults to ``os.environ``."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    default_file = CONFIG_DIR / "pbp.toml"
    if not default_file.is_file():   # a broken install: said, not run on other defaults
        raise ConfigError("the shipped default settings are missing: reinstall pbp",
                          where=str(default_file))
    _read_file(values, default_file)
    mine = user_config_file(env)
    if mine.is_file():
        _read_file(values, mine)
    extra = file or env.get("PBP_CONFIG")
    if extra:
        path = Path(extra).expanduser()
        if not path.exists():
            raise ConfigError("settings file not found", where=str(path))
        _read_file(values, path)
    names = {f.name for f in dataclasses.fields(Settings)}
    _apply(values, {k[4:].lower(): v for k, v in env.items()
                    if k.startswith("PBP_") and k[4:].lower() in names}, "environment")
    if not values.get("data_dir"):
        values["data_dir"] = str(default_data_dir(env))
    return _finish(Settings(**values))


def ensure_secret_key(settings: Settings) -> str:
    """The panel's secret key: the setting, else a key generated once into
    ``<data_dir>/secret_key``.

    Created with O_EXCL, so gunicorn workers starting together agree on one key (with a
    plain exists-then-write, two workers could each keep their own and refuse each
    other's session cookies).
    """
    if settings.secret_key:
        return settings.secret_key
    path = settings.data_path / "secret_key"
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # another worker is writing it right now
            text = path.read_text().strip()
            if text:
                return text
            time.sleep(0.02)
        raise ConfigError("the secret key file is empty", where=str(path)) from None
    with os.fdopen(fd, "w") as f:
        f.write(key)
    return key


def _secrets_file(settings: Settings) -> dict[str, dict[str, str]]:
    if not settings.secrets_file:
        return {}
    path = Path(settings.secrets_file).expanduser()
    if not path.exists():
        raise ConfigError("secrets file not found", where=str(path))
    return {k: dict(v) for k, v in tomllib.loads(path.read_text()).items()}


def secret_env_name(host: str, port: int | None = None) -> str:
    """The env var prefix of a host's (or host and port's) secrets: every character
    that cannot be in a variable name becomes ``_``.

    >>> secret_env_name("forum.example.org"), secret_env_name("127.0.0.1", 8002)
    ('PBP_SECRET_FORUM_EXAMPLE_ORG', 'PBP_SECRET_127_0_0_1_8002')
    """
    name = re.sub(r"[^A-Z0-9]", "_", host.upper().rstrip("."))
    return f"PBP_SECRET_{name}_{port}" if port else f"PBP_SECRET_{name}"


#: a field's name after the host's prefix: one word, or a known two-word field (an unknown
#: underscore would let host ``forum`` read ``PBP_SECRET_FORUM_EXAMPLE_ORG_USERNAME``)
_FIELD = re.compile(r"[A-Z][A-Z0-9]*|API_KEY|API_USERNAME|CLIENT_ID|CLIENT_SECRET")


def secrets_for(settings: Settings, host: str, port: int | None = None,
                env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The bot credentials of one forum: those given for its host *and port* first
    (``PBP_SECRET_<HOST>_<PORT>_USERNAME``, or ``["host:port"]`` in the secrets file), else
    those for its host (``PBP_SECRET_<HOST>_USERNAME``, ``["host"]``). The first level that
    has any field is used whole, so two forums on one host with different ports keep
    separate accounts and never mix one's username with the other's password. In each
    level an env var wins over the file, field by field. Never read from or written to
    the database; never logged.

    >>> env = {"PBP_SECRET_127_0_0_1_8002_USERNAME": "a", "PBP_SECRET_127_0_0_1_USERNAME": "b",
    ...        "PBP_SECRET_127_0_0_1_PASSWORD": "pb", "PBP_SECRET_127_0_0_1_API_KEY": "k"}
    >>> secrets_for(Settings(), "127.0.0.1", 8002, env), secrets_for(Settings(), "127.0.0.1", 8003, env)
    ({'username': 'a'}, {'username': 'b', 'password': 'pb', 'api_key': 'k'})
    """
    env = os.environ if env is None else env
    table = _secrets_file(settings)
    host = host.lower().rstrip(".")
    levels = ([(f"{host}:{port}", secret_env_name(host, port))] if port else []) + [
        (host, secret_env_name(host))]
    for key, prefix in levels:
        found = dict(table.get(key, {}))
        for name, value in env.items():
            spelled = name.upper().replace("__", "_")    # REDDIT__COM: the older spelling of a dot
            if spelled.startswith(prefix + "_") and _FIELD.fullmatch(spelled[len(prefix) + 1:]):
                found[spelled[len(prefix) + 1:].lower()] = value
        if found:
            return found
    return {}

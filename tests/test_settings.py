"""Worker knobs are ordinary settings: config/pbp.toml -> PBP_CONFIG file -> PBP_* env."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbp.settings import Settings, load_settings


def test_worker_knob_from_file_overridden_by_environment(tmp_path: Path) -> None:
    assert load_settings(env={}).retry_max == Settings.retry_max == 8  # config/pbp.toml agrees
    conf = tmp_path / "pbp.toml"
    conf.write_text('retry_max = 3\nfinal_poll_grace = 45\nbroker_keyprefix = "site:"\n')
    from_file = load_settings(env={"PBP_CONFIG": str(conf)})
    assert (from_file.retry_max, from_file.final_poll_grace, from_file.broker_keyprefix) == (3, 45.0, "site:")
    env = {"PBP_CONFIG": str(conf), "PBP_RETRY_MAX": "30", "PBP_BROKER_KEYPREFIX": "run1:"}
    overridden = load_settings(env=env)
    assert (overridden.retry_max, overridden.final_poll_grace, overridden.broker_keyprefix) == (30, 45.0, "run1:")


def test_worker_knobs_reach_the_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kombu.transport.sqlalchemy as sqla_transport

    from workers.celery_app import make_celery
    from workers.runtime import runtime

    monkeypatch.setattr(sqla_transport.Transport, "polling_interval", sqla_transport.Transport.polling_interval)

    settings = load_settings(env={"PBP_DATA_DIR": str(tmp_path), "PBP_RETRY_BASE": "0.5",
                                  "PBP_RETRY_CAP": "4", "PBP_BROKER_POLLING_INTERVAL": "0.05"})
    make_celery(settings)
    assert sqla_transport.Transport.polling_interval == 0.05
    rt = runtime(settings)
    assert all(rt.backoff(n) <= 4 for n in range(10))
    assert rt.backoff(0) <= 0.5

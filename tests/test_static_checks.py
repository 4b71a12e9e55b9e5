"""Strict checks as tests, so the one test command (``python3 -m pytest``) runs them in CI.

- ``mypy --strict`` over the pure engine and the dice: the contract every caller leans on.
- ruff with the rule set chosen in pyproject.toml (bugs, imports, modern spellings).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from mypy import api as mypy_api

from tests.conftest import ROOT


@pytest.mark.slow
def test_mypy_strict_over_the_engine_and_the_dice() -> None:
    out, err, status = mypy_api.run(
        ["--strict", "--no-incremental", "--config-file", str(ROOT / "pyproject.toml"),
         str(ROOT / "pbp" / "rules"), str(ROOT / "pbp" / "dice.py")]
    )
    assert status == 0, out + err


def test_ruff_finds_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "pbp", "workers", "tests", "bench"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr

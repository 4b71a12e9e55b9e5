"""The tests' side of the forum harnesses (tests/harness/machina, tests/harness/misago):
each one's server.py loaded as a module, set up first when it is missing (skip locally,
fail in CI if that fails), and a fixture's body yielding one running server."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.conftest import missing


def load_harness(name: str, here: Path) -> Any:
    """*here*/server.py (stdlib only, also run as a script) loaded as the module
    ``<name>_harness``, after *here*/setup.sh when the harness is not ready."""
    module = f"{name}_harness"
    harness = sys.modules.get(module)
    if harness is None:
        spec = importlib.util.spec_from_file_location(module, here / "server.py")
        assert spec and spec.loader
        harness = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = harness     # dataclasses look their module up
        spec.loader.exec_module(harness)
    if not harness.ready():
        done = subprocess.run(["bash", str(here / "setup.sh")], capture_output=True,
                              text=True, timeout=900)
        if done.returncode != 0 or not harness.ready():
            missing(f"{name} harness could not be set up: " + done.stderr[-500:])
    return harness


def serve(harness: Any, name: str, **kwargs: Any) -> Iterator[Any]:
    """``yield from serve(harness, name, ...)`` in a fixture: a started server, stopped after."""
    try:
        server = harness.start(**kwargs)
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        missing(f"{name} server did not start: {exc}")
    try:
        yield server
    finally:
        server.stop()

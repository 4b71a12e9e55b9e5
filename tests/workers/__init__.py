"""Tests of workers/.

pytest imports this folder as the package ``workers`` (tests/ is put on sys.path, and this
folder has an ``__init__``), which shadows the repository's ``workers``; without the line
below, ``workers.<module>`` was found by whatever installed pbp (an editable install of
another checkout), so a worktree's tests ran that checkout's workers. The repository's
workers folder is searched after this one, so every checkout tests its own code.
"""

from pathlib import Path

__path__.append(str(Path(__file__).resolve().parents[2] / "workers"))  # noqa: F821

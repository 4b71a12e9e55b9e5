"""``python -m pbp.cli``: the ``pbp`` command without its installed script (a checkout,
a second worktree on ``PYTHONPATH``)."""

from . import main

main()

"""pbp: moderation service for tabletop-RPG combat played by post.

The rules engine (:mod:`pbp.rules`) is pure; dice come only from :mod:`pbp.dice`;
sources, store, workers and panel are thin edges around them (see docs/design.md).
"""

__version__ = "0.1.0"
